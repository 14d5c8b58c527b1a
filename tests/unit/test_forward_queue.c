/* The forward queue (wh_forward_queue.c): what is leased when, per-payment
 * order, leases, outcomes, promotion, dead letters. Suite "forward_queue"
 * runs on SQLite in temp files; "forward_queue_pg" runs the same cases on
 * the PostgreSQL database WH_TEST_PG_CONNINFO names (its tables dropped
 * before each case), as tests/integration/test_forward_pg.sh arranges;
 * "forward_queue_mysql" on the MariaDB database WH_TEST_MYSQL_CONNINFO
 * names (tests/integration/test_forward_mysql.sh).
 * Events are written as the store transaction writes them (wh_events.id,
 * the listing position in wh_order), with arrival keys apart from the
 * positions so that one is never taken for the other. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "forward/wh_forward_queue.h"
#include "inbox/wh_inbox_db.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#define T0 ((apr_time_t)APR_INT64_C(1800000000000000))
#define SEC(n) ((apr_time_t)(n) * APR_USEC_PER_SEC)
#define LEASE_MS 40000

typedef struct {
    wh_inbox *ib;
    wh_config *cfg;
    wh_fq *d;
    const char *dir;
    int next_seq;
} qfx;

static int exec_all(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    const char *const *sql = baton;
    int rv;
    for (; *sql; sql++)
        if ((rv = wh_inbox_db_sql(ib, *sql)) != 0)
            return wh_inbox_db_fail(ib, p, *sql, rv);
    return WH_TXN_COMMIT;
}

/* The engine of the current case: WH_INBOX_SQLITE3, _PGSQL or _MYSQL. */
static wh_inbox_driver engine;

/* A scratch PostgreSQL or MariaDB database, emptied (MySQL reads
 * CASCADE and does nothing with it). */
static void drop_tables(apr_pool_t *p, const char *name, const char *conninfo)
{
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h = NULL;
    const char *err = NULL;
    int n = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(conninfo);
    apr_dbd_init(p);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_get_driver(p, name, &drv), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_dbd_open_ex(drv, p, conninfo, &h, &err), APR_SUCCESS);
    CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, WH_TEST_PG_DROP_TABLES), 0);
    if (engine == WH_INBOX_PGSQL)
        CU_ASSERT_EQUAL(apr_dbd_query(drv, h, &n, WH_TEST_PG_DROP_SEQUENCES), 0);
    apr_dbd_close(drv, h);
}

static qfx *make(void)
{
    apr_pool_t *p = wh_test_pool();
    qfx *f = apr_pcalloc(p, sizeof(*f));
    const char *dir = wh_test_tmpdir("queue");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    f->dir = dir;
    f->cfg = wh_config_create(p);
    f->cfg->inbox_params = apr_pstrcat(p, dir, "/q.db", NULL);
    if (engine != WH_INBOX_SQLITE3) {
        int my = engine == WH_INBOX_MYSQL;
        f->cfg->inbox_driver = engine;
        f->cfg->inbox_driver_name = my ? "mysql" : "pgsql";
        f->cfg->inbox_params = getenv(my ? "WH_TEST_MYSQL_CONNINFO" : "WH_TEST_PG_CONNINFO");
        drop_tables(p, f->cfg->inbox_driver_name, f->cfg->inbox_params);
    }
    CU_ASSERT_PTR_NULL_FATAL(wh_inbox_open(p, f->cfg, NULL, &f->ib));
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(p, f->ib, f->cfg, "me", &f->d));
    return f;
}

/* Stores an event as the store transaction would (event + listing
 * position); payment NULL for an event without one. Returns its id. */
static apr_int64_t store(qfx *f, const char *payment)
{
    apr_pool_t *p = wh_test_pool();
    int seq = ++f->next_seq;
    apr_int64_t id = 100 + seq;
    const char *pay = payment ? apr_psprintf(p, "'%s'", payment) : "NULL";
    const char *sql[] = {
        apr_psprintf(p, "INSERT INTO wh_events (id, notification_id, event_type,"
                     " event_time, payment_id, status, received_at, body) VALUES (%"
                     APR_INT64_T_FMT ", 'n%d', 'wire.status', '2026-11-22T14:05:09Z', %s,"
                     " 'Complete', %d, '{\"n\":%d}')", id, seq, pay, seq, seq),
        apr_psprintf(p, "INSERT INTO wh_order (seq, event_id, payment_id, status,"
                     " received_at) VALUES (%d, %" APR_INT64_T_FMT ", %s, 'Complete', %d)",
                     seq, id, pay, seq),
        NULL
    };
    CU_ASSERT_EQUAL(wh_inbox_db_txn(f->ib, p, "store", exec_all, (void *)sql), WH_DB_OK);
    return id;
}

static apr_array_header_t *outcomes(void)
{
    return apr_array_make(wh_test_pool(), 4, sizeof(wh_fq_outcome));
}

static void outcome(apr_array_header_t *o, const wh_fq_lease *c, int state,
                    apr_time_t next_at)
{
    wh_fq_outcome *x = apr_array_push(o);
    memset(x, 0, sizeof(*x));
    x->event_id = c->ev.id;
    x->attempt = c->ev.attempt;
    x->state = state;
    x->next_at = next_at;
    x->http_status = state == WH_FQ_FORWARDED ? 200 : 500;
    x->answer = state == WH_FQ_FORWARDED ? "HTTP 200" : "HTTP 500: down";
    x->reason = state == WH_FQ_DEAD ? "rejected by the application" : NULL;
}

static wh_fq_cycle_result cycle(qfx *f, const apr_array_header_t *o, int max, apr_time_t now)
{
    wh_fq_cycle_result c;
    CU_ASSERT_EQUAL(wh_fq_cycle(f->d, wh_test_pool(), o, max, LEASE_MS, now, &c), 0);
    return c;
}

static const wh_fq_lease *lease_of(const wh_fq_cycle_result *c, apr_int64_t id)
{
    for (int i = 0; i < c->leases->nelts; i++)
        if (APR_ARRAY_IDX(c->leases, i, wh_fq_lease).ev.id == id)
            return &APR_ARRAY_IDX(c->leases, i, wh_fq_lease);
    return NULL;
}

/* ---- tests --------------------------------------------------------- */

static void test_heads_only(void)
{
    qfx *f = make();
    apr_int64_t a1 = store(f, "A"), b1 = store(f, "B"), a2 = store(f, "A");
    apr_int64_t x = store(f, NULL), a3 = store(f, "A"), y = store(f, NULL);
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0);

    CU_ASSERT_EQUAL(c.ingested, 6);
    CU_ASSERT_EQUAL(c.leases->nelts, 4);
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, a1));
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, b1));
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, x));     /* no payment: never held */
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, y));
    CU_ASSERT_PTR_NULL(lease_of(&c, a2));        /* behind a1 */
    CU_ASSERT_PTR_NULL(lease_of(&c, a3));
    const wh_fq_lease *cl = lease_of(&c, a1);
    CU_ASSERT_EQUAL(cl->ev.attempt, 1);
    ASSERT_STR(cl->ev.notification_id, "n1");
    ASSERT_STR(cl->ev.payment_id, "A");
    ASSERT_STR(cl->ev.body, "{\"n\":1}");
    CU_ASSERT_EQUAL(cl->ev.body_len, 7);
    CU_ASSERT_EQUAL(cl->first_at, T0);
    /* leased events: nothing more is due now */
    c = cycle(f, NULL, 10, T0 + SEC(1));
    CU_ASSERT_EQUAL(c.leases->nelts, 0);
    CU_ASSERT_EQUAL(c.next_due, T0 + apr_time_from_msec(LEASE_MS));
}

static void test_forwarded_promotes_next(void)
{
    qfx *f = make();
    apr_int64_t a1 = store(f, "A"), a2 = store(f, "A"), a3 = store(f, "A");
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0);
    apr_array_header_t *o = outcomes();

    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 1);
    outcome(o, lease_of(&c, a1), WH_FQ_FORWARDED, 0);
    c = cycle(f, o, 10, T0 + SEC(1));
    CU_ASSERT_EQUAL(c.recorded, 1);
    CU_ASSERT_EQUAL(c.lost, 0);
    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 1);
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, a2));
    o = outcomes();
    outcome(o, lease_of(&c, a2), WH_FQ_FORWARDED, 0);
    c = cycle(f, o, 10, T0 + SEC(2));
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, a3));
}

static void test_retry_holds_the_payment_only(void)
{
    qfx *f = make();
    apr_int64_t a1 = store(f, "A"), a2 = store(f, "A"), b1 = store(f, "B");
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0);
    apr_array_header_t *o = outcomes();

    CU_ASSERT_EQUAL(c.leases->nelts, 2);
    outcome(o, lease_of(&c, a1), WH_FQ_READY, T0 + SEC(10));
    outcome(o, lease_of(&c, b1), WH_FQ_FORWARDED, 0);
    c = cycle(f, o, 10, T0 + SEC(1));
    CU_ASSERT_EQUAL(c.recorded, 2);
    CU_ASSERT_EQUAL(c.leases->nelts, 0);         /* a1 not due, a2 behind it */
    CU_ASSERT_EQUAL(c.next_due, T0 + SEC(10));
    b1 = store(f, "B");                           /* B goes on meanwhile */
    c = cycle(f, NULL, 10, T0 + SEC(2));
    CU_ASSERT_EQUAL(c.leases->nelts, 1);
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, b1));
    c = cycle(f, NULL, 10, T0 + SEC(10));
    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 1);
    const wh_fq_lease *cl = lease_of(&c, a1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
    CU_ASSERT_EQUAL(cl->ev.attempt, 2);
    CU_ASSERT_EQUAL(cl->first_at, T0);           /* age counts from attempt 1 */
    CU_ASSERT_PTR_NULL(lease_of(&c, a2));
}

static void test_dead_is_not_pending(void)
{
    qfx *f = make();
    apr_int64_t a1 = store(f, "A"), a2 = store(f, "A");
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0);
    apr_array_header_t *o = outcomes();
    wh_fq_counts st;

    outcome(o, lease_of(&c, a1), WH_FQ_DEAD, 0);
    c = cycle(f, o, 10, T0 + SEC(1));
    CU_ASSERT_EQUAL(c.recorded, 1);
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c, a2));    /* the next one goes */
    CU_ASSERT_EQUAL(wh_fq_stats(f->d, wh_test_pool(), &st), 0);
    CU_ASSERT_EQUAL(st.dead, 1);
    CU_ASSERT_EQUAL(st.ready, 1);
    CU_ASSERT_EQUAL(st.waiting, 0);
    CU_ASSERT_EQUAL(st.oldest, 2);               /* a2's received_at */
}

static void test_stale_outcome_is_lost(void)
{
    qfx *f = make();
    apr_int64_t a1 = store(f, "A");
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0), c2;
    apr_array_header_t *o = outcomes();
    wh_fq_lease old = *lease_of(&c, a1);

    /* the lease runs out: the event is leased again (attempt 2) */
    c2 = cycle(f, NULL, 10, T0 + apr_time_from_msec(LEASE_MS) + 1);
    CU_ASSERT_EQUAL_FATAL(c2.leases->nelts, 1);
    CU_ASSERT_EQUAL(lease_of(&c2, a1)->ev.attempt, 2);
    /* the first attempt's late outcome is not recorded */
    outcome(o, &old, WH_FQ_FORWARDED, 0);
    c = cycle(f, o, 0, T0 + SEC(50));
    CU_ASSERT_EQUAL(c.recorded, 0);
    CU_ASSERT_EQUAL(c.lost, 1);
    o = outcomes();
    outcome(o, lease_of(&c2, a1), WH_FQ_FORWARDED, 0);
    c = cycle(f, o, 0, T0 + SEC(51));
    CU_ASSERT_EQUAL(c.recorded, 1);
}

static void test_dead_letters(void)
{
    qfx *f = make();
    apr_pool_t *p = wh_test_pool();
    apr_int64_t a1 = store(f, "A"), a2 = store(f, "A"), b1 = store(f, "B");
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0);
    apr_array_header_t *o = outcomes(), *rows;
    wh_fq_dead dd;
    int n = -1;

    outcome(o, lease_of(&c, a1), WH_FQ_DEAD, 0);
    outcome(o, lease_of(&c, b1), WH_FQ_DEAD, 0);
    c = cycle(f, o, 10, T0 + SEC(1));            /* a2 leased */
    CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, a2));
    CU_ASSERT_EQUAL(wh_fq_dead_list(f->d, p, 0, 10, &rows), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 2);
    dd = APR_ARRAY_IDX(rows, 0, wh_fq_dead);
    CU_ASSERT_EQUAL(dd.event_id, a1);
    ASSERT_STR(dd.notification_id, "n1");
    ASSERT_STR(dd.payment_id, "A");
    CU_ASSERT_EQUAL(dd.attempts, 1);
    CU_ASSERT_EQUAL(dd.http_status, 500);
    ASSERT_STR(dd.answer, "HTTP 500: down");
    ASSERT_STR(dd.reason, "rejected by the application");
    CU_ASSERT_EQUAL(dd.dead_at, T0 + SEC(1));
    CU_ASSERT_EQUAL(wh_fq_dead_list(f->d, p, a1, 10, &rows), 0);
    CU_ASSERT_EQUAL(rows->nelts, 1);
    CU_ASSERT_EQUAL(wh_fq_dead_get(f->d, p, "n3", &dd), 1);
    CU_ASSERT_EQUAL(dd.event_id, b1);
    ASSERT_STR(dd.body, "{\"n\":3}");
    CU_ASSERT_EQUAL(wh_fq_dead_get(f->d, p, apr_psprintf(p, "%" APR_INT64_T_FMT, a1), &dd), 1);
    CU_ASSERT_EQUAL(wh_fq_dead_get(f->d, p, "nope", &dd), 0);
    CU_ASSERT_EQUAL(wh_fq_dead_get(f->d, p, "n2", &dd), 0);   /* not dead */

    /* a1 back while a2 (same payment) is in flight: it waits, then is next */
    CU_ASSERT_EQUAL(wh_fq_dead_retry(f->d, p, "n1", T0 + SEC(2), &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(wh_fq_dead_retry(f->d, p, "n1", T0 + SEC(2), &n), 0);
    CU_ASSERT_EQUAL(n, 0);                       /* no longer dead */
    wh_fq_cycle_result c2 = cycle(f, NULL, 10, T0 + SEC(3));
    CU_ASSERT_EQUAL(c2.leases->nelts, 0);
    o = outcomes();
    outcome(o, lease_of(&c, a2), WH_FQ_FORWARDED, 0);
    c2 = cycle(f, o, 10, T0 + SEC(4));
    CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c2, a1));
    CU_ASSERT_EQUAL(lease_of(&c2, a1)->ev.attempt, 1);   /* a fresh count */
    CU_ASSERT_EQUAL(lease_of(&c2, a1)->first_at, T0 + SEC(4));
    /* --all: b1 */
    CU_ASSERT_EQUAL(wh_fq_dead_retry(f->d, p, NULL, T0 + SEC(5), &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    c2 = cycle(f, NULL, 10, T0 + SEC(6));
    CU_ASSERT_PTR_NOT_NULL(lease_of(&c2, b1));
}

static void test_retry_all_keeps_order(void)
{
    qfx *f = make();
    apr_pool_t *p = wh_test_pool();
    apr_int64_t ids[3];
    int n = 0;

    for (int i = 0; i < 3; i++) {
        ids[i] = store(f, "A");
        wh_fq_cycle_result c = cycle(f, NULL, 10, T0 + SEC(i));
        apr_array_header_t *o = outcomes();
        CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, ids[i]));
        outcome(o, lease_of(&c, ids[i]), WH_FQ_DEAD, 0);
        cycle(f, o, 0, T0 + SEC(i));
    }
    CU_ASSERT_EQUAL(wh_fq_dead_retry(f->d, p, NULL, T0 + SEC(10), &n), 0);
    CU_ASSERT_EQUAL(n, 3);
    /* one at a time again, oldest first */
    for (int i = 0; i < 3; i++) {
        wh_fq_cycle_result c = cycle(f, NULL, 10, T0 + SEC(11 + i));
        apr_array_header_t *o = outcomes();
        CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, ids[i]));
        outcome(o, lease_of(&c, ids[i]), WH_FQ_FORWARDED, 0);
        cycle(f, o, 0, T0 + SEC(11 + i));
    }
}

static void test_batches_and_peek(void)
{
    qfx *f = make();
    apr_pool_t *p = wh_test_pool();
    int fresh = -1, total = 0;
    apr_time_t due = -1;
    wh_fq_counts st;

    CU_ASSERT_EQUAL(wh_fq_peek(f->d, p, &fresh, &due), 0);
    CU_ASSERT_EQUAL(fresh, 0);
    CU_ASSERT_EQUAL(due, 0);
    for (int i = 0; i < WH_FQ_INGEST_BATCH + 5; i++)
        store(f, i % 2 ? "A" : NULL);
    CU_ASSERT_EQUAL(wh_fq_peek(f->d, p, &fresh, &due), 0);
    CU_ASSERT_EQUAL(fresh, 1);
    wh_fq_cycle_result c = cycle(f, NULL, 7, T0);
    CU_ASSERT_EQUAL(c.ingested, WH_FQ_INGEST_BATCH);
    CU_ASSERT_EQUAL(c.leases->nelts, 7);
    total += c.leases->nelts;
    c = cycle(f, NULL, 1000, T0);
    CU_ASSERT_EQUAL(c.ingested, 5);
    total += c.leases->nelts;
    /* every event without a payment, and one of payment A */
    CU_ASSERT_EQUAL(total, (WH_FQ_INGEST_BATCH + 5 + 1) / 2 + 1);
    CU_ASSERT_EQUAL(wh_fq_stats(f->d, p, &st), 0);
    CU_ASSERT_EQUAL(st.ready, total);
    CU_ASSERT_EQUAL(st.waiting, (WH_FQ_INGEST_BATCH + 5) / 2 - 1);
    CU_ASSERT_EQUAL(st.unqueued, 0);
    CU_ASSERT_EQUAL(wh_fq_peek(f->d, p, &fresh, &due), 0);
    CU_ASSERT_EQUAL(fresh, 0);
    CU_ASSERT_EQUAL(due, T0 + apr_time_from_msec(LEASE_MS));
}

/* The metrics' counters: every attempt written is counted by its
 * outcome, in the same transaction; an inbox whose forwarder never
 * counted (the table missing) says so, and reading it makes nothing. */
static void test_attempt_totals(void)
{
    qfx *f = make();
    apr_pool_t *p = wh_test_pool();
    apr_int64_t a = store(f, "A"), b = store(f, "B"), c1 = store(f, "C");
    wh_fq_cycle_result c = cycle(f, NULL, 10, T0);
    apr_array_header_t *o = outcomes();
    wh_fq_totals t;
    wh_fq *reader = NULL;
    const char *drop[] = { "DROP TABLE wh_attempt_counts", NULL };

    CU_ASSERT_EQUAL(wh_fq_attempt_totals(f->d, p, &t), 1);
    CU_ASSERT_EQUAL(t.forwarded + t.retried + t.dead, 0);
    outcome(o, lease_of(&c, a), WH_FQ_FORWARDED, 0);
    outcome(o, lease_of(&c, b), WH_FQ_READY, T0 + SEC(1));
    outcome(o, lease_of(&c, c1), WH_FQ_DEAD, 0);
    for (int i = 0; i < o->nelts; i++)
        APR_ARRAY_IDX(o, i, wh_fq_outcome).started_at = T0;
    c = cycle(f, o, 10, T0 + SEC(1));           /* b leased again */
    CU_ASSERT_EQUAL(wh_fq_attempt_totals(f->d, p, &t), 1);
    CU_ASSERT_EQUAL(t.forwarded, 1);
    CU_ASSERT_EQUAL(t.retried, 1);
    CU_ASSERT_EQUAL(t.dead, 1);
    o = outcomes();
    CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, b));
    outcome(o, lease_of(&c, b), WH_FQ_FORWARDED, 0);
    APR_ARRAY_IDX(o, 0, wh_fq_outcome).started_at = T0 + SEC(1);
    cycle(f, o, 0, T0 + SEC(2));
    CU_ASSERT_EQUAL(wh_fq_attempt_totals(f->d, p, &t), 1);
    CU_ASSERT_EQUAL(t.forwarded, 2);
    CU_ASSERT_EQUAL(t.retried, 1);
    CU_ASSERT_EQUAL(t.dead, 1);

    /* an inbox an older forwarder made: nothing counted, nothing made */
    CU_ASSERT_EQUAL(wh_inbox_db_txn(f->ib, p, "drop", exec_all, (void *)drop), WH_DB_OK);
    CU_ASSERT_EQUAL_FATAL(wh_fq_attach(p, f->ib, f->cfg, &reader), 1);
    CU_ASSERT_EQUAL(wh_fq_attempt_totals(reader, p, &t), 0);
    CU_ASSERT_EQUAL(wh_fq_attempt_totals(reader, p, &t), 0);
}

/* A cycle committed though its answer was lost leaves leases the
 * forwarder does not know of: released (due now, their attempt not
 * counted), while what it holds (in flight, an outcome not yet written)
 * and another forwarder's leases stay. */
static void test_unknown_leases_released(void)
{
    qfx *f = make();
    apr_pool_t *p = wh_test_pool();
    apr_int64_t a1 = store(f, "A"), b1 = store(f, "B"), c1 = store(f, "C");
    apr_int64_t d1 = store(f, "D");
    wh_fq *other = NULL;
    wh_fq_cycle_result c = cycle(f, NULL, 3, T0), c2;
    apr_array_header_t *held = apr_array_make(p, 2, sizeof(wh_fq_held));
    apr_array_header_t *o = outcomes();
    wh_fq_held *h;
    int n = -1;

    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, a1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, b1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(lease_of(&c, c1));
    /* another forwarder leases the fourth */
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(p, f->ib, f->cfg, "other", &other));
    CU_ASSERT_EQUAL(wh_fq_cycle(other, p, NULL, 1, LEASE_MS, T0, &c2), 0);
    CU_ASSERT_EQUAL_FATAL(c2.leases->nelts, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(c2.leases, 0, wh_fq_lease).ev.id, d1);
    /* this one knows of a1 (in flight) and b1 (its outcome to write) */
    h = apr_array_push(held);
    h->event_id = a1;
    h->attempt = lease_of(&c, a1)->ev.attempt;
    h = apr_array_push(held);
    h->event_id = b1;
    h->attempt = lease_of(&c, b1)->ev.attempt;
    CU_ASSERT_EQUAL(wh_fq_release_unknown(f->d, p, held, T0 + SEC(1), &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    /* c1 is due at once, as its first attempt; nothing else is */
    c2 = cycle(f, NULL, 10, T0 + SEC(1));
    CU_ASSERT_EQUAL_FATAL(c2.leases->nelts, 1);
    CU_ASSERT_EQUAL(lease_of(&c2, c1) ? lease_of(&c2, c1)->ev.attempt : -1, 1);
    /* the outcomes of what it held are still its own */
    outcome(o, lease_of(&c, a1), WH_FQ_FORWARDED, 0);
    outcome(o, lease_of(&c, b1), WH_FQ_FORWARDED, 0);
    c = cycle(f, o, 0, T0 + SEC(2));
    CU_ASSERT_EQUAL(c.recorded, 2);
    CU_ASSERT_EQUAL(c.lost, 0);
    /* nothing held: nothing but its own leases released */
    CU_ASSERT_EQUAL(wh_fq_release_unknown(f->d, p, NULL, T0 + SEC(3), &n), 0);
    CU_ASSERT_EQUAL(n, 1);                       /* c1's second lease */
    CU_ASSERT_EQUAL(wh_fq_release_unknown(other, p, NULL, T0 + SEC(3), &n), 0);
    CU_ASSERT_EQUAL(n, 1);                       /* d1, the other's */
}

/* Each case on every engine: SQLite, PostgreSQL, MariaDB. */
#define QUEUE_CASES(X)                                                        \
    X("leases the head of each payment only", test_heads_only)                \
    X("forwarded: the next event of the payment goes", test_forwarded_promotes_next) \
    X("a retry holds up its payment, not others", test_retry_holds_the_payment_only) \
    X("dead is no longer pending", test_dead_is_not_pending)                  \
    X("an outcome after the lease passed on is not recorded", test_stale_outcome_is_lost) \
    X("dead letters: list, show, retry", test_dead_letters)                   \
    X("retry --all keeps each payment's order", test_retry_all_keeps_order)   \
    X("ingest in batches; peek sees new events", test_batches_and_peek)      \
    X("attempts are counted by outcome", test_attempt_totals)                 \
    X("leases a lost answer left are released", test_unknown_leases_released)

#define ON_ENGINE(name, fn)                                                   \
    static void fn##_sqlite(void) { engine = WH_INBOX_SQLITE3; fn(); }        \
    static void fn##_pg(void) { engine = WH_INBOX_PGSQL; fn(); }             \
    static void fn##_mysql(void) { engine = WH_INBOX_MYSQL; fn(); }
QUEUE_CASES(ON_ENGINE)
#define SQLITE_ROW(name, fn) { name, fn##_sqlite },
#define PG_ROW(name, fn) { name, fn##_pg },
#define MYSQL_ROW(name, fn) { name, fn##_mysql },

static const wh_test_case cases[] = {
    QUEUE_CASES(SQLITE_ROW)
    { NULL, NULL }
};

static const wh_test_case pg_cases[] = {
    QUEUE_CASES(PG_ROW)
    { NULL, NULL }
};

WH_TEST_SUITE(forward_queue, cases)

WH_TEST_SUITE_PG(forward_queue_pg, pg_cases, "test_forward_pg.sh")

static const wh_test_case mysql_cases[] = {
    QUEUE_CASES(MYSQL_ROW)
    { NULL, NULL }
};

WH_TEST_SUITE_MYSQL(forward_queue_mysql, mysql_cases, "test_forward_mysql.sh")
