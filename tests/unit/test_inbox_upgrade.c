/* Schema upgrades in place: databases made with the SQL older wirehooks
 * ran (versions 1 and 2, kept in wh_inbox_sql.h) are opened by this one
 * and come out as version 3 in one transaction: every stored event keeps
 * its position (so every offset a client holds keeps its meaning),
 * eventDateTime becomes event_instant, each payment's state is built with
 * the "later (event_instant, arrival) wins" rule, the quarantine and the
 * auth cache keep their rows, and the numbering goes on after the last
 * old number. Suite "inbox_upgrade" on SQLite; "inbox_upgrade_pg" on the
 * PostgreSQL named by WH_TEST_PG_CONNINFO. */
#include "inbox_fx.h"
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const v1_sql[] = { WH_SQL_SCHEMA_V1 };
static const char *const v2_sql[] = { WH_SQL_UPGRADE_V2 };

typedef struct {
    const char *payment, *status, *time;   /* time NULL: absent */
} old_event;

/* Arrival order = old seq. P1's second event is an older one arriving
 * late; its third has no time; P2's two events share an instant (the
 * later arrival wins); P3 has a garbled time from before schema checks. */
static const old_event events[] = {
    { "P1", "Review", "2026-11-22T10:00:00Z" },
    { "P1", "Complete", "2026-11-22T04:00:00.5-05:00" },   /* 09:00:00.5Z */
    { "P1", "Send Ready", NULL },
    { "P2", "Review", "2026-11-22T12:00:00+02:00" },        /* 10:00Z */
    { "P2", "Exception", "2026-11-22T10:00:00Z" },
    { "P3", "Reject", "not a time" },
    { NULL, NULL, "2026-11-22T10:00:00Z" },                 /* no payment */
};
#define N_EVENTS ((int)(sizeof(events) / sizeof(events[0])))

static void exec_ok(fx *f, const char *sql)
{
    int rv = ix_exec(f, sql);
    if (rv != 0)
        fprintf(stderr, "  setup failed (%d): %s\n", rv, sql);
    CU_ASSERT_EQUAL_FATAL(rv, 0);
}

static const char *q(const char *s)
{
    return s ? apr_psprintf(wh_test_pool(), "'%s'", s) : "NULL";
}

/* A database exactly as a version 1 (or 2) wirehook left it. */
static fx *old_database(int version)
{
    fx *f = ix_make();

    for (size_t i = 0; i < sizeof(v1_sql) / sizeof(v1_sql[0]); i++)
        exec_ok(f, v1_sql[i]);
    if (version >= 2)
        for (size_t i = 0; i < sizeof(v2_sql) / sizeof(v2_sql[0]); i++)
            exec_ok(f, v2_sql[i]);
    for (int i = 0; i < N_EVENTS; i++) {
        const char *body = apr_psprintf(wh_test_pool(), "{\"notificationId\":\"%s\",\"n\":%d}",
                                        ix_nid(i + 1), i + 1);
        exec_ok(f, apr_psprintf(wh_test_pool(),
                                "INSERT INTO wh_events (seq, notification_id, event_type, "
                                "event_time, payment_id, status, received_at, body) VALUES "
                                "(%d, '%s', 'wire.status', %s, %s, %s, %d, '%s')",
                                i + 1, ix_nid(i + 1), q(events[i].time), q(events[i].payment),
                                q(events[i].status), 1000 + i, body));
    }
    exec_ok(f, apr_psprintf(wh_test_pool(), "UPDATE wh_counter SET last_value = %d "
                            "WHERE id = 1", N_EVENTS));
    exec_ok(f, "INSERT INTO wh_quarantine (id, received_at, code, message, details, "
               "notification_id, body) VALUES (1, 5, 'invalid_json', 'm', '[]', NULL, 'x')");
    exec_ok(f, "UPDATE wh_counter SET last_value = 1 WHERE id = 2");
    if (version >= 2)
        exec_ok(f, "INSERT INTO wh_auth_cache (cache_key, user_name, expires) "
                   "VALUES ('k1', 'bank', 99)");
    ASSERT_STR(ix_query(f, "SELECT schema_version FROM wh_meta"),
               apr_itoa(wh_test_pool(), version));
    return f;
}

static void check_upgraded(fx *f, int version)
{
    apr_int64_t seq = 0;
    const char *all = "";
    page pg;

    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    ASSERT_STR(ix_query(f, "SELECT schema_version FROM wh_meta"),
               apr_itoa(wh_test_pool(), WH_INBOX_SCHEMA_VERSION));
    CU_ASSERT(contains(f->log, apr_psprintf(wh_test_pool(), "upgraded from schema "
                                            "version %d to %d", version,
                                            WH_INBOX_SCHEMA_VERSION)));

    /* positions unchanged: id = old seq = listing position */
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || min(seq) || ' ' || max(seq) || ' ' "
                           "|| sum(CASE WHEN seq = event_id THEN 1 ELSE 0 END) FROM wh_order"),
               apr_psprintf(wh_test_pool(), "%d 1 %d %d", N_EVENTS, N_EVENTS, N_EVENTS));
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_events e JOIN wh_order o "
                           "ON o.event_id = e.id AND o.payment_id IS NOT DISTINCT FROM "
                           "e.payment_id"),
               apr_itoa(wh_test_pool(), N_EVENTS));
    /* an offset a client held before the upgrade means the same */
    for (int off = 0; off < N_EVENTS; off += 2) {
        pg = ix_parse_page(ix_list(f, off, 2, NULL, NULL));
        for (int i = 0; i < pg.n; i++) {
            ASSERT_STR(pg.ids[i], ix_nid(off + i + 1));
            all = apr_pstrcat(wh_test_pool(), all, pg.ids[i], ";", NULL);
        }
    }
    pg = ix_parse_page(ix_list(f, 1, 25, "P1", NULL));   /* within the filter */
    CU_ASSERT_EQUAL(pg.n, 2);
    ASSERT_STR(pg.ids[0], ix_nid(2));

    /* eventDateTime as an instant, offsets and fraction applied */
    ASSERT_STR(ix_query(f, "SELECT event_instant FROM wh_events WHERE id = 1"),
               "1795341600000000");
    ASSERT_STR(ix_query(f, "SELECT event_instant FROM wh_events WHERE id = 2"),
               "1795338000500000");
    ASSERT_STR(ix_query(f, "SELECT coalesce(event_instant, -1) FROM wh_events WHERE id = 3"),
               "-1");
    ASSERT_STR(ix_query(f, "SELECT coalesce(event_instant, -1) FROM wh_events WHERE id = 6"),
               "-1");

    /* each payment's state: the latest event by (instant, arrival) */
    ASSERT_STR(ix_query(f, "SELECT status || ' ' || event_id || ' ' || events || ' ' || "
                           "updated_at FROM wh_payments WHERE payment_id = 'P1'"),
               "Review 1 3 1002");
    ASSERT_STR(ix_query(f, "SELECT status || ' ' || event_id || ' ' || events "
                           "FROM wh_payments WHERE payment_id = 'P2'"), "Exception 5 2");
    ASSERT_STR(ix_query(f, "SELECT status || ' ' || event_id || ' ' || events "
                           "FROM wh_payments WHERE payment_id = 'P3'"), "Reject 6 1");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_payments"), "3");

    /* the rest kept, the quarantine ready for its release columns */
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || coalesce(max(released_at), -1) || ' ' || "
                           "coalesce(max(released_event_id), -1) FROM wh_quarantine"), "1 -1 -1");
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_auth_cache"), version >= 2 ? "1" : "0");
    ASSERT_STR(ix_query(f, ix_use_pg
                           ? "SELECT count(*) FROM pg_indexes WHERE indexname IN "
                             "('wh_events_type', 'wh_events_time', 'wh_events_payment', "
                             "'wh_events_status')"
                           : "SELECT count(*) FROM sqlite_master WHERE name IN "
                             "('wh_events_type', 'wh_events_time', 'wh_events_payment', "
                             "'wh_events_status')"), "0");

    /* numbering goes on after the last old number; quarantine ids too */
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(100), "P1", "Complete", &seq), WH_INBOX_STORED);
    CU_ASSERT_EQUAL(seq, N_EVENTS + 1);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P1", "Complete", NULL), WH_INBOX_DUPLICATE);
    ASSERT_STR(ix_query(f, apr_psprintf(wh_test_pool(), "SELECT count(*) FROM wh_events "
                                        "WHERE id > %d", N_EVENTS)), "1");
    {
        wh_verdict v;
        wh_verdict_init(&v, wh_test_pool());
        wh_verdict_fail(&v, 400, WH_CODE_INVALID_JSON, "bad");
        CU_ASSERT_EQUAL(wh_inbox_quarantine(f->ib, wh_test_pool(), &v, "x", 1, apr_time_now()),
                        WH_INBOX_STORED);
        ASSERT_STR(ix_query(f, "SELECT max(id) FROM wh_quarantine"), "2");
    }
    /* opened again: nothing to do */
    f->log[0] = '\0';
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL(f->ib);
    CU_ASSERT(!contains(f->log, "upgraded"));
}

static void test_upgrades_version_2(void)
{
    check_upgraded(old_database(2), 2);
}

static void test_upgrades_version_1(void)
{
    check_upgraded(old_database(1), 1);
}

/* An upgrade that fails half-way leaves version 2 as it was. */
static void test_failed_upgrade_changes_nothing(void)
{
    fx *f = old_database(2);
    wh_inbox *ib = NULL;

    /* wh_order in the way (a table of that name with another shape) */
    exec_ok(f, "CREATE TABLE wh_order (x INTEGER)");
    f->ib = NULL;
    (void)wh_inbox_open(wh_test_pool(), f->cfg, &(wh_logger){ ix_capture_log, f }, &ib);
    ASSERT_STR(ix_query(f, "SELECT schema_version FROM wh_meta"), "2");
    ASSERT_STR(ix_query(f, "SELECT count(*) || ' ' || max(seq) FROM wh_events"),
               apr_psprintf(wh_test_pool(), "%d %d", N_EVENTS, N_EVENTS));
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_order"), "0");
    CU_ASSERT(contains(f->log, "creating the schema"));
    /* and once the obstacle is gone, the upgrade goes through */
    exec_ok(f, "DROP TABLE wh_order");
    f->log[0] = '\0';
    check_upgraded(f, 2);
}

#define CASES(X)                                                              \
    X(upgrades_version_2, "version 2 -> 3 in place: positions, instants, payments") \
    X(upgrades_version_1, "version 1 -> 3 in place")                          \
    X(failed_upgrade_changes_nothing, "a failed upgrade leaves version 2 whole")

CASES(IX_SQ_WRAP)
CASES(IX_PG_WRAP)

static const wh_test_case cases[] = { CASES(IX_SQ_ROW) { NULL, NULL } };
static const wh_test_case pg_cases[] = { CASES(IX_PG_ROW) { NULL, NULL } };

WH_TEST_SUITE(inbox_upgrade, cases)

WH_TEST_SUITE_PG(inbox_upgrade_pg, pg_cases, "test_inbox_pg.sh")
