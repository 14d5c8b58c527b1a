/* The delivery queue in the inbox database (wh_delivery.h): taking new
 * events in, claiming due ones with leases, recording outcomes, and the
 * dead letters. Every change of state happens in one transaction with
 * what it implies (a finished event makes the next of its payment ready),
 * so the queue is consistent after a crash at any point. */
#include "wh_delivery.h"
#include "wh_delivery_sql.h"
#include "inbox/wh_db_cells.h"
#include "inbox/wh_inbox_db.h"
#include "verify/wh_parse.h"
#include "verify/wh_utf8.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

#define WH_DLV_REVIVE_BATCH 1000

static const wh_inbox_stmt st_cursor = { WH_DLV_SQL_CURSOR, WH_DLV_SQL_CURSOR_PG };
static const wh_inbox_stmt st_cursor_set = { WH_DLV_SQL_CURSOR_SET, NULL };
static const wh_inbox_stmt st_ingest = { WH_DLV_SQL_INGEST, NULL };
static const wh_inbox_stmt st_due = { WH_DLV_SQL_DUE, WH_DLV_SQL_DUE_PG };
static const wh_inbox_stmt st_claim = { WH_DLV_SQL_CLAIM, WH_DLV_SQL_CLAIM_PG };
static const wh_inbox_stmt st_claim_one_pg = { WH_DLV_SQL_CLAIM_ONE_PG, NULL };
static const wh_inbox_stmt st_delivered = { WH_DLV_SQL_DELIVERED, WH_DLV_SQL_DELIVERED_PG };
static const wh_inbox_stmt st_retry = { WH_DLV_SQL_RETRY, NULL };
static const wh_inbox_stmt st_dead = { WH_DLV_SQL_DEAD, NULL };
static const wh_inbox_stmt st_promote = { WH_DLV_SQL_PROMOTE, WH_DLV_SQL_PROMOTE_PG };
static const wh_inbox_stmt st_next_due = { WH_DLV_SQL_NEXT_DUE, NULL };
static const wh_inbox_stmt st_peek = { WH_DLV_SQL_PEEK, NULL };
static const wh_inbox_stmt st_stats = { WH_DLV_SQL_STATS, NULL };
static const wh_inbox_stmt st_dead_list = { WH_DLV_SQL_DEAD_LIST, NULL };
static const wh_inbox_stmt st_dead_by_id = { WH_DLV_SQL_DEAD_BY_ID, NULL };
static const wh_inbox_stmt st_dead_by_nid = { WH_DLV_SQL_DEAD_BY_NID, NULL };
static const wh_inbox_stmt st_dead_ids = { WH_DLV_SQL_DEAD_IDS, NULL };
static const wh_inbox_stmt st_revive = { WH_DLV_SQL_REVIVE, NULL };
static const wh_inbox_stmt st_dead_ids_payment = { WH_DLV_SQL_DEAD_IDS_PAYMENT, NULL };
static const wh_inbox_stmt st_dead_count_payment = { WH_DLV_SQL_DEAD_COUNT_PAYMENT, NULL };
static const wh_inbox_stmt st_states = { WH_DLV_SQL_STATES, WH_DLV_SQL_STATES_PG };
static const wh_inbox_stmt st_attempts_add = {
    WH_DLV_SQL_ATTEMPTS_ADD, WH_DLV_SQL_ATTEMPTS_ADD_PG };
static const wh_inbox_stmt st_attempts_of = { WH_DLV_SQL_ATTEMPTS_OF, NULL };
static const wh_inbox_stmt st_attempts_count = { WH_DLV_SQL_ATTEMPTS_COUNT, NULL };
/* Which of the forwarder's tables exist: the queue's, and the attempt
 * history (an older forwarder made the first without the second). */
static const wh_inbox_stmt st_tables = {
    "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table'"
    " AND name = 'wh_forward_cursor'), (SELECT count(*) FROM sqlite_master"
    " WHERE type = 'table' AND name = 'wh_attempts')",
    "SELECT (SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
    " 'wh_forward_cursor' AND schemaname = current_schema()),"
    " (SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename ="
    " 'wh_attempts' AND schemaname = current_schema())" };
static const wh_inbox_stmt st_started = {
    "SELECT count(*) FROM sqlite_master"
    " WHERE type = 'table' AND name = 'wh_forward_cursor'",
    "SELECT count(*) FROM pg_catalog.pg_tables"
    " WHERE tablename = 'wh_forward_cursor' AND schemaname = current_schema()" };

struct wh_delivery {
    wh_inbox *ib;
    const wh_config *cfg;
    const char *owner;
    int attempts_table;          /* wh_attempts exists (attach) */
};


static int is_pg(wh_inbox *ib)
{
    return wh_inbox_db_engine(ib) == WH_INBOX_PGSQL;
}

/* ---- schema ---------------------------------------------------------- */

static int create_schema(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    static const char *const ddl[] = { WH_DLV_SQL_SCHEMA };
    int rv;
    (void)baton;
    for (size_t i = 0; i < sizeof(ddl) / sizeof(ddl[0]); i++)
        if ((rv = wh_inbox_db_sql(ib, ddl[i])) != 0)
            return wh_inbox_db_fail(ib, p, "creating the delivery tables", rv);
    return WH_TXN_COMMIT;
}

const char *wh_delivery_open(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                             const char *owner, wh_delivery **out)
{
    wh_delivery *d = apr_pcalloc(p, sizeof(*d));

    d->ib = ib;
    d->cfg = cfg;
    d->owner = apr_pstrdup(p, owner ? owner : "wirehook");
    d->attempts_table = 1;
    /* Two processes creating the tables at once: the loser's IF NOT
     * EXISTS may still collide in PostgreSQL's catalog; once more wins. */
    if (wh_inbox_db_txn(ib, p, "delivery tables", create_schema, NULL) != WH_DB_OK &&
        wh_inbox_db_txn(ib, p, "delivery tables", create_schema, NULL) != WH_DB_OK)
        return "cannot create the delivery tables in the inbox database (see "
               "the error above)";
    /* its commits are bookkeeping (sqlite_no_fsync below) */
    wh_inbox_db_set_relaxed(ib);
    *out = d;
    return NULL;
}

/* ---- JSON id lists --------------------------------------------------- */

static const char *json_ids(apr_pool_t *p, const apr_array_header_t *ids)
{
    char *s = apr_palloc(p, (apr_size_t)ids->nelts * 21 + 3), *w = s;

    *w++ = '[';
    for (int i = 0; i < ids->nelts; i++)
        w += apr_snprintf(w, 22, "%s%" APR_INT64_T_FMT, i ? "," : "",
                          APR_ARRAY_IDX(ids, i, apr_int64_t));
    *w++ = ']';
    *w = '\0';
    return s;
}

/* ---- the cycle ------------------------------------------------------- */

typedef struct {
    wh_delivery *d;
    const apr_array_header_t *outcomes;
    int claim_max;
    apr_int64_t lease_ms;
    apr_time_t now;
    wh_dlv_cycle *out;
    int pending;                 /* PostgreSQL: events await the sequencer */
} cycle_ctx;

/* An answer as valid UTF-8 text (a JSON string, a TEXT column): any
 * byte that is not part of a well-formed sequence becomes '?'. */
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
        const wh_dlv_outcome *o = &APR_ARRAY_IDX(c->outcomes, i, wh_dlv_outcome);
        json_object *a;
        if (o->started_at <= 0 || !(a = json_object_new_array()))
            continue;
        json_object_array_add(a, json_object_new_int64(o->event_id));
        json_object_array_add(a, json_object_new_int(o->attempt));
        json_object_array_add(a, json_object_new_int64(o->started_at));
        json_object_array_add(a, json_object_new_int64(o->duration_ms > 0 ? o->duration_ms : 0));
        json_object_array_add(a, json_object_new_int(o->http_status));
        json_object_array_add(a, o->answer ? json_object_new_string(utf8_text(p, o->answer))
                                           : NULL);
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
    }
    return 0;
}

static int record(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c)
{
    apr_int64_t now = c->now;
    const char *owner = c->d->owner;
    apr_array_header_t *finished = apr_array_make(p, c->outcomes->nelts + 1,
                                                  sizeof(apr_int64_t));
    char *pairs = apr_palloc(p, (apr_size_t)c->outcomes->nelts * 34 + 3), *w = pairs;
    int delivered = 0, n, rv;

    *w++ = '[';
    for (int i = 0; i < c->outcomes->nelts; i++) {
        const wh_dlv_outcome *o = &APR_ARRAY_IDX(c->outcomes, i, wh_dlv_outcome);
        apr_int64_t id = o->event_id, next = o->next_at;
        int attempt = o->attempt, status = o->http_status;
        const void *args[7];

        if (o->state == WH_DLV_DELIVERED) {
            w += apr_snprintf(w, 35, "%s[%" APR_INT64_T_FMT ",%d]", delivered++ ? "," : "",
                              id, attempt);
            APR_ARRAY_PUSH(finished, apr_int64_t) = id;
            continue;
        }
        n = 0;
        if (o->state == WH_DLV_DEAD) {
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
    if (delivered) {
        const void *args[3] = { &now, owner, pairs };
        if ((rv = wh_inbox_db_exec(ib, p, &st_delivered, &n, args)) != 0)
            return wh_inbox_db_fail(ib, p, "recording deliveries", rv);
        c->out->recorded += n;
        c->out->lost += delivered - n;
    }
    if (finished->nelts) {
        const void *args[2] = { &now, json_ids(p, finished) };
        if ((rv = wh_inbox_db_exec(ib, p, &st_promote, NULL, args)) != 0)
            return wh_inbox_db_fail(ib, p, "making the next events ready", rv);
    }
    return 0;
}

/* Takes up to WH_DLV_INGEST_BATCH newly listed events (last, head] into
 * the queue; the cursor's lock (taken by the caller) orders this against
 * every other change of states. */
static int ingest(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c, apr_int64_t last,
                  apr_int64_t head)
{
    apr_int64_t upto, now = c->now;
    int n = 0, moved = 0, rv;

    if (head <= last)
        return 0;
    upto = head - last > WH_DLV_INGEST_BATCH ? last + WH_DLV_INGEST_BATCH : head;
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

/* Claimed rows (event_id, attempts, first_at, received_at, then the
 * event's notification_id, event_type, event_time, payment_id, status,
 * body) into claims; attempts_done: the attempts column counts this one
 * already (PostgreSQL's RETURNING) or not yet (SQLite's SELECT). */
static void take_claims(cycle_ctx *c, const wh_inbox_rows *rows, int attempts_done,
                        apr_array_header_t *ids)
{
    for (int i = 0; i < rows->nrows; i++) {
        wh_dlv_claim *cl = apr_array_push(c->out->claims);
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

static int claim(wh_inbox *ib, apr_pool_t *p, cycle_ctx *c)
{
    int limit = c->claim_max, n = 0, rv;
    apr_int64_t now = c->now, lease_end = c->now + apr_time_from_msec(c->lease_ms);
    apr_array_header_t *ids;
    wh_inbox_rows rows;

    if (is_pg(ib)) {
        const void *args[5] = { &now, &limit, &now, c->d->owner, &lease_end };
        if ((rv = wh_inbox_db_select(ib, p, &st_claim_one_pg, args, limit, &rows)) != 0)
            return wh_inbox_db_fail(ib, p, "claiming events", rv);
        take_claims(c, &rows, 1, NULL);
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
    take_claims(c, &rows, 0, ids);
    {
        const void *args[4] = { &now, c->d->owner, &lease_end, json_ids(p, ids) };
        if ((rv = wh_inbox_db_exec(ib, p, &st_claim, &n, args)) != 0)
            return wh_inbox_db_fail(ib, p, "claiming events", rv);
    }
    /* The database is locked (BEGIN IMMEDIATE): every one selected is
     * claimed. */
    if (n != ids->nelts)
        return wh_inbox_db_fail(ib, p, "claiming events", -1);
    return 0;
}

static int run_cycle(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    cycle_ctx *c = baton;
    wh_inbox_rows cur;
    const char *v = NULL;
    apr_int64_t last;
    int rv;

    /* Not durable on PostgreSQL: what a crash may roll back here is a
     * lease (the event is claimed again) or an outcome (it is delivered
     * again), never an event. */
    if (is_pg(ib) && (rv = wh_inbox_db_sql(ib, "SET LOCAL synchronous_commit = off")) != 0)
        return wh_inbox_db_fail(ib, p, "SET LOCAL synchronous_commit", rv);
    /* The cursor row first: its lock orders ingest and outcomes (which
     * decide who is ready) across forwarders. */
    if ((rv = wh_inbox_db_select(ib, p, &st_cursor, NULL, 1, &cur)) != 0 || !cur.nrows)
        return wh_inbox_db_fail(ib, p, "reading the forward cursor", rv ? rv : -1);
    last = wh_cell_num(WH_ROW_CELL(&cur, 0, 0));
    c->pending = wh_cell_num(WH_ROW_CELL(&cur, 0, 2)) > 0;
    if (c->outcomes && c->outcomes->nelts &&
        ((rv = record(ib, p, c)) != 0 || (rv = record_attempts(ib, p, c)) != 0))
        return rv;
    if (c->claim_max > 0) {
        if ((rv = ingest(ib, p, c, last, wh_cell_num(WH_ROW_CELL(&cur, 0, 1)))) != 0 ||
            (rv = claim(ib, p, c)) != 0)
            return rv;
        /* every slot filled: the caller claims again as soon as one is free,
         * whenever the rest is due */
        if (c->out->claims->nelts < c->claim_max) {
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
 * undo the last cycles (events leased or delivered again), never an
 * event. */
static int sqlite_no_fsync(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    int rv = wh_inbox_db_sql(ib, "PRAGMA synchronous = NORMAL");
    (void)baton;
    return rv ? wh_inbox_db_fail(ib, p, "PRAGMA synchronous", rv) : 0;
}

int wh_delivery_cycle(wh_delivery *d, apr_pool_t *p,
                      const apr_array_header_t *outcomes, int claim_max,
                      apr_int64_t lease_ms, apr_time_t now, wh_dlv_cycle *out)
{
    cycle_ctx c = { d, outcomes, claim_max, lease_ms, now, out, 0 };

    memset(out, 0, sizeof(*out));
    out->claims = apr_array_make(p, claim_max > 0 ? claim_max : 1, sizeof(wh_dlv_claim));
    if ((!is_pg(d->ib) &&
         wh_inbox_db_read(d->ib, p, "forward session", sqlite_no_fsync, NULL) != WH_DB_OK) ||
        wh_inbox_db_txn(d->ib, p, "forward cycle", run_cycle, &c) != WH_DB_OK) {
        memset(out, 0, sizeof(*out));
        out->claims = apr_array_make(p, 1, sizeof(wh_dlv_claim));
        return -1;
    }
    /* Numbered now, queued by the next cycle. A failure here only delays
     * them: the next peek or cycle sees them pending again. */
    if (c.pending && wh_inbox_sequence(d->ib, p) == 0)
        out->backlog = 1;
    return 0;
}

/* ---- reads ----------------------------------------------------------- */

typedef struct {
    const wh_inbox_stmt *st;
    const void **args;
    int max;
    wh_inbox_rows rows;
} read_ctx;

static int read_rows(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    read_ctx *r = baton;
    return wh_inbox_db_select(ib, p, r->st, r->args, r->max, &r->rows);
}

/* The first row's cells, or NULL. */
static const char **read_one(wh_delivery *d, apr_pool_t *p, const wh_inbox_stmt *st,
                             const char *what)
{
    read_ctx r = { st, NULL, 1, { 0, 0, 0, NULL } };

    if (wh_inbox_db_read(d->ib, p, what, read_rows, &r) != WH_DB_OK || !r.rows.nrows)
        return NULL;
    return r.rows.cell;
}

int wh_delivery_peek(wh_delivery *d, apr_pool_t *p, int *new_events,
                     apr_time_t *next_due)
{
    const char **r;

    /* Committed events without a listing position yet (PostgreSQL) get
     * it first: the forwarder queues by position. */
    if (wh_inbox_sequence(d->ib, p) != 0 ||
        !(r = read_one(d, p, &st_peek, "forward peek")))
        return -1;
    *new_events = wh_cell_num(r[0]) > wh_cell_num(r[1]);
    *next_due = (apr_time_t)wh_cell_num(r[2]);
    return 0;
}

int wh_delivery_stats(wh_delivery *d, apr_pool_t *p, wh_dlv_stats *out)
{
    const char **r = read_one(d, p, &st_stats, "forward status");

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

int wh_delivery_status(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                       wh_dlv_stats *out)
{
    /* asked first, so a query on tables that do not exist yet never
     * fails (which would log and renew the inbox's shared connection) */
    wh_delivery d = { ib, cfg, "status", 0 };
    const char **r = read_one(&d, p, &st_started, "forward started");

    memset(out, 0, sizeof(*out));
    if (!r)
        return -1;
    if (wh_cell_num(r[0]) == 0)
        return 0;
    return wh_delivery_stats(&d, p, out) == 0 ? 1 : -1;
}

/* ---- dead letters ---------------------------------------------------- */

static void dead_row(const wh_inbox_rows *rows, int i, wh_dlv_dead *o)
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

int wh_delivery_dead_list(wh_delivery *d, apr_pool_t *p, apr_int64_t after_id,
                          int limit, apr_array_header_t **rows)
{
    const void *args[2] = { &after_id, &limit };
    read_ctx r = { &st_dead_list, args, limit, { 0, 0, 0, NULL } };

    *rows = apr_array_make(p, 8, sizeof(wh_dlv_dead));
    if (wh_inbox_db_read(d->ib, p, "dead letters", read_rows, &r) != WH_DB_OK)
        return -1;
    for (int i = 0; i < r.rows.nrows; i++)
        dead_row(&r.rows, i, apr_array_push(*rows));
    return 0;
}

int wh_delivery_dead_get(wh_delivery *d, apr_pool_t *p, const char *id,
                         wh_dlv_dead *out)
{
    apr_int64_t n = 0;
    const void *args[1];
    read_ctx r = { NULL, args, 1, { 0, 0, 0, NULL } };

    /* an event id is digits; anything else is taken as a notificationId */
    if (wh_parse_int64(p, id, 1, APR_INT64_MAX, &n) == NULL) {
        r.st = &st_dead_by_id;
        args[0] = &n;
    } else {
        r.st = &st_dead_by_nid;
        args[0] = id;
    }
    if (wh_inbox_db_read(d->ib, p, "a dead letter", read_rows, &r) != WH_DB_OK)
        return -1;
    if (!r.rows.nrows)
        return 0;
    dead_row(&r.rows, 0, out);
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
    const char *v;
    int rv;

    c->n = 0;
    c->more = 0;
    /* the cursor's lock: who is ready is decided one writer at a time */
    if ((rv = wh_inbox_db_value(ib, p, &st_cursor, NULL, &v)) != 0)
        return wh_inbox_db_fail(ib, p, "reading the forward cursor", rv);
    if (c->one > 0) {
        APR_ARRAY_PUSH(ids, apr_int64_t) = c->one;
    } else {
        int limit = WH_DLV_REVIVE_BATCH;
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
    for (int i = 0; i < ids->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(ids, i, apr_int64_t);
        const void *args[2] = { &now, &id };
        int n = 0;
        if ((rv = wh_inbox_db_exec(ib, p, &st_revive, &n, args)) != 0)
            return wh_inbox_db_fail(ib, p, "putting a dead letter back", rv);
        c->n += n;
    }
    return WH_TXN_COMMIT;
}

int wh_delivery_dead_retry(wh_delivery *d, apr_pool_t *p, const char *id,
                           apr_time_t now, int *n)
{
    revive_ctx c;

    memset(&c, 0, sizeof(c));
    c.now = now;
    *n = 0;
    if (id) {
        wh_dlv_dead row;
        int found = wh_delivery_dead_get(d, p, id, &row);
        if (found <= 0)
            return found;
        c.one = row.event_id;
    }
    do {
        if (wh_inbox_db_txn(d->ib, p, "dead retry", revive, &c) != WH_DB_OK)
            return -1;
        *n += c.n;
    } while (c.more && c.n > 0);
    return 0;
}

int wh_delivery_dead_retry_payment(wh_delivery *d, apr_pool_t *p,
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
        if (wh_inbox_db_txn(d->ib, p, "dead retry", revive, &c) != WH_DB_OK)
            return -1;
        *n += c.n;
    } while (c.more && c.n > 0);
    return 0;
}

int wh_delivery_dead_count_payment(wh_delivery *d, apr_pool_t *p,
                                   const char *payment_id, apr_int64_t *n)
{
    const void *args[1] = { payment_id };
    read_ctx r = { &st_dead_count_payment, args, 1, { 0, 0, 0, NULL } };

    *n = 0;
    if (wh_inbox_db_read(d->ib, p, "dead letters of a payment", read_rows, &r) != WH_DB_OK)
        return -1;
    *n = r.rows.nrows ? wh_cell_num(WH_ROW_CELL(&r.rows, 0, 0)) : 0;
    return 0;
}

/* ---- readers --------------------------------------------------------- */

int wh_delivery_attach(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                       wh_delivery **out)
{
    wh_delivery probe = { ib, cfg, "reader", 0 };
    const char **r = read_one(&probe, p, &st_tables, "forward tables");
    wh_delivery *d;

    *out = NULL;
    if (!r)
        return -1;
    if (wh_cell_num(r[0]) == 0)
        return 0;
    d = apr_pcalloc(p, sizeof(*d));
    *d = probe;
    d->attempts_table = wh_cell_num(r[1]) > 0;
    *out = d;
    return 1;
}

int wh_delivery_states(wh_delivery *d, apr_pool_t *p, const apr_int64_t *ids,
                       int n, apr_array_header_t **out)
{
    apr_array_header_t *list;
    const void *args[1];
    read_ctx r = { &st_states, args, n, { 0, 0, 0, NULL } };

    *out = apr_array_make(p, n > 0 ? n : 1, sizeof(wh_dlv_state));
    if (n <= 0)
        return 0;
    if (n > WH_DLV_INGEST_BATCH)
        return -1;
    list = apr_array_make(p, n, sizeof(apr_int64_t));
    for (int i = 0; i < n; i++)
        APR_ARRAY_PUSH(list, apr_int64_t) = ids[i];
    args[0] = json_ids(p, list);
    if (wh_inbox_db_read(d->ib, p, "queue states", read_rows, &r) != WH_DB_OK)
        return -1;
    for (int i = 0; i < r.rows.nrows; i++) {
        wh_dlv_state *st = apr_array_push(*out);
#define C(j) WH_ROW_CELL(&r.rows, i, j)
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

int wh_delivery_attempts(wh_delivery *d, apr_pool_t *p, apr_int64_t event_id,
                         int limit, apr_array_header_t **out, apr_int64_t *total)
{
    const void *args[2] = { &event_id, &limit };
    read_ctx r = { &st_attempts_of, args, limit, { 0, 0, 0, NULL } };
    read_ctx c = { &st_attempts_count, args, 1, { 0, 0, 0, NULL } };

    *out = apr_array_make(p, limit > 0 ? limit : 1, sizeof(wh_dlv_attempt));
    *total = 0;
    if (!d->attempts_table || limit < 1)
        return 0;
    if (wh_inbox_db_read(d->ib, p, "attempts", read_rows, &r) != WH_DB_OK ||
        wh_inbox_db_read(d->ib, p, "attempts", read_rows, &c) != WH_DB_OK)
        return -1;
    *total = c.rows.nrows ? wh_cell_num(WH_ROW_CELL(&c.rows, 0, 0)) : 0;
    for (int i = 0; i < r.rows.nrows; i++) {
        wh_dlv_attempt *a = apr_array_push(*out);
        a->attempt = (int)wh_cell_num(WH_ROW_CELL(&r.rows, i, 0));
        a->started_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&r.rows, i, 1));
        a->duration_ms = wh_cell_num(WH_ROW_CELL(&r.rows, i, 2));
        a->http_status = (int)wh_cell_num(WH_ROW_CELL(&r.rows, i, 3));
        a->answer = wh_cell_opt(WH_ROW_CELL(&r.rows, i, 4));
        a->outcome = (int)wh_cell_num(WH_ROW_CELL(&r.rows, i, 5));
    }
    return 0;
}
