/* The durable inbox: store, duplicates, the gap-free arrival sequence,
 * quarantine, listing and paging, and the ways a database can be unusable
 * (read-only, locked, full, down) ending in WH_INBOX_UNAVAILABLE rather
 * than a lie.
 *
 * Suite "inbox" runs on SQLite in temp files. Suite "inbox_pg" runs the
 * same cases on PostgreSQL, in the scratch database WH_TEST_PG_CONNINFO
 * names (its tables are dropped before each case; without it the suite is
 * reported skipped), which tests/integration/test_inbox_pg.sh arranges
 * with a throwaway cluster; WH_TEST_PG_STOP / WH_TEST_PG_START are shell
 * commands that stop and restart that cluster for the recovery case.
 * Suite "inbox_mysql" does the same on MariaDB (WH_TEST_MYSQL_CONNINFO,
 * WH_TEST_MYSQL_STOP / _START, tests/integration/test_inbox_mysql.sh),
 * with MySQL's own cases: utf8mb4, strict mode, a server that accepts and
 * never answers. */
#include "inbox_fx.h"
#include "inbox/wh_payments.h"
#include "inbox/wh_inbox_mysql.h"
#include <apr_dbd.h>
#include <apr_file_io.h>
#include <apr_network_io.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <json-c/json.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */

static void test_store_and_list_exact_bodies(void)
{
    fx *f = ix_opened();
    apr_int64_t seq = 0;
    const char *b1 = ix_body(ix_nid(1), "P1", "Complete");
    const char *b2 = ix_body(ix_nid(2), "P2", "Send Ready");

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Complete", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 1);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P2", "Send Ready", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);
    /* Byte for byte: the bodies are spliced in, never re-serialized. */
    ASSERT_STR(ix_list(f, 0, 25, NULL, NULL),
                           apr_pstrcat(wh_test_pool(), "{\"events\":[", b1, ",", b2,
                                       "],\"pagination\":{\"offset\":\"2\","
                                       "\"moreRecords\":false}}", NULL));
    ASSERT_STR(ix_query(f, "SELECT e.payment_id || '|' || e.status || '|' || "
                                          "e.event_type || '|' || e.event_time FROM wh_events e "
                                          "JOIN wh_order o ON o.event_id = e.id WHERE o.seq = 2"),
                           "P2|Send Ready|wire.status|2026-11-22T14:05:09Z");
    ASSERT_STR(ix_query(f, "SELECT schema_version FROM wh_meta"),
                           apr_itoa(wh_test_pool(), WH_INBOX_SCHEMA_VERSION));
}

static void test_empty_inbox_lists_nothing(void)
{
    fx *f = ix_opened();
    ASSERT_STR(ix_list(f, 0, 25, NULL, NULL),
                           "{\"events\":[],\"pagination\":{\"offset\":\"0\",\"moreRecords\":false}}");
}

static void test_duplicate_stored_once_no_gap(void)
{
    fx *f = ix_opened();
    apr_int64_t seq = 0;
    page pg;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", &seq), WH_INBOX_DUPLICATE);
    CU_ASSERT_EQUAL(seq, 0);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Complete", NULL), WH_INBOX_DUPLICATE);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P1", "Complete", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);   /* the duplicates consumed no number */
    pg = ix_parse_page(ix_list(f, 0, 25, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], ix_nid(1));
    ASSERT_STR(pg.ids[1], ix_nid(2));
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), "2");
}

static void test_sequence_gap_free_across_duplicates(void)
{
    fx *f = ix_opened();
    apr_int64_t seq = 0, expect = 1;

    for (int i = 0; i < 40; i++) {
        /* every third is a copy of an earlier one */
        int id = (i % 3 == 2) ? i - 1 : i;
        wh_inbox_result r = ix_store(f, ix_nid(id), "P", "Review", &seq);
        if (i % 3 == 2) {
            CU_ASSERT_EQUAL(r, WH_INBOX_DUPLICATE);
        } else {
            CU_ASSERT_EQUAL(r, WH_INBOX_STORED);
            CU_ASSERT_EQUAL(seq, expect);
            expect++;
        }
    }
    ASSERT_STR(ix_query(f, "SELECT min(seq) || '-' || max(seq) || '-' || "
                                          "count(*) FROM wh_order"),
                           apr_psprintf(wh_test_pool(), "1-%" APR_INT64_T_FMT "-%"
                                        APR_INT64_T_FMT, expect - 1, expect - 1));
}

static void test_paging_first_next_past_end(void)
{
    fx *f = ix_opened();
    page pg;

    for (int i = 1; i <= 7; i++)
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(i), "P", "Review", NULL), WH_INBOX_STORED);
    /* offset=0&limit=n: the first n */
    pg = ix_parse_page(ix_list(f, 0, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 3);
    ASSERT_STR(pg.ids[0], ix_nid(1));
    ASSERT_STR(pg.ids[2], ix_nid(3));
    ASSERT_STR(pg.offset, "3");
    CU_ASSERT_TRUE(pg.more);
    /* offset=n&limit=n: the next n */
    pg = ix_parse_page(ix_list(f, 3, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 3);
    ASSERT_STR(pg.ids[0], ix_nid(4));
    ASSERT_STR(pg.offset, "6");
    CU_ASSERT_TRUE(pg.more);
    pg = ix_parse_page(ix_list(f, 6, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 1);
    ASSERT_STR(pg.ids[0], ix_nid(7));
    ASSERT_STR(pg.offset, "7");
    CU_ASSERT_FALSE(pg.more);
    /* exactly at the end and past it: nothing, offset stays */
    pg = ix_parse_page(ix_list(f, 7, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 0);
    ASSERT_STR(pg.offset, "7");
    CU_ASSERT_FALSE(pg.more);
    pg = ix_parse_page(ix_list(f, 1000, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 0);
    ASSERT_STR(pg.offset, "1000");
    CU_ASSERT_FALSE(pg.more);
    /* a page that ends exactly at the last record says no more */
    pg = ix_parse_page(ix_list(f, 4, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 3);
    CU_ASSERT_FALSE(pg.more);
}

/* Walks the whole listing with one limit; returns the ids joined. */
static const char *walk(fx *f, int limit, const char *payment, const char *status,
                        int *pages)
{
    apr_int64_t off = 0;
    const char *all = "";
    page pg;
    *pages = 0;
    do {
        pg = ix_parse_page(ix_list(f, off, limit, payment, status));
        for (int i = 0; i < pg.n; i++)
            all = apr_pstrcat(wh_test_pool(), all, pg.ids[i], ";", NULL);
        off = apr_atoi64(pg.offset);
        (*pages)++;
    } while (pg.more && *pages < 1000);
    return all;
}

static void test_limit_1_and_100_same_sequence(void)
{
    fx *f = ix_opened();
    int pages1, pages100;
    const char *a, *b;

    for (int i = 1; i <= 30; i++)
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(i), i % 2 ? "P1" : "P2", "Review", NULL), WH_INBOX_STORED);
    a = walk(f, 1, NULL, NULL, &pages1);
    b = walk(f, 100, NULL, NULL, &pages100);
    ASSERT_STR(a, b);
    CU_ASSERT_EQUAL(pages1, 30);
    CU_ASSERT_EQUAL(pages100, 1);
    CU_ASSERT_EQUAL(strlen(a), 30 * 37);
    a = walk(f, 1, "P2", NULL, &pages1);
    b = walk(f, 100, "P2", NULL, &pages100);
    ASSERT_STR(a, b);
    CU_ASSERT_EQUAL(pages1, 15);
}

static void test_filters_count_within_the_filter(void)
{
    fx *f = ix_opened();
    page pg;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P2", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(3), "P1", "Send Ready", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(4), "P2", "Send Ready", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(5), "P1", "Complete", NULL), WH_INBOX_STORED);

    pg = ix_parse_page(ix_list(f, 0, 2, "P1", NULL));
    CU_ASSERT_EQUAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], ix_nid(1));
    ASSERT_STR(pg.ids[1], ix_nid(3));
    ASSERT_STR(pg.offset, "2");
    CU_ASSERT_TRUE(pg.more);
    pg = ix_parse_page(ix_list(f, 2, 2, "P1", NULL));   /* offset counts P1 records */
    CU_ASSERT_EQUAL(pg.n, 1);
    ASSERT_STR(pg.ids[0], ix_nid(5));
    ASSERT_STR(pg.offset, "3");
    CU_ASSERT_FALSE(pg.more);

    pg = ix_parse_page(ix_list(f, 0, 25, NULL, "Send Ready"));
    CU_ASSERT_EQUAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], ix_nid(3));
    ASSERT_STR(pg.ids[1], ix_nid(4));
    pg = ix_parse_page(ix_list(f, 0, 25, "P2", "Send Ready"));
    CU_ASSERT_EQUAL(pg.n, 1);
    ASSERT_STR(pg.ids[0], ix_nid(4));
    pg = ix_parse_page(ix_list(f, 0, 25, "nope", NULL));
    CU_ASSERT_EQUAL(pg.n, 0);
    ASSERT_STR(pg.offset, "0");
    /* filter values are bound, never spliced into SQL */
    pg = ix_parse_page(ix_list(f, 0, 25, "P1' OR '1'='1", NULL));
    CU_ASSERT_EQUAL(pg.n, 0);
}

static void test_quarantine_kept_not_listed(void)
{
    fx *f = ix_opened();
    wh_verdict v;
    /* any bytes: NUL and invalid UTF-8 included */
    static const char bad[] = { '{', '"', 'a', '"', ':', 0, (char)0xff, '}' };

    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "the body is not valid JSON");
    v.authentic = 1;
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, bad, sizeof(bad),
                                        apr_time_now()), WH_INBOX_STORED);
    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_SCHEMA_VIOLATION, "schema");
    wh_verdict_add_problem(&v, wh_test_pool(), "/data/wireEventInfo/status", "not \"allowed\"");
    v.facts.notification_id = ix_nid(9);
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "{}", 2,
                                        apr_time_now()), WH_INBOX_STORED);

    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_quarantine"), "2");
    ASSERT_STR(ix_query(f, ix_use_pg
                                          ? "SELECT length(body) || ' ' || upper(encode(body, "
                                            "'hex')) || ' ' || code FROM wh_quarantine WHERE id = 1"
                                          : "SELECT length(body) || ' ' || hex(body) || ' ' "
                                            "|| code FROM wh_quarantine WHERE id = 1"),
                           "8 7B2261223A00FF7D invalid_json");
    ASSERT_STR(ix_query(f, "SELECT details || ' ' || notification_id "
                                          "FROM wh_quarantine WHERE id = 2"),
                           apr_pstrcat(wh_test_pool(),
                                       "[{\"field\":\"/data/wireEventInfo/status\","
                                       "\"problem\":\"not \\\"allowed\\\"\"}] ", ix_nid(9), NULL));
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 25, NULL, NULL)).n, 0);
    /* quarantine numbers do not touch the event sequence */
    {
        apr_int64_t seq = 0;
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", &seq), WH_INBOX_STORED);
        CU_ASSERT_EQUAL(seq, 1);
    }
}

static void test_survives_reopen(void)
{
    fx *f = ix_make();
    apr_pool_t *p1;
    apr_int64_t seq = 0;

    apr_pool_create(&p1, wh_test_pool());
    f->ib = ix_open_in(f, p1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    apr_pool_destroy(p1);             /* closes the connection */

    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_DUPLICATE);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);
    if (!ix_use_pg && !ix_use_mysql)
        ASSERT_STR(ix_query(f, "PRAGMA journal_mode"), "wal");
}

static void test_refuses_newer_schema(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = ix_raw_open(f, &drv);
    int n = 0;
    wh_inbox *ib = NULL;
    wh_logger lg = { ix_capture_log, f };

    CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, "UPDATE wh_meta SET schema_version = 99"), 0);
    apr_dbd_close(drv, h);
    CU_ASSERT_PTR_NOT_NULL(wh_inbox_open(wh_test_pool(), f->cfg, &lg, &ib));
    CU_ASSERT_PTR_NULL(ib);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "newer than this wirehook"));
}

static void test_auth_cache_rows(void)
{
    fx *f = ix_opened();
    const char *k = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    const char *user = NULL;
    apr_time_t t0 = apr_time_now(), s = apr_time_from_sec(1), exp = 0;
    apr_pool_t *p = wh_test_pool();

    CU_ASSERT_EQUAL(wh_inbox_auth_lookup(f->ib, p, k, t0, &user, &exp), 0);
    CU_ASSERT_PTR_NULL(user);
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, p, k, "bank", t0, t0 + 60 * s), 0);
    CU_ASSERT_EQUAL(wh_inbox_auth_lookup(f->ib, p, k, t0 + 10 * s, &user, &exp), 1);
    ASSERT_STR(user, "bank");
    CU_ASSERT_EQUAL(exp, t0 + 60 * s);
    /* expired: a miss */
    CU_ASSERT_EQUAL(wh_inbox_auth_lookup(f->ib, p, k, t0 + 60 * s, &user, &exp), 0);
    /* storing again slides it */
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, p, k, "bank", t0 + 50 * s, t0 + 110 * s), 0);
    CU_ASSERT_EQUAL(wh_inbox_auth_lookup(f->ib, p, k, t0 + 100 * s, &user, &exp), 1);
    CU_ASSERT_EQUAL(exp, t0 + 110 * s);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_auth_cache"), "1");
    /* another key's store drops expired rows */
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, p, "ff", "bank", t0 + 200 * s, t0 + 260 * s), 0);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_auth_cache"), "1");
    /* a second store of the same key replaces it */
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, p, "ff", "bank2", t0 + 200 * s, t0 + 270 * s), 0);
    CU_ASSERT_EQUAL(wh_inbox_auth_lookup(f->ib, p, "ff", t0 + 201 * s, &user, &exp), 1);
    ASSERT_STR(user, "bank2");
}

static void test_open_without_params_fails(void)
{
    fx *f = ix_make();
    wh_inbox *ib = NULL;
    f->cfg->inbox_params = NULL;
    CU_ASSERT_PTR_NOT_NULL(wh_inbox_open(wh_test_pool(), f->cfg, NULL, &ib));
    CU_ASSERT_PTR_NULL(ib);
}

static void test_never_logs_params(void)
{
    fx *f = ix_make();
    wh_inbox *ib = NULL;
    /* nothing listens there / a directory that cannot exist: the open
     * fails, and the password or path stays out of the log */
    f->cfg->inbox_params = IX_SQL("/nonexistent-wh-secretpath/x.db",
                                  "host=127.0.0.1 port=1 dbname=x user=u "
                                  "password=secretpath connect_timeout=2",
                                  "host=127.0.0.1 port=1 dbname=x user=u "
                                  "pass=secretpath connecttimeout=2");
    CU_ASSERT_PTR_NULL(wh_inbox_open(wh_test_pool(), f->cfg,
                                     &(wh_logger){ ix_capture_log, f }, &ib));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ib);   /* down now is not a config error */
    f->ib = ib;
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "cannot open"));
    /* a conninfo may hold a password; an SQLite file is a path, named so
     * that the administrator knows which directory to fix */
    if (ix_use_pg || ix_use_mysql) {
        CU_ASSERT_PTR_NULL(strstr(f->log, "secretpath"));
    }
    else {
        CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "InboxParams /nonexistent-wh-secretpath/x.db"));
    }
}

/* Runs fn in a child process (as nobody when we are root, since root
 * writes through any permission); returns fn's exit status, or -1. */
static int in_child_as_nobody(int (*fn)(fx *), fx *f, int drop)
{
    pid_t pid;
    int st = 0;

    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (drop && getuid() == 0) {
            struct passwd *pw = getpwnam("nobody");
            if (!pw || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
                _exit(77);
        }
        _exit(fn(f));
    }
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static int child_store(fx *f)
{
    apr_pool_t *p;
    wh_inbox *ib = NULL;
    wh_facts fa = ix_facts("11111111-0000-4000-8000-000000000001", "P", "Review");
    wh_inbox_result r;

    apr_pool_create(&p, NULL);
    if (wh_inbox_open(p, f->cfg, NULL, &ib) != NULL || !ib)
        return 10;
    r = wh_inbox_store(ib, p, &fa, "{}", 2, apr_time_now(), NULL);
    return r == WH_INBOX_UNAVAILABLE ? 0 : 20 + (int)r;
}

static void test_read_only_file_unavailable(void)
{
    fx *f = ix_opened();
    int rc;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    chmod(f->path, 0444);
    chmod(apr_pstrcat(wh_test_pool(), f->path, "-wal", NULL), 0444);
    chmod(apr_pstrcat(wh_test_pool(), f->path, "-shm", NULL), 0444);
    chmod(f->dir, 0555);
    rc = in_child_as_nobody(child_store, f, 1);
    chmod(f->dir, 0755);
    if (rc == 77)
        WH_SKIP("running as root, and cannot become nobody to lose "
                "root's right to write anywhere");
    CU_ASSERT_EQUAL(rc, 0);
}

static void test_read_only_directory_unavailable(void)
{
    fx *f = ix_make();
    int rc;

    chmod(f->dir, 0555);   /* the database file cannot even be created */
    rc = in_child_as_nobody(child_store, f, 1);
    chmod(f->dir, 0755);
    if (rc == 77)
        WH_SKIP("running as root, and cannot become nobody to lose "
                "root's right to write anywhere");
    CU_ASSERT_EQUAL(rc, 0);
}

/* A full disk, made real with a file-size limit in a child process. */
static int child_store_until_full(fx *f)
{
    apr_pool_t *p;
    wh_inbox *ib = NULL;
    struct rlimit rl;
    struct stat stt;
    char *big;

    signal(SIGXFSZ, SIG_IGN);   /* write() fails with EFBIG instead */
    apr_pool_create(&p, NULL);
    if (wh_inbox_open(p, f->cfg, NULL, &ib) != NULL || !ib)
        return 10;
    if (stat(f->path, &stt) != 0)
        return 11;
    rl.rlim_cur = rl.rlim_max = (rlim_t)stt.st_size + 64 * 1024;
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 12;
    big = apr_palloc(p, 200 * 1024 + 1);
    memset(big, 'x', 200 * 1024);
    big[200 * 1024] = '\0';
    for (int i = 0; i < 20; i++) {
        wh_facts fa = ix_facts(apr_psprintf(p, "22222222-0000-4000-8000-%012d", i), "P", "Review");
        wh_inbox_result r = wh_inbox_store(ib, p, &fa, big, strlen(big), apr_time_now(), NULL);
        if (r == WH_INBOX_UNAVAILABLE)
            return 0;
        if (r != WH_INBOX_STORED)
            return 30;
    }
    return 40;
}

static void test_full_disk_unavailable_then_recovers(void)
{
    fx *f = ix_opened();
    apr_int64_t seq = 0;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(in_child_as_nobody(child_store_until_full, f, 0), 0);
    /* nothing torn: the parent still stores, numbering continues */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);
    ASSERT_STR(ix_query(f, "PRAGMA integrity_check"), "ok");
}

/* Another connection's lock, held on a thread of its own until the test
 * says the answer came, or until `far` (many times the wait under test)
 * has passed. A store that answers while the lock is still held gave up
 * by itself: its wait is bounded, shown without timing it (a loaded
 * machine stretches every wait; it does not stretch one to `far`). */
typedef struct {
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h;
    const char *release;      /* COMMIT or ROLLBACK */
    int release_rv;
    apr_interval_time_t far;
    apr_thread_mutex_t *mu;
    apr_thread_cond_t *cv;
    apr_thread_t *th;
    int answered, gave_up;
} lock_holder;

static void *APR_THREAD_FUNC hold_lock(apr_thread_t *t, void *data)
{
    lock_holder *l = data;
    apr_time_t until = apr_time_now() + l->far;
    int n = 0;

    apr_thread_mutex_lock(l->mu);
    while (!l->answered && apr_time_now() < until)
        apr_thread_cond_timedwait(l->cv, l->mu, until - apr_time_now());
    l->gave_up = !l->answered;
    apr_thread_mutex_unlock(l->mu);
    l->release_rv = apr_dbd_query(l->drv, l->h, &n, l->release);
    (void)t;
    return NULL;
}

/* h holds the lock (its transaction is open): the holder keeps it, and
 * ends the transaction with release. */
static lock_holder *hold_for(const apr_dbd_driver_t *drv, apr_dbd_t *h,
                             const char *release, apr_interval_time_t far)
{
    lock_holder *l = apr_pcalloc(wh_test_pool(), sizeof(*l));

    l->drv = drv;
    l->h = h;
    l->release = release;
    l->far = far;
    CU_ASSERT_EQUAL_FATAL(apr_thread_mutex_create(&l->mu, APR_THREAD_MUTEX_DEFAULT,
                                                  wh_test_pool()), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_thread_cond_create(&l->cv, wh_test_pool()), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_thread_create(&l->th, NULL, hold_lock, l, wh_test_pool()),
                          APR_SUCCESS);
    return l;
}

/* The answer came: 1 when the lock was still held then. The lock is
 * released (l->release_rv) and the thread gone when it returns. */
static int answered_while_held(lock_holder *l)
{
    apr_status_t st;
    int held;

    apr_thread_mutex_lock(l->mu);
    held = !l->gave_up;
    l->answered = 1;
    apr_thread_cond_signal(l->cv);
    apr_thread_mutex_unlock(l->mu);
    apr_thread_join(&st, l->th);
    return held;
}

static void test_locked_unavailable_after_bounded_wait(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h;
    int n = 0;
    apr_time_t t0, took;
    apr_int64_t seq = 0;
    lock_holder *l;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    /* the shortest wait the driver allows: 16 tries x 100 ms */
    wh_inbox_set_lock_wait_ms(f->ib, 0);
    h = ix_raw_open(f, &drv);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_query(drv, h, &n, "BEGIN EXCLUSIVE"), 0);
    l = hold_for(drv, h, "COMMIT", apr_time_from_sec(20));
    t0 = apr_time_now();
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    took = apr_time_now() - t0;
    /* it tried again (a lower bound: no load makes a wait shorter) */
    CU_ASSERT(took >= apr_time_from_msec(1000));
    /* WAL: listing is not blocked by the writer's lock */
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 25, NULL, NULL)).n, 1);
    /* and it gave up by itself: the lock was still held */
    CU_ASSERT(answered_while_held(l));
    CU_ASSERT_EQUAL(l->release_rv, 0);
    apr_dbd_close(drv, h);
    /* recovers with the next request, and the failed try took no number */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "locked"));
}

/* The default wait (WH_INBOX_LOCK_WAIT_MS, 5 s): at least about that
 * long, and bounded (answered while the lock is still held). */
static void test_default_lock_wait_is_about_5s(void)
{
    fx *f;
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h;
    int n = 0;
    apr_time_t t0, took;
    lock_holder *l;

    f = ix_opened();
    h = ix_raw_open(f, &drv);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_query(drv, h, &n, "BEGIN EXCLUSIVE"), 0);
    l = hold_for(drv, h, "ROLLBACK", apr_time_from_sec(40));
    t0 = apr_time_now();
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    took = apr_time_now() - t0;
    CU_ASSERT(took >= apr_time_from_msec(4000));
    CU_ASSERT(answered_while_held(l));
    CU_ASSERT_EQUAL(l->release_rv, 0);
    apr_dbd_close(drv, h);
}

typedef struct {
    fx *f;
    int base;
    int count;
    int stored;
} thr_arg;

static void *APR_THREAD_FUNC thr_store(apr_thread_t *t, void *data)
{
    thr_arg *a = data;
    apr_pool_t *p;
    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    for (int i = 0; i < a->count; i++) {
        const char *id = apr_psprintf(p, "33333333-0000-4000-8000-%012d", a->base + i);
        wh_facts fa = ix_facts(id, "P", "Review");
        if (wh_inbox_store(a->f->ib, p, &fa, "{}", 2, apr_time_now(), NULL) == WH_INBOX_STORED)
            a->stored++;
        /* a copy every time, from every thread: stored once */
        fa = ix_facts("33333333-0000-4000-8000-999999999999", "P", "Review");
        (void)wh_inbox_store(a->f->ib, p, &fa, "{}", 2, apr_time_now(), NULL);
    }
    apr_pool_destroy(p);
    (void)t;
    /* plain return, not apr_thread_exit(): pthread_exit's unwinding trips
     * AddressSanitizer's stack-scope check in its own thread teardown */
    return NULL;
}

static void test_threads_share_one_inbox(void)
{
    fx *f = ix_opened();
    apr_thread_t *th[4];
    thr_arg args[4];
    apr_status_t st;
    int total = 0;

    for (int i = 0; i < 4; i++) {
        args[i] = (thr_arg){ f, i * 1000, 15, 0 };
        CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th[i], NULL, thr_store, &args[i],
                                                wh_test_pool()), APR_SUCCESS);
    }
    for (int i = 0; i < 4; i++) {
        apr_thread_join(&st, th[i]);
        total += args[i].stored;
    }
    CU_ASSERT_EQUAL(total, 60);
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || max(seq) FROM wh_order"),
                           "61 61");
}

/* Several processes open the same new file at once and race the same ids. */
static int child_race(fx *f)
{
    apr_pool_t *p;
    wh_inbox *ib = NULL;
    int bad = 0;

    apr_pool_create(&p, NULL);
    if (wh_inbox_open(p, f->cfg, NULL, &ib) != NULL || !ib)
        return 10;
    for (int i = 0; i < 20; i++) {
        const char *id = apr_psprintf(p, "44444444-0000-4000-8000-%012d", i);
        wh_facts fa = ix_facts(id, "P", "Review");
        wh_inbox_result r = wh_inbox_store(ib, p, &fa, "{}", 2, apr_time_now(), NULL);
        if (r == WH_INBOX_UNAVAILABLE)
            bad++;
    }
    return bad ? 20 : 0;
}

static void test_processes_race_same_ids(void)
{
    fx *f = ix_make();   /* not opened: the children create the schema */
    pid_t kids[4];
    int ok = 0;

    fflush(NULL);
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        if (kids[i] == 0)
            _exit(child_race(f));
    }
    for (int i = 0; i < 4; i++) {
        int st = 0;
        if (kids[i] > 0 && waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) &&
            WEXITSTATUS(st) == 0)
            ok++;
    }
    CU_ASSERT_EQUAL(ok, 4);
    /* a listing numbers what the children's sequencer runs left pending
     * (PostgreSQL: a store that lost the try-lock leaves its event to the
     * next run) */
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    {
        wh_page_query q = { 0, 100, NULL, NULL, NULL };
        const char *json = NULL;
        CU_ASSERT_EQUAL(wh_inbox_list(f->ib, wh_test_pool(), &q, &json), WH_INBOX_STORED);
        CU_ASSERT(contains(json, "\"offset\":\"20\""));
    }
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || max(o.seq) || ' ' || "
                                          "count(DISTINCT e.notification_id) FROM wh_events e "
                                          "JOIN wh_order o ON o.event_id = e.id"),
                           "20 20 20");
}

/* PostgreSQL: another session locks the events table against writers;
 * the store waits lock_timeout, answers unavailable, and works once the
 * lock is gone. MySQL: another session holds the payment's row, and the
 * store waits innodb_lock_wait_timeout (whole seconds: 1 s here). */
static void test_server_locked_unavailable_after_bounded_wait(void)
{
    fx *f = ix_opened();
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h;
    int n = 0;
    apr_time_t t0, took;
    apr_int64_t seq = 0;
    lock_holder *l;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    wh_inbox_set_lock_wait_ms(f->ib, 300);
    h = ix_raw_open(f, &drv);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_query(drv, h, &n, "BEGIN"), 0);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_query(drv, h, &n, ix_use_mysql
                                        ? "UPDATE wh_payments SET events = events"
                                          " WHERE payment_id = 'P'"
                                        : "LOCK TABLE wh_events IN EXCLUSIVE MODE"), 0);
    l = hold_for(drv, h, "ROLLBACK", apr_time_from_sec(20));
    t0 = apr_time_now();
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    took = apr_time_now() - t0;
    CU_ASSERT(took >= apr_time_from_msec(250));
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 25, NULL, NULL)).n, 1);   /* readers go on */
    CU_ASSERT(answered_while_held(l));       /* gave up by itself */
    CU_ASSERT_EQUAL(l->release_rv, 0);
    apr_dbd_close(drv, h);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, ix_use_mysql ? "Lock wait timeout" : "lock"));
}

/* The commands that stop and start the current engine's server. */
static int run_cmd(const char *what)
{
    const char *cmd = getenv(apr_pstrcat(wh_test_pool(), ix_use_mysql ? "WH_TEST_MYSQL_"
                                                                      : "WH_TEST_PG_",
                                         what, NULL));
    return cmd && *cmd ? system(cmd) : -1;
}

/* The server goes away under a long-lived inbox (the module's case): 503
 * while it is down, and the first request after it is back succeeds,
 * whether the outage was seen or happened while idle. */
static void test_server_recovers_after_restart(void)
{
    fx *f;
    apr_int64_t seq = 0;
    const char *conninfo = getenv(ix_use_mysql ? "WH_TEST_MYSQL_CONNINFO"
                                               : "WH_TEST_PG_CONNINFO");

    if (!getenv(ix_use_mysql ? "WH_TEST_MYSQL_STOP" : "WH_TEST_PG_STOP")
        || !getenv(ix_use_mysql ? "WH_TEST_MYSQL_START" : "WH_TEST_PG_START"))
        WH_SKIP("needs WH_TEST_PG_STOP and WH_TEST_PG_START (WH_TEST_MYSQL_...), "
                "commands that stop and start the server (test_inbox_pg.sh and "
                "test_inbox_mysql.sh give them)");
    f = ix_opened();
    /* every call retries at once: the test restarts the server quickly */
    wh_inbox_set_retry_interval(f->ib, 0);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL_FATAL(run_cmd("STOP"), 0);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    {
        wh_page_query q = { 0, 5, NULL, NULL, NULL };
        const char *json = NULL;
        CU_ASSERT_EQUAL(wh_inbox_list(f->ib, wh_test_pool(), &q, &json), WH_INBOX_UNAVAILABLE);
    }
    CU_ASSERT_EQUAL_FATAL(run_cmd("START"), 0);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 2);
    /* restarted while idle: the old session is dead, nobody noticed yet */
    CU_ASSERT_EQUAL_FATAL(run_cmd("STOP"), 0);
    CU_ASSERT_EQUAL_FATAL(run_cmd("START"), 0);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(3), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 3);
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 25, NULL, NULL)).n, 3);
    CU_ASSERT_PTR_NULL(strstr(f->log, conninfo));
    if (ix_use_mysql) {
        const char *pass = strstr(conninfo, "pass=");
        CU_ASSERT_PTR_NOT_NULL_FATAL(pass);
        pass = apr_pstrndup(wh_test_pool(), pass + 5, strcspn(pass + 5, " "));
        CU_ASSERT_PTR_NULL(strstr(f->log, pass));
    }
}

/* ---- MySQL's own cases ---------------------------------------------- */

/* The server's version, and the GRANT an "access denied" names: no
 * server needed. */
static void test_my_version_and_grant(void)
{
    apr_pool_t *p = wh_test_pool();
    int mariadb = 0;

    CU_ASSERT_PTR_NULL(wh_mysql_version_check(p, "10.11.19-MariaDB-0+deb12u1", &mariadb));
    CU_ASSERT_EQUAL(mariadb, 1);
    CU_ASSERT_PTR_NULL(wh_mysql_version_check(p, "10.6.0-MariaDB", &mariadb));
    CU_ASSERT_PTR_NULL(wh_mysql_version_check(p, "11.4.2-MariaDB-log", &mariadb));
    CU_ASSERT(contains(wh_mysql_version_check(p, "10.5.23-MariaDB-0+deb11u1", &mariadb),
                       "the server is MariaDB 10.5: the inbox needs MariaDB 10.6"));
    CU_ASSERT_PTR_NULL(wh_mysql_version_check(p, "8.0.36", &mariadb));
    CU_ASSERT_EQUAL(mariadb, 0);
    CU_ASSERT_PTR_NULL(wh_mysql_version_check(p, "8.4.0-commercial", &mariadb));
    CU_ASSERT(contains(wh_mysql_version_check(p, "5.7.44-log", &mariadb),
                       "the server is MySQL 5.7: the inbox needs"));
    CU_ASSERT_PTR_NOT_NULL(wh_mysql_version_check(p, "", &mariadb));
    CU_ASSERT_PTR_NOT_NULL(wh_mysql_version_check(p, NULL, &mariadb));
    ASSERT_STR(wh_mysql_grant(p, "wirehook", "wh@10.0.0.%"),
               "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `wirehook`.* TO "
               "'wh'@'10.0.0.%'");
    CU_ASSERT(contains(wh_mysql_grant(p, "w", "odd"), "TO the inbox's user"));
    CU_ASSERT(wh_mysql_denied(1142) && wh_mysql_denied(1044) && wh_mysql_denied(1143));
    CU_ASSERT(!wh_mysql_denied(1045) && !wh_mysql_denied(1213));
    /* the driver is given its reconnect off and fields that hold a body */
    CU_ASSERT(contains(wh_mysql_driver_params(p, "dbname=w"), "dbname=w reconnect=0 fldsz="));
}

/* Characters outside the BMP (4 bytes in UTF-8: what MySQL's old "utf8"
 * cannot hold) in a body and in a paymentId come back byte for byte. */
static void test_my_four_byte_characters(void)
{
    fx *f = ix_opened();
    const char *pay = "P-\xf0\x9f\x98\x80-\xf0\x9d\x84\x9e";
    const char *b = apr_pstrcat(wh_test_pool(), "{\"notificationId\":\"", ix_nid(1),
                                "\",\"name\":\"Zo\xc3\xab \xf0\x9f\x98\x80 "
                                "\xf0\xa0\x80\x80\"}", NULL);
    wh_facts fa = ix_facts(ix_nid(1), pay, "Complete");
    const char *json = NULL;

    CU_ASSERT_EQUAL(wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b),
                                   apr_time_now(), NULL), WH_INBOX_STORED);
    ASSERT_STR(ix_list(f, 0, 25, NULL, NULL),
               apr_pstrcat(wh_test_pool(), "{\"events\":[", b, "],\"pagination\":"
                           "{\"offset\":\"1\",\"moreRecords\":false}}", NULL));
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 25, pay, NULL)).n, 1);
    CU_ASSERT_EQUAL(wh_payments_get(f->ib, wh_test_pool(), pay, &json), WH_PAY_OK);
    CU_ASSERT(contains(json, pay));
    ASSERT_STR(ix_query(f, "SELECT hex(payment_id) FROM wh_payments"),
               "502DF09F98802DF09D849E");
}

/* Strict mode: a paymentId longer than the key MySQL can index is a
 * store that fails (503, logged), never a row cut short. */
static void test_my_too_long_refused_not_cut(void)
{
    fx *f = ix_opened();
    char *pay = apr_palloc(wh_test_pool(), 1101);

    memset(pay, 'x', 1100);
    pay[1100] = '\0';
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), pay, "Review", NULL), WH_INBOX_UNAVAILABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "too long"));
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), "0");
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(2), "P", "Review", NULL), WH_INBOX_STORED);
}

/* A server that accepts and never greets (a stalled one: here a socket
 * nobody accepts from): the open gives up after connecttimeout, where
 * the driver alone would wait for ever. Answered while the socket still
 * listens, so the wait ended by itself. */
static void test_my_connect_timeout_bounds_a_silent_server(void)
{
    fx *f = ix_make();
    apr_socket_t *ls = NULL;
    apr_sockaddr_t *sa = NULL;
    apr_port_t port = 0;
    wh_inbox *ib = NULL;

    CU_ASSERT_EQUAL_FATAL(apr_sockaddr_info_get(&sa, "127.0.0.1", APR_INET, 0, 0,
                                                wh_test_pool()), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_socket_create(&ls, APR_INET, SOCK_STREAM, APR_PROTO_TCP,
                                            wh_test_pool()), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_socket_bind(ls, sa), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_socket_listen(ls, 8), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_socket_addr_get(&sa, APR_LOCAL, ls), APR_SUCCESS);
    port = sa->port;
    f->cfg->inbox_params = apr_psprintf(wh_test_pool(), "host=127.0.0.1 port=%u "
                                        "dbname=x user=u pass=secretpath connecttimeout=1",
                                        (unsigned)port);
    CU_ASSERT_PTR_NULL(wh_inbox_open(wh_test_pool(), f->cfg,
                                     &(wh_logger){ ix_capture_log, f }, &ib));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
    f->ib = ib;
    CU_ASSERT_PTR_NOT_NULL(strstr(f->log, "no connection within 1 s"));
    CU_ASSERT_PTR_NULL(strstr(f->log, "secretpath"));
    apr_socket_close(ls);
}

/* Each case once per engine: the wrappers only choose the engine. */
#define ENGINE_CASES(X)                                                       \
    X(store_and_list_exact_bodies, "store and list, bodies byte for byte")    \
    X(empty_inbox_lists_nothing, "empty inbox lists nothing")                 \
    X(duplicate_stored_once_no_gap, "duplicate stored once, no gap")          \
    X(sequence_gap_free_across_duplicates, "sequence gap-free across duplicates") \
    X(paging_first_next_past_end, "paging: first n, next n, past the end")    \
    X(limit_1_and_100_same_sequence, "limit 1 and limit 100 walk the same sequence") \
    X(filters_count_within_the_filter, "filters count within the filter")     \
    X(quarantine_kept_not_listed, "quarantine kept, never listed")            \
    X(survives_reopen, "survives close and reopen")                           \
    X(refuses_newer_schema, "refuses a newer schema")                         \
    X(never_logs_params, "unreachable database: 503, params never logged")    \
    X(threads_share_one_inbox, "threads share one inbox")                     \
    X(processes_race_same_ids, "processes race the same ids (and the schema)") \
    X(auth_cache_rows, "auth cache: hit, miss, expiry, re-store, purge")

ENGINE_CASES(IX_SQ_WRAP)
ENGINE_CASES(IX_PG_WRAP)
ENGINE_CASES(IX_MY_WRAP)

static void sq_sqlite_only(void (*fn)(void))
{
    ix_use_pg = 0;
    fn();
}
static void sq_open_without_params(void) { sq_sqlite_only(test_open_without_params_fails); }
static void sq_read_only_file(void) { sq_sqlite_only(test_read_only_file_unavailable); }
static void sq_read_only_dir(void) { sq_sqlite_only(test_read_only_directory_unavailable); }
static void sq_full_disk(void) { sq_sqlite_only(test_full_disk_unavailable_then_recovers); }
static void sq_locked(void) { sq_sqlite_only(test_locked_unavailable_after_bounded_wait); }
static void sq_default_wait(void) { sq_sqlite_only(test_default_lock_wait_is_about_5s); }
static void pg_locked(void)
{
    ix_use_pg = 1;
    test_server_locked_unavailable_after_bounded_wait();
    ix_use_pg = 0;
}
static void pg_recovers(void)
{
    ix_use_pg = 1;
    test_server_recovers_after_restart();
    ix_use_pg = 0;
}
#define MY_CASE(name, fn)                                                     \
    static void name(void) { ix_use_mysql = 1; fn(); ix_use_mysql = 0; }
MY_CASE(my_locked, test_server_locked_unavailable_after_bounded_wait)
MY_CASE(my_recovers, test_server_recovers_after_restart)
MY_CASE(my_four_byte, test_my_four_byte_characters)
MY_CASE(my_too_long, test_my_too_long_refused_not_cut)
MY_CASE(my_connect_timeout, test_my_connect_timeout_bounds_a_silent_server)

static const wh_test_case cases[] = {
    ENGINE_CASES(IX_SQ_ROW)
    { "open without InboxParams fails", sq_open_without_params },
    { "read-only file: unavailable", sq_read_only_file },
    { "read-only directory: unavailable", sq_read_only_dir },
    { "full disk: unavailable, nothing torn", sq_full_disk },
    { "locked: unavailable after the bounded wait, then recovers", sq_locked },
    { "default lock wait is about 5 s", sq_default_wait },
    { "mysql: the server's version, the GRANT named", test_my_version_and_grant },
    { NULL, NULL }
};

static const wh_test_case pg_cases[] = {
    ENGINE_CASES(IX_PG_ROW)
    { "locked: unavailable after lock_timeout, then recovers", pg_locked },
    { "server restart: 503 while down, first request after succeeds", pg_recovers },
    { NULL, NULL }
};

WH_TEST_SUITE(inbox, cases)

WH_TEST_SUITE_PG(inbox_pg, pg_cases, "test_inbox_pg.sh")

static const wh_test_case my_cases[] = {
    ENGINE_CASES(IX_MY_ROW)
    { "locked: unavailable after innodb_lock_wait_timeout, then recovers", my_locked },
    { "server restart: 503 while down, first request after succeeds", my_recovers },
    { "utf8mb4: 4-byte characters in a body and a paymentId round trip", my_four_byte },
    { "strict mode: a paymentId too long is refused, never cut short", my_too_long },
    { "connecttimeout: a server that never greets is given up", my_connect_timeout },
    { NULL, NULL }
};

WH_TEST_SUITE_MYSQL(inbox_mysql, my_cases, "test_inbox_mysql.sh")
