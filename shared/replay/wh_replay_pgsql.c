/* ReplayCache pgsql (see wh_replay_pgsql.h). */
#include "wh_replay_pgsql.h"
#include "wh_replay.h"
#include "wh_replay_pool.h"
#include "verify/wh_log.h"
#include "verify/wh_sock_watch.h"
#include <apr_dbd.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* Claims of one connection between two purges, and rows a purge takes. */
#define WH_PG_PURGE_EVERY 16
#define WH_PG_PURGE_ROWS "64"
/* Any number that is ours: the advisory lock taken to create the schema. */
#define WH_PG_SCHEMA_LOCK "2002874225"
#define WH_PG_MARKER "'" WH_REPLAY_MARKER_KEY "'"
/* now, by the database's clock, in µs since the epoch */
#define WH_PG_NOW_US "(extract(epoch from clock_timestamp()) * 1000000)::bigint"
#define WH_PG_IN(arg) "clock_timestamp() + " arg "::bigint * interval '1 microsecond'"

enum {
    Q_CLAIM, Q_LOOK, Q_TAKE, Q_MARK_NOW, Q_MARK_FIX, Q_MARK_NEW, Q_CONFIRM,
    Q_FORGET, Q_RENEW, Q_PURGE, Q_COUNT
};

static const char *const sql[Q_COUNT] = {
    /* Q_CLAIM id, holder, lease µs, the marker judged by */
    "INSERT INTO wh_replay (id, holder, expires) "
    "SELECT %s::text, %s::text, " WH_PG_IN("%s") " WHERE EXISTS (SELECT 1 FROM "
    "wh_replay WHERE id = " WH_PG_MARKER " AND holder = %s::text) "
    "ON CONFLICT (id) DO NOTHING",
    /* Q_LOOK id: the id's row and the marker's, with the ms each holds
     * for (0: expired; -1: for ever) */
    "SELECT id, holder, CASE WHEN expires <= clock_timestamp() THEN 0 "
    "WHEN NOT isfinite(expires) THEN -1 ELSE greatest(1, ceil(extract(epoch "
    "FROM expires - clock_timestamp()) * 1000))::bigint END "
    "FROM wh_replay WHERE id = %s::text OR id = " WH_PG_MARKER,
    /* Q_TAKE holder, lease µs, id: an expired row (a lapsed claim, an id
     * past its window) becomes this claim */
    "UPDATE wh_replay SET holder = %s::text, expires = " WH_PG_IN("%s")
    " WHERE id = %s::text AND expires <= clock_timestamp()",
    /* Q_MARK_NOW: the store remembers from now */
    "INSERT INTO wh_replay (id, holder, expires) VALUES (" WH_PG_MARKER ", "
    "'since=' || " WH_PG_NOW_US " || ' set=' || " WH_PG_NOW_US ", 'infinity') "
    "ON CONFLICT (id) DO NOTHING",
    /* Q_MARK_FIX old: a marker wirehook did not write, replaced */
    "UPDATE wh_replay SET holder = 'since=' || " WH_PG_NOW_US " || ' set=' || "
    WH_PG_NOW_US ", expires = 'infinity' WHERE id = " WH_PG_MARKER
    " AND holder IS NOT DISTINCT FROM %s::text",
    /* Q_MARK_NEW: a new store, judging everything */
    "INSERT INTO wh_replay (id, holder, expires) VALUES (" WH_PG_MARKER ", "
    "'since=0 set=' || " WH_PG_NOW_US ", 'infinity') ON CONFLICT (id) DO NOTHING",
    /* Q_CONFIRM id, window µs */
    "INSERT INTO wh_replay (id, holder, expires) VALUES (%s::text, NULL, "
    WH_PG_IN("%s") ") ON CONFLICT (id) DO UPDATE SET holder = NULL, "
    "expires = EXCLUDED.expires",
    /* Q_FORGET id, holder */
    "DELETE FROM wh_replay WHERE id = %s::text AND holder = %s::text",
    /* Q_RENEW lease µs, id, holder */
    "UPDATE wh_replay SET expires = " WH_PG_IN("%s")
    " WHERE id = %s::text AND holder = %s::text",
    /* Q_PURGE */
    "DELETE FROM wh_replay WHERE id IN (SELECT id FROM wh_replay WHERE "
    "expires < clock_timestamp() ORDER BY expires LIMIT " WH_PG_PURGE_ROWS
    " FOR UPDATE SKIP LOCKED)",
};

typedef struct {
    const char *conninfo;
    const apr_dbd_driver_t *drv;
    wh_replay_pool *conns;
    int stmt_ms;             /* statement and lock timeouts, in the server */
} pg_store;

typedef struct {
    wh_replay_conn base;     /* first: the pool reads it */
    apr_pool_t *pool;
    apr_dbd_t *h;
    apr_dbd_prepared_t *st[Q_COUNT];
    char marker[WH_REPLAY_NET_VALUE_MAX];
    int has_marker;
    apr_time_t since;
    unsigned claims;
} pg_conn;

/* ---- errors ---------------------------------------------------------- */

/* A statement failed: the connection is closed when released (the next
 * use opens a fresh one: a restarted server, a dropped table). */
static int failed(pg_store *ps, pg_conn *c, apr_pool_t *p, int rv,
                  const char **err)
{
    *err = apr_pstrcat(p, "pgsql: ",
                       wh_log_one_line(p, apr_dbd_error(ps->drv, c->h, rv)), NULL);
    c->base.broken = 1;
    return -1;
}

static int exec_q(pg_store *ps, pg_conn *c, apr_pool_t *p, int q, int *nrows,
                  int nargs, const char **args, const char **err)
{
    int rv = apr_dbd_pquery(ps->drv, p, c->h, nrows, c->st[q], nargs, args);
    return rv ? failed(ps, c, p, rv, err) : 0;
}

/* Rows of a query: up to max rows of ncols cells (NULL: SQL NULL). */
static int select_q(pg_store *ps, pg_conn *c, apr_pool_t *p, int q, int nargs,
                    const char **args, int ncols, int max, const char **cells,
                    int *nrows, const char **err)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv = apr_dbd_pselect(ps->drv, p, c->h, &res, c->st[q], 0, nargs, args);

    *nrows = 0;
    if (rv)
        return failed(ps, c, p, rv, err);
    while (apr_dbd_get_row(ps->drv, p, res, &row, -1) == 0) {
        if (*nrows >= max)
            continue;
        for (int j = 0; j < ncols; j++) {
            const char *v = apr_dbd_get_entry(ps->drv, row, j);
            cells[*nrows * ncols + j] = v ? apr_pstrdup(p, v) : NULL;
        }
        (*nrows)++;
    }
    return 0;
}

static int plain(pg_store *ps, apr_dbd_t *h, const char *q)
{
    int nrows;
    return apr_dbd_query(ps->drv, h, &nrows, q);
}

/* The first cell of a query without parameters; NULL when none. */
static int plain_value(pg_store *ps, apr_pool_t *p, apr_dbd_t *h,
                       const char *q, const char **value)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv = apr_dbd_select(ps->drv, p, h, &res, q, 0);

    *value = NULL;
    if (rv)
        return rv;
    while (apr_dbd_get_row(ps->drv, p, res, &row, -1) == 0)
        if (!*value) {
            const char *v = apr_dbd_get_entry(ps->drv, row, 0);
            *value = v ? apr_pstrdup(p, v) : "";
        }
    return 0;
}

/* ---- the schema ------------------------------------------------------ */

/* Version and table as they are: *version 0 when none. */
static int schema_state(pg_store *ps, apr_pool_t *p, apr_dbd_t *h,
                        int *version, int *table)
{
    const char *v = NULL;
    int rv = plain_value(ps, p, h, "SELECT CASE WHEN to_regclass('wh_replay_meta') "
                         "IS NULL THEN 'n' ELSE 'y' END || CASE WHEN "
                         "to_regclass('wh_replay') IS NULL THEN 'n' ELSE 'y' END",
                         &v);
    *version = 0;
    *table = 0;
    if (rv || !v || strlen(v) != 2)
        return rv ? rv : -1;
    *table = v[1] == 'y';
    if (v[0] == 'y') {
        rv = plain_value(ps, p, h, "SELECT value FROM wh_replay_meta WHERE name "
                         "= 'version'", &v);
        if (rv)
            return rv;
        *version = v ? atoi(v) : 0;
    }
    return 0;
}

/* Creates or checks the schema on a fresh connection. NULL or why not. */
static const char *ensure_schema(pg_store *ps, apr_pool_t *p, apr_dbd_t *h)
{
    int version, table, rv;
    const char *why = NULL;

    if ((rv = schema_state(ps, p, h, &version, &table)) == 0 && table
        && version == WH_REPLAY_PG_SCHEMA_VERSION)
        return NULL;
    if (rv == 0 && version > WH_REPLAY_PG_SCHEMA_VERSION)
        return apr_psprintf(p, "the replay store's schema is version %d, newer "
                            "than this wirehook's (%d)", version,
                            WH_REPLAY_PG_SCHEMA_VERSION);
    /* one creator at a time, across every server */
    if ((rv = plain(ps, h, "BEGIN")) != 0
        || (rv = plain(ps, h, "SELECT pg_advisory_xact_lock(" WH_PG_SCHEMA_LOCK ")")) != 0
        || (rv = plain(ps, h, "CREATE TABLE IF NOT EXISTS wh_replay_meta (name text "
                       "PRIMARY KEY, value text NOT NULL)")) != 0
        || (rv = schema_state(ps, p, h, &version, &table)) != 0)
        goto fail;
    if (version > WH_REPLAY_PG_SCHEMA_VERSION) {
        why = apr_psprintf(p, "the replay store's schema is version %d, newer "
                           "than this wirehook's (%d)", version,
                           WH_REPLAY_PG_SCHEMA_VERSION);
        goto fail;
    }
    if (!table) {
        /* a table this wirehook never had is new; one it had (the meta
         * row says so) was dropped, and its ids with it */
        if ((rv = plain(ps, h, "CREATE TABLE wh_replay (id text PRIMARY KEY, "
                        "holder text, expires timestamptz NOT NULL)")) != 0
            || (rv = plain(ps, h, "CREATE INDEX wh_replay_expires ON wh_replay "
                           "(expires)")) != 0
            || (rv = plain(ps, h, version ? sql[Q_MARK_NOW] : sql[Q_MARK_NEW])) != 0)
            goto fail;
    }
    if (version == 0
        && (rv = plain(ps, h, apr_psprintf(p, "INSERT INTO wh_replay_meta (name, "
                                           "value) VALUES ('version', '%d')",
                                           WH_REPLAY_PG_SCHEMA_VERSION))) != 0)
        goto fail;
    if ((rv = plain(ps, h, "COMMIT")) != 0)
        goto fail;
    return NULL;
fail:
    if (!why)
        why = wh_log_one_line(p, apr_dbd_error(ps->drv, h, rv));
    (void)plain(ps, h, "ROLLBACK");
    return apr_pstrcat(p, "the replay store's schema: ", why, NULL);
}

/* ---- connections ----------------------------------------------------- */

/* The pool watches the socket (verify/wh_sock_watch.h): libpq waits for
 * a reply as long as the server is silent. -1: nothing watched (the
 * server's own timeouts still hold while it runs). */
static int conn_socket(void *params, void *res)
{
    pg_store *ps = params;
    pg_conn *c = res;

    return wh_sock_watch_dbd_socket(ps->drv, c->h);
}

static apr_status_t conn_open(void *params, void **res, char *why_out,
                              apr_size_t why_len)
{
    pg_store *ps = params;
    pg_conn *c;
    const char *err = NULL, *why = NULL;
    apr_pool_t *cp;
    int slot;

    *res = NULL;
    /* a pool of its own, not the reslist's: connections come and go */
    if (apr_pool_create(&cp, NULL) != APR_SUCCESS)
        return APR_ENOMEM;
    c = apr_pcalloc(cp, sizeof(*c));
    c->pool = cp;
    /* bounded by the conninfo's connect_timeout (wh_replay_pgsql_open) */
    if (apr_dbd_open_ex(ps->drv, cp, ps->conninfo, &c->h, &err) != APR_SUCCESS
        || c->h == NULL) {
        apr_cpystrn(why_out, err ? wh_log_one_line(cp, err) : "connection failed",
                    why_len);
        apr_pool_destroy(cp);
        return APR_ECONNREFUSED;
    }
    /* setting the session up waits on the server too */
    slot = wh_replay_pool_watch(ps->conns, conn_socket(ps, c));
    {
        /* a server that runs gives up on a statement (or a lock) before
         * the pool stops waiting: a statement's end is the server's word
         * whenever the server runs */
        const char *session[] = {
            apr_psprintf(cp, "SET statement_timeout = %d", ps->stmt_ms),
            apr_psprintf(cp, "SET lock_timeout = %d", ps->stmt_ms),
            "SET synchronous_commit = on",
            "SET default_transaction_isolation = 'read committed'",
        };
        for (apr_size_t i = 0; !why && i < sizeof(session) / sizeof(session[0]); i++)
            if (plain(ps, c->h, session[i]) != 0)
                why = "the session could not be set up";
    }
    if (!why)
        why = ensure_schema(ps, cp, c->h);
    for (int q = 0; !why && q < Q_COUNT; q++)
        if (apr_dbd_prepare(ps->drv, cp, c->h, sql[q], NULL, &c->st[q]) != 0)
            why = "a statement could not be prepared";
    if (wh_replay_pool_unwatch(ps->conns, slot))
        why = "the server gave no answer while the session was set up";
    if (why) {
        apr_cpystrn(why_out, why, why_len);
        apr_dbd_close(ps->drv, c->h);
        apr_pool_destroy(cp);
        return APR_EGENERAL;
    }
    *res = c;
    return APR_SUCCESS;
}

static void conn_close(void *params, void *res)
{
    pg_store *ps = params;
    pg_conn *c = res;
    apr_dbd_close(ps->drv, c->h);
    apr_pool_destroy(c->pool);
}

static const wh_replay_pool_ops conn_ops = { conn_open, conn_close, conn_socket };

/* ---- the operations -------------------------------------------------- */

static const char *us(apr_pool_t *p, apr_interval_time_t t)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)(t > 0 ? t : 1));
}

/* The marker as looked up (NULL: none): remembered on the connection; one
 * missing or not wirehook's is written anew ("from now"): 1, read it back
 * next. 0, or -1. */
static int take_marker(pg_store *ps, pg_conn *c, apr_pool_t *p,
                       const char *m, int found, const char **err)
{
    apr_time_t since, set;
    int nrows = 0;
    const char *args[1] = { m };

    if (found && m && strlen(m) < sizeof(c->marker)
        && wh_replay_marker_decode(m, strlen(m), &since, &set) == 0) {
        apr_cpystrn(c->marker, m, sizeof(c->marker));
        c->has_marker = 1;
        c->since = since;
        return 0;
    }
    c->has_marker = 0;
    if (found ? exec_q(ps, c, p, Q_MARK_FIX, &nrows, 1, args, err)
              : exec_q(ps, c, p, Q_MARK_NOW, &nrows, 0, NULL, err))
        return -1;
    return nrows > 0;
}

/* The claim on one connection (a claim whose reply was lost reads as
 * this holder's own when tried again). */
static wh_claim_result claim_on(void *conn, apr_pool_t *p, void *baton,
                                const wh_claim *cl, wh_claim_info *info)
{
    pg_store *ps = baton;
    pg_conn *c = conn;
    const char *lease = us(p, cl->lease);

    for (int round = 0; round < 4; round++) {
        const char *cells[2 * 3], *idrow = NULL, *marker = NULL;
        int nrows = 0, id_found = 0, marker_found = 0, wrote, mine;
        apr_int64_t id_ms = 0;           /* how long the id's row holds */

        if (c->has_marker
            && !wh_replay_predates(cl->signed_at, c->since, cl->tolerance_sec)) {
            const char *args[4] = { cl->id, cl->holder, lease, c->marker };
            if (exec_q(ps, c, p, Q_CLAIM, &nrows, 4, args, &info->err) != 0)
                return WH_CLAIM_ERROR;
            if (nrows == 1) {
                if (++c->claims % WH_PG_PURGE_EVERY == 0) {
                    const char *ignored;
                    (void)exec_q(ps, c, p, Q_PURGE, &nrows, 0, NULL, &ignored);
                }
                return WH_CLAIM_FIRST;
            }
        }
        {
            const char *args[1] = { cl->id };
            if (select_q(ps, c, p, Q_LOOK, 1, args, 3, 2, cells, &nrows,
                         &info->err) != 0)
                return WH_CLAIM_ERROR;
        }
        for (int i = 0; i < nrows; i++) {
            const char *rid = cells[i * 3];
            if (rid && strcmp(rid, WH_REPLAY_MARKER_KEY) == 0
                && strcmp(cl->id, WH_REPLAY_MARKER_KEY) != 0) {
                marker_found = 1;
                marker = cells[i * 3 + 1];
            }
            else {
                id_found = 1;
                idrow = cells[i * 3 + 1];
                id_ms = cells[i * 3 + 2] ? apr_atoi64(cells[i * 3 + 2]) : 0;
            }
        }
        if (id_found && id_ms != 0) {
            /* a confirmed id: NULL, which the driver reads as "" (a
             * holder token is never empty) */
            if (idrow == NULL || *idrow == '\0')
                return WH_CLAIM_DUPLICATE;
            mine = cl->holder && strcmp(idrow, cl->holder) == 0;
            if (mine)
                return WH_CLAIM_FIRST;
            /* when the claim lapses unless renewed */
            if (id_ms > 0)
                info->retry_in = apr_time_from_msec(id_ms);
            return WH_CLAIM_IN_PROGRESS;
        }
        if ((wrote = take_marker(ps, c, p, marker, marker_found, &info->err)) < 0)
            return WH_CLAIM_ERROR;
        if (wrote > 0)
            info->emptied = 1;
        if (!c->has_marker)
            continue;                   /* read the new marker back */
        if (wh_replay_predates(cl->signed_at, c->since, cl->tolerance_sec)) {
            info->since = c->since;
            return WH_CLAIM_PREDATES;
        }
        if (id_found) {
            /* expired: a lapsed claim, or an id past its window */
            const char *args[3] = { cl->holder, lease, cl->id };
            if (exec_q(ps, c, p, Q_TAKE, &nrows, 3, args, &info->err) != 0)
                return WH_CLAIM_ERROR;
            if (nrows == 1)
                return WH_CLAIM_FIRST;
        }
        /* absent, or another copy came first: claim, or look, again */
    }
    info->err = "pgsql: the id or the epoch marker kept changing";
    return WH_CLAIM_ERROR;
}

static wh_claim_result pg_claim(wh_replay_store *st, apr_pool_t *p,
                                const wh_claim *cl, wh_claim_info *info)
{
    pg_store *ps = st->impl;
    return wh_replay_pool_claim(ps->conns, p, claim_on, ps, cl, info);
}

typedef struct {
    pg_store *ps;
    int q, nargs;
    const char **args;
} pg_stmt;

static int statement_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    pg_stmt *k = baton;
    int nrows = 0;
    return exec_q(k->ps, conn, p, k->q, &nrows, k->nargs, k->args, err) == 0
           ? nrows : -1;
}

/* One statement on a pooled connection: rows changed, or -1. */
static int one_statement(wh_replay_store *st, apr_pool_t *p, int q, int nargs,
                         const char **args, const char **err)
{
    pg_stmt k = { st->impl, q, nargs, args };
    return wh_replay_pool_run(k.ps->conns, p, statement_on, &k, err);
}

static int pg_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                      const char *holder, apr_int64_t window_sec,
                      const char **err)
{
    const char *args[2] = { id, us(p, apr_time_from_sec(window_sec)) };
    (void)holder;
    return one_statement(st, p, Q_CONFIRM, 2, args, err) < 0 ? -1 : 0;
}

static int pg_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                     const char *holder, const char **err)
{
    const char *args[2] = { id, holder };
    int n = one_statement(st, p, Q_FORGET, 2, args, err);
    return n < 0 ? -1 : n > 0;
}

static int pg_renew(wh_replay_store *st, apr_pool_t *p, const char *id,
                    const char *holder, apr_interval_time_t lease,
                    const char **err)
{
    const char *args[3] = { us(p, lease), id, holder };
    int n = one_statement(st, p, Q_RENEW, 3, args, err);
    return n < 0 ? -1 : n > 0;
}

static int health_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    pg_store *ps = baton;
    pg_conn *c = conn;
    const char *v;
    int rv = plain_value(ps, p, c->h, "SELECT 1", &v);

    return rv ? failed(ps, c, p, rv, err) : 0;
}

static int pg_health(wh_replay_store *st, apr_pool_t *p, const char **err)
{
    pg_store *ps = st->impl;
    return wh_replay_pool_run(ps->conns, p, health_on, ps, err);
}

typedef struct {
    pg_store *ps;
    apr_time_t since;
} pg_init_args;

static int init_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    pg_init_args *a = baton;
    const char *cells[6], *args[1] = { WH_REPLAY_MARKER_KEY };
    apr_time_t set;
    int nrows = 0;

    if (exec_q(a->ps, conn, p, Q_MARK_NEW, &nrows, 0, NULL, err) != 0)
        return -1;
    if (nrows > 0)
        return 1;
    if (select_q(a->ps, conn, p, Q_LOOK, 1, args, 3, 2, cells, &nrows, err) != 0)
        return -1;
    if (nrows == 1 && cells[1]
        && wh_replay_marker_decode(cells[1], strlen(cells[1]), &a->since, &set) == 0)
        return 0;
    *err = "pgsql: the epoch marker's row holds something wirehook did not write";
    return -1;
}

static int pg_init(wh_replay_store *st, apr_pool_t *p, apr_time_t *since,
                   const char **err)
{
    pg_init_args a = { st->impl, 0 };
    int rv = wh_replay_pool_run(a.ps->conns, p, init_on, &a, err);

    *since = rv == 0 ? a.since : 0;
    return rv;
}

static const wh_replay_store_ops pg_ops = {
    "pgsql", pg_claim, pg_confirm, pg_forget, pg_renew, NULL, pg_health,
    pg_init
};

const char *wh_replay_pgsql_open(apr_pool_t *p, const char *conninfo,
                                 int max_conns, apr_interval_time_t timeout,
                                 wh_replay_store **out)
{
    pg_store *ps = apr_pcalloc(p, sizeof(*ps));
    wh_replay_store *st = apr_pcalloc(p, sizeof(*st));
    apr_status_t rv;
    char buf[120];
    const char *err;

    *out = NULL;
    if (!conninfo || !*conninfo)
        return "pgsql: no conninfo (ReplayCache pgsql uses the inbox's: "
               "InboxDriver pgsql and InboxParams)";
    ps->conninfo = wh_sock_watch_pq_conninfo(p, apr_pstrdup(p, conninfo), timeout);
    ps->stmt_ms = (int)(apr_time_as_msec(timeout) * 2 / 3);
    if (ps->stmt_ms < 500)
        ps->stmt_ms = 500;
    /* apr_dbd_init guards itself against repeated calls */
    if ((rv = apr_dbd_init(p)) != APR_SUCCESS
        || (rv = apr_dbd_get_driver(p, "pgsql", &ps->drv)) != APR_SUCCESS)
        return apr_psprintf(p, "pgsql: apr_dbd's pgsql driver: %s (Debian: "
                            "libaprutil1-dbd-pgsql)",
                            apr_strerror(rv, buf, sizeof(buf)));
    if ((err = wh_replay_pool_create(p, &conn_ops, ps, "pgsql: no connection to "
                                     "the replay store's database", max_conns,
                                     timeout, WH_REPLAY_POOL_RETRY,
                                     &ps->conns)) != NULL)
        return apr_pstrcat(p, "pgsql: ", err, NULL);
    st->ops = &pg_ops;
    st->impl = ps;
    *out = st;
    return NULL;
}
