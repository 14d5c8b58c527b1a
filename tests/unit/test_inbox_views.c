/* The inbox's read-only views for the console (wh_inbox_views.c), the
 * payment views' rows and keyset pages (wh_payments.c), and the
 * forwarder's attempt history and reader's queries (wh_forward_queue.c).
 * Suite "inbox_views" runs on SQLite, where the query plans are checked
 * too (a page must seek, never scan the listing, whatever its offset);
 * "inbox_views_pg" runs every other case on PostgreSQL, whose SQL for
 * these views is its own, and "inbox_views_mysql" on MariaDB, whose plans
 * are checked too. */
#include "inbox_fx.h"
#include "inbox/wh_inbox_db.h"
#include "inbox/wh_inbox_views.h"
#include "inbox/wh_payments.h"
#include "forward/wh_forward_queue.h"

#include <apr_strings.h>
#include <stdio.h>

#define T0 ((apr_time_t)APR_INT64_C(1800000000000000))
#define SEC(n) ((apr_time_t)(n) * APR_USEC_PER_SEC)

/* Stores event i (notificationId ix_nid(i)) arriving at `at`. */
static void store_at(fx *f, int i, const char *pay, const char *status, apr_time_t at)
{
    const char *id = ix_nid(i);
    wh_facts fa = ix_facts(id, pay, status);
    const char *b = ix_body(id, pay, status);
    CU_ASSERT_EQUAL(wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b), at, NULL),
                    WH_INBOX_STORED);
}

/* 30 events a second apart: payments P0, P1, P2 in turn, statuses
 * Sent/Complete alternating. */
static fx *thirty(void)
{
    fx *f = ix_opened();
    for (int i = 1; i <= 30; i++)
        store_at(f, i, apr_psprintf(wh_test_pool(), "P%d", i % 3),
                 i % 2 ? "Sent" : "Complete", T0 + SEC(i));
    return f;
}

static apr_array_header_t *page_of(fx *f, wh_events_query *q, int *more)
{
    apr_array_header_t *rows = NULL;
    CU_ASSERT_EQUAL(wh_inbox_events(f->ib, wh_test_pool(), q, &rows, more), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
    return rows;
}

#define ROW(a, i) (&APR_ARRAY_IDX((a), (i), wh_event_row))

static void test_events_unfiltered(void)
{
    fx *f = thirty();
    wh_events_query q = { 0 };
    apr_array_header_t *rows;
    int more = 0;

    q.limit = 10;
    q.offset = 25;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 5);
    CU_ASSERT_EQUAL(more, 0);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 26);
    ASSERT_STR(ROW(rows, 0)->notification_id, ix_nid(26));
    CU_ASSERT_EQUAL(ROW(rows, 0)->received_at, T0 + SEC(26));
    ASSERT_STR(ROW(rows, 0)->payment_id, "P2");
    CU_ASSERT_PTR_NULL(ROW(rows, 0)->body);
    /* a window of positions: offset counts from its start */
    q.offset = 2;
    q.lo = 10;
    q.hi = 15;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 3);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 13);
    CU_ASSERT_EQUAL(ROW(rows, 2)->seq, 15);
    CU_ASSERT_EQUAL(more, 0);
    q.offset = 0;
    q.limit = 2;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(more, 1);
    /* far past the end: empty, no error */
    q.lo = 0;
    q.hi = 0;
    q.offset = 1000000;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 0);
}

static void test_events_filtered(void)
{
    fx *f = thirty();
    wh_events_query q = { 0 };
    apr_array_header_t *rows;
    int more = 0;

    q.limit = 3;
    q.payment_id = "P1";                  /* events 1, 4, 7, ... 28 */
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 3);
    CU_ASSERT_EQUAL(more, 1);
    CU_ASSERT_EQUAL(ROW(rows, 2)->seq, 7);
    q.offset = 3;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 10);
    /* the seek hint from the previous page gives the same page */
    q.after = 7;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 10);
    q.after = 0;
    q.offset = 0;
    q.status = "Complete";                /* P1 and even: 4, 10, 16, 22, 28 */
    q.limit = 10;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 5);
    CU_ASSERT_EQUAL(ROW(rows, 1)->seq, 10);
    /* with a window */
    q.lo = 10;
    q.hi = 22;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 16);
    q.payment_id = NULL;
    q.lo = q.hi = 0;
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 10);
    CU_ASSERT_EQUAL(more, 1);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 2);
    /* a value no event has */
    q.status = "<img src=x onerror=alert(1)>";
    rows = page_of(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 0);
}

static void test_one_event(void)
{
    fx *f = thirty();
    wh_event_row e;
    apr_int64_t n = 0;

    CU_ASSERT_EQUAL(wh_inbox_event(f->ib, wh_test_pool(), 5, &e), 1);
    CU_ASSERT_EQUAL(e.id, 5);
    CU_ASSERT_EQUAL(e.seq, 5);
    ASSERT_STR(e.notification_id, ix_nid(5));
    ASSERT_STR(e.body, ix_body(ix_nid(5), "P2", "Sent"));
    CU_ASSERT_EQUAL(wh_inbox_event(f->ib, wh_test_pool(), 999, &e), 0);
    CU_ASSERT_EQUAL(wh_inbox_listed(f->ib, wh_test_pool(), &n), 0);
    CU_ASSERT_EQUAL(n, 30);
}

static void test_arrivals(void)
{
    fx *f = thirty();
    apr_time_t t[6] = { T0, T0 + SEC(1), T0 + SEC(1) + 1, T0 + SEC(15) + 500,
                        T0 + SEC(31), T0 - SEC(100) };
    apr_int64_t pos[6];
    fx *empty;

    CU_ASSERT_EQUAL(wh_inbox_arrivals(f->ib, wh_test_pool(), t, 6, pos), 0);
    CU_ASSERT_EQUAL(pos[0], 0);              /* nothing before the first */
    CU_ASSERT_EQUAL(pos[1], 0);              /* before, not at */
    CU_ASSERT_EQUAL(pos[2], 1);
    CU_ASSERT_EQUAL(pos[3], 15);
    CU_ASSERT_EQUAL(pos[4], 30);             /* everything */
    CU_ASSERT_EQUAL(pos[5], 0);
    empty = ix_opened();
    CU_ASSERT_EQUAL(wh_inbox_arrivals(empty->ib, wh_test_pool(), t, 6, pos), 0);
    CU_ASSERT_EQUAL(pos[4], 0);
    /* bounded */
    CU_ASSERT_EQUAL(wh_inbox_arrivals(f->ib, wh_test_pool(), t, WH_ARRIVALS_MAX + 1, pos), -1);
}

/* Many instants over many events: each agrees with a count. */
static void test_arrivals_many(void)
{
    fx *f = ix_opened();
    apr_time_t t[100];
    apr_int64_t pos[100];

    for (int i = 1; i <= 1000; i++)
        store_at(f, i, NULL, NULL, T0 + (apr_time_t)i * 997);
    for (int i = 0; i < 100; i++)
        t[i] = T0 + (apr_time_t)(i * 10007);
    CU_ASSERT_EQUAL(wh_inbox_arrivals(f->ib, wh_test_pool(), t, 100, pos), 0);
    for (int i = 0; i < 100; i++) {
        apr_int64_t want = 0;
        for (int k = 1; k <= 1000; k++)
            want += T0 + (apr_time_t)k * 997 < t[i];
        CU_ASSERT_EQUAL(pos[i], want);
    }
}

/* The page and the probe seek on the listing's key: SQLite's plan never
 * says SCAN for wh_order, so the cost does not grow with the offset. */
static void test_plans_seek(void)
{
    fx *f = thirty();
    const char *plans[] = {
        "EXPLAIN QUERY PLAN SELECT o.seq FROM wh_order o JOIN wh_events e"
        " ON e.id = o.event_id WHERE o.seq > 1000000 AND o.seq <= 2000000"
        " ORDER BY o.seq LIMIT 26",
        "EXPLAIN QUERY PLAN SELECT o.seq, e.received_at FROM wh_order o JOIN"
        " wh_events e ON e.id = o.event_id WHERE o.seq IN (SELECT value FROM"
        " json_each('[1,2,3]'))",
        "EXPLAIN QUERY PLAN SELECT o.seq FROM wh_order o JOIN wh_events e"
        " ON e.id = o.event_id WHERE o.status = 'x' AND o.seq > 5 AND"
        " o.seq <= 9 ORDER BY o.seq LIMIT 26",
    };
    for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
        const apr_dbd_driver_t *drv;
        apr_dbd_t *h = ix_raw_open(f, &drv);
        apr_dbd_results_t *res = NULL;
        apr_dbd_row_t *row = NULL;
        char all[2048] = "";
        CU_ASSERT_PTR_NOT_NULL_FATAL(h);
        CU_ASSERT_EQUAL(apr_dbd_select(drv, wh_test_pool(), h, &res, plans[i], 0), 0);
        while (apr_dbd_get_row(drv, wh_test_pool(), res, &row, -1) == 0) {
            const char *d = apr_dbd_get_entry(drv, row, 3);
            if (d)
                apr_cpystrn(all + strlen(all), d, sizeof(all) - strlen(all));
        }
        CU_ASSERT(strstr(all, "SCAN o") == NULL && strstr(all, "SCAN wh_order") == NULL);
        if (strstr(all, "SCAN o"))
            fprintf(stderr, "plan %zu: %s\n", i, all);
        apr_dbd_close(drv, h);
    }
}

static void test_quarantine_held(void)
{
    fx *f = ix_opened();
    wh_verdict v;
    apr_int64_t n = -1;

    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "bad");
    CU_ASSERT_EQUAL(wh_inbox_quarantine_held(f->ib, wh_test_pool(), &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "{", 1, T0), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "[", 1, T0), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(ix_exec(f, "UPDATE wh_quarantine SET released_at = 1 WHERE id = 1"), 0);
    CU_ASSERT_EQUAL(wh_inbox_quarantine_held(f->ib, wh_test_pool(), &n), 0);
    CU_ASSERT_EQUAL(n, 1);
}

static void test_payment_rows(void)
{
    fx *f = thirty();
    wh_payment_row pay;
    apr_array_header_t *hist, *rows;
    int trunc = 1, more = 0;

    CU_ASSERT_EQUAL(wh_payments_view(f->ib, wh_test_pool(), "P1", &pay, &hist, &trunc),
                    WH_PAY_OK);
    CU_ASSERT_EQUAL(trunc, 0);
    CU_ASSERT_EQUAL(hist->nelts, 10);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hist, 0, wh_payment_event).event_id, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hist, 9, wh_payment_event).event_id, 28);
    CU_ASSERT_EQUAL(pay.events, 10);
    CU_ASSERT_EQUAL(wh_payments_view(f->ib, wh_test_pool(), "none", &pay, &hist, &trunc),
                    WH_PAY_NOT_FOUND);
    CU_ASSERT_EQUAL(wh_payments_after(f->ib, wh_test_pool(), NULL, NULL, 2, &rows, &more),
                    WH_PAY_OK);
    CU_ASSERT_EQUAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(more, 1);
    ASSERT_STR(APR_ARRAY_IDX(rows, 1, wh_payment_row).payment_id, "P1");
    CU_ASSERT_EQUAL(wh_payments_after(f->ib, wh_test_pool(), "P1", NULL, 2, &rows, &more),
                    WH_PAY_OK);
    CU_ASSERT_EQUAL(rows->nelts, 1);
    CU_ASSERT_EQUAL(more, 0);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_payment_row).payment_id, "P2");
    /* P0's last event is 30 (Complete), P1's 28 (Complete), P2's 29 (Sent) */
    CU_ASSERT_EQUAL(wh_payments_after(f->ib, wh_test_pool(), "", "Complete", 5, &rows, &more),
                    WH_PAY_OK);
    CU_ASSERT_EQUAL(rows->nelts, 2);
}

/* ---- the forwarder's history, as the console reads it ---------------- */

static wh_fq_outcome outcome(apr_int64_t id, int attempt, int state, int status,
                             const char *answer, apr_time_t started)
{
    wh_fq_outcome o;
    memset(&o, 0, sizeof(o));
    o.event_id = id;
    o.attempt = attempt;
    o.state = state;
    o.http_status = status;
    o.answer = answer;
    o.reason = state == WH_FQ_DEAD ? "rejected" : NULL;
    o.next_at = started + SEC(1);
    o.started_at = started;
    o.duration_ms = 42;
    return o;
}

static void cycle(wh_fq *d, const wh_fq_outcome *os, int n, int lease,
                  apr_time_t now, wh_fq_cycle_result *out)
{
    apr_array_header_t *a = apr_array_make(wh_test_pool(), n + 1, sizeof(wh_fq_outcome));
    for (int i = 0; i < n; i++)
        APR_ARRAY_PUSH(a, wh_fq_outcome) = os[i];
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), a, lease, 40000, now, out), 0);
}

static void test_attempts(void)
{
    fx *f = ix_opened();
    /* the reader is another connection, as the console's is */
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    wh_fq *d = NULL, *r = NULL;
    wh_fq_cycle_result c;
    apr_array_header_t *att, *st;
    apr_int64_t total = 0, ids[2] = { 1, 2 }, dead = 0;
    int n = 0;
    /* invalid UTF-8 and a quote in an answer: stored as text */
    wh_fq_outcome o1[2];

    /* before any forwarder: nothing to attach to, nothing created */
    CU_ASSERT_EQUAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 0);
    CU_ASSERT_PTR_NULL(r);
    store_at(f, 1, "PA", "Sent", T0);
    store_at(f, 2, "PB", "Sent", T0);
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), f->ib, f->cfg, "me", &d));
    cycle(d, NULL, 0, 10, T0 + SEC(1), &c);
    CU_ASSERT_EQUAL(c.leases->nelts, 2);
    o1[0] = outcome(1, 1, WH_FQ_READY, 500, "HTTP 500: \"no\" \xff\xfe", T0 + SEC(1));
    /* an answer cut inside a UTF-8 sequence, as a truncated body is */
    o1[1] = outcome(2, 1, WH_FQ_DEAD, 400, "HTTP 400: bad \xc3", T0 + SEC(1));
    cycle(d, o1, 2, 10, T0 + SEC(3), &c);
    CU_ASSERT_EQUAL(c.leases->nelts, 1);     /* event 1 again */
    o1[0] = outcome(1, 2, WH_FQ_FORWARDED, 200, "HTTP 200", T0 + SEC(3));
    cycle(d, o1, 1, 0, T0 + SEC(4), &c);

    CU_ASSERT_EQUAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(wh_fq_attempts(r, wh_test_pool(), 1, 10, &att, &total), 0);
    CU_ASSERT_EQUAL(total, 2);
    CU_ASSERT_EQUAL_FATAL(att->nelts, 2);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(att, 0, wh_fq_attempt).attempt, 2);       /* newest first */
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(att, 0, wh_fq_attempt).outcome, WH_FQ_FORWARDED);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(att, 1, wh_fq_attempt).http_status, 500);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(att, 1, wh_fq_attempt).duration_ms, 42);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(att, 1, wh_fq_attempt).started_at, T0 + SEC(1));
    ASSERT_STR(APR_ARRAY_IDX(att, 1, wh_fq_attempt).answer, "HTTP 500: \"no\" ??");
    CU_ASSERT_EQUAL(wh_fq_attempts(r, wh_test_pool(), 1, 1, &att, &total), 0);
    CU_ASSERT_EQUAL(att->nelts, 1);
    CU_ASSERT_EQUAL(total, 2);

    CU_ASSERT_EQUAL(wh_fq_states(r, wh_test_pool(), ids, 2, &st), 0);
    CU_ASSERT_EQUAL_FATAL(st->nelts, 2);
    for (int i = 0; i < 2; i++) {
        const wh_fq_state *s = &APR_ARRAY_IDX(st, i, wh_fq_state);
        CU_ASSERT_EQUAL(s->state, s->event_id == 1 ? WH_FQ_FORWARDED : WH_FQ_DEAD);
        if (s->event_id == 2) {
            ASSERT_STR(s->reason, "rejected");
            ASSERT_STR(s->answer, "HTTP 400: bad ?");
        }
    }
    CU_ASSERT_EQUAL(wh_fq_dead_count_payment(r, wh_test_pool(), "PB", &dead), 0);
    CU_ASSERT_EQUAL(dead, 1);
    CU_ASSERT_EQUAL(wh_fq_dead_count_payment(r, wh_test_pool(), "PA", &dead), 0);
    CU_ASSERT_EQUAL(dead, 0);
    /* a payment's dead letters back in the queue, through the reader */
    CU_ASSERT_EQUAL(wh_fq_dead_retry_payment(r, wh_test_pool(), "PA", T0 + SEC(5), &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(wh_fq_dead_retry_payment(r, wh_test_pool(), "PB", T0 + SEC(5), &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(wh_fq_dead_count_payment(r, wh_test_pool(), "PB", &dead), 0);
    CU_ASSERT_EQUAL(dead, 0);
    cycle(d, NULL, 0, 10, T0 + SEC(6), &c);
    CU_ASSERT_EQUAL(c.leases->nelts, 1);
}

/* A database whose forward queue tables an older forwarder made (no
 * wh_attempts): readers see no history and no error; the next forwarder start
 * adds the table, and attempts are kept from then on. */
static void test_attempts_upgrade(void)
{
    fx *f = ix_opened();
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    wh_fq *d = NULL, *r = NULL;
    apr_array_header_t *att;
    apr_int64_t total = -1;
    wh_fq_cycle_result c;
    wh_fq_outcome o;

    store_at(f, 1, "PA", "Sent", T0);
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), f->ib, f->cfg, "me", &d));
    CU_ASSERT_EQUAL(ix_exec(f, "DROP TABLE wh_attempts"), 0);
    CU_ASSERT_EQUAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(wh_fq_attempts(r, wh_test_pool(), 1, 10, &att, &total), 0);
    CU_ASSERT_EQUAL(att->nelts, 0);
    CU_ASSERT_EQUAL(total, 0);
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), f->ib, f->cfg, "me", &d));
    cycle(d, NULL, 0, 10, T0 + SEC(1), &c);
    o = outcome(1, 1, WH_FQ_FORWARDED, 204, "HTTP 204", T0 + SEC(1));
    cycle(d, &o, 1, 0, T0 + SEC(2), &c);
    CU_ASSERT_EQUAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(wh_fq_attempts(r, wh_test_pool(), 1, 10, &att, &total), 0);
    CU_ASSERT_EQUAL(total, 1);
}

/* Each case once per engine: the wrappers only choose the engine. */
#define ENGINE_CASES(X)                                                       \
    X(events_unfiltered, "events: unfiltered pages and windows")              \
    X(events_filtered, "events: filtered pages, seek hint")                   \
    X(one_event, "events: one event, listing size")                           \
    X(arrivals, "arrivals: positions by bisection")                           \
    X(arrivals_many, "arrivals: 100 instants over 1000 events")               \
    X(quarantine_held, "quarantine: held count")                              \
    X(payment_rows, "payments: rows with event ids, keyset pages")            \
    X(attempts, "attempts: history, states, payment retry")                   \
    X(attempts_upgrade, "attempts: table added to older forward queue tables")

ENGINE_CASES(IX_SQ_WRAP)
ENGINE_CASES(IX_PG_WRAP)
ENGINE_CASES(IX_MY_WRAP)

static void sq_plans_seek(void)
{
    ix_use_pg = 0;
    test_plans_seek();
}

static const wh_test_case cases[] = {
    ENGINE_CASES(IX_SQ_ROW)
    { "plans: pages and probes seek", sq_plans_seek },
    { NULL, NULL }
};

static const wh_test_case pg_cases[] = {
    ENGINE_CASES(IX_PG_ROW)
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_views, cases)

WH_TEST_SUITE_PG(inbox_views_pg, pg_cases, "test_inbox_pg.sh")

static const wh_test_case my_cases[] = {
    ENGINE_CASES(IX_MY_ROW)
    { NULL, NULL }
};

WH_TEST_SUITE_MYSQL(inbox_views_mysql, my_cases, "test_inbox_mysql.sh")
