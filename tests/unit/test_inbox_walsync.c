/* Durability after the lock (wh_inbox_walsync.c): a writer connection
 * commits with synchronous = NORMAL and syncs the WAL through a
 * descriptor of its own once the locks are free; a failed sync answers
 * "unavailable" for what it covered (a duplicate too: the copy it matched
 * may be unsynced) and stops the inbox writing; readers and the
 * forwarder's relaxed inbox sync nothing; reconnects leak no descriptor.
 * A sync is made to fail by putting a pipe where the WAL's descriptor
 * was: fdatasync refuses pipes. Suite "inbox_walsync". */
#include "inbox_fx.h"
#include "inbox/wh_inbox_walsync.h"
#include <apr_strings.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>

static int sync_setting(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    return wh_inbox_db_sql_value(ib, p, "PRAGMA synchronous", (const char **)baton);
}

static const char *synchronous_of(wh_inbox *ib)
{
    const char *v = NULL;
    CU_ASSERT_EQUAL(wh_inbox_db_read(ib, wh_test_pool(), "test", sync_setting, &v), WH_DB_OK);
    return v;
}

/* The WAL's descriptor now names a pipe: the next sync fails. */
static void break_sync(wh_inbox *ib)
{
    const wh_walsync *ws = wh_inbox_db_walsync(ib);
    int pfd[2];

    CU_ASSERT_FATAL(ws->fd >= 0);
    CU_ASSERT_EQUAL_FATAL(pipe(pfd), 0);
    CU_ASSERT_EQUAL(dup2(pfd[1], ws->fd), ws->fd);
    close(pfd[0]);
    close(pfd[1]);
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void test_writer_syncs_outside_sqlite(void)
{
    fx *f = ix_opened();

    CU_ASSERT_EQUAL(wh_inbox_db_walsync(f->ib)->deferred, 1);
    CU_ASSERT(wh_inbox_db_walsync(f->ib)->fd >= 0);
    ASSERT_STR(synchronous_of(f->ib), "1");   /* NORMAL */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_DUPLICATE);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), "1");
    CU_ASSERT_EQUAL(wh_inbox_db_sync_failed(f->ib), 0);
}

static void test_reader_syncs_nothing(void)
{
    fx *f = ix_opened();
    wh_logger lg = { ix_capture_log, f };
    wh_inbox *ro = NULL;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_PTR_NULL(wh_inbox_open_ex(wh_test_pool(), f->cfg, &lg, WH_INBOX_READ_ONLY, &ro));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
    CU_ASSERT_EQUAL(wh_inbox_db_walsync(ro)->deferred, 0);
    CU_ASSERT_EQUAL(wh_inbox_db_walsync(ro)->fd, -1);
}

static void test_failed_sync_stops_writes(void)
{
    fx *f = ix_opened();
    wh_inbox *again;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    break_sync(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P1", "Complete", NULL), WH_INBOX_UNAVAILABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "syncing the sqlite3 WAL failed"));
    CU_ASSERT_EQUAL(wh_inbox_db_sync_failed(f->ib), 1);
    /* sticky: nothing more is written, though the file is fine */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(3), "P2", "Review", NULL), WH_INBOX_UNAVAILABLE);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events WHERE notification_id = '"
                       "00000000-0000-4000-8000-000000000003'"), "0");
    /* the listing still answers */
    CU_ASSERT_PTR_NOT_NULL(strstr(ix_list(f, 0, 25, NULL, NULL), ix_nid(1)));
    /* a restarted process (a new inbox) stores again */
    again = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    f->ib = again;
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(3), "P2", "Review", NULL), WH_INBOX_STORED);
}

static void test_duplicate_waits_for_the_sync(void)
{
    fx *f = ix_opened();

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    break_sync(f->ib);
    /* nothing to commit, but the copy it matched must be durable first */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_UNAVAILABLE);
}

static void test_group_commit_sync_failure(void)
{
    fx *f = ix_make();
    wh_logger lg = { ix_capture_log, f };

    f->cfg->inbox_batch_max = 8;
    CU_ASSERT_PTR_NULL(wh_inbox_open_ex(wh_test_pool(), f->cfg, &lg, WH_INBOX_GROUP_COMMIT,
                                        &f->ib));
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    CU_ASSERT_PTR_NOT_NULL(wh_inbox_db_batcher(f->ib));
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    break_sync(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P1", "Complete", NULL), WH_INBOX_UNAVAILABLE);
}

static void test_relaxed_inbox_skips_the_sync(void)
{
    fx *f = ix_opened();

    wh_inbox_db_set_relaxed(f->ib);
    break_sync(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_inbox_db_sync_failed(f->ib), 0);
}

static void test_reconnects_leak_no_descriptor(void)
{
    fx *f = ix_opened();
    int before;

    /* After one reconnect SQLite may keep one closed file's descriptor
     * for reuse (its POSIX-lock workaround): the count from then on. */
    wh_inbox_set_lock_wait_ms(f->ib, 999);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(0), "P1", "Review", NULL), WH_INBOX_STORED);
    before = open_fds();
    for (int i = 1; i <= 20; i++) {
        wh_inbox_set_lock_wait_ms(f->ib, 1000 + i);   /* the next use reconnects */
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(i), "P1", "Review", NULL), WH_INBOX_STORED);
    }
    CU_ASSERT_EQUAL(open_fds(), before);
    CU_ASSERT_EQUAL(wh_inbox_db_walsync(f->ib)->deferred, 1);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), "21");
}

static const wh_test_case cases[] = {
    { "a writer commits with synchronous=NORMAL and syncs the WAL itself",
      test_writer_syncs_outside_sqlite },
    { "a read-only inbox keeps no WAL descriptor", test_reader_syncs_nothing },
    { "a failed sync: 503, then no more writes until a restart",
      test_failed_sync_stops_writes },
    { "a duplicate is answered only after a sync", test_duplicate_waits_for_the_sync },
    { "group commit: a failed sync answers 503", test_group_commit_sync_failure },
    { "the forwarder's relaxed inbox does not sync", test_relaxed_inbox_skips_the_sync },
    { "reconnects close the old WAL descriptor", test_reconnects_leak_no_descriptor },
    { NULL, NULL }
};
WH_TEST_SUITE(inbox_walsync, cases)
