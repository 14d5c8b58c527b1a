/* ReplayCache mysql (see wh_replay_mysql.h). */
#include "wh_replay_mysql.h"
#include "wh_replay.h"
#include "wh_replay_dbd_open.h"
#include "wh_replay_pool.h"
#include "verify/wh_log.h"
#include "verify/wh_sock_watch.h"
#include <apr_dbd.h>
#include <apr_strings.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Claims of one connection between two purges, and rows a purge takes. */
#define WH_MY_PURGE_EVERY 16
#define WH_MY_PURGE_ROWS "64"
/* GET_LOCK's name while the schema is created, and how long (s) to wait
 * for another server creating it. */
#define WH_MY_SCHEMA_LOCK "'wirehook_replay_schema'"
#define WH_MY_SCHEMA_WAIT "2"
#define WH_MY_MARKER "'" WH_REPLAY_MARKER_KEY "'"
/* "for ever": the marker's expiry, DATETIME's last moment */
#define WH_MY_FOREVER "'9999-12-31 23:59:59.999999'"
/* now, by the database's clock, in µs since the epoch (UTC: no time zone
 * takes part) */
#define WH_MY_NOW_US \
    "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))"
#define WH_MY_IN(arg) "UTC_TIMESTAMP(6) + INTERVAL " arg " MICROSECOND"
/* MySQL's errors a statement may end with while the connection stays
 * good: a lock wait timed out, a deadlock (the statement was rolled
 * back), a statement that ran too long (MariaDB, MySQL) */
#define WH_MY_ER_LOCK_WAIT_TIMEOUT 1205
#define WH_MY_ER_LOCK_DEADLOCK 1213
#define WH_MY_ER_STATEMENT_TIMEOUT 1969
#define WH_MY_ER_QUERY_TIMEOUT 3024

enum {
    Q_CLAIM, Q_LOOK, Q_MARK_NOW, Q_MARK_FIX, Q_MARK_NEW, Q_CONFIRM, Q_FORGET,
    Q_RENEW, Q_EXPIRED, Q_COUNT
};

static const char *const sql[Q_COUNT] = {
    /* Q_CLAIM id, holder, lease µs, the marker judged by, holder, lease µs:
     * 1 row: inserted; 2: an expired row taken over; 0: held (or the
     * marker is not that one) */
    "INSERT INTO wh_replay (id, holder, expires) "
    "SELECT %s, %s, " WH_MY_IN("%s") " FROM wh_replay m WHERE m.id = "
    WH_MY_MARKER " AND m.holder = %s "
    "ON DUPLICATE KEY UPDATE "
    "holder = IF(wh_replay.expires <= UTC_TIMESTAMP(6), %s, wh_replay.holder), "
    "expires = IF(wh_replay.expires <= UTC_TIMESTAMP(6), " WH_MY_IN("%s")
    ", wh_replay.expires)",
    /* Q_LOOK id: the id's row and the marker's, with the ms each holds
     * for (0: expired; -1: for ever) */
    "SELECT id, holder, CASE WHEN expires <= UTC_TIMESTAMP(6) THEN 0 "
    "WHEN expires >= " WH_MY_FOREVER " THEN -1 ELSE GREATEST(1, "
    "CEIL(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires) / 1000)) END "
    "FROM wh_replay WHERE id = %s OR id = " WH_MY_MARKER,
    /* Q_MARK_NOW: the store remembers from now */
    "INSERT INTO wh_replay (id, holder, expires) VALUES (" WH_MY_MARKER ", "
    "CONCAT('since=', " WH_MY_NOW_US ", ' set=', " WH_MY_NOW_US "), "
    WH_MY_FOREVER ") ON DUPLICATE KEY UPDATE id = id",
    /* Q_MARK_FIX old: a marker wirehook did not write, replaced */
    "UPDATE wh_replay SET holder = CONCAT('since=', " WH_MY_NOW_US ", ' set=', "
    WH_MY_NOW_US "), expires = " WH_MY_FOREVER " WHERE id = " WH_MY_MARKER
    " AND holder <=> %s",
    /* Q_MARK_NEW: a new store, judging everything */
    "INSERT INTO wh_replay (id, holder, expires) VALUES (" WH_MY_MARKER ", "
    "CONCAT('since=0 set=', " WH_MY_NOW_US "), " WH_MY_FOREVER ") "
    "ON DUPLICATE KEY UPDATE id = id",
    /* Q_CONFIRM id, window µs, window µs */
    "INSERT INTO wh_replay (id, holder, expires) VALUES (%s, NULL, "
    WH_MY_IN("%s") ") ON DUPLICATE KEY UPDATE holder = NULL, expires = "
    WH_MY_IN("%s"),
    /* Q_FORGET id, holder */
    "DELETE FROM wh_replay WHERE id = %s AND holder = %s",
    /* Q_RENEW lease µs, id, holder */
    "UPDATE wh_replay SET expires = " WH_MY_IN("%s")
    " WHERE id = %s AND holder = %s",
    /* Q_EXPIRED: what a purge may delete, read without a lock */
    "SELECT id FROM wh_replay WHERE expires < UTC_TIMESTAMP(6) ORDER BY "
    "expires LIMIT " WH_MY_PURGE_ROWS,
};

typedef struct {
    const char *params;
    const apr_dbd_driver_t *drv;
    wh_replay_pool *conns;
    wh_dbd_opener *opener;
    apr_interval_time_t timeout;
    int stmt_ms;             /* statement and lock timeouts, in the server */
} my_store;

typedef struct {
    wh_replay_conn base;     /* first: the pool reads it */
    apr_pool_t *pool;
    apr_dbd_t *h;
    apr_dbd_prepared_t *st[Q_COUNT];
    char marker[WH_REPLAY_NET_VALUE_MAX];
    int has_marker;
    apr_time_t since;
    unsigned claims;
} my_conn;

/* ---- errors ---------------------------------------------------------- */

/* A statement failed. A lock wait, a deadlock or a statement the server
 * ended for its time leaves the connection as it was; anything else may
 * be a restarted server, a dropped table, a lost connection: the
 * connection is closed when released, and the next use opens a fresh
 * one. */
static int failed(my_store *ms, my_conn *c, apr_pool_t *p, int rv,
                  const char **err)
{
    *err = apr_pstrcat(p, "mysql: ",
                       wh_log_one_line(p, apr_dbd_error(ms->drv, c->h, rv)), NULL);
    if (rv != WH_MY_ER_LOCK_WAIT_TIMEOUT && rv != WH_MY_ER_LOCK_DEADLOCK
        && rv != WH_MY_ER_STATEMENT_TIMEOUT && rv != WH_MY_ER_QUERY_TIMEOUT)
        c->base.broken = 1;
    return -1;
}

static int exec_q(my_store *ms, my_conn *c, apr_pool_t *p, int q, int *nrows,
                  int nargs, const char **args, const char **err)
{
    int rv = apr_dbd_pquery(ms->drv, p, c->h, nrows, c->st[q], nargs, args);
    return rv ? failed(ms, c, p, rv, err) : 0;
}

/* Rows of a query: up to max rows of ncols cells (NULL: SQL NULL); every
 * row is read, as the driver needs before the next statement. */
static int select_q(my_store *ms, my_conn *c, apr_pool_t *p, int q, int nargs,
                    const char **args, int ncols, int max, const char **cells,
                    int *nrows, const char **err)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv = apr_dbd_pselect(ms->drv, p, c->h, &res, c->st[q], 0, nargs, args);

    *nrows = 0;
    if (rv)
        return failed(ms, c, p, rv, err);
    while ((rv = apr_dbd_get_row(ms->drv, p, res, &row, -1)) == 0) {
        if (*nrows >= max)
            continue;
        for (int j = 0; j < ncols; j++) {
            const char *v = apr_dbd_get_entry(ms->drv, row, j);
            cells[*nrows * ncols + j] = v ? apr_pstrdup(p, v) : NULL;
        }
        (*nrows)++;
    }
    /* -1: the end; anything else, the fetch failed */
    return rv == -1 ? 0 : failed(ms, c, p, rv, err);
}

static int plain(my_store *ms, apr_dbd_t *h, const char *q)
{
    int nrows;
    return apr_dbd_query(ms->drv, h, &nrows, q);
}

/* The first cell of a query without parameters; NULL when none. */
static int plain_value(my_store *ms, apr_pool_t *p, apr_dbd_t *h,
                       const char *q, const char **value)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv = apr_dbd_select(ms->drv, p, h, &res, q, 0);

    *value = NULL;
    if (rv)
        return rv;
    while (apr_dbd_get_row(ms->drv, p, res, &row, -1) == 0)
        if (!*value) {
            const char *v = apr_dbd_get_entry(ms->drv, row, 0);
            *value = v ? apr_pstrdup(p, v) : "";
        }
    return 0;
}

/* ---- the schema ------------------------------------------------------ */

/* Version and table as they are: *version 0 when none. */
static int schema_state(my_store *ms, apr_pool_t *p, apr_dbd_t *h,
                        int *version, int *table)
{
    const char *v = NULL;
    int rv = plain_value(ms, p, h, "SELECT CONCAT(IF(EXISTS(SELECT 1 FROM "
                         "information_schema.tables WHERE table_schema = "
                         "DATABASE() AND table_name = 'wh_replay_meta'), 'y', "
                         "'n'), IF(EXISTS(SELECT 1 FROM information_schema.tables "
                         "WHERE table_schema = DATABASE() AND table_name = "
                         "'wh_replay'), 'y', 'n'))", &v);
    *version = 0;
    *table = 0;
    if (rv || !v || strlen(v) != 2)
        return rv ? rv : -1;
    *table = v[1] == 'y';
    if (v[0] == 'y') {
        rv = plain_value(ms, p, h, "SELECT value FROM wh_replay_meta WHERE "
                         "name = 'version'", &v);
        if (rv)
            return rv;
        *version = v ? atoi(v) : 0;
    }
    return 0;
}

static const char *too_new(apr_pool_t *p, int version)
{
    return apr_psprintf(p, "the replay store's schema is version %d, newer "
                        "than this wirehook's (%d)", version,
                        WH_REPLAY_MYSQL_SCHEMA_VERSION);
}

/* Creates or checks the schema on a fresh connection. NULL or why not. */
static const char *ensure_schema(my_store *ms, apr_pool_t *p, apr_dbd_t *h)
{
    int version, table, rv;
    const char *why = NULL, *got = NULL;

    if ((rv = schema_state(ms, p, h, &version, &table)) == 0 && table
        && version == WH_REPLAY_MYSQL_SCHEMA_VERSION)
        return NULL;
    if (rv == 0 && version > WH_REPLAY_MYSQL_SCHEMA_VERSION)
        return too_new(p, version);
    /* one creator at a time, across every server */
    if ((rv = plain_value(ms, p, h, "SELECT GET_LOCK(" WH_MY_SCHEMA_LOCK ", "
                          WH_MY_SCHEMA_WAIT ")", &got)) != 0)
        goto fail;
    if (!got || strcmp(got, "1") != 0)
        return "the replay store's schema: another server holds the lock "
               "to create it";
    if ((rv = plain(ms, h, "CREATE TABLE IF NOT EXISTS wh_replay_meta (name "
                    "VARBINARY(64) PRIMARY KEY, value VARBINARY(255) NOT NULL) "
                    "ENGINE=InnoDB")) != 0
        || (rv = schema_state(ms, p, h, &version, &table)) != 0)
        goto fail;
    if (version > WH_REPLAY_MYSQL_SCHEMA_VERSION) {
        why = too_new(p, version);
        goto fail;
    }
    if (!table) {
        /* a table this wirehook never had is new; one it had (the meta
         * row says so) was dropped, and its ids with it. Bytes, not
         * characters: ids and tokens are compared as they are. */
        if ((rv = plain(ms, h, "CREATE TABLE wh_replay (id VARBINARY(255) "
                        "PRIMARY KEY, holder VARBINARY(160) NULL, expires "
                        "DATETIME(6) NOT NULL, KEY wh_replay_expires (expires)) "
                        "ENGINE=InnoDB")) != 0
            || (rv = plain(ms, h, version ? sql[Q_MARK_NOW] : sql[Q_MARK_NEW])) != 0)
            goto fail;
    }
    if (version == 0
        && (rv = plain(ms, h, apr_psprintf(p, "INSERT INTO wh_replay_meta (name, "
                                           "value) VALUES ('version', '%d')",
                                           WH_REPLAY_MYSQL_SCHEMA_VERSION))) != 0)
        goto fail;
    (void)plain_value(ms, p, h, "SELECT RELEASE_LOCK(" WH_MY_SCHEMA_LOCK ")", &got);
    return NULL;
fail:
    if (!why)
        why = wh_log_one_line(p, apr_dbd_error(ms->drv, h, rv));
    (void)plain_value(ms, p, h, "SELECT RELEASE_LOCK(" WH_MY_SCHEMA_LOCK ")", &got);
    return apr_pstrcat(p, "the replay store's schema: ", why, NULL);
}

/* ---- connections ----------------------------------------------------- */

static pthread_once_t my_once = PTHREAD_ONCE_INIT;

/* Once, in the thread that loads the driver: the client library is
 * initialised before any thread of ours connects (the MySQL client's rule
 * for threaded programs: what its first connection would otherwise set up
 * is then the thread's, and lost with it). */
static void my_lookup(void)
{
    typedef int (*init_fn)(int argc, char **argv, char **groups);
    init_fn init = (init_fn)dlsym(RTLD_DEFAULT, "mysql_server_init");

    if (init)
        (void)init(0, NULL, NULL);
}

const char *wh_replay_mysql_driver(apr_pool_t *p, const apr_dbd_driver_t **drv)
{
    apr_status_t rv;
    char buf[120];

    /* apr_dbd_init guards itself against repeated calls */
    if ((rv = apr_dbd_init(p)) != APR_SUCCESS
        || (rv = apr_dbd_get_driver(p, "mysql", drv)) != APR_SUCCESS)
        return apr_psprintf(p, "mysql: apr_dbd's mysql driver: %s (Debian: "
                            "libaprutil1-dbd-mysql)",
                            apr_strerror(rv, buf, sizeof(buf)));
    pthread_once(&my_once, my_lookup);
    return NULL;
}

/* The pool watches the socket, since the client waits for a reply as long
 * as the server is silent; -1: the client's mysql_get_socket was not
 * found, nothing watched (the server's own timeouts still hold while it
 * runs). */
static int conn_socket(void *params, void *res)
{
    my_store *ms = params;
    my_conn *c = res;

    return wh_sock_watch_dbd_socket(ms->drv, c->h);
}

/* The session: read committed (no gap locks), strict (a value too long
 * is an error, never cut), and a server that runs gives up on a
 * statement or a lock before the pool stops waiting, so that a
 * statement's end is the server's word whenever the server runs. MariaDB
 * bounds every statement (max_statement_time), MySQL its SELECTs
 * (max_execution_time); a server with neither still has the lock wait's
 * bound and the pool's watch. NULL or why not. */
static const char *session_setup(my_store *ms, my_conn *c)
{
    int lock_s = ms->stmt_ms / 1000 > 0 ? ms->stmt_ms / 1000 : 1;
    const char *session[] = {
        "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
        "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'",
        "SET SESSION autocommit = 1",
        apr_psprintf(c->pool, "SET SESSION innodb_lock_wait_timeout = %d", lock_s),
    };

    for (apr_size_t i = 0; i < sizeof(session) / sizeof(session[0]); i++)
        if (plain(ms, c->h, session[i]) != 0)
            return "the session could not be set up";
    if (plain(ms, c->h, apr_psprintf(c->pool, "SET SESSION max_statement_time "
                                     "= %d.%03d", ms->stmt_ms / 1000,
                                     ms->stmt_ms % 1000)) != 0)
        (void)plain(ms, c->h, apr_psprintf(c->pool, "SET SESSION "
                                           "max_execution_time = %d",
                                           ms->stmt_ms));
    return NULL;
}

static apr_status_t conn_open(void *params, void **res, char *why_out,
                              apr_size_t why_len)
{
    my_store *ms = params;
    my_conn *c;
    const char *err = NULL, *why = NULL;
    apr_pool_t *cp;
    apr_status_t rv;
    int slot;

    *res = NULL;
    /* a pool of its own, not the reslist's: connections come and go (and
     * an opening given up on takes it) */
    if (apr_pool_create(&cp, NULL) != APR_SUCCESS)
        return APR_ENOMEM;
    c = apr_pcalloc(cp, sizeof(*c));
    c->pool = cp;
    rv = wh_dbd_open_within(ms->opener, ms->drv, cp, ms->params, ms->timeout,
                            &c->h, &err);
    if (rv == APR_TIMEUP) {
        /* cp is the attempt's now */
        apr_snprintf(why_out, why_len, "no answer within %" APR_TIME_T_FMT
                     " s", apr_time_sec(ms->timeout));
        return APR_TIMEUP;
    }
    if (rv != APR_SUCCESS || c->h == NULL) {
        apr_cpystrn(why_out, rv == APR_EBUSY
                             ? "an earlier attempt to connect still has no answer"
                             : err ? wh_log_one_line(cp, err) : "connection failed",
                    why_len);
        apr_pool_destroy(cp);
        return rv == APR_SUCCESS ? APR_ECONNREFUSED : rv;
    }
    /* setting the session up waits on the server too */
    slot = wh_replay_pool_watch(ms->conns, conn_socket(ms, c));
    why = session_setup(ms, c);
    if (!why)
        why = ensure_schema(ms, cp, c->h);
    for (int q = 0; !why && q < Q_COUNT; q++) {
        int prv = apr_dbd_prepare(ms->drv, cp, c->h, sql[q], NULL, &c->st[q]);
        if (prv != 0)
            why = apr_pstrcat(cp, "a statement could not be prepared: ",
                              wh_log_one_line(cp, apr_dbd_error(ms->drv, c->h, prv)),
                              NULL);
    }
    if (wh_replay_pool_unwatch(ms->conns, slot))
        why = "the server gave no answer while the session was set up";
    if (why) {
        apr_cpystrn(why_out, why, why_len);
        apr_dbd_close(ms->drv, c->h);
        apr_pool_destroy(cp);
        return APR_EGENERAL;
    }
    *res = c;
    return APR_SUCCESS;
}

static void conn_close(void *params, void *res)
{
    my_store *ms = params;
    my_conn *c = res;
    apr_dbd_close(ms->drv, c->h);
    apr_pool_destroy(c->pool);
}

static const wh_replay_pool_ops conn_ops = { conn_open, conn_close, conn_socket };

/* ---- the operations -------------------------------------------------- */

static const char *us(apr_pool_t *p, apr_interval_time_t t)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)(t > 0 ? t : 1));
}

/* Up to 64 expired rows go: listed without a lock, then deleted by
 * primary key (in key order, as InnoDB walks an IN list), each only if it
 * is still expired. A failure is left to the next purge. */
static void purge(my_store *ms, my_conn *c, apr_pool_t *p)
{
    const char *cells[64], *ignored;
    char *in = NULL;
    int nrows = 0, n;

    if (select_q(ms, c, p, Q_EXPIRED, 0, NULL, 1, 64, cells, &nrows, &ignored) != 0
        || nrows == 0)
        return;
    for (int i = 0; i < nrows; i++) {
        const char *q;
        if (!cells[i])
            continue;
        q = apr_dbd_escape(ms->drv, p, cells[i], c->h);
        in = in ? apr_pstrcat(p, in, ", '", q, "'", NULL)
                : apr_pstrcat(p, "'", q, "'", NULL);
    }
    if (in)
        (void)apr_dbd_query(ms->drv, c->h, &n,
                            apr_pstrcat(p, "DELETE FROM wh_replay WHERE id IN (",
                                        in, ") AND expires < UTC_TIMESTAMP(6)",
                                        NULL));
}

/* The marker as looked up (NULL: none): remembered on the connection; one
 * missing or not wirehook's is written anew ("from now"): 1, read it back
 * next. 0, or -1. */
static int take_marker(my_store *ms, my_conn *c, apr_pool_t *p,
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
    if (found ? exec_q(ms, c, p, Q_MARK_FIX, &nrows, 1, args, err)
              : exec_q(ms, c, p, Q_MARK_NOW, &nrows, 0, NULL, err))
        return -1;
    return nrows > 0;
}

/* The claim on one connection (a claim whose reply was lost reads as
 * this holder's own when tried again). */
static wh_claim_result claim_on(void *conn, apr_pool_t *p, void *baton,
                                const wh_claim *cl, wh_claim_info *info)
{
    my_store *ms = baton;
    my_conn *c = conn;
    const char *lease = us(p, cl->lease);

    for (int round = 0; round < 4; round++) {
        const char *cells[2 * 3], *idrow = NULL, *marker = NULL;
        int nrows = 0, id_found = 0, marker_found = 0, wrote, mine;
        apr_int64_t id_ms = 0;           /* how long the id's row holds */

        if (c->has_marker
            && !wh_replay_predates(cl->signed_at, c->since, cl->tolerance_sec)) {
            const char *args[6] = { cl->id, cl->holder, lease, c->marker,
                                    cl->holder, lease };
            if (exec_q(ms, c, p, Q_CLAIM, &nrows, 6, args, &info->err) != 0)
                return WH_CLAIM_ERROR;
            if (nrows > 0) {
                if (++c->claims % WH_MY_PURGE_EVERY == 0)
                    purge(ms, c, p);
                return WH_CLAIM_FIRST;
            }
        }
        {
            const char *args[1] = { cl->id };
            if (select_q(ms, c, p, Q_LOOK, 1, args, 3, 2, cells, &nrows,
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
        if ((wrote = take_marker(ms, c, p, marker, marker_found, &info->err)) < 0)
            return WH_CLAIM_ERROR;
        if (wrote > 0)
            info->emptied = 1;
        if (!c->has_marker)
            continue;                   /* read the new marker back */
        if (wh_replay_predates(cl->signed_at, c->since, cl->tolerance_sec)) {
            info->since = c->since;
            return WH_CLAIM_PREDATES;
        }
        /* absent or expired, or another copy came first: claim (taking an
         * expired row over), or look, again */
    }
    info->err = "mysql: the id or the epoch marker kept changing";
    return WH_CLAIM_ERROR;
}

static wh_claim_result my_claim(wh_replay_store *st, apr_pool_t *p,
                                const wh_claim *cl, wh_claim_info *info)
{
    my_store *ms = st->impl;
    return wh_replay_pool_claim(ms->conns, p, claim_on, ms, cl, info);
}

typedef struct {
    my_store *ms;
    int q, nargs;
    const char **args;
} my_stmt;

static int statement_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    my_stmt *k = baton;
    int nrows = 0;
    return exec_q(k->ms, conn, p, k->q, &nrows, k->nargs, k->args, err) == 0
           ? nrows : -1;
}

/* One statement on a pooled connection: rows changed, or -1. */
static int one_statement(wh_replay_store *st, apr_pool_t *p, int q, int nargs,
                         const char **args, const char **err)
{
    my_stmt k = { st->impl, q, nargs, args };
    return wh_replay_pool_run(k.ms->conns, p, statement_on, &k, err);
}

static int my_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                      const char *holder, apr_int64_t window_sec,
                      const char **err)
{
    const char *window = us(p, apr_time_from_sec(window_sec));
    const char *args[3] = { id, window, window };
    (void)holder;
    return one_statement(st, p, Q_CONFIRM, 3, args, err) < 0 ? -1 : 0;
}

static int my_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                     const char *holder, const char **err)
{
    const char *args[2] = { id, holder };
    int n = one_statement(st, p, Q_FORGET, 2, args, err);
    return n < 0 ? -1 : n > 0;
}

/* (rows changed: a lease renewed within the same microsecond as the last
 * would read as lost; the server's clock has moved on between any two
 * renewals a thread makes a third of a lease apart) */
static int my_renew(wh_replay_store *st, apr_pool_t *p, const char *id,
                    const char *holder, apr_interval_time_t lease,
                    const char **err)
{
    const char *args[3] = { us(p, lease), id, holder };
    int n = one_statement(st, p, Q_RENEW, 3, args, err);
    return n < 0 ? -1 : n > 0;
}

static int health_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    my_store *ms = baton;
    my_conn *c = conn;
    const char *v;
    int rv = plain_value(ms, p, c->h, "SELECT 1", &v);

    return rv ? failed(ms, c, p, rv, err) : 0;
}

static int my_health(wh_replay_store *st, apr_pool_t *p, const char **err)
{
    my_store *ms = st->impl;
    return wh_replay_pool_run(ms->conns, p, health_on, ms, err);
}

typedef struct {
    my_store *ms;
    apr_time_t since;
} my_init_args;

static int init_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    my_init_args *a = baton;
    const char *cells[6], *args[1] = { WH_REPLAY_MARKER_KEY };
    apr_time_t set;
    int nrows = 0;

    if (exec_q(a->ms, conn, p, Q_MARK_NEW, &nrows, 0, NULL, err) != 0)
        return -1;
    if (nrows > 0)
        return 1;
    if (select_q(a->ms, conn, p, Q_LOOK, 1, args, 3, 2, cells, &nrows, err) != 0)
        return -1;
    if (nrows == 1 && cells[1]
        && wh_replay_marker_decode(cells[1], strlen(cells[1]), &a->since, &set) == 0)
        return 0;
    *err = "mysql: the epoch marker's row holds something wirehook did not write";
    return -1;
}

static int my_init(wh_replay_store *st, apr_pool_t *p, apr_time_t *since,
                   const char **err)
{
    my_init_args a = { st->impl, 0 };
    int rv = wh_replay_pool_run(a.ms->conns, p, init_on, &a, err);

    *since = rv == 0 ? a.since : 0;
    return rv;
}

static const wh_replay_store_ops my_ops = {
    "mysql", my_claim, my_confirm, my_forget, my_renew, NULL, my_health,
    my_init
};

const char *wh_replay_mysql_params(apr_pool_t *p, const char *params)
{
    /* the driver reads key=value pairs left to right, the last of a key
     * winning: these come last */
    return params ? apr_pstrcat(p, params, " reconnect=0 flags=none", NULL)
                  : NULL;
}

const char *wh_replay_mysql_open(apr_pool_t *p, const char *params,
                                 int max_conns, apr_interval_time_t timeout,
                                 wh_replay_store **out)
{
    my_store *ms = apr_pcalloc(p, sizeof(*ms));
    wh_replay_store *st = apr_pcalloc(p, sizeof(*st));
    const char *err;

    *out = NULL;
    if (!params || !*params)
        return "mysql: no parameters (ReplayCache mysql uses the inbox's: "
               "InboxDriver mysql and InboxParams)";
    ms->params = wh_replay_mysql_params(p, params);
    ms->timeout = timeout;
    ms->stmt_ms = (int)(apr_time_as_msec(timeout) * 2 / 3);
    if (ms->stmt_ms < 1000)
        ms->stmt_ms = 1000;            /* a lock wait's least (whole s) */
    if ((err = wh_replay_mysql_driver(p, &ms->drv)) != NULL)
        return err;
    if ((err = wh_dbd_opener_create(p, &ms->opener)) != NULL)
        return apr_pstrcat(p, "mysql: ", err, NULL);
    if ((err = wh_replay_pool_create(p, &conn_ops, ms, "mysql: no connection to "
                                     "the replay store's database", max_conns,
                                     timeout, WH_REPLAY_POOL_RETRY,
                                     &ms->conns)) != NULL)
        return apr_pstrcat(p, "mysql: ", err, NULL);
    st->ops = &my_ops;
    st->impl = ms;
    *out = st;
    return NULL;
}
