/* The mistakes docs/troubleshooting.md lists, caught where they are made
 * (verify/wh_config_lint.h): a byte-order mark refused by the secret and
 * htpasswd loaders, one file named by SigningSecretFile and BasicAuthFile
 * refused by finalize, secrets with spaces or quotes around them or an
 * htpasswd line warned about, ForwardSecretFile open to others or the
 * bank's secret itself, SetHandler wirehook without a configuration, and
 * an inbox the packaged forwarder's unit cannot write to. */
#include "wh_test.h"
#include "verify/wh_auth.h"
#include "config/wh_config_load.h"
#include "verify/wh_config_lint.h"
#include "verify/wh_signature.h"
#include "forward/wh_forward.h"

#include <apr_strings.h>
#include <stdio.h>
#include <unistd.h>

#define HT_SHA "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="   /* "password" */

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *s = text; s && (s = strstr(s, needle)) != NULL; s++)
        n++;
    return n;
}

static void test_bom_refused(void)
{
    apr_array_header_t *secrets = NULL;
    apr_hash_t *users = NULL;
    const char *s = wh_test_tmpfile(WH_UTF8_BOM "the-secret\nsecond\n", 0600);
    const char *u = wh_test_tmpfile(WH_UTF8_BOM "bank:" HT_SHA "\n", 0600);
    const char *err;

    err = wh_secrets_load(P(), s, &secrets);
    CU_ASSERT(contains(err, apr_pstrcat(P(), s, ":1: starts with a byte-order mark", NULL)));
    CU_ASSERT(contains(err, "save the file as UTF-8 without it"));
    CU_ASSERT(!contains(err, "the-secret"));
    CU_ASSERT_PTR_NULL(secrets);
    err = wh_htpasswd_load(P(), u, &users);
    CU_ASSERT(contains(err, apr_pstrcat(P(), u, ":1: starts with a byte-order mark", NULL)));
    CU_ASSERT_PTR_NULL(users);

    /* the same bytes later in the file are a secret like any other */
    s = wh_test_tmpfile("first\n" WH_UTF8_BOM "odd\n", 0600);
    CU_ASSERT_PTR_NULL(wh_secrets_load(P(), s, &secrets));
    CU_ASSERT_EQUAL(secrets ? secrets->nelts : 0, 2);
}

static void test_secret_line_problems(void)
{
    static const char *const fine[] = { "abc", "a b", "#starts-with-hash", "\"", "'",
                                        "\"abc'", "user:plain", "a:$1$x", NULL };
    for (int i = 0; fine[i]; i++)
        CU_ASSERT_PTR_NULL(wh_secret_line_problem(fine[i], strlen(fine[i])));
    CU_ASSERT(contains(wh_secret_line_problem("abc ", 4), "space or a tab"));
    CU_ASSERT(contains(wh_secret_line_problem(" abc", 4), "space or a tab"));
    CU_ASSERT(contains(wh_secret_line_problem("abc\t", 4), "remove it, unless"));
    CU_ASSERT(contains(wh_secret_line_problem("\"abc\"", 5), "in quotes"));
    CU_ASSERT(contains(wh_secret_line_problem("'abc'", 5), "remove them, unless"));
    CU_ASSERT(contains(wh_secret_line_problem("bank:$2y$05$abc", 15), "htpasswd line"));
    CU_ASSERT(contains(wh_secret_line_problem("bank:" HT_SHA, strlen("bank:" HT_SHA)),
                       "htpasswd line"));
    CU_ASSERT(contains(wh_secret_line_problem("b:$apr1$x$y", 11), "htpasswd line"));
    CU_ASSERT_PTR_NULL(wh_secret_line_problem("", 0));
}

static wh_config *config_with(const char *secret, const char *users)
{
    wh_config *c = wh_config_create(P());
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "SigningSecretFile", secret, 0));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "BasicAuthFile", users, 0));
    return c;
}

static void test_secret_warnings(void)
{
    const char *s = wh_test_tmpfile("good\r\n'quoted'\r\n\ntrailing \nbank:" HT_SHA "\n", 0600);
    const char *u = wh_test_tmpfile("bank:" HT_SHA "\n", 0600);
    wh_config *c = config_with(s, u);
    const char *w;

    CU_ASSERT_PTR_NULL(wh_config_finalize(P(), c));   /* legal: warned only */
    w = wh_config_lint_warnings(P(), c, WH_PART_VERIFY);
    CU_ASSERT(contains(w, apr_pstrcat(P(), "SigningSecretFile ", s, ":2: is in quotes", NULL)));
    CU_ASSERT(contains(w, apr_pstrcat(P(), s, ":4: begins or ends with a space", NULL)));
    CU_ASSERT(contains(w, apr_pstrcat(P(), s, ":5: looks like an htpasswd line", NULL)));
    CU_ASSERT_EQUAL(count(w, "SigningSecretFile "), 3);
    CU_ASSERT(!contains(w, "quoted"));   /* never a byte of a secret */
    CU_ASSERT(!contains(w, "trailing"));
    /* without the secrets' part, nothing is read */
    CU_ASSERT_PTR_NULL(wh_config_lint_warnings(P(), c, WH_PART_USERS));

    c = config_with(wh_test_tmpfile("clean-secret\n", 0600), u);
    CU_ASSERT_PTR_NULL(wh_config_lint_warnings(P(), c, WH_PART_VERIFY | WH_PART_FORWARD));
}

static void test_secret_file_is_htpasswd(void)
{
    const char *u = wh_test_tmpfile("bank:" HT_SHA "\n", 0600);
    const char *dir = wh_test_tmpdir("lint");
    const char *link = apr_pstrcat(P(), dir, "/link", NULL);
    wh_config *c = config_with(u, u);
    const char *err = wh_config_finalize(P(), c);

    CU_ASSERT(contains(err, "SigningSecretFile: "));
    CU_ASSERT(contains(err, "is also BasicAuthFile's file"));
    CU_ASSERT(contains(err, "goes in a file of its own"));
    /* another name for the same file */
    CU_ASSERT_EQUAL_FATAL(symlink(u, link), 0);
    c = config_with(link, u);
    CU_ASSERT(contains(wh_config_finalize(P(), c), "is also BasicAuthFile's file"));
    /* the forwarder reads neither: its parts never refuse it */
    c = config_with(u, u);
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxParams", "/tmp/x.db", 0));
    CU_ASSERT_PTR_NULL(wh_config_finalize_parts(P(), c, WH_PART_INBOX));
    /* and two files are fine */
    c = config_with(wh_test_tmpfile("s\n", 0600), u);
    CU_ASSERT_PTR_NULL(wh_config_finalize(P(), c));
}

static void test_forward_secret(void)
{
    const char *s = wh_test_tmpfile("bank-secret\n", 0600);
    const char *u = wh_test_tmpfile("bank:" HT_SHA "\n", 0600);
    const char *f = wh_test_tmpfile("\"app-secret\"\n", 0644);
    wh_config *c = config_with(s, u);
    const char *w;

    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "ForwardUrl", "http://127.0.0.1:9/x", 0));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "ForwardSecretFile", f, 0));
    w = wh_config_permission_warnings(P(), c);
    CU_ASSERT(contains(w, apr_pstrcat(P(), "ForwardSecretFile ", f, " is readable by others",
                                      NULL)));
    w = wh_config_lint_warnings(P(), c, WH_PART_FORWARD);
    CU_ASSERT(contains(w, apr_pstrcat(P(), "ForwardSecretFile ", f, ":1: is in quotes", NULL)));
    /* the module and the CGI never read it */
    CU_ASSERT_PTR_NULL(wh_config_lint_warnings(P(), c, WH_PART_VERIFY));

    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "ForwardSecretFile", s, 1));
    w = wh_config_lint_warnings(P(), c, WH_PART_VERIFY);
    CU_ASSERT(contains(w, "is also SigningSecretFile's file"));
    CU_ASSERT(contains(w, "openssl rand -hex 32"));
}

static void test_inbox_without_config(void)
{
    const char *m = wh_lint_inbox_without_config(P(), "<Location /v1/wires>");
    CU_ASSERT(contains(m, "<Location /v1/wires>: SetHandler wirehook"));
    CU_ASSERT(contains(m, "answered 500"));
    CU_ASSERT(contains(m, "add WirehookConfig FILE to the same section"));
}

static void test_forward_unit_paths(void)
{
    wh_config *c = wh_config_create(P());
    const char *w;

    c->source = WH_FORWARD_UNIT_CONFIG_DIR "/hooks.conf";
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxParams", "/srv/hooks/inbox.db", 0));
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));   /* no forwarding */
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "ForwardUrl", "http://127.0.0.1:9/x", 0));
    w = wh_forward_unit_warning(P(), c);
    CU_ASSERT(contains(w, "InboxParams /srv/hooks/inbox.db: the packaged unit "
                          "wirehook-forward@hooks may write"));
    CU_ASSERT(contains(w, "only under " WH_FORWARD_UNIT_WRITABLE));
    CU_ASSERT(contains(w, "systemctl edit wirehook-forward@hooks"));
    CU_ASSERT(contains(w, "ReadWritePaths=/srv/hooks)"));

    /* a file the unit never runs: no unit to warn about */
    c->source = "/srv/hooks/hooks.conf";
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));
    c->source = WH_FORWARD_UNIT_CONFIG_DIR "/sub/hooks.conf";
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));
    c->source = WH_FORWARD_UNIT_CONFIG_DIR "/hooks.cfg";
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));
    c->source = WH_FORWARD_UNIT_CONFIG_DIR "/hooks.conf";

    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxParams",
                                     WH_FORWARD_UNIT_WRITABLE "/inbox/inbox.db", 1));
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxParams",
                                     WH_FORWARD_UNIT_WRITABLE "/inbox.db", 1));
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));
    /* a directory whose name only starts the same */
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxParams",
                                     WH_FORWARD_UNIT_WRITABLE "-old/inbox.db", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_forward_unit_warning(P(), c));
    /* PostgreSQL: nothing on disk */
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxDriver", "pgsql", 0));
    CU_ASSERT_PTR_NULL(wh_config_set(P(), c, "InboxParams", "host=db dbname=w", 1));
    CU_ASSERT_PTR_NULL(wh_forward_unit_warning(P(), c));
}

static const wh_test_case cases[] = {
    { "a byte-order mark is refused", test_bom_refused },
    { "what a secret line may hold by mistake", test_secret_line_problems },
    { "secret files: each mistake warned with its line", test_secret_warnings },
    { "the htpasswd file as the secret file is refused", test_secret_file_is_htpasswd },
    { "ForwardSecretFile: open to others, quotes, the bank's", test_forward_secret },
    { "SetHandler wirehook without WirehookConfig", test_inbox_without_config },
    { "the forwarder's unit and the inbox's directory", test_forward_unit_paths },
    { NULL, NULL }
};

WH_TEST_SUITE(config_lint, cases)
