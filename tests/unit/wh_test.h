#ifndef WH_TEST_H
#define WH_TEST_H
/* Unit-test plumbing: each test file registers its suite from a
 * constructor, so adding a file needs no edit to the runner. */
#include <CUnit/CUnit.h>
#include <apr_pools.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    CU_TestFunc fn;
} wh_test_case;

void wh_test_register_suite(const char *name, const wh_test_case *cases);

#define WH_TEST_SUITE(sname, cases)                                         \
    static void __attribute__((constructor)) wh_test_reg_##sname(void)      \
    {                                                                       \
        wh_test_register_suite(#sname, cases);                              \
    }

/* The PostgreSQL twin of a suite, registered only when WH_TEST_PG_CONNINFO
 * names a scratch database (tests/integration starts one), so a machine
 * without PostgreSQL runs everything else. */
#define WH_TEST_SUITE_PG(sname, cases)                                      \
    static void __attribute__((constructor)) wh_test_reg_##sname(void)      \
    {                                                                       \
        const char *ci_ = getenv("WH_TEST_PG_CONNINFO");                    \
        if (ci_ && *ci_)                                                    \
            wh_test_register_suite(#sname, cases);                          \
    }

/* Every table and sequence the inbox, the forward queue and the console's
 * views create in PostgreSQL: a PostgreSQL suite drops them all before a
 * case, whichever of them it uses. */
#define WH_TEST_PG_DROP_TABLES                                              \
    "DROP TABLE IF EXISTS wh_events, wh_order, wh_pending, wh_payments,"    \
    " wh_quarantine, wh_counter, wh_meta, wh_auth_cache, wh_delivery,"      \
    " wh_forward_cursor, wh_attempts, wh_attempt_counts CASCADE"
#define WH_TEST_PG_DROP_SEQUENCES "DROP SEQUENCE IF EXISTS wh_event_ids"

/* A pool that lives for one test: cleared before each test runs. */
apr_pool_t *wh_test_pool(void);
/* Writes content to a fresh temp file (removed at exit); returns its path.
 * mode e.g. 0600. */
const char *wh_test_tmpfile(const char *content, int mode);
/* Directory holding the provided material: spec/, vectors/, samples/. */
const char *wh_test_shared_dir(void);
/* Reads a whole file into the test pool; NULL when unreadable. */
char *wh_test_slurp(const char *path, apr_size_t *len);
/* A fresh directory /tmp/wh-NAME-XXXXXX (mode 0700), removed with what
 * it holds (files, empty directories) when the test pool is cleared;
 * NULL when it cannot be made. */
const char *wh_test_tmpdir(const char *name);
/* How many entries dir holds, or -1 when it cannot be read. */
int wh_test_files_in(const char *dir);
/* The permission bits of path itself (a symlink is not followed), its
 * group in *gid when gid is not NULL; 0 when it does not exist. */
mode_t wh_test_mode_of(const char *path, gid_t *gid);

/* CU_ASSERT_STRING_EQUAL crashes on NULL, which would hide the tests
 * after it; these fail instead. */
static inline int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}
#define ASSERT_STR(a, b) CU_ASSERT(str_eq((a), (b)))

static inline int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

#endif
