/* wh_inbox_release_for_exit as wirehook.cgi uses it: one connection per
 * process, left with the process instead of closed. Every commit survives
 * the exit; the WAL stays bounded across processes; a WAL that another
 * connection still uses (the module sharing the database) is left to it.
 *
 * Each writer is a child process, as each CGI request is, and the test
 * process holds no connection of its own while they run: SQLite's
 * bookkeeping of one process's connections must not be inherited over
 * fork by the next. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "inbox/wh_inbox.h"
#include "inbox/wh_inbox_sql.h"
#include <apr_dbd.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Events each writer process stores: a few commits, well under the WAL
 * limit, as a burst of CGI requests would leave. */
#define WRITER_EVENTS 4
#define BODY_BYTES 2000

typedef struct {
    const char *dir;
    const char *wal;
    wh_config *cfg;
} xfx;

static xfx *make_xfx(void)
{
    apr_pool_t *p = wh_test_pool();
    xfx *f = apr_pcalloc(p, sizeof(*f));
    const char *dir = wh_test_tmpdir("inbox-exit");

    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    f->dir = dir;
    f->wal = apr_pstrcat(p, dir, "/inbox.db-wal", NULL);
    apr_dbd_init(p);   /* for query(); repeat calls are fine */
    f->cfg = wh_config_create(p);
    f->cfg->inbox_driver = WH_INBOX_SQLITE3;
    f->cfg->inbox_driver_name = "sqlite3";
    f->cfg->inbox_params = apr_pstrcat(p, dir, "/inbox.db", NULL);
    return f;
}

static apr_off_t wal_bytes(const xfx *f)
{
    struct stat st;
    return stat(f->wal, &st) == 0 ? (apr_off_t)st.st_size : -1;
}

/* In the calling (child) process: opens its own inbox, stores events
 * first..first+n-1, lets go as wirehook.cgi does. 0 or a failure code. */
static int store_and_leave(const xfx *f, int first, int n)
{
    apr_pool_t *p;
    wh_inbox *ib = NULL;
    char *body;

    apr_pool_create(&p, NULL);
    if (wh_inbox_open(p, f->cfg, NULL, &ib) != NULL || !ib)
        return 10;
    body = apr_palloc(p, BODY_BYTES + 1);
    memset(body, 'x', BODY_BYTES);
    body[BODY_BYTES] = '\0';
    for (int i = first; i < first + n; i++) {
        wh_facts fa;
        memset(&fa, 0, sizeof(fa));
        fa.notification_id = apr_psprintf(p, "33333333-0000-4000-8000-%012d", i);
        fa.payment_id = "P";
        fa.status = "Review";
        if (wh_inbox_store(ib, p, &fa, body, BODY_BYTES, apr_time_now(), NULL)
            != WH_INBOX_STORED)
            return 20;
    }
    wh_inbox_release_for_exit(ib);
    return 0;
}

/* One writer process, waited for: its exit status, or -1. */
static int writer(const xfx *f, int first)
{
    int st = 0;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(store_and_leave(f, first, WRITER_EVENTS));
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* Opened only once no writer runs any more; the close checkpoints. */
static const char *query(const xfx *f, const char *sql)
{
    apr_pool_t *p = wh_test_pool();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = NULL;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *err = NULL, *v = NULL;

    if (apr_dbd_get_driver(p, "sqlite3", &drv) != APR_SUCCESS ||
        apr_dbd_open_ex(drv, p, f->cfg->inbox_params, &h, &err) != APR_SUCCESS)
        return NULL;
    if (apr_dbd_select(drv, p, h, &res, sql, 1) == 0)
        while (apr_dbd_get_row(drv, p, res, &row, -1) == 0)
            if (!v)
                v = apr_pstrdup(p, apr_dbd_get_entry(drv, row, 0));
    apr_dbd_close(drv, h);
    return v;
}

static void test_small_wal_left_for_the_next_process(void)
{
    xfx *f = make_xfx();
    apr_off_t size;

    CU_ASSERT_EQUAL_FATAL(writer(f, 0), 0);
    /* left as it is: no checkpoint, no close, for a few commits */
    size = wal_bytes(f);
    CU_ASSERT(size > 0);
    CU_ASSERT(size <= WH_INBOX_EXIT_WAL_MAX);
    /* the next process recovers it and carries on */
    CU_ASSERT_EQUAL(writer(f, WRITER_EVENTS), 0);
    ASSERT_STR(query(f, "SELECT count(*) FROM wh_events"), "8");
    ASSERT_STR(query(f, "SELECT max(seq) FROM wh_order"), "8");
}

static void test_wal_bounded_across_processes(void)
{
    xfx *f = make_xfx();
    apr_off_t size, largest = 0;
    int removed = 0, writers = 0;

    /* Several times the limit in all, one process after another. */
    for (int i = 0; i < 64 && removed < 3; i++, writers++) {
        CU_ASSERT_EQUAL_FATAL(writer(f, i * WRITER_EVENTS), 0);
        size = wal_bytes(f);
        if (size <= 0)
            removed++;
        if (size > largest)
            largest = size;
    }
    /* A process that finds the WAL past the limit as it leaves is the last
     * connection here, so SQLite checkpoints and removes it. */
    CU_ASSERT(removed >= 3);
    CU_ASSERT(largest <= WH_INBOX_EXIT_WAL_MAX);
    ASSERT_STR(query(f, "SELECT count(*) FROM wh_events"),
               apr_itoa(wh_test_pool(), writers * WRITER_EVENTS));
    ASSERT_STR(query(f, "PRAGMA integrity_check"), "ok");
}

/* A long-lived connection in its own process (as an httpd child with the
 * module): opened before the writers, used again after them. */
static int holder(const xfx *f, int ready_fd, int go_fd)
{
    apr_pool_t *p;
    wh_inbox *ib = NULL;
    wh_page_query q = { 0, 1, NULL, NULL, NULL };
    wh_facts fa;
    const char *json = NULL;
    char c = 'r';

    apr_pool_create(&p, NULL);
    if (wh_inbox_open(p, f->cfg, NULL, &ib) != NULL || !ib ||
        wh_inbox_list(ib, p, &q, &json) != WH_INBOX_STORED)
        return 10;
    if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
        return 11;
    memset(&fa, 0, sizeof(fa));
    fa.notification_id = "44444444-0000-4000-8000-000000000001";
    if (wh_inbox_store(ib, p, &fa, "{}", 2, apr_time_now(), NULL) != WH_INBOX_STORED)
        return 12;
    apr_pool_destroy(p);   /* a normal close, the last one: checkpoints */
    return 0;
}

static void test_wal_in_use_left_to_its_users(void)
{
    xfx *f = make_xfx();
    int ready[2], go[2], st = 0, writers = 0;
    pid_t pid;
    char c = 0;

    /* the schema first, so that the holder only reads */
    CU_ASSERT_EQUAL_FATAL(writer(f, 1000), 0);
    writers++;
    CU_ASSERT_FATAL(pipe(ready) == 0 && pipe(go) == 0);
    fflush(NULL);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        _exit(holder(f, ready[1], go[0]));
    }
    close(ready[1]);
    close(go[0]);
    CU_ASSERT_FATAL(read(ready[0], &c, 1) == 1);

    for (int i = 0; i < 64 && wal_bytes(f) <= 2 * WH_INBOX_EXIT_WAL_MAX; i++, writers++)
        CU_ASSERT_EQUAL_FATAL(writer(f, i * WRITER_EVENTS), 0);
    /* never checkpointed away under the holder: each writer saw another
     * connection and left the WAL (and the shared memory) to it */
    CU_ASSERT(wal_bytes(f) > 2 * WH_INBOX_EXIT_WAL_MAX);

    CU_ASSERT(write(go[1], "g", 1) == 1);
    CU_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(ready[0]);
    close(go[1]);
    CU_ASSERT(wal_bytes(f) <= 0);   /* the last one out checkpointed */
    ASSERT_STR(query(f, "SELECT count(*) FROM wh_events"),
               apr_itoa(wh_test_pool(), writers * WRITER_EVENTS + 1));
    ASSERT_STR(query(f, "PRAGMA integrity_check"), "ok");
}

static const wh_test_case cases[] = {
    { "a small WAL is left for the next process, nothing lost",
      test_small_wal_left_for_the_next_process },
    { "the WAL stays bounded across single-connection processes",
      test_wal_bounded_across_processes },
    { "a WAL another connection uses is left to it",
      test_wal_in_use_left_to_its_users },
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_exit, cases)
