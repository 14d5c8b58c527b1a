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

/* What a suite needs that a machine does not have by itself: a server,
 * named by an environment variable. When the variable is unset the
 * suite's tests are reported skipped with why; `by` is the integration
 * suite that starts the server and runs the suite with it, which
 * run.sh's unit run leaves it to (unit_tests --leave-to). */
typedef struct {
    const char *env;    /* "WH_TEST_PG_CONNINFO" */
    const char *what;   /* what it names: "a scratch PostgreSQL database" */
    const char *by;     /* "test_inbox_pg.sh" */
} wh_test_need;

/* need: NULL for a suite that runs anywhere. */
void wh_test_register_suite(const char *name, const wh_test_case *cases,
                            const wh_test_need *need);

#define WH_TEST_SUITE(sname, cases)                                         \
    static void __attribute__((constructor)) wh_test_reg_##sname(void)      \
    {                                                                       \
        wh_test_register_suite(#sname, cases, NULL);                        \
    }

/* A suite that runs against a server: need is a wh_test_need. */
#define WH_TEST_SUITE_NEEDS(sname, cases, need)                             \
    static void __attribute__((constructor)) wh_test_reg_##sname(void)      \
    {                                                                       \
        wh_test_register_suite(#sname, cases, &(need));                     \
    }

/* A database twin of a suite (the same cases on another engine): it needs
 * env, a variable naming a scratch database (its connection string),
 * which the integration suite by_script starts and names. */
#define WH_TEST_SUITE_DB(sname, cases, env, what, by_script)                \
    static const wh_test_need wh_test_need_##sname = {env, what, by_script}; \
    WH_TEST_SUITE_NEEDS(sname, cases, wh_test_need_##sname)

/* The PostgreSQL twin of a suite: WH_TEST_PG_CONNINFO, made by the
 * integration suite by_script (test_inbox_pg.sh, test_forward_pg.sh). A
 * twin on another engine is one more line like this one. */
#define WH_TEST_SUITE_PG(sname, cases, by_script)                           \
    WH_TEST_SUITE_DB(sname, cases, "WH_TEST_PG_CONNINFO",                   \
                     "a scratch PostgreSQL database", by_script)

/* The MySQL/MariaDB twin of a suite: WH_TEST_MYSQL_CONNINFO (apr_dbd's
 * mysql parameters), made by by_script with tests/integration/mariadb.sh. */
#define WH_TEST_SUITE_MYSQL(sname, cases, by_script)                        \
    WH_TEST_SUITE_DB(sname, cases, "WH_TEST_MYSQL_CONNINFO",                \
                     "a scratch MariaDB database", by_script)

/* Ends the running test as skipped, never passed: the machine lacks what
 * it needs, and reason says what (listed with the counts). A test that
 * failed an assertion before stays failed. */
#define WH_SKIP(reason)                                                     \
    do {                                                                    \
        wh_test_skip(reason);                                               \
        return;                                                             \
    } while (0)
void wh_test_skip(const char *reason);

/* Every table and sequence the inbox, the forward queue and the console's
 * views create in PostgreSQL: a PostgreSQL suite drops them all before a
 * case, whichever of them it uses. */
#define WH_TEST_PG_DROP_TABLES                                              \
    "DROP TABLE IF EXISTS wh_events, wh_order, wh_pending, wh_payments,"    \
    " wh_quarantine, wh_counter, wh_meta, wh_auth_cache, wh_delivery,"      \
    " wh_forward_cursor, wh_attempts, wh_attempt_counts, wh_payment_refs,"  \
    " wh_attempt_minutes, wh_forwarders, wh_purge CASCADE"
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
