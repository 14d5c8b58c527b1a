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

#define WH_MAX_SUITES 64

typedef struct {
    const char *name;
    const wh_test_case *cases;
} wh_suite_reg;

static wh_suite_reg suites[WH_MAX_SUITES];
static int n_suites;
static apr_pool_t *root_pool;
static apr_pool_t *test_pool;
static apr_array_header_t *tmpfiles;

void wh_test_register_suite(const char *name, const wh_test_case *cases)
{
    if (n_suites < WH_MAX_SUITES) {
        suites[n_suites].name = name;
        suites[n_suites].cases = cases;
        n_suites++;
    }
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

static void usage(FILE *out)
{
    fprintf(out,
            "usage: unit_tests [SUITE [TEST]]   every suite, one suite, or "
            "one test\n"
            "       unit_tests --list           the suites and their tests\n");
}

/* --list: "suite" lines, each test indented under its suite */
static void list_tests(void)
{
    CU_pTestRegistry reg = CU_get_registry();
    for (CU_pSuite s = reg->pSuite; s; s = s->pNext) {
        printf("%s\n", s->pName);
        for (CU_pTest t = s->pTest; t; t = t->pNext)
            printf("    %s\n", t->pName);
    }
}

int main(int argc, char **argv)
{
    const char *suite_name = NULL, *test_name = NULL;
    int list = 0;
    if (argc > 1 && (strcmp(argv[1], "--help") == 0
                     || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--list") == 0)
        list = 1;
    else if (argc > 3 || (argc > 1 && argv[1][0] == '-')) {
        usage(stderr);
        return 2;
    }
    else {
        suite_name = argc > 1 ? argv[1] : NULL;
        test_name = argc > 2 ? argv[2] : NULL;
    }

    apr_initialize();
    apr_pool_create(&root_pool, NULL);
    apr_pool_create(&test_pool, root_pool);
    tmpfiles = apr_array_make(root_pool, 16, sizeof(const char *));

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
    }
    if (list) {
        list_tests();
        CU_cleanup_registry();
        apr_terminate();
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
            CU_cleanup_registry();
            apr_terminate();
            return 2;
        }
    }

    CU_basic_set_mode(CU_BRM_NORMAL);
    if (one)
        CU_basic_run_test(only, one);
    else if (only)
        CU_basic_run_suite(only);
    else
        CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    unsigned tests_failed = CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    for (int i = 0; i < tmpfiles->nelts; i++)
        unlink(APR_ARRAY_IDX(tmpfiles, i, const char *));
    apr_pool_destroy(root_pool);
    apr_terminate();
    printf("%u passed, %u failed\n", ran - tests_failed, tests_failed);
    return (failed || ran == 0) ? 1 : 0;
}
