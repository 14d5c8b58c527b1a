/* CUnit runner for the core's unit suites. */
#include "wh_test.h"
#include <CUnit/Basic.h>
#include <apr_general.h>
#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* More suites than this is a registration the runner refuses (main says
 * so) rather than a suite left out unseen. */
#define WH_MAX_SUITES 128
#define WH_MAX_LEAVE_TO 128

typedef struct {
    const char *name;
    const wh_test_case *cases;
    const wh_test_need *need;
    CU_pSuite cu;
    int left_out;       /* not run here, and not counted */
} wh_suite_reg;

static wh_suite_reg suites[WH_MAX_SUITES];
static int n_suites, too_many_suites;
static apr_pool_t *root_pool;
static apr_pool_t *test_pool;
static apr_array_header_t *tmpfiles;

/* What the run counted, test by test (CUnit 2.1 has no skipped tests:
 * wh_test_skip marks the running one, the complete handler counts it). */
static unsigned n_passed, n_failed, n_skipped;
static const char *skip_reason;     /* the running test's, or NULL */
static apr_array_header_t *skip_lines;

void wh_test_register_suite(const char *name, const wh_test_case *cases,
                            const wh_test_need *need)
{
    if (n_suites >= WH_MAX_SUITES) {
        too_many_suites = 1;
        return;
    }
    suites[n_suites].name = name;
    suites[n_suites].cases = cases;
    suites[n_suites].need = need;
    n_suites++;
}

void wh_test_skip(const char *reason)
{
    /* the root pool lives through the run; the test pool is cleared */
    skip_reason = apr_pstrdup(root_pool, reason && *reason ? reason : "?");
}

apr_pool_t *wh_test_pool(void)
{
    return test_pool;
}

const char *wh_test_shared_dir(void)
{
    const char *d = getenv("WH_SHARED_DIR");
    return d && *d ? d : "../shared";
}

const char *wh_test_tmpfile(const char *content, int mode)
{
    char *path = apr_pstrdup(root_pool, "/tmp/wh-unit-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    size_t len = strlen(content);
    if (write(fd, content, len) != (ssize_t)len) {
        close(fd);
        return NULL;
    }
    fchmod(fd, (mode_t)mode);
    close(fd);
    APR_ARRAY_PUSH(tmpfiles, const char *) = path;
    return path;
}

static apr_status_t remove_tmpdir(void *data)
{
    const char *dir = data;
    apr_pool_t *p;
    apr_dir_t *d;
    apr_finfo_t fi;

    apr_pool_create(&p, NULL);
    chmod(dir, 0700);   /* a test may have taken its permissions away */
    if (apr_dir_open(&d, dir, p) == APR_SUCCESS) {
        while (apr_dir_read(&fi, APR_FINFO_NAME, d) == APR_SUCCESS) {
            const char *f = apr_pstrcat(p, dir, "/", fi.name, NULL);
            if (strcmp(fi.name, ".") && strcmp(fi.name, "..") && unlink(f) != 0)
                rmdir(f);
        }
        apr_dir_close(d);
    }
    rmdir(dir);
    apr_pool_destroy(p);
    return APR_SUCCESS;
}

const char *wh_test_tmpdir(const char *name)
{
    char *dir = apr_pstrcat(test_pool, "/tmp/wh-", name, "-XXXXXX", NULL);

    if (!mkdtemp(dir))
        return NULL;
    apr_pool_cleanup_register(test_pool, dir, remove_tmpdir, apr_pool_cleanup_null);
    return dir;
}

int wh_test_files_in(const char *dir)
{
    apr_dir_t *d;
    apr_finfo_t fi;
    int n = 0;

    if (apr_dir_open(&d, dir, test_pool) != APR_SUCCESS)
        return -1;
    while (apr_dir_read(&fi, APR_FINFO_NAME, d) == APR_SUCCESS)
        if (strcmp(fi.name, ".") && strcmp(fi.name, ".."))
            n++;
    apr_dir_close(d);
    return n;
}

mode_t wh_test_mode_of(const char *path, gid_t *gid)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return 0;
    if (gid)
        *gid = st.st_gid;
    return st.st_mode & 07777;
}

char *wh_test_slurp(const char *path, apr_size_t *len)
{
    apr_file_t *f;
    apr_finfo_t fi;
    if (apr_file_open(&f, path, APR_FOPEN_READ, 0, test_pool) != APR_SUCCESS)
        return NULL;
    if (apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS) {
        apr_file_close(f);
        return NULL;
    }
    apr_size_t n = (apr_size_t)fi.size;
    char *buf = apr_palloc(test_pool, n + 1);
    apr_status_t rv = apr_file_read_full(f, buf, n, &n);
    apr_file_close(f);
    if (rv != APR_SUCCESS && rv != APR_EOF)
        return NULL;
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int suite_init(void)
{
    return 0;
}

static void before_each(void)
{
    apr_pool_clear(test_pool);
}

/* ---- reporting ------------------------------------------------------- */

static void on_test_start(const CU_pTest t, const CU_pSuite s)
{
    (void)t;
    (void)s;
    skip_reason = NULL;
}

static void on_test_complete(const CU_pTest t, const CU_pSuite s,
                             const CU_pFailureRecord f)
{
    if (f) {
        n_failed++;
        printf("FAIL %s: %s\n", s->pName, t->pName);
        for (CU_pFailureRecord r = f; r && r->pTest == t; r = r->pNext)
            printf("     %s:%u: %s\n", r->strFileName ? r->strFileName : "?",
                   r->uiLineNumber, r->strCondition ? r->strCondition : "");
    }
    else if (skip_reason) {
        n_skipped++;
        APR_ARRAY_PUSH(skip_lines, const char *) = apr_psprintf(
            root_pool, "SKIP %s: %s: %s", s->pName, t->pName, skip_reason);
    }
    else
        n_passed++;
    fflush(stdout);
    skip_reason = NULL;
}

static void on_suite_init_failure(const CU_pSuite s)
{
    printf("FAIL %s: its set-up failed\n", s->pName);
}

/* 1 when the server reg needs is named in the environment */
static int need_met(const wh_suite_reg *reg)
{
    const char *v = reg->need ? getenv(reg->need->env) : "";
    return v && *v;
}

/* Counts as skipped, with the reason, the tests of a suite whose server is
 * not named (one test when only that one was asked). */
static void skip_unmet(const wh_suite_reg *reg, const CU_pTest one)
{
    unsigned n = 0;

    if (one)
        n = 1;
    else
        for (const wh_test_case *c = reg->cases; c->name; c++)
            n++;
    n_skipped += n;
    APR_ARRAY_PUSH(skip_lines, const char *) = apr_psprintf(
        root_pool, "SKIP %s%s%s (%u test%s): needs %s naming %s "
        "(tests/integration/%s starts one and runs it)", reg->name,
        one ? ": " : "",
        one ? one->pName : "", n, n == 1 ? "" : "s", reg->need->env,
        reg->need->what, reg->need->by);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: unit_tests [OPTION]... [SUITE [TEST]]\n"
            "  every suite, one suite, or one test\n"
            "  --list                  the suites and their tests\n"
            "  --suites-for SCRIPT     the suites the integration suite "
            "SCRIPT runs\n"
            "  --leave-to SCRIPT       leave out the suites SCRIPT runs "
            "(repeatable)\n"
            "  --without-servers       leave out every suite that needs a "
            "server\n"
            "A suite that needs a server runs when the variable naming it "
            "is set\n(unit_tests --list says which), and is reported "
            "skipped otherwise.\n");
}

/* --list: "suite" lines, each test indented under its suite; a suite
 * that needs a server says which variable names it */
static void list_tests(void)
{
    for (int i = 0; i < n_suites; i++) {
        const wh_suite_reg *reg = &suites[i];
        if (reg->need)
            printf("%s    (needs %s: %s; %s runs it)\n", reg->name,
                   reg->need->env, reg->need->what, reg->need->by);
        else
            printf("%s\n", reg->name);
        for (CU_pTest t = reg->cu->pTest; t; t = t->pNext)
            printf("    %s\n", t->pName);
    }
}

static void list_suites_for(const char *script)
{
    for (int i = 0; i < n_suites; i++)
        if (suites[i].need && strcmp(suites[i].need->by, script) == 0)
            printf("%s\n", suites[i].name);
}

static void finish(void)
{
    CU_cleanup_registry();
    for (int i = 0; tmpfiles && i < tmpfiles->nelts; i++)
        unlink(APR_ARRAY_IDX(tmpfiles, i, const char *));
    apr_pool_destroy(root_pool);
    apr_terminate();
}

int main(int argc, char **argv)
{
    const char *suite_name = NULL, *test_name = NULL, *suites_for = NULL;
    const char *leave_to[WH_MAX_LEAVE_TO];
    int n_leave = 0, without_servers = 0, list = 0, a = 1;

    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[a], "--list") == 0)
            list = 1;
        else if (strcmp(argv[a], "--without-servers") == 0)
            without_servers = 1;
        else if (strcmp(argv[a], "--leave-to") == 0 && a + 1 < argc
                 && n_leave < WH_MAX_LEAVE_TO)
            leave_to[n_leave++] = argv[++a];
        else if (strcmp(argv[a], "--suites-for") == 0 && a + 1 < argc)
            suites_for = argv[++a];
        else {
            usage(stderr);
            return 2;
        }
    }
    if (argc - a > 2 || ((list || suites_for) && argc - a > 0)) {
        usage(stderr);
        return 2;
    }
    suite_name = a < argc ? argv[a] : NULL;
    test_name = a + 1 < argc ? argv[a + 1] : NULL;
    /* a line at a time even into a pipe: a case that crashes the run
     * leaves the names of those before it, and its own, to whoever reads */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (too_many_suites) {
        fprintf(stderr, "unit_tests: more than %d suites: raise "
                "WH_MAX_SUITES in tests/unit/main.c\n", WH_MAX_SUITES);
        return 2;
    }

    apr_initialize();
    apr_pool_create(&root_pool, NULL);
    apr_pool_create(&test_pool, root_pool);
    tmpfiles = apr_array_make(root_pool, 16, sizeof(const char *));
    skip_lines = apr_array_make(root_pool, 16, sizeof(const char *));

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    for (int i = 0; i < n_suites; i++) {
        CU_pSuite s = CU_add_suite_with_setup_and_teardown(
            suites[i].name, suite_init, NULL, before_each, NULL);
        if (!s)
            return 2;
        for (const wh_test_case *c = suites[i].cases; c->name; c++)
            if (!CU_add_test(s, c->name, c->fn))
                return 2;
        suites[i].cu = s;
    }
    if (list || suites_for) {
        if (list)
            list_tests();
        else
            list_suites_for(suites_for);
        finish();
        return 0;
    }

    /* one suite or one test, found in CUnit's registry by name */
    CU_pSuite only = NULL;
    CU_pTest one = NULL;
    if (suite_name) {
        only = CU_get_suite(suite_name);
        if (only && test_name)
            one = CU_get_test(only, test_name);
        if (!only || (test_name && !one)) {
            fprintf(stderr, "unit_tests: no %s %s%s%s (unit_tests --list "
                    "shows them)\n", only ? "test" : "suite",
                    only ? test_name : suite_name, only ? " in suite " : "",
                    only ? suite_name : "");
            finish();
            return 2;
        }
    }

    /* The suites that need a server: left out when asked (printed, never
     * counted), skipped when their server is not named; CUnit passes over
     * an inactive suite. */
    CU_set_fail_on_inactive(CU_FALSE);
    for (int i = 0; i < n_suites; i++) {
        wh_suite_reg *reg = &suites[i];
        int picked = !only || only == reg->cu;
        if (!reg->need)
            continue;
        reg->left_out = without_servers;
        for (int l = 0; l < n_leave && !reg->left_out; l++)
            reg->left_out = strcmp(leave_to[l], reg->need->by) == 0;
        if (reg->left_out || !need_met(reg)) {
            CU_set_suite_active(reg->cu, CU_FALSE);
            if (picked && !reg->left_out)
                skip_unmet(reg, one);
        }
    }
    const char *left = NULL;
    for (int i = 0; i < n_suites; i++)
        if (suites[i].left_out && (!only || only == suites[i].cu))
            left = apr_psprintf(root_pool, "%s%s%s (%s)", left ? left : "",
                                left ? ", " : "", suites[i].name,
                                suites[i].need->by);
    if (left)
        printf("left out, as asked (they need a server; the integration "
               "suite named runs them): %s\n", left);

    apr_time_t t0 = apr_time_now();
    CU_set_test_start_handler(on_test_start);
    CU_set_test_complete_handler(on_test_complete);
    CU_set_suite_init_failure_handler(on_suite_init_failure);
    if (one)
        CU_run_test(only, one);
    else if (only)
        CU_run_suite(only);
    else
        CU_run_all_tests();

    for (int i = 0; i < skip_lines->nelts; i++)
        printf("%s\n", APR_ARRAY_IDX(skip_lines, i, const char *));
    /* (CUnit's own elapsed time is the CPU's: most tests here wait) */
    printf("   %u asserts, %u failed (%.1f s)\n", CU_get_number_of_asserts(),
           CU_get_number_of_failures(),
           (double)(apr_time_now() - t0) / APR_USEC_PER_SEC);
    printf("%u passed, %u failed, %u skipped\n", n_passed, n_failed,
           n_skipped);
    int rc = n_failed || CU_get_number_of_suites_failed()
             || n_passed + n_skipped == 0;
    finish();
    return rc ? 1 : 0;
}
