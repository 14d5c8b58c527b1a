/* The parts of a configuration (wh_config_finalize_parts): each program
 * reads only the files it uses and requires only the keys it uses, and an
 * error about a file names the key and the line that gave it. */
#include "wh_test.h"
#include "config/wh_config_load.h"

#include <apr_strings.h>
#include <sys/stat.h>

#define HT_SHA "{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0=" /* htpasswd -nbs bob hunter2 */

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

static const char *load(const char *text, unsigned parts, wh_config **cfg,
                        const char **path)
{
    const char *file = wh_test_tmpfile(text, 0600);
    if (path)
        *path = file;
    return wh_config_load_parts(P(), file, parts, cfg);
}

/* A file nobody can open: absent, so the test does not depend on who
 * runs it (root reads a mode 0000 file). */
#define NOWHERE "/nonexistent/wh-parts"

/* The forwarder's parts: the secret and the htpasswd are neither
 * required nor opened, even when named and absent. */
static void test_forwarder_reads_no_credentials(void)
{
    wh_config *c = NULL;
    const char *err = load(apr_psprintf(P(),
        "SigningSecretFile " NOWHERE "/secret\n"
        "BasicAuthFile " NOWHERE "/htpasswd\n"
        "InboxParams /tmp/wh-parts.db\n"
        "ForwardUrl http://127.0.0.1:9/app\n"
        "ForwardSecretFile " NOWHERE "/fwd\n"), WH_PART_INBOX | WH_PART_FORWARD,
        &c, NULL);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NULL(c->secrets);
    CU_ASSERT_PTR_NULL(c->users);
    /* and the same file under the module's parts fails on both */
    err = wh_config_finalize_parts(P(), c, WH_PART_VERIFY);
    CU_ASSERT(contains(err, "SigningSecretFile: cannot open " NOWHERE "/secret"));
    CU_ASSERT(contains(err, "BasicAuthFile: cannot open " NOWHERE "/htpasswd"));
}

static void test_forwarder_needs_no_credential_keys(void)
{
    wh_config *c = NULL;
    CU_ASSERT_PTR_NULL(load("InboxParams /tmp/wh-parts.db\n"
                            "ForwardUrl http://127.0.0.1:9/app\n"
                            "ForwardSecretFile /tmp/wh-parts.fwd\n",
                            WH_PART_INBOX | WH_PART_FORWARD, &c, NULL));
    CU_ASSERT_PTR_NULL(load("InboxParams /tmp/wh-parts.db\n", WH_PART_INBOX, &c,
                            NULL));
}

/* Required keys follow the parts. */
static void test_required_keys_follow_parts(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *err = load("TimestampTolerance 5m\n", WH_PART_INBOX | WH_PART_FORWARD,
                           &c, &path);
    CU_ASSERT(contains(err, apr_pstrcat(P(), path, ": missing required key "
                                        "InboxParams", NULL)));
    CU_ASSERT(contains(err, "missing required key ForwardUrl"));
    CU_ASSERT(!contains(err, "SigningSecretFile"));
    CU_ASSERT(!contains(err, "BasicAuthFile"));
    err = load("TimestampTolerance 5m\n", WH_PART_SECRETS, &c, &path);
    CU_ASSERT(contains(err, "missing required key SigningSecretFile"));
    CU_ASSERT(!contains(err, "BasicAuthFile"));
    CU_ASSERT(!contains(err, "InboxParams"));
    /* the cross-key rules hold whatever the parts */
    err = load("ForwardUrl http://127.0.0.1:9/app\n", WH_PART_INBOX, &c, &path);
    CU_ASSERT(contains(err, "ForwardUrl needs ForwardSecretFile"));
}

/* wirehook send signs: the secret is read, the htpasswd is not. */
static void test_secrets_part_alone(void)
{
    wh_config *c = NULL;
    const char *secret = wh_test_tmpfile("s1\ns2\n", 0600);
    const char *err = load(apr_psprintf(P(), "SigningSecretFile %s\n"
                                        "BasicAuthFile " NOWHERE "/htpasswd\n",
                                        secret), WH_PART_SECRETS, &c, NULL);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->secrets);
    CU_ASSERT_EQUAL(c->secrets->nelts, 2);
    CU_ASSERT_PTR_NULL(c->users);
}

/* A file that cannot be read is named with the key, and the line of the
 * configuration file that named it: "path:line: Key: cannot open FILE:
 * reason". */
static void test_file_errors_name_key_and_line(void)
{
    wh_config *c = NULL;
    const char *path;
    const char *secret = wh_test_tmpfile("s1\n", 0600);
    const char *err = load(apr_psprintf(P(), "# bank\nSigningSecretFile %s\n"
                                        "BasicAuthFile /x-wh-missing\n", secret),
                           WH_PART_VERIFY, &c, &path);
    ASSERT_STR(err, apr_psprintf(P(), "%s:3: BasicAuthFile: cannot open "
                                 "/x-wh-missing: No such file or directory",
                                 path));
    /* a bad line inside the file: its own path and line too */
    const char *users = wh_test_tmpfile("bob:" HT_SHA "\nnocolon\n", 0600);
    err = load(apr_psprintf(P(), "SigningSecretFile %s\nBasicAuthFile %s\n",
                            secret, users), WH_PART_VERIFY, &c, &path);
    CU_ASSERT(contains(err, apr_psprintf(P(), "%s:2: BasicAuthFile: %s:2: "
                                         "malformed htpasswd line", path, users)));
    CU_ASSERT_PTR_NULL(c->users);
}

/* What was read is remembered by identity, for the re-reads (wh_creds.h). */
static void test_identity_of_what_was_read(void)
{
    wh_config *c = NULL;
    struct stat st;
    const char *secret = wh_test_tmpfile("s1\n", 0600);
    const char *users = wh_test_tmpfile("bob:" HT_SHA "\n", 0600);
    CU_ASSERT_PTR_NULL(load(apr_psprintf(P(), "SigningSecretFile %s\n"
                                         "BasicAuthFile %s\n", secret, users),
                            WH_PART_VERIFY, &c, NULL));
    CU_ASSERT_FATAL(stat(secret, &st) == 0);
    CU_ASSERT_EQUAL(c->secrets_id.inode, st.st_ino);
    CU_ASSERT_EQUAL(c->secrets_id.size, 3);
    CU_ASSERT_FATAL(stat(users, &st) == 0);
    CU_ASSERT_EQUAL(c->users_id.inode, st.st_ino);
    CU_ASSERT_NOT_EQUAL(c->users_id.mtime, 0);
}

static const wh_test_case cases[] = {
    {"the forwarder reads no credentials", test_forwarder_reads_no_credentials},
    {"the forwarder needs no credential keys", test_forwarder_needs_no_credential_keys},
    {"required keys follow the parts", test_required_keys_follow_parts},
    {"the secrets part alone", test_secrets_part_alone},
    {"file errors name the key and the line", test_file_errors_name_key_and_line},
    {"identity of what was read", test_identity_of_what_was_read},
    {NULL, NULL}};

WH_TEST_SUITE(config_parts, cases)
