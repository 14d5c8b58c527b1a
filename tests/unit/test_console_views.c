/* What the console finds and acts on, in the inbox and the forward queue:
 * events newest first and by forwarding state, a status whatever its
 * case, find by notificationId, paymentId and the wire's references,
 * payments by latest activity, the quarantine discarded, acknowledged
 * and checked again, dead letters chosen by a filter (counted, listed,
 * retried together), attempts by the minute and the forwarders'
 * liveness. Suite "inbox_console" on SQLite (query plans checked too:
 * each seeks on an index), "inbox_console_pg" on PostgreSQL (run by
 * test_inbox_pg.sh, with every inbox*_pg suite). */
#include "inbox_fx.h"
#include <apr_dbd.h>
#include "inbox/wh_inbox_find.h"
#include "inbox/wh_inbox_views.h"
#include "inbox/wh_payments.h"
#include "inbox/wh_quarantine_ops.h"
#include "forward/wh_forward_queue.h"
#include "forward/wh_forward_views.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <stdio.h>

#define T0 ((apr_time_t)APR_INT64_C(1800000000000000))
#define SEC(n) ((apr_time_t)(n) * APR_USEC_PER_SEC)

/* Event i (ix_nid(i)) of payment pay arriving at `at`, with references
 * when e2e is set: e2e, "IMAD-"e2e, "OMAD-"e2e. */
static void store_ref(fx *f, int i, const char *pay, const char *status, apr_time_t at,
                      const char *e2e)
{
    const char *id = ix_nid(i);
    wh_facts fa = ix_facts(id, pay, status);
    const char *b = ix_body(id, pay, status);

    if (e2e) {
        fa.end_to_end_id = e2e;
        fa.imad = apr_pstrcat(wh_test_pool(), "IMAD-", e2e, NULL);
        fa.omad = apr_pstrcat(wh_test_pool(), "OMAD-", e2e, NULL);
    }
    CU_ASSERT_EQUAL(wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b), at, NULL),
                    WH_INBOX_STORED);
}

#define ROW(a, i) (&APR_ARRAY_IDX((a), (i), wh_event_row))

static apr_array_header_t *events(fx *f, wh_events_query *q, int *more)
{
    apr_array_header_t *rows = NULL;
    CU_ASSERT_EQUAL(wh_inbox_events(f->ib, wh_test_pool(), q, &rows, more), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
    return rows;
}

/* 20 events: P0..P3 in turn, "Complete" every third, "Sent" else. */
static fx *twenty(void)
{
    fx *f = ix_opened();
    for (int i = 1; i <= 20; i++)
        store_ref(f, i, apr_psprintf(wh_test_pool(), "P%d", i % 4),
                  i % 3 ? "Sent" : "Complete", T0 + SEC(i),
                  apr_psprintf(wh_test_pool(), "E2E-%d", i % 4));
    return f;
}

static void test_newest_first(void)
{
    fx *f = twenty();
    wh_events_query q = { 0 };
    apr_array_header_t *rows;
    int more = 0;

    q.limit = 5;
    q.newest_first = 1;
    rows = events(f, &q, &more);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 5);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 20);
    CU_ASSERT_EQUAL(ROW(rows, 4)->seq, 16);
    CU_ASSERT_EQUAL(more, 1);
    /* the page before: a window ending below the last row shown */
    q.hi = 15;
    rows = events(f, &q, &more);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 15);
    q.hi = 3;
    rows = events(f, &q, &more);
    CU_ASSERT_EQUAL(rows->nelts, 3);
    CU_ASSERT_EQUAL(more, 0);
    /* a status whatever its case, newest first */
    q.hi = 0;
    q.status = "cOMPLETE";                /* 18, 15, 12, 9, 6, 3 */
    rows = events(f, &q, &more);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 5);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 18);
    CU_ASSERT_EQUAL(ROW(rows, 4)->seq, 6);
    CU_ASSERT_EQUAL(more, 1);
    q.payment_id = "P3";                  /* and of P3: 15, 3 */
    rows = events(f, &q, &more);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 15);
    /* oldest first, as before, a status whatever its case */
    q.newest_first = 0;
    q.payment_id = NULL;
    q.status = "complete";
    rows = events(f, &q, &more);
    CU_ASSERT_EQUAL(ROW(rows, 0)->seq, 3);
    /* an offset with newest first is no page */
    {
        apr_array_header_t *r = NULL;
        q.newest_first = 1;
        q.offset = 3;
        CU_ASSERT_EQUAL(wh_inbox_events(f->ib, wh_test_pool(), &q, &r, &more), -1);
    }
    /* the listing's status filter too: any case */
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 100, NULL, "SENT")).n, 14);
}

static void test_find(void)
{
    fx *f = twenty();
    apr_array_header_t *hits;
    wh_event_row e;
    int more = 0;

    /* a notificationId: the event */
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), ix_nid(7), &hits, &more), 0);
    CU_ASSERT_EQUAL_FATAL(hits->nelts, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hits, 0, wh_found).kind, WH_FOUND_NOTIFICATION);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hits, 0, wh_found).event_id, 7);
    ASSERT_STR(APR_ARRAY_IDX(hits, 0, wh_found).payment_id, "P3");
    CU_ASSERT_EQUAL(wh_inbox_event_by_nid(f->ib, wh_test_pool(), ix_nid(7), &e), 1);
    CU_ASSERT_EQUAL(e.id, 7);
    CU_ASSERT_PTR_NOT_NULL(e.body);
    CU_ASSERT_EQUAL(wh_inbox_event_by_nid(f->ib, wh_test_pool(), ix_nid(77), &e), 0);
    /* a paymentId */
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "P2", &hits, &more), 0);
    CU_ASSERT_EQUAL_FATAL(hits->nelts, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hits, 0, wh_found).kind, WH_FOUND_PAYMENT);
    /* the references: the payment whose events carry them, once */
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "E2E-1", &hits, &more), 0);
    CU_ASSERT_EQUAL_FATAL(hits->nelts, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hits, 0, wh_found).kind, WH_FOUND_END_TO_END_ID);
    ASSERT_STR(APR_ARRAY_IDX(hits, 0, wh_found).payment_id, "P1");
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "IMAD-E2E-2", &hits, &more), 0);
    CU_ASSERT_EQUAL_FATAL(hits->nelts, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(hits, 0, wh_found).kind, WH_FOUND_IMAD);
    ASSERT_STR(wh_found_name(WH_FOUND_IMAD), "IMAD");
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "OMAD-E2E-3", &hits, &more), 0);
    CU_ASSERT_EQUAL_FATAL(hits->nelts, 1);
    ASSERT_STR(APR_ARRAY_IDX(hits, 0, wh_found).payment_id, "P3");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_payment_refs"), "12");
    /* exact: no prefix, no case folding; nothing that could not be asked */
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "E2E", &hits, &more), 0);
    CU_ASSERT_EQUAL(hits->nelts, 0);
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "p2", &hits, &more), 0);
    CU_ASSERT_EQUAL(hits->nelts, 0);
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "a\x01" "b", &hits, &more), 0);
    CU_ASSERT_EQUAL(hits->nelts, 0);
    /* one value, several payments: each */
    store_ref(f, 21, "P9", "Sent", T0 + SEC(21), "E2E-1");
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), "E2E-1", &hits, &more), 0);
    CU_ASSERT_EQUAL(hits->nelts, 2);
    /* the listing API by notificationId: that event or nothing */
    {
        wh_page_query q = { 0, 10, NULL, NULL, ix_nid(5) };
        const char *json = NULL;
        CU_ASSERT_EQUAL(wh_inbox_list(f->ib, wh_test_pool(), &q, &json), WH_INBOX_STORED);
        CU_ASSERT_EQUAL(ix_parse_page(json).n, 1);
        CU_ASSERT(contains(json, ix_nid(5)));
        q.payment_id = "P0";            /* event 5 is P1's */
        CU_ASSERT_EQUAL(wh_inbox_list(f->ib, wh_test_pool(), &q, &json), WH_INBOX_STORED);
        CU_ASSERT_EQUAL(ix_parse_page(json).n, 0);
        q.payment_id = "P1";
        q.status = "SENT";
        CU_ASSERT_EQUAL(wh_inbox_list(f->ib, wh_test_pool(), &q, &json), WH_INBOX_STORED);
        CU_ASSERT_EQUAL(ix_parse_page(json).n, 1);
    }
}

static void test_payments_recent(void)
{
    fx *f = twenty();
    apr_array_header_t *rows;
    const wh_payment_row *last;
    int more = 0;

    /* the last events: 20 (P0), 19 (P3), 18 (P2), 17 (P1) */
    CU_ASSERT_EQUAL(wh_payments_recent(f->ib, wh_test_pool(), NULL, 0, NULL, 3, &rows, &more),
                    WH_PAY_OK);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 3);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_payment_row).payment_id, "P0");
    ASSERT_STR(APR_ARRAY_IDX(rows, 2, wh_payment_row).payment_id, "P2");
    CU_ASSERT_EQUAL(more, 1);
    last = &APR_ARRAY_IDX(rows, 2, wh_payment_row);
    CU_ASSERT_EQUAL(wh_payments_recent(f->ib, wh_test_pool(), NULL, last->updated_at,
                                       last->payment_id, 3, &rows, &more), WH_PAY_OK);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 1);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_payment_row).payment_id, "P1");
    CU_ASSERT_EQUAL(more, 0);
    /* a new event moves its payment first */
    store_ref(f, 22, "P1", "Sent", T0 + SEC(22), NULL);
    CU_ASSERT_EQUAL(wh_payments_recent(f->ib, wh_test_pool(), NULL, 0, NULL, 1, &rows, &more),
                    WH_PAY_OK);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_payment_row).payment_id, "P1");
    /* by status, whatever its case: P2's latest (18) is Complete, the
     * others' Sent */
    CU_ASSERT_EQUAL(wh_payments_recent(f->ib, wh_test_pool(), "complete", 0, NULL, 10, &rows,
                                       &more), WH_PAY_OK);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 1);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_payment_row).payment_id, "P2");
    CU_ASSERT_EQUAL(wh_payments_recent(f->ib, wh_test_pool(), "SENT", 0, NULL, 10, &rows,
                                       &more), WH_PAY_OK);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 3);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_payment_row).payment_id, "P1");
    CU_ASSERT_EQUAL(wh_payments_after(f->ib, wh_test_pool(), NULL, "COMPLETE", 10, &rows,
                                      &more), WH_PAY_OK);
    CU_ASSERT_EQUAL(rows->nelts, 1);
}

static void test_quarantine_ops(void)
{
    fx *f = ix_opened();
    wh_verdict v;
    apr_array_header_t *rows;
    apr_int64_t held = -1, event_id = 0;
    wh_quarantined q;
    const char *good = ix_body(ix_nid(3), "PQ", "Complete");

    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_SCHEMA_VIOLATION, "does not match the schema");
    wh_verdict_add_problem(&v, wh_test_pool(), "/data/wireEventInfo/status", "is not one of ...");
    wh_verdict_add_problem(&v, wh_test_pool(), "/eventDateTime", "is missing");
    /* 1: never JSON; 2: the schema's; 3: a body today's configuration
     * takes (the stand-in's checks: any JSON object with an id) */
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "{", 1, T0), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "[]", 2, T0), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, good, strlen(good), T0),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_quarantine_newest(f->ib, wh_test_pool(), 0, 1, 10, &rows), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 3);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_quarantined).id, 3);       /* newest first */
    ASSERT_STR(wh_quarantine_first_problem(wh_test_pool(), &APR_ARRAY_IDX(rows, 0, wh_quarantined)),
               "/data/wireEventInfo/status: is not one of ...");
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 2, wh_quarantined).stored_len, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_quarantined).releasable, -1);
    CU_ASSERT_EQUAL(wh_quarantine_recheck(f->ib, wh_test_pool(), f->cfg, rows), 0);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 2, wh_quarantined).releasable, 0);
    /* acknowledged: kept, not held; discarded after: bytes gone */
    CU_ASSERT_EQUAL(wh_quarantine_resolve(f->ib, wh_test_pool(), 1, WH_QUARANTINE_ACKNOWLEDGE,
                                          "alice", T0 + SEC(5)), WH_RESOLVE_DONE);
    CU_ASSERT_EQUAL(wh_quarantine_resolve(f->ib, wh_test_pool(), 1, WH_QUARANTINE_ACKNOWLEDGE,
                                          "alice", T0 + SEC(5)), WH_RESOLVE_NOT_HELD);
    CU_ASSERT_EQUAL(wh_inbox_quarantine_held(f->ib, wh_test_pool(), &held), 0);
    CU_ASSERT_EQUAL(held, 2);
    CU_ASSERT_EQUAL(wh_quarantine_get(f->ib, wh_test_pool(), 1, &q), 1);
    ASSERT_STR(q.resolution, "acknowledged");
    ASSERT_STR(q.resolved_by, "alice");
    CU_ASSERT_EQUAL(q.resolved_at, T0 + SEC(5));
    CU_ASSERT_EQUAL(q.body_len, 1);
    CU_ASSERT_EQUAL(wh_quarantine_resolve(f->ib, wh_test_pool(), 1, WH_QUARANTINE_DISCARD,
                                          "bob", T0 + SEC(6)), WH_RESOLVE_DONE);
    CU_ASSERT_EQUAL(wh_quarantine_get(f->ib, wh_test_pool(), 1, &q), 1);
    ASSERT_STR(q.resolution, "discarded");
    ASSERT_STR(q.resolved_by, "bob");
    CU_ASSERT_EQUAL(q.body_len, 0);
    CU_ASSERT_EQUAL(wh_quarantine_resolve(f->ib, wh_test_pool(), 1, WH_QUARANTINE_DISCARD,
                                          "bob", T0 + SEC(6)), WH_RESOLVE_NOT_HELD);
    CU_ASSERT_EQUAL(wh_quarantine_resolve(f->ib, wh_test_pool(), 99, WH_QUARANTINE_DISCARD,
                                          "bob", T0), WH_RESOLVE_NOT_FOUND);
    /* a discarded body is never released */
    CU_ASSERT_EQUAL(wh_quarantine_release(f->ib, wh_test_pool(), f->cfg, 1, T0, &v, &event_id),
                    WH_RELEASE_DISCARDED);
    CU_ASSERT_EQUAL(wh_quarantine_resolve(f->ib, wh_test_pool(), 2, WH_QUARANTINE_DISCARD,
                                          "bob", T0 + SEC(6)), WH_RESOLVE_DONE);
    CU_ASSERT_EQUAL(wh_inbox_quarantine_held(f->ib, wh_test_pool(), &held), 0);
    CU_ASSERT_EQUAL(held, 1);
    /* held only, or everything */
    CU_ASSERT_EQUAL(wh_quarantine_newest(f->ib, wh_test_pool(), 0, 1, 10, &rows), 0);
    CU_ASSERT_EQUAL(rows->nelts, 1);
    CU_ASSERT_EQUAL(wh_quarantine_newest(f->ib, wh_test_pool(), 3, 0, 10, &rows), 0);
    CU_ASSERT_EQUAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_quarantined).id, 2);
}

/* ---- the forward queue ------------------------------------------------ */

static wh_fq_outcome outcome(apr_int64_t id, int attempt, int state, int status,
                             const char *reason, apr_time_t started)
{
    wh_fq_outcome o;
    memset(&o, 0, sizeof(o));
    o.event_id = id;
    o.attempt = attempt;
    o.state = state;
    o.http_status = status;
    o.answer = status ? apr_psprintf(wh_test_pool(), "HTTP %d", status) : "timed out";
    o.reason = reason;
    o.next_at = started + SEC(1);
    o.started_at = started;
    o.duration_ms = 5;
    return o;
}

/* Events 1..12 of P0..P5 (two each, 1-6 then 7-12), leased and answered
 * once each: 1-4 forwarded, 5 and 6 retried (400 none, 503), 7 dead (400,
 * "rejected"), 8 dead (no answer, "max attempts"); 9-12 waiting behind
 * their payments' first events... and 13-14 stored after. */
static wh_fq *queue_fx(fx *f)
{
    wh_fq *d = NULL;
    wh_fq_cycle_result c;
    apr_array_header_t *o = apr_array_make(wh_test_pool(), 8, sizeof(wh_fq_outcome));

    for (int i = 1; i <= 12; i++)
        store_ref(f, i, apr_psprintf(wh_test_pool(), "P%d", i % 6), "Sent", T0 + SEC(i), NULL);
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), f->ib, f->cfg, "me", &d));
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), NULL, 20, 40000, T0 + SEC(20), &c), 0);
    CU_ASSERT_EQUAL_FATAL(c.leases->nelts, 6);     /* each payment's first: 1..6 */
    for (int i = 1; i <= 4; i++)
        APR_ARRAY_PUSH(o, wh_fq_outcome) = outcome(i, 1, WH_FQ_FORWARDED, 200, NULL, T0 + SEC(20));
    APR_ARRAY_PUSH(o, wh_fq_outcome) = outcome(5, 1, WH_FQ_READY, 503, NULL, T0 + SEC(20));
    APR_ARRAY_PUSH(o, wh_fq_outcome) = outcome(6, 1, WH_FQ_DEAD, 400, "rejected", T0 + SEC(20));
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), o, 0, 40000, T0 + SEC(80), &c), 0);
    apr_array_clear(o);
    /* the next of P1..P4 and P0 (6 was dead): 7..10, 12 */
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), NULL, 20, 40000, T0 + SEC(81), &c), 0);
    for (int i = 0; i < c.leases->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(c.leases, i, wh_fq_lease).ev.id;
        if (id == 7)
            APR_ARRAY_PUSH(o, wh_fq_outcome) = outcome(7, 1, WH_FQ_DEAD, 400, "rejected",
                                                       T0 + SEC(81));
        else if (id == 8)
            APR_ARRAY_PUSH(o, wh_fq_outcome) = outcome(8, 1, WH_FQ_DEAD, 0, "max attempts",
                                                       T0 + SEC(200));
    }
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), o, 0, 40000, T0 + SEC(201), &c), 0);
    /* stored by another connection, as the module's and the CGI's are */
    {
        wh_inbox *forwarders = f->ib;
        f->ib = ix_open_in(f, wh_test_pool());
        store_ref(f, 13, "P1", "Sent", T0 + SEC(300), NULL);
        store_ref(f, 14, "PX", "Sent", T0 + SEC(301), NULL);
        f->ib = forwarders;
    }
    return d;
}

static int ids_of(const apr_array_header_t *rows, apr_int64_t *out)
{
    for (int i = 0; i < rows->nelts; i++)
        out[i] = APR_ARRAY_IDX(rows, i, wh_event_row).id;
    return rows->nelts;
}

static void test_events_by_state(void)
{
    fx *f = ix_opened();
    wh_fq *d = queue_fx(f), *r = NULL;
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    wh_events_query q = { 0 };
    apr_array_header_t *rows;
    apr_int64_t ids[20];
    int more = 0;

    (void)d;
    CU_ASSERT_EQUAL_FATAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 1);
    q.limit = 10;
    q.newest_first = 1;
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_FORWARDED, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 4);
    CU_ASSERT_EQUAL(ids[0], 4);
    CU_ASSERT_EQUAL(ids[3], 1);
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_DEAD, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 3);
    CU_ASSERT_EQUAL(ids[0], 8);
    CU_ASSERT_EQUAL(ids[2], 6);
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_RETRYING, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 1);
    CU_ASSERT_EQUAL(ids[0], 5);
    /* not yet: 13 and 14 (no forwarder took them in), the leased, the
     * waiting and the retrying, newest first */
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_NOT_YET, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 7);
    CU_ASSERT_EQUAL(ids[0], 14);
    CU_ASSERT_EQUAL(ids[1], 13);
    CU_ASSERT_EQUAL(ids[2], 12);
    CU_ASSERT_EQUAL(ids[6], 5);
    /* paged, and under the other filters */
    q.limit = 2;
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_NOT_YET, &rows, &more), 0);
    CU_ASSERT_EQUAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(more, 1);
    q.hi = 12;
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_NOT_YET, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 2);
    CU_ASSERT_EQUAL(ids[0], 12);
    q.hi = 0;
    q.limit = 10;
    q.payment_id = "P1";                  /* 1 forwarded, 7 dead, 13 new */
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_DEAD, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 1);
    CU_ASSERT_EQUAL(ids[0], 7);
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_FORWARDED, &rows, &more), 0);
    CU_ASSERT_EQUAL(rows->nelts, 1);
    q.payment_id = NULL;
    q.status = "sent";
    q.newest_first = 0;                   /* oldest first too */
    CU_ASSERT_EQUAL(wh_fq_events(r, wh_test_pool(), &q, WH_FQ_SHOW_DEAD, &rows, &more), 0);
    CU_ASSERT_EQUAL_FATAL(ids_of(rows, ids), 3);
    CU_ASSERT_EQUAL(ids[0], 6);
    ASSERT_STR(wh_fq_show_name(WH_FQ_SHOW_NOT_YET), "notyet");
    CU_ASSERT_EQUAL(wh_fq_show_parse("dead"), WH_FQ_SHOW_DEAD);
    CU_ASSERT_EQUAL(wh_fq_show_parse("Dead"), 0);
}

static void test_dead_filter(void)
{
    fx *f = ix_opened();
    wh_fq *d = queue_fx(f), *r = NULL;
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    wh_fq_dead_filter flt;
    apr_array_header_t *rows;
    apr_hash_t *by;
    apr_int64_t n = -1;
    const char *pays[3] = { "P0", "P1", "P3" };
    wh_fq_cycle_result c;
    int k = 0;

    CU_ASSERT_EQUAL_FATAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 1);
    memset(&flt, 0, sizeof(flt));
    CU_ASSERT_EQUAL(wh_fq_dead_count(r, wh_test_pool(), &flt, &n), 0);
    CU_ASSERT_EQUAL(n, 3);
    ASSERT_STR(wh_fq_dead_filter_key(wh_test_pool(), &flt), "0:|0|0:|0|0");
    flt.reason = "rejected";
    CU_ASSERT_EQUAL(wh_fq_dead_count(r, wh_test_pool(), &flt, &n), 0);
    CU_ASSERT_EQUAL(n, 2);
    flt.http_status = 400;
    flt.payment_id = "P1";
    CU_ASSERT_EQUAL(wh_fq_dead_count(r, wh_test_pool(), &flt, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    memset(&flt, 0, sizeof(flt));
    flt.http_status = -1;                 /* no answer came */
    CU_ASSERT_EQUAL(wh_fq_dead_page(r, wh_test_pool(), &flt, 0, 10, &rows), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 1);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_dead).event_id, 8);
    /* when they died: 6 at +80 s, 7 at +201 s, 8 at +201 s */
    memset(&flt, 0, sizeof(flt));
    flt.to = T0 + SEC(100);
    CU_ASSERT_EQUAL(wh_fq_dead_count(r, wh_test_pool(), &flt, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    flt.to = 0;
    flt.from = T0 + SEC(100);
    CU_ASSERT_EQUAL(wh_fq_dead_page(r, wh_test_pool(), &flt, 0, 10, &rows), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 2);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_dead).event_id, 8);     /* newest first */
    CU_ASSERT_EQUAL(wh_fq_dead_page(r, wh_test_pool(), &flt, 8, 10, &rows), 0);
    CU_ASSERT_EQUAL(rows->nelts, 1);
    /* the reasons, most first */
    CU_ASSERT_EQUAL(wh_fq_dead_reasons(r, wh_test_pool(), &rows), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 2);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_fq_reason).reason, "rejected");
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_reason).http_status, 400);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_reason).n, 2);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 1, wh_fq_reason).http_status, -1);
    /* each payment's: 6 is P0's, 7 P1's, 8 P2's */
    CU_ASSERT_EQUAL(wh_fq_dead_by_payment(r, wh_test_pool(), pays, 3, &by), 0);
    CU_ASSERT_EQUAL(apr_hash_count(by), 2);
    CU_ASSERT_EQUAL(*(apr_int64_t *)apr_hash_get(by, "P1", APR_HASH_KEY_STRING), 1);
    CU_ASSERT_PTR_NULL(apr_hash_get(by, "P3", APR_HASH_KEY_STRING));
    /* every one matching, retried together: the others stay dead */
    memset(&flt, 0, sizeof(flt));
    flt.reason = "rejected";
    CU_ASSERT_EQUAL(wh_fq_dead_retry_matching(r, wh_test_pool(), &flt, T0 + SEC(400), &k), 0);
    CU_ASSERT_EQUAL(k, 2);
    memset(&flt, 0, sizeof(flt));
    CU_ASSERT_EQUAL(wh_fq_dead_count(r, wh_test_pool(), &flt, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(wh_fq_dead_retry_matching(r, wh_test_pool(), &flt, T0 + SEC(400), &k), 0);
    CU_ASSERT_EQUAL(k, 1);
    /* the forwarder takes them: ready or waiting behind their payments */
    CU_ASSERT_EQUAL(wh_fq_cycle(d, wh_test_pool(), NULL, 20, 40000, T0 + SEC(401), &c), 0);
    CU_ASSERT(c.leases->nelts >= 1);
}

static void test_over_time(void)
{
    fx *f = ix_opened();
    wh_fq *d = queue_fx(f), *r = NULL;
    wh_inbox *rib = ix_open_in(f, wh_test_pool());
    apr_int64_t fw[4], rt[4], dd[4];
    apr_array_header_t *rows;
    int known = 0;
    apr_time_t start = (T0 / (60 * APR_USEC_PER_SEC)) * 60 * APR_USEC_PER_SEC;

    CU_ASSERT_EQUAL_FATAL(wh_fq_attach(wh_test_pool(), rib, f->cfg, &r), 1);
    /* attempts started at +20 s (6), +81 s (1), +200 s (1): per minute */
    CU_ASSERT_EQUAL(wh_fq_outcomes(r, wh_test_pool(), start, apr_time_from_sec(60), 4, fw, rt,
                                   dd, &known), 0);
    CU_ASSERT_EQUAL(known, 1);
    CU_ASSERT_EQUAL(fw[0] + fw[1] + fw[2] + fw[3], 4);
    CU_ASSERT_EQUAL(rt[0] + rt[1] + rt[2] + rt[3], 1);
    CU_ASSERT_EQUAL(dd[0] + dd[1] + dd[2] + dd[3], 3);
    CU_ASSERT_EQUAL(dd[3], 1);            /* +200 s: the fourth minute */
    /* two minutes a bin */
    CU_ASSERT_EQUAL(wh_fq_outcomes(r, wh_test_pool(), start, apr_time_from_sec(120), 2, fw, rt,
                                   dd, &known), 0);
    CU_ASSERT_EQUAL(dd[1], 1);
    /* liveness: nothing yet, then a run, then a clean stop */
    CU_ASSERT_EQUAL(wh_fq_forwarders(r, wh_test_pool(), &rows, &known), 0);
    CU_ASSERT_EQUAL(known, 1);
    CU_ASSERT_EQUAL(rows->nelts, 0);
    CU_ASSERT_EQUAL(wh_fq_alive(d, wh_test_pool(), T0, T0 + SEC(10), 0), 0);
    CU_ASSERT_EQUAL(wh_fq_alive(d, wh_test_pool(), T0, T0 + SEC(20), 0), 0);
    CU_ASSERT_EQUAL(wh_fq_forwarders(r, wh_test_pool(), &rows, &known), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 1);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_fq_forwarder).owner, "me");
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_forwarder).started_at, T0);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_forwarder).seen_at, T0 + SEC(20));
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_forwarder).stopped_at, 0);
    CU_ASSERT_EQUAL(wh_fq_alive(d, wh_test_pool(), T0, T0 + SEC(30), 1), 0);
    CU_ASSERT_EQUAL(wh_fq_forwarders(r, wh_test_pool(), &rows, &known), 0);
    CU_ASSERT_EQUAL(APR_ARRAY_IDX(rows, 0, wh_fq_forwarder).stopped_at, T0 + SEC(30));
    /* a week silent: forgotten at the next sign of life of another */
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), f->ib, f->cfg, "other", &d));
    CU_ASSERT_EQUAL(wh_fq_alive(d, wh_test_pool(), T0 + SEC(700000), T0 + SEC(700000), 0), 0);
    CU_ASSERT_EQUAL(wh_fq_forwarders(r, wh_test_pool(), &rows, &known), 0);
    CU_ASSERT_EQUAL_FATAL(rows->nelts, 1);
    ASSERT_STR(APR_ARRAY_IDX(rows, 0, wh_fq_forwarder).owner, "other");
}

/* A plan reading a whole table: "SCAN t" but not "SCAN t USING ...
 * INDEX", an index walked in order and stopped by the LIMIT. */
static int table_scan(const char *plan)
{
    for (const char *s = strstr(plan, "SCAN "); s; s = strstr(s + 5, "SCAN ")) {
        const char *end = strstr(s, " | ");
        const char *using = strstr(s, " USING ");
        if (strncmp(s + 5, "json_each", 9) != 0 && (!using || (end && using > end)))
            return 1;
    }
    return 0;
}

/* Each new query seeks on an index: SQLite's plan never scans the
 * listing, the payments or the queue. */
static void test_plans(void)
{
    fx *f = ix_opened();
    wh_fq *d = queue_fx(f);
    const char *plans[] = {
        "SELECT o.seq FROM wh_order o WHERE lower(o.status) = lower('x')"
        " AND o.seq > 0 AND o.seq <= 99 ORDER BY o.seq DESC LIMIT 5",
        "SELECT -2, id FROM wh_events WHERE notification_id = 'x' UNION ALL"
        " SELECT -1, payment_id FROM wh_payments WHERE payment_id = 'x' UNION ALL"
        " SELECT kind, payment_id FROM wh_payment_refs WHERE ref = 'x' LIMIT 51",
        "SELECT payment_id FROM wh_payments ORDER BY updated_at DESC, payment_id DESC LIMIT 5",
        "SELECT payment_id FROM wh_payments WHERE lower(status) = lower('x') AND"
        " (updated_at, payment_id) < (5, 'x') ORDER BY updated_at DESC, payment_id DESC LIMIT 5",
        "SELECT o.seq FROM wh_delivery d JOIN wh_order o ON o.seq = d.seq JOIN wh_events e"
        " ON e.id = d.event_id WHERE d.state = 4 AND d.seq > 0 AND d.seq <= 99"
        " ORDER BY d.seq DESC LIMIT 5",
        "SELECT o.seq FROM wh_order o JOIN wh_delivery d ON d.event_id = o.event_id JOIN"
        " wh_events e ON e.id = o.event_id WHERE +d.state = 3 AND o.seq > 0 AND"
        " o.seq <= 99 ORDER BY o.seq DESC LIMIT 5",
        "SELECT payment_id, count(*) FROM wh_delivery INDEXED BY wh_delivery_dead_payment"
        " WHERE state = 4 AND payment_id IN (SELECT value FROM json_each('[\"a\"]'))"
        " GROUP BY payment_id",
        /* the overview's count of events waiting for their next attempt
         * (WH_FQ_SQL_STATS): their own index, no ready row read */
        "SELECT count(*) FROM wh_delivery WHERE state = 1 AND attempts > 0"
        " AND lease_owner IS NULL",
    };
    /* and the index each one is for */
    const char *uses[] = { "wh_order_status_ci", "wh_payment_refs", "wh_payments_recent",
                           "wh_payments_status_recent", "wh_delivery_state", "USING INDEX",
                           "wh_delivery_dead_payment", "wh_delivery_retrying" };
    (void)d;
    for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
        const apr_dbd_driver_t *drv;
        apr_dbd_t *h = ix_raw_open(f, &drv);
        apr_dbd_results_t *res = NULL;
        apr_dbd_row_t *row = NULL;
        char all[2048] = "";
        CU_ASSERT_PTR_NOT_NULL_FATAL(h);
        CU_ASSERT_EQUAL(apr_dbd_select(drv, wh_test_pool(), h, &res,
                                       apr_pstrcat(wh_test_pool(), "EXPLAIN QUERY PLAN ",
                                                   plans[i], NULL), 0), 0);
        while (apr_dbd_get_row(drv, wh_test_pool(), res, &row, -1) == 0) {
            const char *det = apr_dbd_get_entry(drv, row, 3);
            if (det)
                apr_snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s | ", det);
        }
        apr_dbd_close(drv, h);
        int scans = table_scan(all);
        CU_ASSERT(!scans);
        CU_ASSERT(strstr(all, uses[i]) != NULL);
        if (scans || !strstr(all, uses[i]))
            fprintf(stderr, "plan %zu: %s\n", i, all);
    }
}

#define ENGINE_CASES(X)                                                       \
    X(newest_first, "events: newest first, a status whatever its case")       \
    X(find, "find: notificationId, paymentId, references; the API's filter")  \
    X(payments_recent, "payments: by latest activity, keyset pages")          \
    X(quarantine_ops, "quarantine: acknowledged, discarded, checked again")   \
    X(events_by_state, "events: by forwarding state")                         \
    X(dead_filter, "dead letters: a filter counted, listed, retried")         \
    X(over_time, "over time: attempts by the minute, forwarders' liveness")

ENGINE_CASES(IX_SQ_WRAP)
ENGINE_CASES(IX_PG_WRAP)
ENGINE_CASES(IX_MY_WRAP)

static const wh_test_case cases[] = {
    ENGINE_CASES(IX_SQ_ROW)
    { "plans: each new query seeks", test_plans },
    { NULL, NULL }
};

static const wh_test_case pg_cases[] = {
    ENGINE_CASES(IX_PG_ROW)
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_console, cases)

WH_TEST_SUITE_PG(inbox_console_pg, pg_cases, "test_inbox_pg.sh")

static const wh_test_case my_cases[] = {
    ENGINE_CASES(IX_MY_ROW)
    { NULL, NULL }
};
WH_TEST_SUITE_MYSQL(inbox_console_mysql, my_cases, "test_inbox_mysql.sh")
