/* Group commit in the inbox (WH_INBOX_GROUP_COMMIT, the module's mode):
 * many threads storing through one inbox share transactions; each still
 * gets its own answer from the commit that holds its row: "duplicate" for
 * a copy (also two copies in one batch), 503 for a row the database
 * refuses without costing its neighbours their 200; the listing stays
 * gap-free. Batch statistics, never time, show that commits were shared,
 * bounded, and that a lone store does not wait. A trigger made by the test
 * refuses ids beginning with "bad", as a real row error would.
 * Suites "inbox_batch" (SQLite), "inbox_batch_pg" and "inbox_batch_mysql". */
#include "inbox_fx.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_batch.h"
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define PER_THREAD 60

static const char *const reject_sqlite =
    "CREATE TRIGGER wh_test_reject BEFORE INSERT ON wh_events"
    " WHEN NEW.notification_id LIKE 'bad%'"
    " BEGIN SELECT RAISE(ABORT, 'rejected by the test'); END";
static const char *const reject_pg_fn =
    "CREATE OR REPLACE FUNCTION wh_test_reject() RETURNS trigger LANGUAGE plpgsql AS"
    " $$BEGIN IF NEW.notification_id LIKE 'bad%' THEN"
    " RAISE EXCEPTION 'rejected by the test'; END IF; RETURN NEW; END$$";
static const char *const reject_pg =
    "CREATE TRIGGER wh_test_reject BEFORE INSERT ON wh_events"
    " FOR EACH ROW EXECUTE FUNCTION wh_test_reject()";
static const char *const reject_mysql =
    "CREATE TRIGGER wh_test_reject BEFORE INSERT ON wh_events FOR EACH ROW"
    " BEGIN IF NEW.notification_id LIKE 'bad%' THEN"
    " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'rejected by the test';"
    " END IF; END";

/* A group-commit inbox over a fresh database with the rejecting trigger
 * (made before the inbox prepares any statement). */
static fx *batched(int max, apr_int64_t wait_us)
{
    fx *f = ix_make();
    wh_logger lg = { ix_capture_log, f };
    const char *err;

    f->cfg->inbox_batch_max = max;
    f->cfg->inbox_batch_wait = wait_us;
    err = wh_inbox_open_ex(wh_test_pool(), f->cfg, &lg, WH_INBOX_GROUP_COMMIT, &f->ib);
    CU_ASSERT_PTR_NULL_FATAL(err);
    if (ix_use_pg) {
        CU_ASSERT_EQUAL_FATAL(ix_exec(f, reject_pg_fn), 0);
        CU_ASSERT_EQUAL_FATAL(ix_exec(f, reject_pg), 0);
    } else if (ix_use_mysql) {
        CU_ASSERT_EQUAL_FATAL(ix_exec(f, reject_mysql), 0);
    } else {
        CU_ASSERT_EQUAL_FATAL(ix_exec(f, reject_sqlite), 0);
    }
    return f;
}

static wh_inbox_store_req req(const char *id)
{
    wh_inbox_store_req r;
    memset(&r, 0, sizeof(r));
    r.facts = apr_pmemdup(wh_test_pool(), &(wh_facts){ 0 }, sizeof(wh_facts));
    *(wh_facts *)r.facts = ix_facts(id, "P", "Review");
    r.body = apr_psprintf(wh_test_pool(), "{\"notificationId\":\"%s\"}", id);
    r.body_len = strlen(r.body);
    r.now = apr_time_now();
    return r;
}

static void test_one_batch_dups_and_a_bad_row(void)
{
    fx *f = batched(64, 0);
    wh_inbox_store_req r[6] = { req("A"), req("A"), req("B"), req("bad-1"), req("C"), req("B") };
    page pg;

    CU_ASSERT_EQUAL(wh_inbox_store_many(f->ib, wh_test_pool(), r, 6), 3);
    CU_ASSERT_EQUAL(r[0].result, WH_INBOX_STORED);
    CU_ASSERT_EQUAL(r[1].result, WH_INBOX_DUPLICATE);   /* a copy in the same batch */
    CU_ASSERT_EQUAL(r[2].result, WH_INBOX_STORED);
    CU_ASSERT_EQUAL(r[3].result, WH_INBOX_UNAVAILABLE); /* refused: only it */
    CU_ASSERT_EQUAL(r[4].result, WH_INBOX_STORED);
    CU_ASSERT_EQUAL(r[5].result, WH_INBOX_DUPLICATE);
    CU_ASSERT(contains(f->log, "rejected by the test"));
    pg = ix_parse_page(ix_list(f, 0, 25, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 3);
    ASSERT_STR(pg.ids[0], "A");
    ASSERT_STR(pg.ids[1], "B");
    ASSERT_STR(pg.ids[2], "C");
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || max(seq) FROM wh_order"), "3 3");
    ASSERT_STR(ix_query(f, "SELECT events FROM wh_payments WHERE payment_id = 'P'"), "3");
    /* a batch of nothing but copies commits nothing */
    {
        wh_inbox_store_req d[2] = { req("A"), req("C") };
        CU_ASSERT_EQUAL(wh_inbox_store_many(f->ib, wh_test_pool(), d, 2), 0);
        CU_ASSERT_EQUAL(d[0].result, WH_INBOX_DUPLICATE);
        CU_ASSERT_EQUAL(d[1].result, WH_INBOX_DUPLICATE);
    }
}

/* One batch of more rows than one statement holds (WH_INBOX_ROWS_MAX),
 * three payments' events interleaved and out of time order, references
 * repeated across them: each payment ends at its latest event, counts
 * every one, and each reference is kept once. */
static void test_one_batch_many_payments(void)
{
    enum { N = 45, PAYMENTS = 3 };
    fx *f = batched(64, 0);
    wh_inbox_store_req *r = apr_pcalloc(wh_test_pool(), N * sizeof(*r));
    int latest[PAYMENTS] = { -1, -1, -1 };

    for (int i = 0; i < N; i++) {
        wh_facts *fa = apr_palloc(wh_test_pool(), sizeof(*fa));
        const char *id = apr_psprintf(wh_test_pool(), "many-%02d", i);
        int minute = (i * 7) % N;        /* every minute once, out of order */

        *fa = ix_facts(id, apr_psprintf(wh_test_pool(), "Q%d", i % PAYMENTS),
                       apr_psprintf(wh_test_pool(), "S%02d", i));
        fa->event_time = apr_psprintf(wh_test_pool(), "2026-03-01T10:%02d:00Z", minute);
        fa->end_to_end_id = apr_psprintf(wh_test_pool(), "E-%d", i % PAYMENTS);
        fa->imad = apr_psprintf(wh_test_pool(), "I-%02d", i);
        r[i] = req(id);
        r[i].facts = fa;
        if (latest[i % PAYMENTS] < 0 || minute > (latest[i % PAYMENTS] * 7) % N)
            latest[i % PAYMENTS] = i;
    }
    CU_ASSERT_EQUAL(wh_inbox_store_many(f->ib, wh_test_pool(), r, N), N);
    for (int q = 0; q < PAYMENTS; q++) {
        const char *sql = apr_psprintf(wh_test_pool(),
                                       "SELECT status FROM wh_payments WHERE payment_id = 'Q%d'", q);
        ASSERT_STR(ix_query(f, sql), apr_psprintf(wh_test_pool(), "S%02d", latest[q]));
        sql = apr_psprintf(wh_test_pool(),
                           "SELECT events FROM wh_payments WHERE payment_id = 'Q%d'", q);
        ASSERT_STR(ix_query(f, sql), apr_itoa(wh_test_pool(), N / PAYMENTS));
    }
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_payment_refs"),
               apr_itoa(wh_test_pool(), PAYMENTS + N));
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_payment_refs WHERE ref = 'E-1'"
                           " AND payment_id = 'Q1'"), "1");
}

typedef struct {
    fx *f;
    int t;
    int stored, dup, unavailable;
    int wrong;                      /* unique ids not stored, bad ones stored */
} thread_arg;

/* Each thread: its own ids; every 5th a copy of an id all threads send
 * (copies in one batch, and across batches); every 13th a refused one. */
static void *APR_THREAD_FUNC storer(apr_thread_t *th, void *data)
{
    thread_arg *a = data;
    apr_pool_t *p;

    (void)th;
    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    for (int i = 0; i < PER_THREAD; i++) {
        const char *id = i % 13 == 12 ? apr_psprintf(p, "bad-%d-%d", a->t, i)
                         : i % 5 == 4 ? apr_psprintf(p, "shared-%d", i / 5)
                                      : apr_psprintf(p, "own-%d-%d", a->t, i);
        wh_facts fa = ix_facts(id, apr_psprintf(p, "P%d", i % 7), "Review");
        const char *b = apr_psprintf(p, "{\"notificationId\":\"%s\"}", id);
        wh_inbox_result r = wh_inbox_store(a->f->ib, p, &fa, b, strlen(b), apr_time_now(), NULL);
        if (r == WH_INBOX_STORED)
            a->stored++;
        else if (r == WH_INBOX_DUPLICATE)
            a->dup++;
        else
            a->unavailable++;
        if ((id[0] == 'o' && r != WH_INBOX_STORED) || (id[0] == 'b' && r != WH_INBOX_UNAVAILABLE))
            a->wrong++;
    }
    apr_pool_destroy(p);
    return NULL;
}

static void run_storers(fx *f, thread_arg *args)
{
    apr_thread_t *th[THREADS];
    apr_status_t st;

    for (int t = 0; t < THREADS; t++) {
        args[t] = (thread_arg){ f, t, 0, 0, 0, 0 };
        CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th[t], NULL, storer, &args[t],
                                                wh_test_pool()), APR_SUCCESS);
    }
    for (int t = 0; t < THREADS; t++)
        apr_thread_join(&st, th[t]);
}

static void check_threads(fx *f, thread_arg *args)
{
    int stored = 0, dup = 0, unavailable = 0, wrong = 0;
    int bad = 0, shared = 0, own = 0;

    for (int i = 0; i < PER_THREAD; i++) {
        if (i % 13 == 12)
            bad++;
        else if (i % 5 == 4)
            shared++;
        else
            own++;
    }
    for (int t = 0; t < THREADS; t++) {
        stored += args[t].stored;
        dup += args[t].dup;
        unavailable += args[t].unavailable;
        wrong += args[t].wrong;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(unavailable, THREADS * bad);
    /* each shared id stored by exactly one thread, a duplicate for the others */
    CU_ASSERT_EQUAL(stored, THREADS * own + shared);
    CU_ASSERT_EQUAL(dup, (THREADS - 1) * shared);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), apr_itoa(wh_test_pool(), stored));
    /* listed once each, positions 1..n */
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, (apr_int64_t)stored - 1, 5, NULL, NULL)).n, 1);
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || count(DISTINCT event_id) || ' ' || "
                           "min(seq) || ' ' || max(seq) FROM wh_order"),
               apr_psprintf(wh_test_pool(), "%d %d 1 %d", stored, stored, stored));
    ASSERT_STR(ix_query(f, "SELECT sum(events) FROM wh_payments"), apr_itoa(wh_test_pool(), stored));
}

static void test_threads_share_transactions(void)
{
    fx *f = batched(64, 0);
    thread_arg args[THREADS];
    wh_batch_stats s;

    run_storers(f, args);
    check_threads(f, args);
    CU_ASSERT_EQUAL(wh_inbox_group_stats(f->ib, &s), 0);
    CU_ASSERT_EQUAL(s.items, THREADS * PER_THREAD);
    CU_ASSERT(s.batches < s.items);      /* commits were shared */
    CU_ASSERT(s.shared > 0);
    CU_ASSERT(s.largest > 1);
    CU_ASSERT(s.largest <= 64);
    CU_ASSERT(contains(f->log, "stores in one transaction"));
}

static void test_batch_bounded_by_max(void)
{
    fx *f = batched(2, 0);
    thread_arg args[THREADS];
    wh_batch_stats s;

    run_storers(f, args);
    check_threads(f, args);
    CU_ASSERT_EQUAL(wh_inbox_group_stats(f->ib, &s), 0);
    CU_ASSERT(s.largest <= 2);
}

static void test_lone_store_does_not_wait(void)
{
    fx *f = batched(64, 100000);   /* InboxBatchWait 100 ms */
    wh_batch_stats s;
    apr_int64_t seq = 0;

    for (int i = 1; i <= 3; i++)
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(i), "P", "Review", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 3);
    CU_ASSERT_EQUAL(wh_inbox_group_stats(f->ib, &s), 0);
    CU_ASSERT_EQUAL(s.batches, 3);
    CU_ASSERT_EQUAL(s.largest, 1);
    CU_ASSERT_EQUAL(s.waited, 0);
}

static void test_without_group_commit_no_stats(void)
{
    fx *f = ix_opened();
    wh_batch_stats s;
    CU_ASSERT_EQUAL(wh_inbox_group_stats(f->ib, &s), -1);
    /* InboxBatchMax 1: every store on its own, as the CGI does */
    f = batched(1, 0);
    CU_ASSERT_EQUAL(wh_inbox_group_stats(f->ib, &s), -1);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
}

/* Two servers' batches holding the same copies in opposite orders, and
 * several events of one payment: each batch takes its events by
 * notificationId and then its payments by paymentId (on PostgreSQL), so
 * neither waits for the other in a cycle; taken in arrival order, every
 * round risked PostgreSQL's "deadlock detected" and a lost second. */
#define CROSS_ROUNDS 12
#define CROSS_IDS 8

typedef struct {
    fx own;                         /* its connection's log */
    fx *f;
    int reversed;
    int stored, dup, unavailable;
} cross_arg;

static void *APR_THREAD_FUNC cross_storer(apr_thread_t *th, void *data)
{
    cross_arg *a = data;
    wh_logger lg = { ix_capture_log, &a->own };
    apr_pool_t *p;
    wh_inbox *ib = NULL;

    (void)th;
    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    if (wh_inbox_open(p, a->f->cfg, &lg, &ib) != NULL || !ib) {
        a->unavailable = -1;
        apr_pool_destroy(p);
        return NULL;
    }
    for (int round = 0; round < CROSS_ROUNDS; round++) {
        wh_inbox_store_req r[CROSS_IDS];
        for (int k = 0; k < CROSS_IDS; k++) {
            int i = a->reversed ? CROSS_IDS - 1 - k : k;
            const char *id = apr_psprintf(p, "cross-%02d-%02d", round, i);
            wh_facts *fa = apr_palloc(p, sizeof(*fa));
            /* two payments per round, their events interleaved */
            *fa = ix_facts(id, apr_psprintf(p, "PX%d-%d", round, i % 2), "Review");
            memset(&r[k], 0, sizeof(r[k]));
            r[k].facts = fa;
            r[k].body = apr_psprintf(p, "{\"notificationId\":\"%s\"}", id);
            r[k].body_len = strlen(r[k].body);
            r[k].now = apr_time_now();
        }
        (void)wh_inbox_store_many(ib, p, r, CROSS_IDS);
        for (int k = 0; k < CROSS_IDS; k++) {
            if (r[k].result == WH_INBOX_STORED)
                a->stored++;
            else if (r[k].result == WH_INBOX_DUPLICATE)
                a->dup++;
            else
                a->unavailable++;
        }
    }
    apr_pool_destroy(p);
    return NULL;
}

static void test_opposite_orders_never_deadlock(void)
{
    fx *f = batched(64, 0);
    cross_arg *a = apr_pcalloc(wh_test_pool(), 2 * sizeof(*a));
    apr_thread_t *th[2];
    apr_status_t st;

    for (int t = 0; t < 2; t++) {
        a[t].f = f;
        a[t].reversed = t;
        CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th[t], NULL, cross_storer, &a[t],
                                                wh_test_pool()), APR_SUCCESS);
    }
    for (int t = 0; t < 2; t++)
        apr_thread_join(&st, th[t]);
    CU_ASSERT_EQUAL(a[0].unavailable, 0);
    CU_ASSERT_EQUAL(a[1].unavailable, 0);
    CU_ASSERT_EQUAL(a[0].stored + a[1].stored, CROSS_ROUNDS * CROSS_IDS);
    CU_ASSERT_EQUAL(a[0].dup + a[1].dup, CROSS_ROUNDS * CROSS_IDS);
    CU_ASSERT(!contains(a[0].own.log, "deadlock"));
    CU_ASSERT(!contains(a[1].own.log, "deadlock"));
    if (contains(a[0].own.log, "deadlock") || contains(a[1].own.log, "deadlock"))
        fprintf(stderr, "%s%s", a[0].own.log, a[1].own.log);
    ASSERT_STR(ix_query(f, "SELECT sum(events) FROM wh_payments WHERE payment_id LIKE 'PX%'"),
               apr_itoa(wh_test_pool(), CROSS_ROUNDS * CROSS_IDS));
}

#define CASES(X)                                                              \
    X(one_batch_dups_and_a_bad_row, "one batch: copies are duplicates, a refused row fails alone") \
    X(one_batch_many_payments, "one batch of many rows: payments at their latest event, references once") \
    X(threads_share_transactions, "threads share transactions; answers and listing exact") \
    X(batch_bounded_by_max, "InboxBatchMax bounds a batch")                  \
    X(lone_store_does_not_wait, "a lone store does not wait (InboxBatchWait)") \
    X(without_group_commit_no_stats, "InboxBatchMax 1 or no group commit: stores alone") \
    X(opposite_orders_never_deadlock, "two connections, the same batch in opposite orders: no deadlock")

CASES(IX_SQ_WRAP)
CASES(IX_PG_WRAP)
CASES(IX_MY_WRAP)

static const wh_test_case cases[] = { CASES(IX_SQ_ROW) { NULL, NULL } };
static const wh_test_case pg_cases[] = { CASES(IX_PG_ROW) { NULL, NULL } };
static const wh_test_case my_cases[] = { CASES(IX_MY_ROW) { NULL, NULL } };

WH_TEST_SUITE(inbox_batch, cases)

WH_TEST_SUITE_PG(inbox_batch_pg, pg_cases, "test_inbox_pg.sh")

WH_TEST_SUITE_MYSQL(inbox_batch_mysql, my_cases, "test_inbox_mysql.sh")
