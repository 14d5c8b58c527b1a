/* Schema version 3's promises: the listing order (positions in commit
 * order, no gap, no repeat, also while writers race a reader; on
 * PostgreSQL an event committed but not yet numbered - a crash between
 * its commit and the sequencer - is numbered by the next listing or
 * store), and each payment's current state ("later by (event_instant,
 * arrival) wins", unknown instants first). Suites "inbox_order" (SQLite),
 * "inbox_order_pg" and "inbox_order_mysql" (MySQL has the same
 * sequencer). */
#include "inbox_fx.h"
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wh_inbox_result store_at(fx *f, wh_inbox *ib, int n, const char *payment,
                                const char *status, const char *time)
{
    wh_facts fa = ix_facts(ix_nid(n), payment, status);
    const char *b = ix_body(ix_nid(n), payment ? payment : "-", status ? status : "-");
    fa.event_time = time;
    return wh_inbox_store(ib ? ib : f->ib, wh_test_pool(), &fa, b, strlen(b),
                          apr_time_now(), NULL);
}

static const char *state(fx *f, const char *payment)
{
    return ix_query(f, apr_psprintf(wh_test_pool(),
                                    "SELECT p.status || ' ' || p.event_id || ' ' || p.events || ' ' "
                                    "|| coalesce(p.event_instant, -1) FROM wh_payments p JOIN "
                                    "wh_events e ON e.id = p.event_id WHERE p.payment_id = '%s' "
                                    "AND e.notification_id = p.notification_id", payment));
}

static const char *id_of(fx *f, int n)
{
    return ix_query(f, apr_psprintf(wh_test_pool(), "SELECT id FROM wh_events "
                                    "WHERE notification_id = '%s'", ix_nid(n)));
}

static void test_payment_state_later_wins(void)
{
    fx *f = ix_opened();
    const char *t10 = "1795341600000000";   /* 2026-11-22T10:00:00Z */

    CU_ASSERT_EQUAL(store_at(f, NULL, 1, "P", "Review", "2026-11-22T10:00:00Z"), WH_INBOX_STORED);
    ASSERT_STR(state(f, "P"), apr_psprintf(wh_test_pool(), "Review %s 1 %s", id_of(f, 1), t10));
    /* an older event arriving late never moves the payment backwards */
    CU_ASSERT_EQUAL(store_at(f, NULL, 2, "P", "Complete", "2026-11-22T04:59:59.999999-05:00"),
                    WH_INBOX_STORED);
    ASSERT_STR(state(f, "P"), apr_psprintf(wh_test_pool(), "Review %s 2 %s", id_of(f, 1), t10));
    /* an event without a time sorts before every timed one */
    CU_ASSERT_EQUAL(store_at(f, NULL, 3, "P", "Error", NULL), WH_INBOX_STORED);
    ASSERT_STR(state(f, "P"), apr_psprintf(wh_test_pool(), "Review %s 3 %s", id_of(f, 1), t10));
    /* the same instant written another way: arrival breaks the tie */
    CU_ASSERT_EQUAL(store_at(f, NULL, 4, "P", "Exception", "2026-11-22T15:30:00+05:30"),
                    WH_INBOX_STORED);
    ASSERT_STR(state(f, "P"), apr_psprintf(wh_test_pool(), "Exception %s 4 %s", id_of(f, 4), t10));
    /* later: wins; a duplicate neither counts nor changes anything */
    CU_ASSERT_EQUAL(store_at(f, NULL, 5, "P", "Complete", "2026-11-22T10:00:00.000001Z"),
                    WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, NULL, 1, "P", "Review", "2030-01-01T00:00:00Z"),
                    WH_INBOX_DUPLICATE);
    ASSERT_STR(state(f, "P"), apr_psprintf(wh_test_pool(), "Complete %s 5 1795341600000001",
                                           id_of(f, 5)));
    ASSERT_STR(ix_query(f, "SELECT event_time FROM wh_payments WHERE payment_id = 'P'"),
               "2026-11-22T10:00:00.000001Z");
    /* instants with their offset applied, for a payment's history */
    ASSERT_STR(ix_query(f, apr_psprintf(wh_test_pool(), "SELECT event_instant FROM wh_events "
                                        "WHERE notification_id = '%s'", ix_nid(2))),
               "1795341599999999");
}

static void test_payment_state_only_for_payments(void)
{
    fx *f = ix_opened();

    /* until a status event: no state */
    CU_ASSERT_EQUAL(store_at(f, NULL, 1, "P", NULL, "2026-11-22T10:00:00Z"), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(store_at(f, NULL, 2, NULL, NULL, "2026-11-22T10:00:00Z"), WH_INBOX_STORED);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_payments"), "0");
    CU_ASSERT_EQUAL(store_at(f, NULL, 3, "Q", "Review", NULL), WH_INBOX_STORED);
    ASSERT_STR(ix_query(f, "SELECT status || ' ' || events || ' ' || coalesce(event_instant, -1) "
                           "FROM wh_payments"), "Review 1 -1");
    /* every stored event is listed, state or not */
    CU_ASSERT_EQUAL(ix_parse_page(ix_list(f, 0, 25, NULL, NULL)).n, 3);
}

/* PostgreSQL: events committed while no sequencer ran (as after a crash
 * between a store's commit and the numbering) are durable, unlisted, and
 * numbered by the next listing, in arrival order. */
static void test_pg_pending_numbered_by_the_next_listing(void)
{
    fx *f = ix_opened();
    page pg;

    wh_inbox_set_sequencer(f->ib, 0);
    for (int i = 1; i <= 5; i++)
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(i), "P", "Review", NULL), WH_INBOX_STORED);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_order"), "0");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_pending"), "5");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events"), "5");
    /* a duplicate of a pending event is still a duplicate */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(3), "P", "Review", NULL), WH_INBOX_DUPLICATE);
    pg = ix_parse_page(ix_list(f, 0, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 3);
    ASSERT_STR(pg.ids[0], ix_nid(1));
    ASSERT_STR(pg.ids[2], ix_nid(3));
    CU_ASSERT_TRUE(pg.more);
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || max(seq) FROM wh_order"), "5 5");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_pending"), "0");
    /* the next store's own run numbers what a crashed one left */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(6), "P", "Review", NULL), WH_INBOX_STORED);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_pending"), "1");
    wh_inbox_set_sequencer(f->ib, 1);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(7), "P", "Review", NULL), WH_INBOX_STORED);
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || max(seq) FROM wh_order"), "7 7");
    pg = ix_parse_page(ix_list(f, 5, 3, NULL, NULL));
    CU_ASSERT_EQUAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], ix_nid(6));
    ASSERT_STR(pg.ids[1], ix_nid(7));
}

/* ---- writers racing a reader ---------------------------------------- */

#define WRITERS 4
#define PER_WRITER 40
#define READ_LIMIT 3

typedef struct {
    fx *f;
    int w;
    int stored;
    volatile int *running;
} writer_arg;

static void *APR_THREAD_FUNC writer(apr_thread_t *t, void *data)
{
    writer_arg *a = data;
    apr_pool_t *p;
    wh_inbox *ib = NULL;

    (void)t;
    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    /* an inbox (a connection) of its own: writers really race */
    if (wh_inbox_open(p, a->f->cfg, NULL, &ib) == NULL && ib)
        for (int i = 0; i < PER_WRITER; i++) {
            const char *id = apr_psprintf(p, "55555555-0000-4000-8000-%04d%08d", a->w, i);
            wh_facts fa = ix_facts(id, "P", "Review");
            const char *b = apr_psprintf(p, "{\"notificationId\":\"%s\"}", id);
            if (wh_inbox_store(ib, p, &fa, b, strlen(b), apr_time_now(), NULL)
                == WH_INBOX_STORED)
                a->stored++;
        }
    __atomic_sub_fetch(a->running, 1, __ATOMIC_SEQ_CST);
    apr_pool_destroy(p);
    return NULL;
}

/* Pages through with a small limit while the writers run, as a client
 * following the offsets would; returns the ids seen, in order. */
static apr_array_header_t *follow(fx *f, volatile int *running, int expect)
{
    apr_array_header_t *seen = apr_array_make(wh_test_pool(), expect, sizeof(const char *));
    apr_int64_t off = 0;
    apr_pool_t *p;

    apr_pool_create(&p, wh_test_pool());
    for (int rounds = 0; rounds < 100000; rounds++) {
        int done = __atomic_load_n(running, __ATOMIC_SEQ_CST) == 0;
        wh_page_query q = { off, READ_LIMIT, NULL, NULL, NULL };
        const char *json = NULL;
        json_object *root, *events, *o;
        int got;

        apr_pool_clear(p);
        if (wh_inbox_list(f->ib, p, &q, &json) != WH_INBOX_STORED || !json)
            break;
        root = json_tokener_parse(json);
        if (!root || !json_object_object_get_ex(root, "events", &events)
            || !json_object_is_type(events, json_type_array)) {
            fprintf(stderr, "  unexpected listing: %.200s\n", json);
            if (root)
                json_object_put(root);
            break;
        }
        got = (int)json_object_array_length(events);
        for (int i = 0; i < got; i++)
            if (json_object_object_get_ex(json_object_array_get_idx(events, (size_t)i),
                                          "notificationId", &o))
                APR_ARRAY_PUSH(seen, const char *) =
                    apr_pstrdup(wh_test_pool(), json_object_get_string(o));
        json_object_object_get_ex(root, "pagination", &o);
        json_object_object_get_ex(o, "offset", &o);
        off = apr_atoi64(json_object_get_string(o));
        json_object_put(root);
        if (done && got == 0)
            break;
        if (!done)
            apr_sleep(500);
    }
    return seen;
}

static void test_reader_never_sees_a_gap_or_a_repeat(void)
{
    fx *f = ix_opened();
    apr_thread_t *th[WRITERS];
    writer_arg args[WRITERS];
    volatile int running = WRITERS;
    apr_array_header_t *seen, *final;
    apr_status_t st;
    int stored = 0, same = 1;

    for (int w = 0; w < WRITERS; w++) {
        args[w] = (writer_arg){ f, w, 0, &running };
        CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th[w], NULL, writer, &args[w],
                                                wh_test_pool()), APR_SUCCESS);
    }
    seen = follow(f, &running, WRITERS * PER_WRITER);
    for (int w = 0; w < WRITERS; w++) {
        apr_thread_join(&st, th[w]);
        stored += args[w].stored;
    }
    CU_ASSERT_EQUAL(stored, WRITERS * PER_WRITER);
    /* what the reader saw is the final order, from the first record to
     * the last: a gap would be a record it skipped, a repeat one twice */
    final = follow(f, &(volatile int){ 0 }, stored);
    CU_ASSERT_EQUAL(final->nelts, stored);
    CU_ASSERT_EQUAL(seen->nelts, final->nelts);
    for (int i = 0; i < seen->nelts && i < final->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(seen, i, const char *), APR_ARRAY_IDX(final, i, const char *)))
            same = 0;
    CU_ASSERT_TRUE(same);
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || count(DISTINCT event_id) || ' ' || "
                           "min(seq) || ' ' || max(seq) FROM wh_order"),
               apr_psprintf(wh_test_pool(), "%d %d 1 %d", stored, stored, stored));
}

#define CASES(X)                                                              \
    X(payment_state_later_wins, "payment state: later (instant, arrival) wins") \
    X(payment_state_only_for_payments, "payment state: only status events of a payment") \
    X(reader_never_sees_a_gap_or_a_repeat, "writers race a paging reader: no gap, no repeat")

CASES(IX_SQ_WRAP)
CASES(IX_PG_WRAP)
CASES(IX_MY_WRAP)

static void pg_pending(void)
{
    ix_use_pg = 1;
    test_pg_pending_numbered_by_the_next_listing();
    ix_use_pg = 0;
}
static void my_pending(void)
{
    ix_use_mysql = 1;
    test_pg_pending_numbered_by_the_next_listing();
    ix_use_mysql = 0;
}

static const wh_test_case cases[] = { CASES(IX_SQ_ROW) { NULL, NULL } };
static const wh_test_case pg_cases[] = {
    CASES(IX_PG_ROW)
    { "committed but unnumbered (crash before the sequencer): numbered next", pg_pending },
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_order, cases)

WH_TEST_SUITE_PG(inbox_order_pg, pg_cases, "test_inbox_pg.sh")

static const wh_test_case my_cases[] = {
    CASES(IX_MY_ROW)
    { "committed but unnumbered (crash before the sequencer): numbered next", my_pending },
    { NULL, NULL }
};

WH_TEST_SUITE_MYSQL(inbox_order_mysql, my_cases, "test_inbox_mysql.sh")
