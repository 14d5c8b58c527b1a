/* The gathering of WAL writes (wh_sqlite_wal.c): a commit's frames reach
 * the file in a few system calls instead of two per frame, and nothing
 * else changes: another connection (without the layer) sees every
 * committed row, also with synchronous=OFF where no sync forces the
 * buffer out; a write that fails fails the commit, also without a sync;
 * checkpoints read what was written; the process's default VFS is left as
 * it was; a file: URI naming a VFS goes without the layer. Suite
 * "sqlite_wal". */
#include "inbox_fx.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_sqlite_wal.h"
#include <apr_strings.h>
#include <apr_file_info.h>
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

/* A row body of about 1.5 KB, as a notification is: several pages per
 * commit. */
static const char *big_body(int i)
{
    char *b = apr_palloc(wh_test_pool(), 1601);
    memset(b, 'a' + i % 26, 1600);
    b[1600] = '\0';
    return apr_psprintf(wh_test_pool(), "{\"notificationId\":\"%d\",\"pad\":\"%s\"}", i, b);
}

static wh_sqlite_wal_stats stats_now(void)
{
    wh_sqlite_wal_stats s;
    CU_ASSERT_EQUAL(wh_sqlite_wal_stats_get(&s), 0);
    return s;
}

/* rows rows of big_body() into table t (k INTEGER PRIMARY KEY, v TEXT),
 * in the caller's transaction. */
static void insert_big(const apr_dbd_driver_t *drv, apr_dbd_t *h, int rows)
{
    int n = 0;

    for (int i = 0; i < rows; i++)
        CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, apr_psprintf(wh_test_pool(),
                        "INSERT INTO t (v) VALUES ('%s')", big_body(i))), 0);
}

/* A connection through the layer, in WAL mode with the given sync. */
static apr_dbd_t *gathering(fx *f, const apr_dbd_driver_t *drv, const char *sync)
{
    apr_dbd_t *h = NULL;
    const char *err = NULL;
    int n = 0, gathered = 0;

    CU_ASSERT_EQUAL_FATAL(wh_sqlite_wal_open(drv, wh_test_pool(), f->cfg->inbox_params, &h,
                                             &err, &gathered), APR_SUCCESS);
    CU_ASSERT_EQUAL(gathered, 1);
    ASSERT_STR(ix_raw_value(drv, h, "PRAGMA journal_mode = WAL"), "wal");
    CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, apr_pstrcat(wh_test_pool(),
                                  "PRAGMA synchronous = ", sync, NULL)), 0);
    return h;
}

static void test_store_commit_gathered(void)
{
    fx *f = ix_opened();
    wh_inbox_store_req r[40];
    wh_sqlite_wal_stats before, after;

    for (int i = 0; i < 40; i++) {
        wh_facts *fa = apr_palloc(wh_test_pool(), sizeof(*fa));
        *fa = ix_facts(ix_nid(i), "P1", "Review");
        memset(&r[i], 0, sizeof(r[i]));
        r[i].facts = fa;
        r[i].body = big_body(i);
        r[i].body_len = strlen(r[i].body);
        r[i].now = apr_time_now();
    }
    before = stats_now();
    CU_ASSERT_EQUAL(wh_inbox_store_many(f->ib, wh_test_pool(), r, 40), 40);
    after = stats_now();
    /* 40 bodies of 1.6 KB: tens of pages, each a header and a page write */
    CU_ASSERT(after.writes - before.writes >= 40);
    CU_ASSERT(after.syscalls - before.syscalls <= 3);
    /* a connection without the layer reads what the commit promised */
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), "40");
    ASSERT_STR(ix_query(f, "PRAGMA integrity_check"), "ok");
}

static void test_published_without_sync(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *reader = ix_raw_open(f, &drv);
    apr_dbd_t *w = gathering(f, drv, "OFF");
    wh_sqlite_wal_stats before, after;
    int n = 0;

    ASSERT_STR(ix_raw_value(drv, reader, "SELECT count(*) FROM wh_events"), "0");
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"), 0);
    for (int round = 1; round <= 3; round++) {
        before = stats_now();
        CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "BEGIN"), 0);
        insert_big(drv, w, 30);
        CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "COMMIT"), 0);
        after = stats_now();
        CU_ASSERT(after.writes - before.writes >= 30);
        CU_ASSERT(after.syscalls - before.syscalls <= 3);
        /* no sync forced the buffer out: the publication of the commit did */
        ASSERT_STR(ix_raw_value(drv, reader, "SELECT count(*) FROM t"),
                   apr_itoa(wh_test_pool(), 30 * round));
    }
    /* a checkpoint through the layer copies what it wrote */
    ASSERT_STR(ix_raw_value(drv, w, "PRAGMA wal_checkpoint(TRUNCATE)"), "0");
    ASSERT_STR(ix_raw_value(drv, reader, "PRAGMA integrity_check"), "ok");
    ASSERT_STR(ix_raw_value(drv, reader, "SELECT count(*) FROM t"), "90");
    apr_dbd_close(drv, w);
    apr_dbd_close(drv, reader);
    {
        int total = 0;
        for (int i = 0; i < 30; i++)
            total += 3 * (int)strlen(big_body(i));
        ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || sum(length(v)) FROM t"),
                   apr_psprintf(wh_test_pool(), "90 %d", total));
    }
}

/* The WAL may not grow past its current size + 8 KiB (RLIMIT_FSIZE, so
 * the write is cut short as on a full disk): a commit of 30 rows must
 * fail, with synchronous=OFF too, where no sync would report it, and a
 * reader must see none of its rows. Before the layer wrote a commit out
 * inside the commit frame's write call, the failure came only at the
 * shared-memory barrier, which cannot report it: SQLite published the
 * commit and its frames were missing. */
static void test_failed_write_fails_commit(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *reader = ix_raw_open(f, &drv);
    apr_dbd_t *w = gathering(f, drv, "OFF");
    const char *wal = apr_pstrcat(wh_test_pool(), f->path, "-wal", NULL);
    struct rlimit old, lim;
    void (*prev)(int);
    apr_finfo_t fi;
    int n = 0, rv;

    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"), 0);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "INSERT INTO t (v) VALUES ('first')"), 0);
    CU_ASSERT_EQUAL_FATAL(apr_stat(&fi, wal, APR_FINFO_SIZE, wh_test_pool()), APR_SUCCESS);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "BEGIN"), 0);
    insert_big(drv, w, 30);
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)fi.size + 8192;
    prev = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
    rv = apr_dbd_query(drv, w, &n, "COMMIT");
    (void)setrlimit(RLIMIT_FSIZE, &old);
    (void)signal(SIGXFSZ, prev);
    CU_ASSERT_NOT_EQUAL(rv, 0);
    (void)apr_dbd_query(drv, w, &n, "ROLLBACK");
    ASSERT_STR(ix_raw_value(drv, reader, "SELECT count(*) FROM t"), "1");
    ASSERT_STR(ix_raw_value(drv, reader, "PRAGMA integrity_check"), "ok");
    /* with room again, the connection commits as before */
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "INSERT INTO t (v) VALUES ('again')"), 0);
    ASSERT_STR(ix_raw_value(drv, reader, "SELECT count(*) FROM t"), "2");
    apr_dbd_close(drv, w);
    apr_dbd_close(drv, reader);
}

/* A transaction bigger than the page cache spills frames before its
 * commit, and a page changed again is written over its earlier frame:
 * writes out of order, which go out before the layer buffers again. */
static void test_spill_and_rewrite(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *reader = ix_raw_open(f, &drv);
    apr_dbd_t *w = gathering(f, drv, "FULL");
    int n = 0;

    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "PRAGMA cache_size = 10"), 0);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)"), 0);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "BEGIN"), 0);
    insert_big(drv, w, 300);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "UPDATE t SET v = 'x' || v WHERE k % 7 = 0"), 0);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "COMMIT"), 0);
    ASSERT_STR(ix_raw_value(drv, reader, "SELECT count(*) || ' ' || sum(v LIKE 'x%') FROM t"),
               "300 42");
    ASSERT_STR(ix_raw_value(drv, reader, "PRAGMA integrity_check"), "ok");
    apr_dbd_close(drv, w);
    apr_dbd_close(drv, reader);
}

static void test_default_vfs_untouched(void)
{
    typedef void *(*find_fn)(const char *);
    find_fn find = (find_fn)dlsym(RTLD_DEFAULT, "sqlite3_vfs_find");
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = ix_raw_open(f, &drv);
    void *dflt;

    CU_ASSERT_PTR_NOT_NULL_FATAL(find);
    dflt = find(NULL);
    apr_dbd_close(drv, gathering(f, drv, "FULL"));
    CU_ASSERT_PTR_EQUAL(find(NULL), dflt);
    CU_ASSERT_PTR_NOT_NULL(find("wirehook-wal"));
    CU_ASSERT_PTR_NOT_EQUAL(find("wirehook-wal"), dflt);
    apr_dbd_close(drv, h);
}

/* InboxParams as a file: URI naming SQLite's own VFS: the connection
 * goes without the layer, says so, and works. */
static void test_uri_vfs_bypasses(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = ix_raw_open(f, &drv);
    apr_dbd_t *w = NULL;
    const char *err = NULL;
    wh_sqlite_wal_stats before, after;
    int gathered = -1, n = 0;

    apr_dbd_close(drv, h);
    CU_ASSERT_EQUAL_FATAL(wh_sqlite_wal_open(drv, wh_test_pool(),
                          apr_pstrcat(wh_test_pool(), "file:", f->path, "?vfs=unix", NULL),
                          &w, &err, &gathered), APR_SUCCESS);
    CU_ASSERT_EQUAL(gathered, 0);
    before = stats_now();
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "CREATE TABLE u (v TEXT)"), 0);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, w, &n, "INSERT INTO u VALUES ('x')"), 0);
    after = stats_now();
    CU_ASSERT_EQUAL(after.writes, before.writes);
    apr_dbd_close(drv, w);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM u"), "1");
}

static const wh_test_case cases[] = {
    { "a store commit's WAL writes go out in a few calls, readable elsewhere",
      test_store_commit_gathered },
    { "synchronous=OFF: a commit is in the file before others can see it",
      test_published_without_sync },
    { "a write that fails fails the commit, also with synchronous=OFF",
      test_failed_write_fails_commit },
    { "spilled and rewritten frames: every row and page intact", test_spill_and_rewrite },
    { "the process's default VFS stays the default", test_default_vfs_untouched },
    { "InboxParams file:...?vfs=unix: no layer, and it says so", test_uri_vfs_bypasses },
    { NULL, NULL }
};
WH_TEST_SUITE(sqlite_wal, cases)
