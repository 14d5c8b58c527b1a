/* The delivery queue in the inbox database (wh_delivery.h): taking new
 * events in, claiming due ones with leases, recording outcomes, and the
 * dead letters. Every change of state happens in one transaction with
 * what it implies (a finished event makes the next of its payment ready),
 * so the queue is consistent after a crash at any point. */
#include "wh_delivery.h"
#include "wh_delivery_sql.h"
#include "wh_fwd_db.h"

#include <apr_strings.h>
#include <string.h>

#define WH_DLV_REVIVE_BATCH 1000

struct wh_delivery {
    wh_inbox *ib;
    const wh_config *cfg;
    const char *owner;
};

static apr_int64_t num(const char *s)
{
    return s ? apr_atoi64(s) : 0;
}

/* ---- schema ---------------------------------------------------------- */

static int create_schema(wh_fwd_db *db, apr_pool_t *p, void *baton)
{
    static const char *const ddl[] = { WH_DLV_SQL_SCHEMA };
    (void)baton;
    for (size_t i = 0; i < sizeof(ddl) / sizeof(ddl[0]); i++)
        if (wh_fwd_db_exec(db, p, ddl[i], NULL, NULL) != 0)
            return -1;
    return 0;
}

const char *wh_delivery_open(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                             const char *owner, wh_delivery **out)
{
    wh_delivery *d = apr_pcalloc(p, sizeof(*d));

    d->ib = ib;
    d->cfg = cfg;
    d->owner = apr_pstrdup(p, owner ? owner : "wirehook");
    /* Two processes creating the tables at once: the loser's IF NOT
     * EXISTS may still collide in PostgreSQL's catalog; once more wins. */
    if (wh_fwd_db_write(ib, p, 1, create_schema, NULL) != 0 &&
        wh_fwd_db_write(ib, p, 1, create_schema, NULL) != 0)
        return "cannot create the delivery tables in the inbox database (see "
               "the error above)";
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
} cycle_ctx;

static int record(wh_fwd_db *db, apr_pool_t *p, cycle_ctx *c)
{
    int pg = wh_fwd_db_pg(db);
    apr_int64_t now = c->now;
    const char *owner = c->d->owner;
    apr_array_header_t *finished = apr_array_make(p, c->outcomes->nelts + 1,
                                                  sizeof(apr_int64_t));
    char *pairs = apr_pstrdup(p, "[");
    int delivered = 0, n;

    for (int i = 0; i < c->outcomes->nelts; i++) {
        const wh_dlv_outcome *o = &APR_ARRAY_IDX(c->outcomes, i, wh_dlv_outcome);
        apr_int64_t id = o->event_id, next = o->next_at;
        int attempt = o->attempt, status = o->http_status;
        const void *args[8];

        if (o->state == WH_DLV_DELIVERED) {
            pairs = apr_psprintf(p, "%s%s[%" APR_INT64_T_FMT ",%d]", pairs,
                                 delivered++ ? "," : "", id, attempt);
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
            if (wh_fwd_db_exec(db, p, WH_DLV_SQL_DEAD, &n, args) != 0)
                return -1;
            if (n)
                APR_ARRAY_PUSH(finished, apr_int64_t) = id;
        } else {
            args[0] = &next;
            args[1] = &status;
            args[2] = o->answer;
            args[3] = &id;
            args[4] = &attempt;
            args[5] = owner;
            if (wh_fwd_db_exec(db, p, WH_DLV_SQL_RETRY, &n, args) != 0)
                return -1;
        }
        c->out->recorded += n;
        c->out->lost += 1 - n;
    }
    if (delivered) {
        const void *args[3] = { &now, owner, apr_pstrcat(p, pairs, "]", NULL) };
        if (wh_fwd_db_exec(db, p, pg ? WH_DLV_SQL_DELIVERED_PG : WH_DLV_SQL_DELIVERED,
                           &n, args) != 0)
            return -1;
        c->out->recorded += n;
        c->out->lost += delivered - n;
    }
    if (finished->nelts) {
        const void *args[2] = { &now, json_ids(p, finished) };
        if (wh_fwd_db_exec(db, p, pg ? WH_DLV_SQL_PROMOTE_PG : WH_DLV_SQL_PROMOTE,
                           NULL, args) != 0)
            return -1;
    }
    return 0;
}

/* Takes up to WH_DLV_INGEST_BATCH newly listed events into the queue;
 * the cursor's lock (taken by the caller) orders this against every
 * other change of states. */
static int ingest(wh_fwd_db *db, apr_pool_t *p, cycle_ctx *c, apr_int64_t last)
{
    const char *v;
    apr_int64_t head, upto, now = c->now;
    int n = 0;

    if (wh_fwd_db_value(db, p, WH_DLV_SQL_INBOX_HEAD, NULL, &v) != 0)
        return -1;
    head = num(v);
    if (head <= last)
        return 0;
    upto = head - last > WH_DLV_INGEST_BATCH ? last + WH_DLV_INGEST_BATCH : head;
    {
        const void *args[3] = { &now, &last, &upto };
        if (wh_fwd_db_exec(db, p, WH_DLV_SQL_INGEST, &n, args) != 0)
            return -1;
    }
    {
        const void *args[2] = { &upto, &last };
        int moved = 0;
        if (wh_fwd_db_exec(db, p, WH_DLV_SQL_CURSOR_SET, &moved, args) != 0 || moved != 1)
            return -1;
    }
    c->out->ingested = n;
    return 0;
}

static int claim(wh_fwd_db *db, apr_pool_t *p, cycle_ctx *c)
{
    int pg = wh_fwd_db_pg(db), limit = c->claim_max;
    apr_int64_t now = c->now, lease_end = c->now + apr_time_from_msec(c->lease_ms);
    apr_array_header_t *rows, *ids;
    const void *args[4] = { &now, &limit };

    if (wh_fwd_db_select(db, p, pg ? WH_DLV_SQL_DUE_PG : WH_DLV_SQL_DUE, args, 10,
                         &rows) != 0)
        return -1;
    if (!rows->nelts)
        return 0;
    ids = apr_array_make(p, rows->nelts, sizeof(apr_int64_t));
    for (int i = 0; i < rows->nelts; i++) {
        const char **r = APR_ARRAY_IDX(rows, i, const char **);
        wh_dlv_claim *cl = apr_array_push(c->out->claims);
        memset(cl, 0, sizeof(*cl));
        cl->ev.id = num(r[0]);
        cl->ev.attempt = (int)num(r[1]) + 1;
        cl->first_at = r[2] ? (apr_time_t)num(r[2]) : c->now;
        cl->received_at = (apr_time_t)num(r[3]);
        cl->ev.notification_id = r[4];
        cl->ev.event_type = r[5];
        cl->ev.event_time = r[6];
        cl->ev.payment_id = r[7];
        cl->ev.status = r[8];
        cl->ev.body = r[9] ? r[9] : "";
        cl->ev.body_len = strlen(cl->ev.body);
        APR_ARRAY_PUSH(ids, apr_int64_t) = cl->ev.id;
    }
    args[0] = &now;
    args[1] = c->d->owner;
    args[2] = &lease_end;
    args[3] = json_ids(p, ids);
    {
        int n = 0;
        if (wh_fwd_db_exec(db, p, pg ? WH_DLV_SQL_CLAIM_PG : WH_DLV_SQL_CLAIM, &n,
                           args) != 0)
            return -1;
        /* The rows are locked (PostgreSQL) or the database is (SQLite):
         * every one selected is claimed. */
        if (n != ids->nelts)
            return -1;
    }
    return 0;
}

static int run_cycle(wh_fwd_db *db, apr_pool_t *p, void *baton)
{
    cycle_ctx *c = baton;
    const char *v = NULL;
    apr_int64_t last;

    /* The cursor row first: its lock orders ingest and outcomes (which
     * decide who is ready) across forwarders. */
    if (wh_fwd_db_value(db, p, wh_fwd_db_pg(db) ? WH_DLV_SQL_CURSOR_PG
                                                : WH_DLV_SQL_CURSOR, NULL, &v) != 0 || !v)
        return -1;
    last = num(v);
    if (c->outcomes && c->outcomes->nelts && record(db, p, c) != 0)
        return -1;
    if (c->claim_max > 0) {
        if (ingest(db, p, c, last) != 0 || claim(db, p, c) != 0)
            return -1;
        if (wh_fwd_db_value(db, p, WH_DLV_SQL_NEXT_DUE, NULL, &v) != 0)
            return -1;
        c->out->next_due = v ? (apr_time_t)num(v) : 0;
    }
    return 0;
}

int wh_delivery_cycle(wh_delivery *d, apr_pool_t *p,
                      const apr_array_header_t *outcomes, int claim_max,
                      apr_int64_t lease_ms, apr_time_t now, wh_dlv_cycle *out)
{
    cycle_ctx c = { d, outcomes, claim_max, lease_ms, now, out };

    memset(out, 0, sizeof(*out));
    out->claims = apr_array_make(p, claim_max > 0 ? claim_max : 1, sizeof(wh_dlv_claim));
    if (wh_fwd_db_sequence(d->ib, p) != 0)
        return -1;
    /* Not durable on PostgreSQL: what a crash may roll back here is a
     * lease (the event is claimed again) or an outcome (it is delivered
     * again), never an event. */
    if (wh_fwd_db_write(d->ib, p, 0, run_cycle, &c) != 0) {
        memset(out, 0, sizeof(*out));
        out->claims = apr_array_make(p, 1, sizeof(wh_dlv_claim));
        return -1;
    }
    return 0;
}

/* ---- reads ----------------------------------------------------------- */

typedef struct {
    const char *sql;
    int ncols;
    const void **args;
    apr_array_header_t *rows;
} read_ctx;

static int read_rows(wh_fwd_db *db, apr_pool_t *p, void *baton)
{
    read_ctx *r = baton;
    return wh_fwd_db_select(db, p, r->sql, r->args, r->ncols, &r->rows);
}

static const char **read_one(wh_delivery *d, apr_pool_t *p, const char *sql,
                             int ncols, const void **args)
{
    read_ctx r = { sql, ncols, args, NULL };

    if (wh_fwd_db_read(d->ib, p, read_rows, &r) != 0 || !r.rows->nelts)
        return NULL;
    return APR_ARRAY_IDX(r.rows, 0, const char **);
}

int wh_delivery_peek(wh_delivery *d, apr_pool_t *p, int *new_events,
                     apr_time_t *next_due)
{
    const char **r;

    if (wh_fwd_db_sequence(d->ib, p) != 0 ||
        !(r = read_one(d, p, WH_DLV_SQL_PEEK, 3, NULL)))
        return -1;
    *new_events = num(r[0]) > num(r[1]);
    *next_due = r[2] ? (apr_time_t)num(r[2]) : 0;
    return 0;
}

int wh_delivery_stats(wh_delivery *d, apr_pool_t *p, wh_dlv_stats *out)
{
    const char **r = read_one(d, p, WH_DLV_SQL_STATS, 7, NULL);

    memset(out, 0, sizeof(*out));
    if (!r)
        return -1;
    out->waiting = num(r[0]);
    out->ready = num(r[1]);
    out->retrying = num(r[2]);
    out->dead = num(r[3]);
    out->oldest = r[4] ? (apr_time_t)num(r[4]) : 0;
    out->unqueued = num(r[5]) > num(r[6]) ? num(r[5]) - num(r[6]) : 0;
    return 0;
}

/* ---- dead letters ---------------------------------------------------- */

static void dead_row(const char **r, int with_body, wh_dlv_dead *o)
{
    memset(o, 0, sizeof(*o));
    o->event_id = num(r[0]);
    o->seq = num(r[1]);
    o->notification_id = r[2];
    o->payment_id = r[3];
    o->status = r[4];
    o->event_time = r[5];
    o->attempts = (int)num(r[6]);
    o->received_at = (apr_time_t)num(r[7]);
    o->first_at = (apr_time_t)num(r[8]);
    o->dead_at = (apr_time_t)num(r[9]);
    o->http_status = (int)num(r[10]);
    o->answer = r[11];
    o->reason = r[12];
    if (with_body)
        o->body = r[13];
}

int wh_delivery_dead_list(wh_delivery *d, apr_pool_t *p, apr_int64_t after_id,
                          int limit, apr_array_header_t **rows)
{
    const void *args[2] = { &after_id, &limit };
    read_ctx r = { WH_DLV_SQL_DEAD_LIST, 13, args, NULL };

    *rows = apr_array_make(p, 8, sizeof(wh_dlv_dead));
    if (wh_fwd_db_read(d->ib, p, read_rows, &r) != 0)
        return -1;
    for (int i = 0; i < r.rows->nelts; i++)
        dead_row(APR_ARRAY_IDX(r.rows, i, const char **), 0, apr_array_push(*rows));
    return 0;
}

/* An event id is digits; anything else is taken as a notificationId. */
static int is_number(const char *s, apr_int64_t *out)
{
    apr_int64_t v = 0;

    if (!*s || strlen(s) > 18)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return 1;
}

int wh_delivery_dead_get(wh_delivery *d, apr_pool_t *p, const char *id,
                         wh_dlv_dead *out)
{
    apr_int64_t n = 0;
    const void *args[1];
    read_ctx r = { NULL, 14, args, NULL };

    if (is_number(id, &n)) {
        r.sql = WH_DLV_SQL_DEAD_BY_ID;
        args[0] = &n;
    } else {
        r.sql = WH_DLV_SQL_DEAD_BY_NID;
        args[0] = id;
    }
    if (wh_fwd_db_read(d->ib, p, read_rows, &r) != 0)
        return -1;
    if (!r.rows->nelts)
        return 0;
    dead_row(APR_ARRAY_IDX(r.rows, 0, const char **), 1, out);
    return 1;
}

typedef struct {
    wh_delivery *d;
    apr_int64_t one;             /* > 0: only this event */
    apr_time_t now;
    int n;
    int more;                    /* all: another batch may be left */
} revive_ctx;

static int revive(wh_fwd_db *db, apr_pool_t *p, void *baton)
{
    revive_ctx *c = baton;
    apr_array_header_t *ids;
    apr_int64_t now = c->now;
    const char *v;

    c->n = 0;
    c->more = 0;
    if (wh_fwd_db_value(db, p, wh_fwd_db_pg(db) ? WH_DLV_SQL_CURSOR_PG
                                                : WH_DLV_SQL_CURSOR, NULL, &v) != 0)
        return -1;
    if (c->one > 0) {
        ids = apr_array_make(p, 1, sizeof(apr_int64_t));
        APR_ARRAY_PUSH(ids, apr_int64_t) = c->one;
    } else {
        int limit = WH_DLV_REVIVE_BATCH;
        const void *args[1] = { &limit };
        apr_array_header_t *rows;
        if (wh_fwd_db_select(db, p, WH_DLV_SQL_DEAD_IDS, args, 1, &rows) != 0)
            return -1;
        ids = apr_array_make(p, rows->nelts + 1, sizeof(apr_int64_t));
        for (int i = 0; i < rows->nelts; i++)
            APR_ARRAY_PUSH(ids, apr_int64_t) = num(APR_ARRAY_IDX(rows, i, const char **)[0]);
        c->more = rows->nelts == limit;
    }
    for (int i = 0; i < ids->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(ids, i, apr_int64_t);
        const void *args[2] = { &now, &id };
        int n = 0;
        if (wh_fwd_db_exec(db, p, WH_DLV_SQL_REVIVE, &n, args) != 0)
            return -1;
        c->n += n;
    }
    return 0;
}

int wh_delivery_dead_retry(wh_delivery *d, apr_pool_t *p, const char *id,
                           apr_time_t now, int *n)
{
    revive_ctx c;

    memset(&c, 0, sizeof(c));
    c.d = d;
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
        if (wh_fwd_db_write(d->ib, p, 1, revive, &c) != 0)
            return -1;
        *n += c.n;
    } while (c.more && c.n > 0);
    return 0;
}
