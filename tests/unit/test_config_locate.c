/* Where wirehook.cgi finds its configuration (verify/wh_config_locate.h):
 * WIREHOOK_CONFIG, else .htNAME.conf beside the script, else
 * ~/.wirehook/NAME.conf; what the error log says when none exists. */
#include "wh_test.h"
#include "verify/wh_config_locate.h"
#include <apr_strings.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

/* A fake environment: NAME=VALUE strings; records every name asked for. */
typedef struct {
    const char *const *vars;
    const char *asked;
} fake_env;

static const char *env_get(void *ctx, const char *name)
{
    fake_env *e = ctx;
    apr_size_t n = strlen(name);

    e->asked = e->asked ? apr_pstrcat(P(), e->asked, " ", name, NULL) : name;
    for (const char *const *v = e->vars; v && *v; v++)
        if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
            return *v + n + 1;
    return NULL;
}

typedef struct {
    const char *home; /* NULL: unknown */
    int calls;
} fake_home;

static const char *home_get(void *ctx, apr_pool_t *p, const char **why)
{
    fake_home *h = ctx;
    (void)p;
    h->calls++;
    if (!h->home)
        *why = "no account has uid 4242";
    return h->home;
}

/* A file at dir/name, removed with the test's pool (before its
 * directory, which wh_test_tmpdir removes). */
static apr_status_t remove_path(void *data)
{
    if (unlink(data) != 0)
        rmdir(data);
    return APR_SUCCESS;
}

static const char *touch(const char *dir, const char *name)
{
    const char *path = apr_pstrcat(P(), dir, "/", name, NULL);
    FILE *f = fopen(path, "w");

    if (f)
        fclose(f);
    apr_pool_cleanup_register(P(), path, remove_path, apr_pool_cleanup_null);
    return path;
}

static const char *mkdir_in(const char *dir, const char *name)
{
    const char *path = apr_pstrcat(P(), dir, "/", name, NULL);

    mkdir(path, 0700);
    apr_pool_cleanup_register(P(), path, remove_path, apr_pool_cleanup_null);
    return path;
}

static const wh_config_place *place(const wh_config_found *f, int i)
{
    return i < f->places->nelts ? &APR_ARRAY_IDX(f->places, i, wh_config_place)
                                : NULL;
}

static void test_stem(void)
{
    ASSERT_STR(wh_config_script_stem(P(), "/var/www/alice/hooks/orders.cgi"),
               "orders");
    ASSERT_STR(wh_config_script_stem(P(), "orders.cgi"), "orders");
    ASSERT_STR(wh_config_script_stem(P(), "./refunds.cgi"), "refunds");
    ASSERT_STR(wh_config_script_stem(P(), "/srv/wirehook"), "wirehook");
    ASSERT_STR(wh_config_script_stem(P(), "/srv/a.b.cgi"), "a.b");
    ASSERT_STR(wh_config_script_stem(P(), "/srv/x.y/hook"), "hook");
    ASSERT_STR(wh_config_script_stem(P(), "/srv/.cgi"), ".cgi");
    CU_ASSERT_PTR_NULL(wh_config_script_stem(P(), "/srv/hooks/"));
    CU_ASSERT_PTR_NULL(wh_config_script_stem(P(), ""));
    CU_ASSERT_PTR_NULL(wh_config_script_stem(P(), NULL));
}

/* WIREHOOK_CONFIG that reached the program wins, and is the only name
 * the rule asks the environment for: a request header arrives as
 * HTTP_WIREHOOK_CONFIG, which nothing reads. */
static void test_environment_first(void)
{
    const char *dir = wh_test_tmpdir("locate");
    const char *vars[] = {"HTTP_WIREHOOK_CONFIG=/tmp/evil.conf",
                          "WIREHOOK_CONFIG=/etc/wirehook/orders.conf", NULL};
    fake_env env = {vars, NULL};
    fake_home home = {"/home/alice", 0};
    wh_config_found f;

    touch(dir, ".htorders.conf");
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    ASSERT_STR(f.path, "/etc/wirehook/orders.conf");
    CU_ASSERT_EQUAL(f.from_env, 1);
    CU_ASSERT_EQUAL(f.places->nelts, 1);
    CU_ASSERT_EQUAL(home.calls, 0);
    ASSERT_STR(env.asked, "WIREHOOK_CONFIG");
    ASSERT_STR(wh_config_locate_report(P(), &f),
               "/etc/wirehook/orders.conf (set)");

    /* set but empty is not set */
    vars[1] = "WIREHOOK_CONFIG=";
    env.asked = NULL;
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    ASSERT_STR(f.path, apr_pstrcat(P(), dir, "/.htorders.conf", NULL));
    CU_ASSERT_EQUAL(f.from_env, 0);
    ASSERT_STR(env.asked, "WIREHOOK_CONFIG");
}

static void test_beside_the_script(void)
{
    const char *dir = wh_test_tmpdir("locate");
    fake_env env = {NULL, NULL};
    fake_home home = {"/home/alice", 0};
    wh_config_found f;

    touch(dir, ".htorders.conf");
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    ASSERT_STR(f.path, apr_pstrcat(P(), dir, "/.htorders.conf", NULL));
    CU_ASSERT_EQUAL(f.from_env, 0);
    CU_ASSERT_EQUAL(f.places->nelts, 2);
    ASSERT_STR(place(&f, 0)->rule, WH_CONFIG_ENV);
    ASSERT_STR(place(&f, 0)->why, "not set");
    CU_ASSERT_PTR_NULL(place(&f, 1)->why);
    /* found before the home directory was needed */
    CU_ASSERT_EQUAL(home.calls, 0);

    /* another script in the same directory has its own file */
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/refunds.cgi", NULL), home_get,
                     &home, &f);
    CU_ASSERT_PTR_NULL(f.path);
    ASSERT_STR(place(&f, 1)->path,
               apr_pstrcat(P(), dir, "/.htrefunds.conf", NULL));
    ASSERT_STR(place(&f, 1)->why, "no such file");
    ASSERT_STR(place(&f, 2)->path, "/home/alice/.wirehook/refunds.conf");
}

static void test_home_directory(void)
{
    const char *dir = wh_test_tmpdir("locate");
    const char *home_dir = wh_test_tmpdir("home");
    fake_env env = {NULL, NULL};
    fake_home home = {home_dir, 0};
    wh_config_found f;

    touch(mkdir_in(home_dir, ".wirehook"), "orders.conf");
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    ASSERT_STR(f.path,
               apr_pstrcat(P(), home_dir, "/.wirehook/orders.conf", NULL));
    CU_ASSERT_EQUAL(home.calls, 1);
    CU_ASSERT_EQUAL(f.places->nelts, 3);
    ASSERT_STR(place(&f, 1)->why, "no such file");
    CU_ASSERT_PTR_NULL(place(&f, 2)->why);
    ASSERT_STR(place(&f, 2)->rule, "the file in the home directory");

    /* a home directory of "/" does not make "//.wirehook" */
    home.home = "/";
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    ASSERT_STR(place(&f, 2)->path, "/.wirehook/orders.conf");
}

/* Nothing found: every place named in the report, with what was there. */
static void test_nothing_found(void)
{
    const char *dir = wh_test_tmpdir("locate");
    fake_env env = {NULL, NULL};
    fake_home home = {"/nonexistent-home", 0};
    wh_config_found f;
    const char *report;

    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    CU_ASSERT_PTR_NULL(f.path);
    report = wh_config_locate_report(P(), &f);
    ASSERT_STR(
        report,
        apr_psprintf(P(),
                     "WIREHOOK_CONFIG (not set), %s/.htorders.conf "
                     "(no such file), /nonexistent-home/.wirehook/orders.conf "
                     "(no such file)",
                     dir));

    /* the home directory unknown: said so */
    home.home = NULL;
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    CU_ASSERT_PTR_NULL(f.path);
    CU_ASSERT(
        contains(wh_config_locate_report(P(), &f),
                 "the file in the home directory (no account has uid 4242)"));

    /* no script name: neither file can be named */
    wh_config_locate(P(), env_get, &env, NULL, home_get, &home, &f);
    CU_ASSERT_PTR_NULL(f.path);
    ASSERT_STR(
        wh_config_locate_report(P(), &f),
        "WIREHOOK_CONFIG (not set), the file beside the script (the script's "
        "name is not known), the file in the home directory (the script's name "
        "is not known)");
}

/* A file that is there but cannot be read is used (and its reader says
 * why it fails), never passed over for the next place. */
static void test_present_but_unreadable_is_used(void)
{
    const char *dir = wh_test_tmpdir("locate");
    fake_env env = {NULL, NULL};
    fake_home home = {"/home/alice", 0};
    wh_config_found f;
    const char *conf = touch(dir, ".htorders.conf");

    chmod(conf, 0);
    wh_config_locate(P(), env_get, &env,
                     apr_pstrcat(P(), dir, "/orders.cgi", NULL), home_get,
                     &home, &f);
    ASSERT_STR(f.path, conf);
    CU_ASSERT_EQUAL(home.calls, 0);
}

/* A relative script path (argv[0] under suEXEC, which runs the program
 * from its directory) gives relative places. */
static void test_relative_script(void)
{
    fake_env env = {NULL, NULL};
    fake_home home = {"/home/alice", 0};
    wh_config_found f;

    wh_config_locate(P(), env_get, &env, "wh-no-such-script.cgi", home_get,
                     &home, &f);
    ASSERT_STR(place(&f, 1)->path, ".htwh-no-such-script.conf");
    ASSERT_STR(place(&f, 2)->path,
               "/home/alice/.wirehook/wh-no-such-script.conf");
}

static const wh_test_case cases[] = {
    {"the script's name without directory and extension", test_stem},
    {"WIREHOOK_CONFIG first, the only name asked for", test_environment_first},
    {".htNAME.conf beside the script", test_beside_the_script},
    {"~/.wirehook/NAME.conf from the account's home", test_home_directory},
    {"nothing found: every place in the report", test_nothing_found},
    {"a present file that cannot be read is used",
     test_present_but_unreadable_is_used},
    {"a relative script path", test_relative_script},
    {NULL, NULL}};

WH_TEST_SUITE(config_locate, cases)
