/* Retention (wh_inbox_purge.c, forward/wh_forward_purge.c): what a purge
 * deletes and what it must keep: the newest event, every event the
 * forwarder has not finished, dead letters within their retention, each
 * payment's current state, a tombstone for each purged notificationId
 * (a copy arriving later is a duplicate) until its own retention; the
 * listing's offsets after it; dry runs; the record of the last purge; the
 * space; and the SQLite backup and vacuum (wh_inbox_backup.c). Suite "inbox_purge" runs on SQLite files,
 * "inbox_purge_pg" the same rules on the PostgreSQL database
 * WH_TEST_PG_CONNINFO names (test_inbox_pg.sh). Times are given: events
 * are stored "at" a time and the purge is run "at" another. */
#include "inbox_fx.h"
#include "config/wh_config_load.h"
#include "forward/wh_forward_purge.h"
#include "forward/wh_forward_queue.h"
#include "inbox/wh_inbox_backup.h"
#include "inbox/wh_inbox_find.h"
#include "inbox/wh_inbox_purge.h"
#include "inbox/wh_inbox_views.h"
#include "inbox/wh_quarantine_ops.h"
#include "inbox/wh_payments.h"
#include "verify/wh_verdict.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define T0 ((apr_time_t)APR_INT64_C(1800000000000000))
#define SEC(n) ((apr_time_t)(n) * APR_USEC_PER_SEC)
#define DAY 86400
/* The retention every case uses: a day. */
#define KEEP DAY

static fx *make(void)
{
    fx *f = ix_opened();
    f->cfg->inbox_retention = KEEP;
    f->cfg->inbox_quarantine_retention = KEEP;
    f->cfg->inbox_dead_retention = KEEP;
    return f;
}

/* Stores notification i of payment pay (NULL: none) at `at`, with its
 * eventDateTime `when` (NULL: the fixture's). */
static wh_inbox_result store_at(fx *f, int i, const char *pay, const char *status,
                                const char *when, apr_time_t at, apr_int64_t *seq)
{
    const char *id = ix_nid(i);
    wh_facts fa = ix_facts(id, pay, status);
    const char *b = ix_body(id, pay ? pay : "-", status);

    if (when)
        fa.event_time = when;
    return wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b), at, seq);
}

static wh_purge_counts purge_with(fx *f, apr_time_t now, int dry, int batch)
{
    const wh_purge_guard *g = NULL;
    wh_purge_opts o;
    wh_purge_counts n;

    memset(&o, 0, sizeof(o));
    memset(&n, 0, sizeof(n));
    CU_ASSERT_PTR_NULL(wh_fq_purge_guard(wh_test_pool(), f->ib, f->cfg, &g));
    o.now = now;
    o.dry_run = dry;
    o.batch = batch;
    o.guard = g;
    CU_ASSERT_EQUAL(wh_inbox_purge(f->ib, wh_test_pool(), f->cfg, &o, &n), 0);
    return n;
}

static wh_purge_counts purge_at(fx *f, apr_time_t now)
{
    return purge_with(f, now, 0, 0);
}

static const char *count(fx *f, const char *table)
{
    return ix_query(f, apr_pstrcat(wh_test_pool(), "SELECT count(*) FROM ", table, NULL));
}

/* wh_events holds events and the tombstones of purged ones (their keys
 * negated, wh_inbox_sql.h). */
#define EVENTS "wh_events WHERE id > 0"
#define TOMBSTONES "wh_events WHERE id < 0"

/* ---- events ---------------------------------------------------------- */

/* Events older than the retention go, the others stay; offsets keep their
 * meaning; numbering goes on after the last. */
static void test_older_events_go(void)
{
    fx *f = make();
    apr_int64_t seq = 0;
    wh_purge_counts n;
    page pg;

    for (int i = 1; i <= 10; i++)
        CU_ASSERT_EQUAL(store_at(f, i, i % 2 ? "A" : "B", "Review", NULL, T0 + SEC(i), &seq),
                        WH_INBOX_STORED);
    /* events 1..5 arrived more than a day before */
    n = purge_at(f, T0 + SEC(KEEP) + SEC(5) + 500000);
    CU_ASSERT_EQUAL(n.events, 5);
    CU_ASSERT_EQUAL(n.dead_letters, 0);
    CU_ASSERT_EQUAL(n.kept, 0);
    CU_ASSERT_EQUAL(n.behind, 0);
    ASSERT_STR(count(f, EVENTS), "5");
    ASSERT_STR(count(f, "wh_order"), "5");
    /* what stays of the five purged: the notificationId and arrival */
    ASSERT_STR(count(f, TOMBSTONES), "5");
    ASSERT_STR(count(f, TOMBSTONES " AND body = '' AND payment_id IS NULL AND status IS"
                        " NULL AND event_type IS NULL AND event_time IS NULL"), "5");
    ASSERT_STR(ix_query(f, "SELECT notification_id FROM wh_events WHERE id = (SELECT max(id)"
                           " FROM wh_events WHERE id < 0)"), ix_nid(1));

    /* the first page starts at the first event kept; the next offset is
     * the last position read, so the pages meet */
    pg = ix_parse_page(ix_list(f, 0, 3, NULL, NULL));
    CU_ASSERT_EQUAL_FATAL(pg.n, 3);
    ASSERT_STR(pg.ids[0], ix_nid(6));
    ASSERT_STR(pg.ids[2], ix_nid(8));
    ASSERT_STR(pg.offset, "8");
    CU_ASSERT(pg.more);
    pg = ix_parse_page(ix_list(f, 8, 3, NULL, NULL));
    CU_ASSERT_EQUAL_FATAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], ix_nid(9));
    ASSERT_STR(pg.ids[1], ix_nid(10));
    ASSERT_STR(pg.offset, "10");
    CU_ASSERT(!pg.more);
    /* an offset held from before keeps its meaning */
    pg = ix_parse_page(ix_list(f, 6, 1, NULL, NULL));
    ASSERT_STR(pg.ids[0], ix_nid(7));

    /* the next event is numbered after the last, never again a purged one */
    CU_ASSERT_EQUAL(store_at(f, 11, "A", "Complete", NULL, T0 + SEC(KEEP + 20), &seq),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 11);
    ASSERT_STR(ix_query(f, "SELECT min(id) < max(id) AND max(id) >= 11 FROM wh_events"),
               ix_use_pg ? "t" : "1");
    /* nothing more is due at the same moment */
    n = purge_at(f, T0 + SEC(KEEP) + SEC(5) + 500000);
    CU_ASSERT_EQUAL(n.events, 0);
}

/* The newest event stays whatever its age: numbering goes on from it. */
static void test_newest_stays(void)
{
    fx *f = make();
    apr_int64_t seq = 0;
    wh_purge_counts n;

    for (int i = 1; i <= 3; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), &seq), WH_INBOX_STORED);
    n = purge_at(f, T0 + SEC(100 * DAY));
    CU_ASSERT_EQUAL(n.events, 2);
    ASSERT_STR(ix_query(f, "SELECT notification_id FROM " EVENTS), ix_nid(3));
    n = purge_at(f, T0 + SEC(100 * DAY));
    CU_ASSERT_EQUAL(n.events, 0);
    CU_ASSERT_EQUAL(store_at(f, 4, "A", "Complete", NULL, T0 + SEC(100 * DAY), &seq),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, 4);
    /* and the one that was newest goes once it is no longer */
    n = purge_at(f, T0 + SEC(100 * DAY));
    CU_ASSERT_EQUAL(n.events, 1);
    ASSERT_STR(ix_query(f, "SELECT notification_id FROM " EVENTS), ix_nid(4));
}

/* A payment's current state is kept with none of its events: status,
 * notificationId, the count, and the order that a late event is judged
 * by. */
static void test_payment_state_stays(void)
{
    fx *f = make();
    wh_payment_row pay;
    apr_array_header_t *hist;
    int trunc;

    CU_ASSERT_EQUAL(store_at(f, 1, "P", "Complete", "2026-11-22T14:05:09Z", T0 + SEC(1), NULL),
                    WH_INBOX_STORED);
    /* late: an older eventDateTime, arriving after */
    CU_ASSERT_EQUAL(store_at(f, 2, "P", "Review", "2026-11-22T14:01:00Z", T0 + SEC(2), NULL),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 3, "Q", "Review", NULL, T0 + SEC(3), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(purge_at(f, T0 + SEC(2 * DAY)).events, 2);

    CU_ASSERT_EQUAL_FATAL(wh_payments_view(f->ib, wh_test_pool(), "P", &pay, &hist, &trunc),
                          WH_PAY_OK);
    ASSERT_STR(pay.status, "Complete");
    ASSERT_STR(pay.notification_id, ix_nid(1));
    CU_ASSERT_EQUAL(pay.events, 2);
    CU_ASSERT_EQUAL(hist->nelts, 0);              /* the history went */
    /* an event older than the current one still cannot move it back */
    CU_ASSERT_EQUAL(store_at(f, 4, "P", "Exception", "2026-11-22T14:02:00Z",
                             T0 + SEC(2 * DAY), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL_FATAL(wh_payments_view(f->ib, wh_test_pool(), "P", &pay, &hist, &trunc),
                          WH_PAY_OK);
    ASSERT_STR(pay.status, "Complete");
    CU_ASSERT_EQUAL(pay.events, 3);
    CU_ASSERT_EQUAL(hist->nelts, 1);
    /* a later one does */
    CU_ASSERT_EQUAL(store_at(f, 5, "P", "Exception", "2026-11-22T15:00:00Z",
                             T0 + SEC(2 * DAY), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_payments_view(f->ib, wh_test_pool(), "P", &pay, &hist, &trunc),
                    WH_PAY_OK);
    ASSERT_STR(pay.status, "Exception");
}

/* ---- the forwarder --------------------------------------------------- */

static apr_int64_t id_of(fx *f, int i)
{
    const char *v = ix_query(f, apr_psprintf(wh_test_pool(), "SELECT id FROM wh_events"
                                              " WHERE notification_id = '%s'", ix_nid(i)));
    CU_ASSERT_PTR_NOT_NULL(v);
    return v ? apr_atoi64(v) : -1;
}

static const wh_fq_lease *leased(const wh_fq_cycle_result *c, apr_int64_t id)
{
    for (int i = 0; i < c->leases->nelts; i++)
        if (APR_ARRAY_IDX(c->leases, i, wh_fq_lease).ev.id == id)
            return &APR_ARRAY_IDX(c->leases, i, wh_fq_lease);
    return NULL;
}

static void outcome(apr_array_header_t *o, const wh_fq_lease *l, int state, apr_time_t at)
{
    wh_fq_outcome *x = apr_array_push(o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    memset(x, 0, sizeof(*x));
    x->event_id = l->ev.id;
    x->attempt = l->ev.attempt;
    x->state = state;
    x->next_at = state == WH_FQ_READY ? at + SEC(3600) : 0;
    x->http_status = state == WH_FQ_FORWARDED ? 200 : state == WH_FQ_DEAD ? 400 : 503;
    x->answer = "HTTP";
    x->reason = state == WH_FQ_DEAD ? "rejected by the application" : NULL;
    x->started_at = at;
    x->duration_ms = 5;
}

/* Only what the forwarder is done with goes: forwarded events, and dead
 * letters past their retention; events waiting, retrying or not yet
 * taken in stay, and so do their queue rows. */
static void test_forwarder_keeps_its_events(void)
{
    fx *f = make();
    wh_fq *q = NULL;
    wh_fq_cycle_result c;
    apr_array_header_t *o = apr_array_make(wh_test_pool(), 4, sizeof(wh_fq_outcome));
    wh_purge_counts n;

    f->cfg->forward_url = "http://127.0.0.1:9/";
    f->cfg->inbox_dead_retention = 3 * DAY;
    CU_ASSERT_EQUAL(store_at(f, 1, "A", "Review", NULL, T0 + SEC(1), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 2, "A", "Complete", NULL, T0 + SEC(2), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 3, "B", "Review", NULL, T0 + SEC(3), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 4, "C", "Review", NULL, T0 + SEC(4), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 5, NULL, NULL, NULL, T0 + SEC(5), NULL), WH_INBOX_STORED);

    /* ForwardUrl, but no forwarder has run yet: every event stays */
    n = purge_at(f, T0 + SEC(10 * DAY));
    CU_ASSERT_EQUAL(n.events, 0);
    CU_ASSERT(n.behind);

    /* the forwarder: a process, and a connection, of its own */
    CU_ASSERT_PTR_NULL_FATAL(wh_fq_open(wh_test_pool(), ix_open_in(f, wh_test_pool()), f->cfg,
                                        "me", &q));
    CU_ASSERT_EQUAL(wh_fq_cycle(q, wh_test_pool(), NULL, 10, 40000, T0 + SEC(10), &c), 0);
    CU_ASSERT_EQUAL(c.leases->nelts, 4);          /* 2 waits behind 1 */
    outcome(o, leased(&c, id_of(f, 1)), WH_FQ_FORWARDED, T0 + SEC(11));
    outcome(o, leased(&c, id_of(f, 3)), WH_FQ_DEAD, T0 + SEC(11));
    outcome(o, leased(&c, id_of(f, 4)), WH_FQ_READY, T0 + SEC(11));
    outcome(o, leased(&c, id_of(f, 5)), WH_FQ_FORWARDED, T0 + SEC(11));
    CU_ASSERT_EQUAL(wh_fq_cycle(q, wh_test_pool(), o, 0, 40000, T0 + SEC(12), &c), 0);
    CU_ASSERT_EQUAL(c.recorded, 4);
    /* stored after the queue took the others in: not queued yet */
    CU_ASSERT_EQUAL(store_at(f, 6, "D", "Review", NULL, T0 + SEC(20), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 7, "D", "Review", NULL, T0 + SEC(21), NULL), WH_INBOX_STORED);
    ASSERT_STR(count(f, "wh_attempts"), "4");

    n = purge_at(f, T0 + SEC(2 * DAY));
    CU_ASSERT_EQUAL(n.events, 2);                 /* 1 and 5, forwarded */
    CU_ASSERT_EQUAL(n.dead_letters, 0);
    CU_ASSERT_EQUAL(n.kept, 3);                   /* 2 ready, 3 dead, 4 retrying */
    CU_ASSERT(n.behind);                          /* 6 not taken in (7: the newest) */
    ASSERT_STR(ix_query(f, apr_psprintf(wh_test_pool(), "SELECT count(*) FROM " EVENTS
                                         " AND notification_id IN ('%s', '%s')",
                                         ix_nid(1), ix_nid(5))), "0");
    ASSERT_STR(count(f, "wh_delivery"), "3");
    ASSERT_STR(count(f, "wh_attempts"), "2");     /* 3's and 4's */
    /* the dead letter, once its own retention is past */
    n = purge_at(f, T0 + SEC(4 * DAY));
    CU_ASSERT_EQUAL(n.events, 1);
    CU_ASSERT_EQUAL(n.dead_letters, 1);
    CU_ASSERT_EQUAL(n.kept, 2);
    ASSERT_STR(count(f, "wh_delivery"), "2");
    ASSERT_STR(count(f, "wh_attempts"), "1");
    {
        apr_array_header_t *dead = NULL;
        CU_ASSERT_EQUAL(wh_fq_dead_list(q, wh_test_pool(), 0, 10, &dead), 0);
        CU_ASSERT_EQUAL(dead->nelts, 0);
    }
    /* the forwarder goes on where it was: 2 is next for A, 6 and 7 are
     * taken in */
    CU_ASSERT_EQUAL(wh_fq_cycle(q, wh_test_pool(), NULL, 10, 40000, T0 + SEC(4 * DAY), &c), 0);
    CU_ASSERT_EQUAL(c.ingested, 2);
    CU_ASSERT_PTR_NOT_NULL(leased(&c, id_of(f, 2)));
    CU_ASSERT_PTR_NOT_NULL(leased(&c, id_of(f, 6)));
}

/* Without ForwardUrl and with no forwarder ever run, nothing waits. */
static void test_no_forwarder(void)
{
    fx *f = make();
    const wh_purge_guard *g = (const wh_purge_guard *)1;

    CU_ASSERT_PTR_NULL(wh_fq_purge_guard(wh_test_pool(), f->ib, f->cfg, &g));
    CU_ASSERT_PTR_NULL(g);
    for (int i = 1; i <= 4; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(purge_at(f, T0 + SEC(2 * DAY)).events, 3);
}

/* ---- quarantine, auth cache ------------------------------------------ */

static void quarantine_at(fx *f, apr_time_t at)
{
    wh_verdict v;

    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "the body is not valid JSON");
    v.authentic = 1;
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "{", 1, at),
                    WH_INBOX_STORED);
}

static void test_quarantine_and_auth_cache(void)
{
    fx *f = make();
    wh_purge_counts n;

    quarantine_at(f, T0 + SEC(1));
    quarantine_at(f, T0 + SEC(2));
    quarantine_at(f, T0 + SEC(DAY + 10));
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, wh_test_pool(), "k1", "bank", T0,
                                        T0 + SEC(60)), 0);
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, wh_test_pool(), "k2", "bank", T0,
                                        T0 + SEC(3 * DAY)), 0);
    /* its own retention: kept for ever, while events would go */
    f->cfg->inbox_quarantine_retention = 0;
    n = purge_at(f, T0 + SEC(DAY + 5));
    CU_ASSERT_EQUAL(n.quarantine, 0);
    CU_ASSERT_EQUAL(n.auth_cache, 1);             /* k1 expired */
    ASSERT_STR(count(f, "wh_auth_cache"), "1");
    f->cfg->inbox_quarantine_retention = DAY;
    n = purge_at(f, T0 + SEC(DAY + 5));
    CU_ASSERT_EQUAL(n.quarantine, 2);
    CU_ASSERT_EQUAL(n.auth_cache, 0);
    ASSERT_STR(count(f, "wh_quarantine"), "1");
    /* the quarantine's numbers go on */
    quarantine_at(f, T0 + SEC(DAY + 20));
    ASSERT_STR(ix_query(f, "SELECT max(id) FROM wh_quarantine"), "4");
}

/* ---- how it runs ------------------------------------------------------- */

/* A dry run counts exactly what the purge then deletes, and changes
 * nothing; small batches do what one batch does. */
static void test_dry_run_and_batches(void)
{
    fx *f = make();
    wh_inbox_purge_record r;
    wh_purge_counts dry, real;

    for (int i = 1; i <= 9; i++)
        CU_ASSERT_EQUAL(store_at(f, i, i % 3 ? "A" : NULL, "Review", NULL, T0 + SEC(i), NULL),
                        WH_INBOX_STORED);
    quarantine_at(f, T0);
    dry = purge_with(f, T0 + SEC(DAY + 7) + 1, 1, 2);
    CU_ASSERT_EQUAL(dry.events, 7);
    CU_ASSERT_EQUAL(dry.quarantine, 1);
    CU_ASSERT(dry.transactions >= 4);
    ASSERT_STR(count(f, EVENTS), "9");
    ASSERT_STR(count(f, "wh_quarantine"), "1");
    CU_ASSERT_EQUAL(wh_inbox_last_purge(f->ib, wh_test_pool(), &r), 0);

    real = purge_with(f, T0 + SEC(DAY + 7) + 1, 0, 2);
    CU_ASSERT_EQUAL(real.events, dry.events);
    CU_ASSERT_EQUAL(real.quarantine, dry.quarantine);
    CU_ASSERT(real.transactions >= 4);
    ASSERT_STR(count(f, EVENTS), "2");
    CU_ASSERT_EQUAL_FATAL(wh_inbox_last_purge(f->ib, wh_test_pool(), &r), 1);
    CU_ASSERT_EQUAL(r.events, 7);
    CU_ASSERT_EQUAL(r.quarantine, 1);
    CU_ASSERT(r.finished_at >= r.started_at && r.started_at > 0);
}

/* A purge steps through its parts, one transaction at a time. */
static void test_steps(void)
{
    fx *f = make();
    wh_purge_opts o;
    wh_purge *pg;
    int steps = 0, rv;

    for (int i = 1; i <= 5; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), NULL), WH_INBOX_STORED);
    memset(&o, 0, sizeof(o));
    o.now = T0 + SEC(2 * DAY);
    o.batch = 1;
    pg = wh_purge_begin(wh_test_pool(), f->ib, f->cfg, &o);
    while ((rv = wh_purge_step(pg, wh_test_pool())) > 0)
        steps++;
    CU_ASSERT_EQUAL(rv, 0);
    CU_ASSERT(steps >= 4);
    CU_ASSERT_EQUAL(wh_purge_result(pg)->events, 4);
    CU_ASSERT_EQUAL(wh_purge_step(pg, wh_test_pool()), 0);
}

/* Nothing configured: nothing but the expired auth cache goes. */
static void test_keeps_everything_by_default(void)
{
    fx *f = make();
    wh_config *c = wh_config_create(wh_test_pool());

    CU_ASSERT(!wh_purge_configured(c));
    c->inbox_params = "x";
    CU_ASSERT(contains(wh_inbox_retention_note(wh_test_pool(), c), "every event"));
    f->cfg->inbox_retention = f->cfg->inbox_quarantine_retention = 0;
    f->cfg->inbox_dead_retention = 0;
    for (int i = 1; i <= 3; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), NULL), WH_INBOX_STORED);
    quarantine_at(f, T0);
    CU_ASSERT_EQUAL(purge_at(f, T0 + SEC(1000 * DAY)).events, 0);
    ASSERT_STR(count(f, "wh_events"), "3");
    ASSERT_STR(count(f, "wh_quarantine"), "1");
}

/* A purged event's notificationId arriving again is a duplicate: stored
 * and forwarded once. Its tombstone shows nowhere: not listed, not found,
 * no event to view. A quarantined copy released later is a duplicate
 * too. */
static void test_tombstone_is_a_duplicate(void)
{
    fx *f = make();
    apr_array_header_t *hits;
    wh_event_row ev;
    apr_int64_t seq = 0;
    int more;
    page pg;

    for (int i = 1; i <= 3; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(purge_at(f, T0 + SEC(2 * DAY)).events, 2);
    /* the bank sends 1 again, a year on */
    CU_ASSERT_EQUAL(store_at(f, 1, "A", "Review", NULL, T0 + SEC(365 * DAY), &seq),
                    WH_INBOX_DUPLICATE);
    CU_ASSERT_EQUAL(store_at(f, 2, "A", "Complete", NULL, T0 + SEC(365 * DAY), &seq),
                    WH_INBOX_DUPLICATE);
    ASSERT_STR(count(f, EVENTS), "1");
    ASSERT_STR(count(f, "wh_order"), "1");
    pg = ix_parse_page(ix_list(f, 0, 10, NULL, NULL));
    CU_ASSERT_EQUAL_FATAL(pg.n, 1);
    ASSERT_STR(pg.ids[0], ix_nid(3));
    CU_ASSERT_EQUAL(wh_inbox_event_by_nid(f->ib, wh_test_pool(), ix_nid(1), &ev), 0);
    CU_ASSERT_EQUAL(wh_inbox_event(f->ib, wh_test_pool(), 1, &ev), 0);
    CU_ASSERT_EQUAL(wh_inbox_event(f->ib, wh_test_pool(), -1, &ev), 0);
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), ix_nid(1), &hits, &more), 0);
    CU_ASSERT_EQUAL(hits->nelts, 0);
    CU_ASSERT_EQUAL(wh_inbox_find(f->ib, wh_test_pool(), ix_nid(2), &hits, &more), 0);
    CU_ASSERT_EQUAL(hits->nelts, 0);
}

/* The bank's sample stored, purged, then a copy of it held in quarantine
 * released: a duplicate of the event it was, nothing stored twice. */
static void test_tombstone_release(void)
{
    fx *f = make();
    const char *b = wh_test_slurp(apr_pstrcat(wh_test_pool(), wh_test_shared_dir(),
                                              "/samples/wire-status-complete.json", NULL),
                                  NULL);
    apr_int64_t released = 0;
    wh_verdict v;

    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    wh_quarantine_check(wh_test_pool(), f->cfg, b, strlen(b), &v);
    CU_ASSERT_FATAL(v.ok);
    CU_ASSERT_EQUAL(wh_inbox_store(f->ib, wh_test_pool(), &v.facts, b, strlen(b), T0, NULL),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 1, "A", "Review", NULL, T0 + SEC(1), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(purge_at(f, T0 + SEC(2 * DAY)).events, 1);
    wh_verdict_init(&v, wh_test_pool());
    wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "held");
    v.authentic = 1;
    CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, b, strlen(b), T0 + SEC(2)),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(wh_quarantine_release(f->ib, wh_test_pool(), f->cfg, 1,
                                          T0 + SEC(2 * DAY), &v, &released),
                    WH_RELEASE_DUPLICATE);
    CU_ASSERT_EQUAL(released, 1);                 /* the purged event's arrival key */
    ASSERT_STR(count(f, EVENTS), "1");
    ASSERT_STR(count(f, TOMBSTONES), "1");
}

/* Tombstones go once their own retention has passed since the event
 * arrived, oldest first, in batches; the id is then a new notification. */
static void test_tombstones_expire(void)
{
    fx *f = make();
    wh_purge_counts n;

    f->cfg->inbox_tombstone_retention = 3 * DAY;
    for (int i = 1; i <= 6; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), NULL), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, 7, "A", "Review", NULL, T0 + SEC(2 * DAY), NULL),
                    WH_INBOX_STORED);
    n = purge_at(f, T0 + SEC(2 * DAY));
    CU_ASSERT_EQUAL(n.events, 6);
    CU_ASSERT_EQUAL(n.tombstones, 0);
    ASSERT_STR(count(f, TOMBSTONES), "6");
    /* 1..4 arrived more than three days before; a dry run counts them */
    n = purge_with(f, T0 + SEC(3 * DAY + 4) + 1, 1, 3);
    CU_ASSERT_EQUAL(n.tombstones, 4);
    ASSERT_STR(count(f, TOMBSTONES), "6");
    n = purge_with(f, T0 + SEC(3 * DAY + 4) + 1, 0, 3);
    CU_ASSERT_EQUAL(n.tombstones, 4);
    CU_ASSERT_EQUAL(n.events, 0);
    ASSERT_STR(count(f, TOMBSTONES), "2");
    CU_ASSERT_EQUAL(store_at(f, 5, "A", "Review", NULL, T0 + SEC(3 * DAY + 5), NULL),
                    WH_INBOX_DUPLICATE);
    CU_ASSERT_EQUAL(store_at(f, 1, "A", "Review", NULL, T0 + SEC(3 * DAY + 5), NULL),
                    WH_INBOX_STORED);
    /* unset: kept for ever (7 goes now, 1 is the newest) */
    f->cfg->inbox_tombstone_retention = 0;
    n = purge_at(f, T0 + SEC(1000 * DAY));
    CU_ASSERT_EQUAL(n.events, 1);
    CU_ASSERT_EQUAL(n.tombstones, 0);
    ASSERT_STR(count(f, TOMBSTONES), "3");
}

#define CASES(X)                                                              \
    X(older_events_go, "events older than InboxRetention go; offsets hold")   \
    X(newest_stays, "the newest event stays; numbering goes on")              \
    X(payment_state_stays, "a payment's current state outlives its events")   \
    X(forwarder_keeps_its_events, "unforwarded events and dead letters stay") \
    X(no_forwarder, "no ForwardUrl and no queue: nothing waits")              \
    X(quarantine_and_auth_cache, "quarantine by its retention; expired auth") \
    X(dry_run_and_batches, "a dry run counts what the purge deletes")         \
    X(steps, "a purge runs one transaction per step")                         \
    X(keeps_everything_by_default, "unset: everything is kept")               \
    X(tombstone_is_a_duplicate, "a purged notificationId is a duplicate")     \
    X(tombstone_release, "a quarantined copy of a purged event: duplicate")   \
    X(tombstones_expire, "tombstones go after InboxTombstoneRetention")

CASES(IX_SQ_WRAP)
CASES(IX_PG_WRAP)
CASES(IX_MY_WRAP)

/* ---- SQLite alone: space, vacuum, backup ---------------------------- */

static const char *big_body(const char *id)
{
    char *pad = apr_palloc(wh_test_pool(), 3001);
    memset(pad, 'x', 3000);
    pad[3000] = '\0';
    return apr_psprintf(wh_test_pool(), "{\"notificationId\":\"%s\",\"pad\":\"%s\"}", id, pad);
}

static void store_big(fx *f, int from, int to, apr_time_t at)
{
    for (int i = from; i <= to; i++) {
        const char *id = ix_nid(i), *b = big_body(id);
        wh_facts fa = ix_facts(id, "A", "Review");
        CU_ASSERT_EQUAL(wh_inbox_store(f->ib, wh_test_pool(), &fa, b, strlen(b), at, NULL),
                        WH_INBOX_STORED);
    }
}

static void sq_space_given_back(void)
{
    fx *f = make();
    wh_purge_counts n;
    apr_int64_t before, after;

    ix_use_pg = 0;
    ASSERT_STR(ix_query(f, "PRAGMA auto_vacuum"), "2");   /* a new file: incremental */
    store_big(f, 1, 300, T0);
    store_big(f, 301, 302, T0 + SEC(2 * DAY));
    before = apr_atoi64(ix_query(f, "PRAGMA page_count"));
    n = purge_at(f, T0 + SEC(2 * DAY));
    CU_ASSERT_EQUAL(n.events, 300);
    CU_ASSERT_EQUAL(n.auto_vacuum, 2);
    CU_ASSERT(n.pages_freed > 200);
    CU_ASSERT_EQUAL(n.pages_free, 0);
    after = apr_atoi64(ix_query(f, "PRAGMA page_count"));
    CU_ASSERT(after < before / 2);
}

/* An inbox made before auto_vacuum: free pages stay until vacuum, which
 * turns it on. */
static void sq_vacuum_turns_auto_vacuum_on(void)
{
    fx *f = ix_make();
    wh_inbox_vacuum_info v;
    wh_purge_counts n;

    ix_use_pg = 0;
    CU_ASSERT_EQUAL(ix_exec(f, "CREATE TABLE older (x INTEGER)"), 0);
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    f->cfg->inbox_retention = KEEP;
    ASSERT_STR(ix_query(f, "PRAGMA auto_vacuum"), "0");
    store_big(f, 1, 200, T0);
    store_big(f, 201, 201, T0 + SEC(2 * DAY));
    n = purge_at(f, T0 + SEC(2 * DAY));
    CU_ASSERT_EQUAL(n.events, 200);
    CU_ASSERT_EQUAL(n.pages_freed, 0);
    CU_ASSERT(n.pages_free > 100);
    CU_ASSERT_PTR_NULL(wh_inbox_vacuum(f->ib, wh_test_pool(), &v));
    CU_ASSERT_EQUAL(v.auto_vacuum_before, 0);
    CU_ASSERT(v.pages_after < v.pages_before / 2);
    ASSERT_STR(ix_query(f, "PRAGMA auto_vacuum"), "2");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM " EVENTS), "1");
}

/* The copy: a file of its own, 0600, whole, listing what the inbox
 * lists; never over the inbox itself; replaced whole. */
static void sq_backup(void)
{
    fx *f = make(), *g;
    wh_inbox_backup_info b;
    const char *dest;
    page a, c;

    ix_use_pg = 0;
    dest = apr_pstrcat(wh_test_pool(), f->dir, "/copy.db", NULL);
    for (int i = 1; i <= 30; i++)
        CU_ASSERT_EQUAL(store_at(f, i, "A", "Review", NULL, T0 + SEC(i), NULL), WH_INBOX_STORED);
    CU_ASSERT_PTR_NULL_FATAL(wh_inbox_backup(f->ib, wh_test_pool(), f->cfg, dest, &b));
    CU_ASSERT_EQUAL(b.events, 30);
    CU_ASSERT(b.bytes > 0);
    CU_ASSERT_EQUAL(wh_test_mode_of(dest, NULL), 0600);
    /* nothing left beside it: no journal, no -wal, no temporary file */
    CU_ASSERT_EQUAL(wh_test_files_in(f->dir), 5);   /* inbox.db -wal -shm -lock, copy.db */
    CU_ASSERT_EQUAL(wh_test_mode_of(apr_pstrcat(wh_test_pool(), dest, "-wal", NULL), NULL), 0);
    CU_ASSERT(contains(wh_inbox_backup(f->ib, wh_test_pool(), f->cfg, f->path, &b),
                       "the inbox itself"));
    CU_ASSERT(contains(wh_inbox_backup(f->ib, wh_test_pool(), f->cfg, f->dir, &b),
                       "not a regular file"));

    /* opened as an inbox of its own: the same listing */
    g = ix_make();
    g->cfg->inbox_params = dest;
    g->ib = ix_open_in(g, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(g->ib);
    a = ix_parse_page(ix_list(f, 0, 100, NULL, NULL));
    c = ix_parse_page(ix_list(g, 0, 100, NULL, NULL));
    CU_ASSERT_EQUAL(a.n, 30);
    CU_ASSERT_EQUAL(c.n, 30);
    for (int i = 0; i < a.n && i < c.n; i++)
        ASSERT_STR(a.ids[i], c.ids[i]);
    /* a later backup replaces the copy whole */
    CU_ASSERT_EQUAL(store_at(f, 31, "A", "Review", NULL, T0 + SEC(31), NULL), WH_INBOX_STORED);
    CU_ASSERT_PTR_NULL(wh_inbox_backup(f->ib, wh_test_pool(), f->cfg, dest, &b));
    CU_ASSERT_EQUAL(b.events, 31);
}

static void pg_backup_refused(void)
{
    fx *f;
    wh_inbox_backup_info b;
    wh_inbox_vacuum_info v;

    ix_use_pg = 1;
    f = make();
    CU_ASSERT(contains(wh_inbox_backup(f->ib, wh_test_pool(), f->cfg, "/tmp/x.db", &b),
                       "pg_dump"));
    CU_ASSERT(contains(wh_inbox_vacuum(f->ib, wh_test_pool(), &v), "autovacuum"));
    ix_use_pg = 0;
}

static void my_backup_refused(void)
{
    fx *f;
    wh_inbox_backup_info b;
    wh_inbox_vacuum_info v;

    ix_use_mysql = 1;
    f = make();
    CU_ASSERT(contains(wh_inbox_backup(f->ib, wh_test_pool(), f->cfg, "/tmp/x.db", &b),
                       "mariadb-dump"));
    CU_ASSERT(contains(wh_inbox_vacuum(f->ib, wh_test_pool(), &v), "OPTIMIZE TABLE"));
    ix_use_mysql = 0;
}

static const wh_test_case cases[] = {
    CASES(IX_SQ_ROW)
    { "SQLite: a purge gives the space back", sq_space_given_back },
    { "SQLite: vacuum turns auto_vacuum on", sq_vacuum_turns_auto_vacuum_on },
    { "SQLite: backup, a whole copy of its own", sq_backup },
    { NULL, NULL }
};
static const wh_test_case pg_cases[] = {
    CASES(IX_PG_ROW)
    { "PostgreSQL: backup and vacuum are the server's", pg_backup_refused },
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_purge, cases)
WH_TEST_SUITE_PG(inbox_purge_pg, pg_cases, "test_inbox_pg.sh")

static const wh_test_case my_cases[] = {
    CASES(IX_MY_ROW)
    { "MariaDB: backup and vacuum are the server's", my_backup_refused },
    { NULL, NULL }
};
WH_TEST_SUITE_MYSQL(inbox_purge_mysql, my_cases, "test_inbox_mysql.sh")
