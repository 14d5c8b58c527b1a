/* The forward queue in the inbox database (wh_forward_queue.h): taking
 * new events in, leasing due ones, recording outcomes, and the dead
 * letters. Every change of state happens in one transaction with
 * what it implies (a finished event makes the next of its payment ready),
 * so the queue is consistent after a crash at any point. */
#include "wh_forward_queue.h"
#include "wh_forward_queue_int.h"
#include "wh_forward_queue_sql.h"
#include "inbox/wh_db_cells.h"
#include "inbox/wh_inbox_db.h"
#include "verify/wh_parse.h"
#include "verify/wh_utf8.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

#define WH_FQ_REVIVE_BATCH 1000

static const wh_inbox_stmt st_cursor = {
    WH_FQ_SQL_CURSOR, WH_FQ_SQL_CURSOR_PG, WH_FQ_SQL_CURSOR_MY };
static const wh_inbox_stmt st_cursor_set = { WH_FQ_SQL_CURSOR_SET, NULL, NULL };
static const wh_inbox_stmt st_ingest = { WH_FQ_SQL_INGEST, NULL, WH_FQ_SQL_INGEST_MY };
static const wh_inbox_stmt st_due = { WH_FQ_SQL_DUE, WH_FQ_SQL_DUE_PG, WH_FQ_SQL_DUE_MY };
static const wh_inbox_stmt st_lease = {
    WH_FQ_SQL_LEASE, WH_FQ_SQL_LEASE_PG, WH_FQ_SQL_LEASE_MY };
static const wh_inbox_stmt st_lease_one_pg = { WH_FQ_SQL_LEASE_ONE_PG, NULL, NULL };
static const wh_inbox_stmt st_forwarded = {
    WH_FQ_SQL_FORWARDED, WH_FQ_SQL_FORWARDED_PG, WH_FQ_SQL_FORWARDED_MY };
static const wh_inbox_stmt st_retry = { WH_FQ_SQL_RETRY, NULL, NULL };
static const wh_inbox_stmt st_release = {
    WH_FQ_SQL_RELEASE, WH_FQ_SQL_RELEASE_PG, WH_FQ_SQL_RELEASE_MY };
static const wh_inbox_stmt st_dead = { WH_FQ_SQL_DEAD, NULL, NULL };
static const wh_inbox_stmt st_promote = {
    WH_FQ_SQL_PROMOTE, WH_FQ_SQL_PROMOTE_PG, WH_FQ_SQL_PROMOTE_MY };
static const wh_inbox_stmt st_next_due = { WH_FQ_SQL_NEXT_DUE, NULL, NULL };
static const wh_inbox_stmt st_peek = { WH_FQ_SQL_PEEK, NULL, NULL };
static const wh_inbox_stmt st_stats = { WH_FQ_SQL_STATS, NULL, NULL };
static const wh_inbox_stmt st_dead_list = { WH_FQ_SQL_DEAD_LIST, NULL, NULL };
static const wh_inbox_stmt st_dead_by_id = { WH_FQ_SQL_DEAD_BY_ID, NULL, NULL };
static const wh_inbox_stmt st_dead_by_nid = { WH_FQ_SQL_DEAD_BY_NID, NULL, NULL };
static const wh_inbox_stmt st_dead_ids = { WH_FQ_SQL_DEAD_IDS, NULL, NULL };
static const wh_inbox_stmt st_revive = { WH_FQ_SQL_REVIVE, NULL, WH_FQ_SQL_REVIVE_MY };
static const wh_inbox_stmt st_dead_ids_payment = { WH_FQ_SQL_DEAD_IDS_PAYMENT, NULL, NULL };
static const wh_inbox_stmt st_dead_count_payment = { WH_FQ_SQL_DEAD_COUNT_PAYMENT, NULL, NULL };
static const wh_inbox_stmt st_states = {
    WH_FQ_SQL_STATES, WH_FQ_SQL_STATES_PG, WH_FQ_SQL_STATES_MY };
static const wh_inbox_stmt st_attempts_add = {
    WH_FQ_SQL_ATTEMPTS_ADD, WH_FQ_SQL_ATTEMPTS_ADD_PG, WH_FQ_SQL_ATTEMPTS_ADD_MY };
static const wh_inbox_stmt st_attempts_of = { WH_FQ_SQL_ATTEMPTS_OF, NULL, NULL };
static const wh_inbox_stmt st_attempts_count = { WH_FQ_SQL_ATTEMPTS_COUNT, NULL, NULL };
static const wh_inbox_stmt st_totals_add = {
    WH_FQ_SQL_TOTALS_ADD, WH_FQ_SQL_TOTALS_ADD_PG, WH_FQ_SQL_TOTALS_ADD_MY };
static const wh_inbox_stmt st_totals = { WH_FQ_SQL_TOTALS, NULL, NULL };
static const wh_inbox_stmt st_minutes_add = {
    WH_FQ_SQL_MINUTES_ADD, WH_FQ_SQL_MINUTES_ADD_PG, WH_FQ_SQL_MINUTES_ADD_MY };
static const wh_inbox_stmt st_minutes_drop = { WH_FQ_SQL_MINUTES_DROP, NULL, NULL };
static const wh_inbox_stmt st_alive = { WH_FQ_SQL_ALIVE, NULL, WH_FQ_SQL_ALIVE_MY };
static const wh_inbox_stmt st_stopped = { WH_FQ_SQL_STOPPED, NULL, NULL };
static const wh_inbox_stmt st_forget = { WH_FQ_SQL_FORGET, NULL, NULL };
static const wh_inbox_stmt st_totals_table = {
    "SELECT count(*) FROM sqlite_master"
    " WHERE type = 'table' AND name = 'wh_attempt_counts'",
    "SELECT count(*) FROM pg_catalog.pg_tables"
    " WHERE tablename = 'wh_attempt_counts' AND schemaname = current_schema()",
    "SELECT count(*) FROM information_schema.tables"
    " WHERE table_name = 'wh_attempt_counts' AND table_schema = DATABASE()" };
/* Which of the forwarder's tables exist: the queue's, and the attempt
 * history (an older forwarder made the first without the second). */
static const wh_inbox_stmt st_tables = {
    "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table'"
    " AND name = 'wh_forward_cursor'), (SELECT count(*) FROM sqlite_master"
    " WHERE type = 'table' AND name = 'wh_attempts')",
    "SELECT (SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
    " 'wh_forward_cursor' AND schemaname = current_schema()),"
    " (SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
    " 'wh_attempts' AND schemaname = current_schema())",
    "SELECT (SELECT count(*) FROM information_schema.tables WHERE table_name ="
    " 'wh_forward_cursor' AND table_schema = DATABASE()),"
    " (SELECT count(*) FROM information_schema.tables WHERE table_name ="
    " 'wh_attempts' AND table_schema = DATABASE())" };
static const wh_inbox_stmt st_started = {
    "SELECT count(*) FROM sqlite_master"
    " WHERE type = 'table' AND name = 'wh_forward_cursor'",
    "SELECT count(*) FROM pg_catalog.pg_tables"
    " WHERE tablename = 'wh_forward_cursor' AND schemaname = current_schema()",
    "SELECT count(*) FROM information_schema.tables"
    " WHERE table_name = 'wh_forward_cursor' AND table_schema = DATABASE()" };



static int is_pg(wh_inbox *ib)
{
    return wh_inbox_db_engine(ib) == WH_INBOX_PGSQL;
}

/* ---- schema ---------------------------------------------------------- */

/* On MySQL each CREATE commits by itself; every statement is idempotent,
 * so a set of tables made half-way is finished by the next start. */
static int create_schema(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    static const char *const ddl[] = { WH_FQ_SQL_SCHEMA };
    static const char *const ddl_my[] = { WH_FQ_SQL_SCHEMA_MY };
    int my = wh_inbox_db_engine(ib) == WH_INBOX_MYSQL, rv;
    size_t n = my ? sizeof(ddl_my) / sizeof(ddl_my[0]) : sizeof(ddl) / sizeof(ddl[0]);
    (void)baton;
    for (size_t i = 0; i < n; i++)
        if ((rv = wh_inbox_db_sql(ib, my ? ddl_my[i] : ddl[i])) != 0)
            return wh_inbox_db_fail(ib, p, "creating the forward queue's tables", rv);
    return WH_TXN_COMMIT;
}

const char *wh_fq_open(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                       const char *owner, wh_fq **out)
{
    wh_fq *q = apr_pcalloc(p, sizeof(*q));

    q->ib = ib;
    q->cfg = cfg;
    q->owner = apr_pstrdup(p, owner ? owner : "wirehook");
    q->attempts_table = 1;
    /* Two processes creating the tables at once: the loser's IF NOT
     * EXISTS may still collide in PostgreSQL's catalog; once more wins. */
    if (wh_inbox_db_txn(ib, p, "forward queue tables", create_schema, NULL) != WH_DB_OK &&
        wh_inbox_db_txn(ib, p, "forward queue tables", create_schema, NULL) != WH_DB_OK)
        return "cannot create the forward queue's tables in the inbox database (see "
               "the error above)";
    /* its commits are bookkeeping (sqlite_no_fsync below) */
    wh_inbox_db_set_relaxed(ib);
    *out = q;
    return NULL;
}

/* ---- the cycle ------------------------------------------------------- */

typedef struct {
    wh_fq *q;
    const apr_array_header_t *outcomes;
    int lease_max;
    apr_int64_t lease_ms;
    apr_time_t now;
    wh_fq_cycle_result *out;
    int pending;                 /* PostgreSQL: events await the sequencer */
} cycle_ctx;

/* An answer as valid UTF-8 text (a JSON string, a TEXT column, which
 * PostgreSQL refuses to hold anything else in): any byte that is not part
 * of a well-formed sequence becomes '?'. */
static const char *utf8_text(apr_pool_t *p, const char *s)
{
    apr_size_t n = s ? strlen(s) : 0, i = 0;
    char *o;

    if (!s)
        return NULL;
    o = apr_pstrmemdup(p, s, n);
    while (i < n) {
        apr_size_t k = wh_utf8_seq_len((const unsigned char *)o + i, n - i);
        if (k == 0) {
            o[i++] = '?';
            continue;
        }
        i += k;
    }
    return o;
}

/* The outcomes with every answer made text once, before the transaction:
 * a dead letter's or retry's row and its attempt keep the same answer. */
static const apr_array_header_t *text_answers(apr_pool_t *p,
                                              const apr_array_header_t *in)
{
    apr_array_header_t *out;

    if (!in || !in->nelts)
        return in;
    out = apr_array_copy(p, in);
    for (int i = 0; i < out->nelts; i++) {
        wh_fq_outcome *o = &APR_ARRAY_IDX(out, i, wh_fq_outcome);
        o->answer = utf8_text(p, o->answer);
    }
    return out;
}

/* Every outcome's attempt in wh_attempts, in one statement (whether or
 * not its lease was still this forwarder's: the request was made). */
static int record_attempts(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c)
{
    json_object *arr = json_object_new_array();
    const char *json;
    int n = 0, rv;

    if (!arr)
        return wh_inbox_db_fail(ib, p, "recording attempts", -1);
    for (int i = 0; i < c->outcomes->nelts; i++) {
        const wh_fq_outcome *o = &APR_ARRAY_IDX(c->outcomes, i, wh_fq_outcome);
        json_object *a;
        if (o->started_at <= 0 || !(a = json_object_new_array()))
            continue;
        json_object_array_add(a, json_object_new_int64(o->event_id));
        json_object_array_add(a, json_object_new_int(o->attempt));
        json_object_array_add(a, json_object_new_int64(o->started_at));
        json_object_array_add(a, json_object_new_int64(o->duration_ms > 0 ? o->duration_ms : 0));
        json_object_array_add(a, json_object_new_int(o->http_status));
        json_object_array_add(a, o->answer ? json_object_new_string(o->answer) : NULL);
        json_object_array_add(a, json_object_new_int(o->state));
        json_object_array_add(arr, a);
        n++;
    }
    json = n ? apr_pstrdup(p, json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN))
             : NULL;
    json_object_put(arr);
    if (!json)
        return 0;
    {
        const void *args[1] = { json };
        if ((rv = wh_inbox_db_exec(ib, p, &st_attempts_add, NULL, args)) != 0)
            return wh_inbox_db_fail(ib, p, "recording attempts", rv);
        apr_int64_t oldest = apr_time_sec(c->now) / 60 - WH_FQ_MINUTES_KEPT;
        const void *drop[1] = { &oldest };
        if ((rv = wh_inbox_db_exec(ib, p, &st_totals_add, NULL, args)) != 0)
            return wh_inbox_db_fail(ib, p, "counting attempts", rv);
        if ((rv = wh_inbox_db_exec(ib, p, &st_minutes_add, NULL, args)) != 0 ||
            (rv = wh_inbox_db_exec(ib, p, &st_minutes_drop, NULL, drop)) != 0)
            return wh_inbox_db_fail(ib, p, "counting attempts by the minute", rv);
    }
    return 0;
}

static int record(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c)
{
    apr_int64_t now = c->now;
    const char *owner = c->q->owner;
    apr_array_header_t *finished = apr_array_make(p, c->outcomes->nelts + 1,
                                                  sizeof(apr_int64_t));
    char *pairs = apr_palloc(p, (apr_size_t)c->outcomes->nelts * 34 + 3), *w = pairs;
    int forwarded = 0, n, rv;

    *w++ = '[';
    for (int i = 0; i < c->outcomes->nelts; i++) {
        const wh_fq_outcome *o = &APR_ARRAY_IDX(c->outcomes, i, wh_fq_outcome);
        apr_int64_t id = o->event_id, next = o->next_at;
        int attempt = o->attempt, status = o->http_status;
        const void *args[7];

        if (o->state == WH_FQ_FORWARDED) {
            w += apr_snprintf(w, 35, "%s[%" APR_INT64_T_FMT ",%d]", forwarded++ ? "," : "",
                              id, attempt);
            APR_ARRAY_PUSH(finished, apr_int64_t) = id;
            continue;
        }
        n = 0;
        if (o->state == WH_FQ_DEAD) {
            args[0] = &now;
            args[1] = &status;
            args[2] = o->answer;
            args[3] = o->reason ? o->reason : "dead";
            args[4] = &id;
            args[5] = &attempt;
            args[6] = owner;
            if ((rv = wh_inbox_db_exec(ib, p, &st_dead, &n, args)) != 0)
                return wh_inbox_db_fail(ib, p, "recording a dead letter", rv);
            if (n)
                APR_ARRAY_PUSH(finished, apr_int64_t) = id;
        } else {
            args[0] = &next;
            args[1] = &status;
            args[2] = o->answer;
            args[3] = &id;
            args[4] = &attempt;
            args[5] = owner;
            if ((rv = wh_inbox_db_exec(ib, p, &st_retry, &n, args)) != 0)
                return wh_inbox_db_fail(ib, p, "recording a retry", rv);
        }
        c->out->recorded += n;
        c->out->lost += 1 - n;
    }
    *w++ = ']';
    *w = '\0';
    if (forwarded) {
        const void *args[3] = { &now, owner, pairs };
        if ((rv = wh_inbox_db_exec(ib, p, &st_forwarded, &n, args)) != 0)
            return wh_inbox_db_fail(ib, p, "recording forwarded events", rv);
        c->out->recorded += n;
        c->out->lost += forwarded - n;
    }
    if (finished->nelts) {
        const void *args[2] = { &now, wh_cell_ids(p, (const apr_int64_t *)finished->elts,
                                                  finished->nelts) };
        if ((rv = wh_inbox_db_exec(ib, p, &st_promote, NULL, args)) != 0)
            return wh_inbox_db_fail(ib, p, "making the next events ready", rv);
    }
    return 0;
}

/* Takes up to WH_FQ_INGEST_BATCH newly listed events (last, head] into
 * the queue; the cursor's lock (taken by the caller) orders this against
 * every other change of states. */
static int ingest(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c, apr_int64_t last,
                  apr_int64_t head)
{
    apr_int64_t upto, now = c->now;
    int n = 0, moved = 0, rv;

    if (head <= last)
        return 0;
    upto = head - last > WH_FQ_INGEST_BATCH ? last + WH_FQ_INGEST_BATCH : head;
    {
        const void *args[3] = { &now, &last, &upto };
        if ((rv = wh_inbox_db_exec(ib, p, &st_ingest, &n, args)) != 0)
            return wh_inbox_db_fail(ib, p, "queueing new events", rv);
    }
    {
        const void *args[2] = { &upto, &last };
        if ((rv = wh_inbox_db_exec(ib, p, &st_cursor_set, &moved, args)) != 0 || moved != 1)
            return wh_inbox_db_fail(ib, p, "moving the forward cursor", rv ? rv : -1);
    }
    c->out->ingested = n;
    c->out->backlog |= upto < head;
    return 0;
}

/* Leased rows (event_id, attempts, first_at, received_at, then the
 * event's notification_id, event_type, event_time, payment_id, status,
 * body) into leases; attempts_done: the attempts column counts this one
 * already (PostgreSQL's RETURNING) or not yet (SQLite's SELECT). */
static void take_leases(cycle_ctx *c, const wh_inbox_rows *rows, int attempts_done,
                        apr_array_header_t *ids)
{
    for (int i = 0; i < rows->nrows; i++) {
        wh_fq_lease *cl = apr_array_push(c->out->leases);
        memset(cl, 0, sizeof(*cl));
        cl->ev.id = wh_cell_num(WH_ROW_CELL(rows, i, 0));
        cl->ev.attempt = (int)wh_cell_num(WH_ROW_CELL(rows, i, 1)) + !attempts_done;
        cl->first_at = wh_cell_num(WH_ROW_CELL(rows, i, 2));
        if (!cl->first_at)
            cl->first_at = c->now;         /* this is the first attempt */
        cl->received_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(rows, i, 3));
        cl->ev.notification_id = WH_ROW_CELL(rows, i, 4);
        cl->ev.event_type = wh_cell_opt(WH_ROW_CELL(rows, i, 5));
        cl->ev.event_time = wh_cell_opt(WH_ROW_CELL(rows, i, 6));
        cl->ev.payment_id = wh_cell_opt(WH_ROW_CELL(rows, i, 7));
        cl->ev.status = wh_cell_opt(WH_ROW_CELL(rows, i, 8));
        cl->ev.body = WH_ROW_CELL(rows, i, 9) ? WH_ROW_CELL(rows, i, 9) : "";
        cl->ev.body_len = strlen(cl->ev.body);
        if (ids)
            APR_ARRAY_PUSH(ids, apr_int64_t) = cl->ev.id;
    }
}

static int lease_due(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c)
{
    int limit = c->lease_max, n = 0, rv;
    apr_int64_t now = c->now, lease_end = c->now + apr_time_from_msec(c->lease_ms);
    apr_array_header_t *ids;
    wh_inbox_rows rows;

    if (is_pg(ib)) {
        const void *args[5] = { &now, &limit, &now, c->q->owner, &lease_end };
        if ((rv = wh_inbox_db_select(ib, p, &st_lease_one_pg, args, limit, &rows)) != 0)
            return wh_inbox_db_fail(ib, p, "leasing events", rv);
        take_leases(c, &rows, 1, NULL);
        return 0;
    }
    {
        const void *args[2] = { &now, &limit };
        if ((rv = wh_inbox_db_select(ib, p, &st_due, args, limit, &rows)) != 0)
            return wh_inbox_db_fail(ib, p, "finding due events", rv);
    }
    if (!rows.nrows)
        return 0;
    ids = apr_array_make(p, rows.nrows, sizeof(apr_int64_t));
    take_leases(c, &rows, 0, ids);
    {
        const void *args[4] = { &now, c->q->owner, &lease_end,
                                wh_cell_ids(p, (const apr_int64_t *)ids->elts, ids->nelts) };
        if ((rv = wh_inbox_db_exec(ib, p, &st_lease, &n, args)) != 0)
            return wh_inbox_db_fail(ib, p, "leasing events", rv);
    }
    /* The database is locked (BEGIN IMMEDIATE): every one selected is
     * leased. */
    if (n != ids->nelts)
        return wh_inbox_db_fail(ib, p, "leasing events", -1);
    return 0;
}

static int run_cycle(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    cycle_ctx *c = baton;
    wh_inbox_rows cur;
    const char *v = NULL;
    apr_int64_t last;
    int rv;

    /* Durable on PostgreSQL (the session's synchronous_commit = on): a
     * lease or an outcome that a crash of the database server rolled back
     * would send its event again, while this forwarder, still running,
     * knows it was sent. (SQLite's NORMAL, below, loses commits only
     * with the machine, which takes the forwarder's own requests in
     * flight with it. MySQL syncs them like its stores, a setting of the
     * server.) */
    /* The cursor row first: its lock orders ingest and outcomes (which
     * decide who is ready) across forwarders. */
    if ((rv = wh_inbox_db_select(ib, p, &st_cursor, NULL, 1, &cur)) != 0 || !cur.nrows)
        return wh_inbox_db_fail(ib, p, "reading the forward cursor", rv ? rv : -1);
    last = wh_cell_num(WH_ROW_CELL(&cur, 0, 0));
    c->pending = wh_cell_num(WH_ROW_CELL(&cur, 0, 2)) > 0;
    if (c->outcomes && c->outcomes->nelts &&
        ((rv = record(ib, p, c)) != 0 || (rv = record_attempts(ib, p, c)) != 0))
        return rv;
    if (c->lease_max > 0) {
        if ((rv = ingest(ib, p, c, last, wh_cell_num(WH_ROW_CELL(&cur, 0, 1)))) != 0 ||
            (rv = lease_due(ib, p, c)) != 0)
            return rv;
        /* every slot filled: the caller leases again as soon as one is free,
         * whenever the rest is due */
        if (c->out->leases->nelts < c->lease_max) {
            if ((rv = wh_inbox_db_value(ib, p, &st_next_due, NULL, &v)) != 0)
                return wh_inbox_db_fail(ib, p, "finding the next due event", rv);
            c->out->next_due = (apr_time_t)wh_cell_num(v);
        }
    }
    return WH_TXN_COMMIT;
}

/* SQLite's counterpart of PostgreSQL's synchronous_commit = off, for this
 * process's connection only (the forwarder's: the module's and the CGI's
 * sync the WAL after each commit, wh_inbox_walsync.c, which this inbox
 * is told to skip). A renewed connection may start FULL, so it is set
 * before every cycle: no I/O, a parse. In WAL mode a commit is then not
 * fsynced; a power failure may
 * undo the last cycles (events leased or forwarded again), never an
 * event. */
static int sqlite_no_fsync(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    int rv = wh_inbox_db_sql(ib, "PRAGMA synchronous = NORMAL");
    (void)baton;
    return rv ? wh_inbox_db_fail(ib, p, "PRAGMA synchronous", rv) : 0;
}

int wh_fq_cycle(wh_fq *q, apr_pool_t *p,
                const apr_array_header_t *outcomes, int lease_max,
                apr_int64_t lease_ms, apr_time_t now, wh_fq_cycle_result *out)
{
    cycle_ctx c = { q, text_answers(p, outcomes), lease_max, lease_ms, now, out, 0 };

    memset(out, 0, sizeof(*out));
    out->leases = apr_array_make(p, lease_max > 0 ? lease_max : 1, sizeof(wh_fq_lease));
    if ((wh_inbox_db_engine(q->ib) == WH_INBOX_SQLITE3 &&
         wh_inbox_db_read(q->ib, p, "forward session", sqlite_no_fsync, NULL) != WH_DB_OK) ||
        wh_inbox_db_txn(q->ib, p, "forward cycle", run_cycle, &c) != WH_DB_OK) {
        memset(out, 0, sizeof(*out));
        out->leases = apr_array_make(p, 1, sizeof(wh_fq_lease));
        return -1;
    }
    /* Numbered now, queued by the next cycle. A failure here only delays
     * them: the next peek or cycle sees them pending again. */
    if (c.pending && wh_inbox_sequence(q->ib, p) == 0)
        out->backlog = 1;
    return 0;
}

typedef struct {
    wh_fq *q;
    const char *held;            /* [[event_id, attempt], ...] */
    apr_int64_t now;
    int n;
} release_ctx;

static int release_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    release_ctx *c = baton;
    const void *args[3] = { &c->now, c->q->owner, c->held };
    int rv = wh_inbox_db_exec(ib, p, &st_release, &c->n, args);

    return rv ? wh_inbox_db_fail(ib, p, "releasing unknown leases", rv) : WH_TXN_COMMIT;
}

int wh_fq_release_unknown(wh_fq *q, apr_pool_t *p, const apr_array_header_t *held,
                          apr_time_t now, int *n)
{
    release_ctx c = { q, NULL, now, 0 };
    char *w;

    *n = 0;
    w = apr_palloc(p, (apr_size_t)(held ? held->nelts : 0) * 34 + 3);
    c.held = w;
    *w++ = '[';
    for (int i = 0; held && i < held->nelts; i++) {
        const wh_fq_held *h = &APR_ARRAY_IDX(held, i, wh_fq_held);
        w += apr_snprintf(w, 35, "%s[%" APR_INT64_T_FMT ",%d]", i ? "," : "",
                          h->event_id, h->attempt);
    }
    *w++ = ']';
    *w = '\0';
    if (wh_inbox_db_txn(q->ib, p, "releasing unknown leases", release_txn, &c) != WH_DB_OK)
        return -1;
    *n = c.n;
    return 0;
}

/* ---- liveness -------------------------------------------------------- */

typedef struct {
    wh_fq *q;
    apr_time_t started, now;
    int stopping;
} alive_ctx;

static int alive(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    alive_ctx *a = baton;
    apr_int64_t started = a->started, now = a->now, forget = a->now - WH_FQ_FORWARDERS_KEPT;
    int rv;

    if (a->stopping) {
        const void *args[3] = { &now, &now, a->q->owner };
        rv = wh_inbox_db_exec(ib, p, &st_stopped, NULL, args);
    } else {
        const void *args[3] = { a->q->owner, &started, &now };
        rv = wh_inbox_db_exec(ib, p, &st_alive, NULL, args);
    }
    if (rv == 0) {
        const void *args[1] = { &forget };
        rv = wh_inbox_db_exec(ib, p, &st_forget, NULL, args);
    }
    return rv ? wh_inbox_db_fail(ib, p, "recording the forwarder's liveness", rv)
              : WH_TXN_COMMIT;
}

int wh_fq_alive(wh_fq *q, apr_pool_t *p, apr_time_t started, apr_time_t now, int stopping)
{
    alive_ctx a = { q, started, now, stopping };
    return wh_inbox_db_txn(q->ib, p, "forwarder liveness", alive, &a) == WH_DB_OK ? 0 : -1;
}

/* ---- reads ----------------------------------------------------------- */

/* The first row's cells, or NULL. */
static const char **read_one(wh_fq *q, apr_pool_t *p, const wh_inbox_stmt *st,
                             const char *what)
{
    wh_inbox_rows rows;

    if (wh_inbox_db_query(q->ib, p, what, st, NULL, 1, &rows) != 0 || !rows.nrows)
        return NULL;
    return rows.cell;
}

int wh_fq_peek(wh_fq *q, apr_pool_t *p, int *new_events,
               apr_time_t *next_due)
{
    const char **r;

    /* Committed events without a listing position yet (PostgreSQL) get
     * it first: the forwarder queues by position. */
    if (wh_inbox_sequence(q->ib, p) != 0 ||
        !(r = read_one(q, p, &st_peek, "forward peek")))
        return -1;
    *new_events = wh_cell_num(r[0]) > wh_cell_num(r[1]);
    *next_due = (apr_time_t)wh_cell_num(r[2]);
    return 0;
}

int wh_fq_stats(wh_fq *q, apr_pool_t *p, wh_fq_counts *out)
{
    const char **r = read_one(q, p, &st_stats, "forward status");

    memset(out, 0, sizeof(*out));
    if (!r)
        return -1;
    out->waiting = wh_cell_num(r[0]);
    out->ready = wh_cell_num(r[1]);
    out->retrying = wh_cell_num(r[2]);
    out->dead = wh_cell_num(r[3]);
    out->oldest = (apr_time_t)wh_cell_num(r[4]);
    out->unqueued = wh_cell_num(r[5]) > wh_cell_num(r[6]) ? wh_cell_num(r[5]) - wh_cell_num(r[6]) : 0;
    return 0;
}

int wh_fq_status(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                 wh_fq_counts *out)
{
    /* asked first, so a query on tables that do not exist yet never
     * fails (which would log and renew the inbox's shared connection) */
    wh_fq q = { ib, cfg, "status", 0 };
    const char **r = read_one(&q, p, &st_started, "forward started");

    memset(out, 0, sizeof(*out));
    if (!r)
        return -1;
    if (wh_cell_num(r[0]) == 0)
        return 0;
    return wh_fq_stats(&q, p, out) == 0 ? 1 : -1;
}

/* Whether wh_attempt_counts exists (a reader never makes it), then its
 * rows, in one read. */
typedef struct {
    int found;                  /* the table exists */
    wh_inbox_rows rows;
} totals_read;

static int read_totals(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    totals_read *r = baton;
    int rv = wh_inbox_db_select(ib, p, &st_totals_table, NULL, 1, &r->rows);

    if (rv != 0 || !r->rows.nrows || wh_cell_num(WH_ROW_CELL(&r->rows, 0, 0)) == 0)
        return rv;
    r->found = 1;
    return wh_inbox_db_select(ib, p, &st_totals, NULL, 8, &r->rows);
}

int wh_fq_attempt_totals(wh_fq *q, apr_pool_t *p, wh_fq_totals *out)
{
    totals_read r = { 0, { 0, 0, 0, NULL } };

    memset(out, 0, sizeof(*out));
    if (wh_inbox_db_read(q->ib, p, "attempt counts", read_totals, &r) != WH_DB_OK)
        return -1;
    if (!r.found)
        return 0;
    for (int i = 0; i < r.rows.nrows; i++) {
        apr_int64_t n = wh_cell_num(WH_ROW_CELL(&r.rows, i, 1));
        switch (wh_cell_num(WH_ROW_CELL(&r.rows, i, 0))) {
        case WH_FQ_FORWARDED: out->forwarded = n; break;
        case WH_FQ_READY: out->retried = n; break;
        case WH_FQ_DEAD: out->dead = n; break;
        default: break;
        }
    }
    return 1;
}

/* ---- dead letters ---------------------------------------------------- */

void wh_fq_dead_row_read(const wh_inbox_rows *rows, int i, wh_fq_dead *o)
{
#define C(j) WH_ROW_CELL(rows, i, j)
    memset(o, 0, sizeof(*o));
    o->event_id = wh_cell_num(C(0));
    o->seq = wh_cell_num(C(1));
    o->notification_id = C(2);
    o->payment_id = wh_cell_opt(C(3));
    o->status = wh_cell_opt(C(4));
    o->event_time = wh_cell_opt(C(5));
    o->attempts = (int)wh_cell_num(C(6));
    o->received_at = (apr_time_t)wh_cell_num(C(7));
    o->first_at = (apr_time_t)wh_cell_num(C(8));
    o->dead_at = (apr_time_t)wh_cell_num(C(9));
    o->http_status = (int)wh_cell_num(C(10));
    o->answer = wh_cell_opt(C(11));
    o->reason = wh_cell_opt(C(12));
    if (rows->ncols > 13)
        o->body = C(13);
#undef C
}

int wh_fq_dead_list(wh_fq *q, apr_pool_t *p, apr_int64_t after_id,
                    int limit, apr_array_header_t **rows)
{
    const void *args[2] = { &after_id, &limit };
    wh_inbox_rows found;

    *rows = apr_array_make(p, 8, sizeof(wh_fq_dead));
    if (wh_inbox_db_query(q->ib, p, "dead letters", &st_dead_list, args, limit, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++)
        wh_fq_dead_row_read(&found, i, apr_array_push(*rows));
    return 0;
}

int wh_fq_dead_get(wh_fq *q, apr_pool_t *p, const char *id,
                   wh_fq_dead *out)
{
    apr_int64_t n = 0;
    const void *args[1];
    const wh_inbox_stmt *st;
    wh_inbox_rows found;

    /* an event id is digits; anything else is taken as a notificationId */
    if (wh_parse_int64(p, id, 1, APR_INT64_MAX, &n) == NULL) {
        st = &st_dead_by_id;
        args[0] = &n;
    } else {
        st = &st_dead_by_nid;
        args[0] = id;
    }
    if (wh_inbox_db_query(q->ib, p, "a dead letter", st, args, 1, &found) != 0)
        return -1;
    if (!found.nrows)
        return 0;
    wh_fq_dead_row_read(&found, 0, out);
    return 1;
}

typedef struct {
    apr_int64_t one;             /* > 0: only this event */
    const char *payment_id;      /* else, when set: this payment's */
    apr_time_t now;
    int n;
    int more;                    /* all: another batch may be left */
} revive_ctx;

static int revive(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    revive_ctx *c = baton;
    apr_array_header_t *ids = apr_array_make(p, 8, sizeof(apr_int64_t));
    apr_int64_t now = c->now;
    int rv;

    c->n = 0;
    c->more = 0;
    /* the cursor's lock: who is ready is decided one writer at a time */
    if ((rv = wh_fq_lock_cursor(ib, p)) != 0)
        return rv;
    if (c->one > 0) {
        APR_ARRAY_PUSH(ids, apr_int64_t) = c->one;
    } else {
        int limit = WH_FQ_REVIVE_BATCH;
        const void *args[2] = { &limit, NULL };
        wh_inbox_rows rows;
        if (c->payment_id) {
            args[0] = c->payment_id;
            args[1] = &limit;
        }
        if ((rv = wh_inbox_db_select(ib, p, c->payment_id ? &st_dead_ids_payment
                                                          : &st_dead_ids,
                                     args, limit, &rows)) != 0)
            return wh_inbox_db_fail(ib, p, "listing dead letters", rv);
        for (int i = 0; i < rows.nrows; i++)
            APR_ARRAY_PUSH(ids, apr_int64_t) = wh_cell_num(WH_ROW_CELL(&rows, i, 0));
        c->more = rows.nrows == limit;
    }
    if ((rv = wh_fq_revive_ids(ib, p, ids, now, &c->n)) != 0)
        return rv;
    return WH_TXN_COMMIT;
}

int wh_fq_lock_cursor(wh_inbox *ib, apr_pool_t *p)
{
    const char *v;
    int rv = wh_inbox_db_value(ib, p, &st_cursor, NULL, &v);
    return rv ? wh_inbox_db_fail(ib, p, "reading the forward cursor", rv) : 0;
}

int wh_fq_revive_ids(wh_inbox *ib, apr_pool_t *p, const apr_array_header_t *ids,
                     apr_int64_t now, int *n)
{
    int rv;

    for (int i = 0; i < ids->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(ids, i, apr_int64_t);
        const void *args[2] = { &now, &id };
        int k = 0;
        if ((rv = wh_inbox_db_exec(ib, p, &st_revive, &k, args)) != 0)
            return wh_inbox_db_fail(ib, p, "putting a dead letter back", rv);
        *n += k;
    }
    return 0;
}

int wh_fq_dead_retry(wh_fq *q, apr_pool_t *p, const char *id,
                     apr_time_t now, int *n)
{
    revive_ctx c;

    memset(&c, 0, sizeof(c));
    c.now = now;
    *n = 0;
    if (id) {
        wh_fq_dead row;
        int found = wh_fq_dead_get(q, p, id, &row);
        if (found <= 0)
            return found;
        c.one = row.event_id;
    }
    do {
        if (wh_inbox_db_txn(q->ib, p, "dead retry", revive, &c) != WH_DB_OK)
            return -1;
        *n += c.n;
    } while (c.more && c.n > 0);
    return 0;
}

int wh_fq_dead_retry_payment(wh_fq *q, apr_pool_t *p,
                             const char *payment_id, apr_time_t now, int *n)
{
    revive_ctx c;

    memset(&c, 0, sizeof(c));
    c.now = now;
    c.payment_id = payment_id;
    *n = 0;
    if (!payment_id)
        return -1;
    do {
        if (wh_inbox_db_txn(q->ib, p, "dead retry", revive, &c) != WH_DB_OK)
            return -1;
        *n += c.n;
    } while (c.more && c.n > 0);
    return 0;
}

int wh_fq_dead_count_payment(wh_fq *q, apr_pool_t *p,
                             const char *payment_id, apr_int64_t *n)
{
    const void *args[1] = { payment_id };
    wh_inbox_rows found;

    *n = 0;
    if (wh_inbox_db_query(q->ib, p, "dead letters of a payment", &st_dead_count_payment,
                          args, 1, &found) != 0)
        return -1;
    *n = found.nrows ? wh_cell_num(WH_ROW_CELL(&found, 0, 0)) : 0;
    return 0;
}

/* ---- readers --------------------------------------------------------- */

int wh_fq_attach(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                 wh_fq **out)
{
    wh_fq probe = { ib, cfg, "reader", 0 };
    const char **r = read_one(&probe, p, &st_tables, "forward tables");
    wh_fq *q;

    *out = NULL;
    if (!r)
        return -1;
    if (wh_cell_num(r[0]) == 0)
        return 0;
    q = apr_pcalloc(p, sizeof(*q));
    *q = probe;
    q->attempts_table = wh_cell_num(r[1]) > 0;
    *out = q;
    return 1;
}

int wh_fq_has_attempts(const wh_fq *q)
{
    return q->attempts_table;
}

int wh_fq_states(wh_fq *q, apr_pool_t *p, const apr_int64_t *ids,
                 int n, apr_array_header_t **out)
{
    const void *args[1];
    wh_inbox_rows found;

    *out = apr_array_make(p, n > 0 ? n : 1, sizeof(wh_fq_state));
    if (n <= 0)
        return 0;
    if (n > WH_FQ_INGEST_BATCH)
        return -1;
    args[0] = wh_cell_ids(p, ids, n);
    if (wh_inbox_db_query(q->ib, p, "queue states", &st_states, args, n, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++) {
        wh_fq_state *st = apr_array_push(*out);
#define C(j) WH_ROW_CELL(&found, i, j)
        st->event_id = wh_cell_num(C(0));
        st->state = (int)wh_cell_num(C(1));
        st->attempts = (int)wh_cell_num(C(2));
        st->leased = wh_cell_opt(C(3)) != NULL;
        st->next_at = (apr_time_t)wh_cell_num(C(4));
        st->first_at = (apr_time_t)wh_cell_num(C(5));
        st->done_at = (apr_time_t)wh_cell_num(C(6));
        st->http_status = (int)wh_cell_num(C(7));
        st->answer = wh_cell_opt(C(8));
        st->reason = wh_cell_opt(C(9));
#undef C
    }
    return 0;
}

int wh_fq_attempts(wh_fq *q, apr_pool_t *p, apr_int64_t event_id,
                   int limit, apr_array_header_t **out, apr_int64_t *total)
{
    const void *args[2] = { &event_id, &limit };
    wh_inbox_rows r, c;

    *out = apr_array_make(p, limit > 0 ? limit : 1, sizeof(wh_fq_attempt));
    *total = 0;
    if (!q->attempts_table || limit < 1)
        return 0;
    if (wh_inbox_db_query(q->ib, p, "attempts", &st_attempts_of, args, limit, &r) != 0 ||
        wh_inbox_db_query(q->ib, p, "attempts", &st_attempts_count, args, 1, &c) != 0)
        return -1;
    *total = c.nrows ? wh_cell_num(WH_ROW_CELL(&c, 0, 0)) : 0;
    for (int i = 0; i < r.nrows; i++) {
        wh_fq_attempt *a = apr_array_push(*out);
        a->attempt = (int)wh_cell_num(WH_ROW_CELL(&r, i, 0));
        a->started_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&r, i, 1));
        a->duration_ms = wh_cell_num(WH_ROW_CELL(&r, i, 2));
        a->http_status = (int)wh_cell_num(WH_ROW_CELL(&r, i, 3));
        a->answer = wh_cell_opt(WH_ROW_CELL(&r, i, 4));
        a->outcome = (int)wh_cell_num(WH_ROW_CELL(&r, i, 5));
    }
    return 0;
}
