/* Interim: the delivery code's database access on a connection of its
 * own, bound to a wh_inbox, until the inbox's internal API (storage v3)
 * offers transactions on the inbox's own connection. Same session rules
 * as the inbox: bounded lock waits, WAL, durable commits. */
#include "wh_fwd_db.h"

#include <apr_dbd.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define WH_FWD_LOCK_WAIT_MS 5000
#define WH_FWD_STATEMENT_TIMEOUT_MS 15000

typedef struct {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_pool_t *pool;            /* the connection and its statements */
    apr_hash_t *stmts;           /* sql text -> apr_dbd_prepared_t */
    int pg;
    const char *params;
    const char *driver_name;
    wh_logger log;
    int broken;
} binding;

struct wh_fwd_db {
    binding *b;
};

static apr_pool_t *bindings_pool;
static apr_hash_t *bindings;     /* wh_inbox * -> binding */

typedef struct {
    wh_inbox *ib;
} binding_key;

static apr_status_t unbind(void *data)
{
    binding_key *k = data;
    apr_hash_set(bindings, &k->ib, sizeof(k->ib), NULL);
    return APR_SUCCESS;
}

static binding *bound(wh_inbox *ib)
{
    return bindings ? apr_hash_get(bindings, &ib, sizeof(ib)) : NULL;
}

static const char *db_error(binding *b, int rv)
{
    const char *m = b->handle ? apr_dbd_error(b->driver, b->handle, rv) : NULL;
    return m && *m ? m : "database error";
}

static int query(binding *b, const char *sql)
{
    int n = 0;
    return apr_dbd_query(b->driver, b->handle, &n, sql);
}

static int connect_db(binding *b)
{
    const char *err = NULL;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv;

    if (b->pool)
        apr_pool_clear(b->pool);
    b->handle = NULL;
    b->stmts = apr_hash_make(b->pool);
    if (apr_dbd_open_ex(b->driver, b->pool, b->params, &b->handle, &err) != APR_SUCCESS) {
        b->handle = NULL;
        wh_logf(&b->log, WH_LOG_ERROR, "forward: cannot open the %s database: %s",
                b->driver_name, err ? err : "?");
        return -1;
    }
    if (!b->pg) {
        const char *pragmas[] = { "PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = WAL",
                                  "PRAGMA synchronous = FULL" };
        for (size_t i = 0; i < 3; i++) {
            res = NULL;
            if ((rv = apr_dbd_select(b->driver, b->pool, b->handle, &res, pragmas[i], 0)) != 0)
                return -1;
            while (apr_dbd_get_row(b->driver, b->pool, res, &row, -1) == 0)
                ;
        }
    } else {
        const char *set[] = { "SET lock_timeout = 5000", "SET statement_timeout = 15000",
                              "SET synchronous_commit = on",
                              "SET default_transaction_isolation = 'read committed'",
                              "SET client_encoding = 'UTF8'" };
        for (size_t i = 0; i < 5; i++)
            if (query(b, set[i]) != 0)
                return -1;
    }
    b->broken = 0;
    return 0;
}

const char *wh_fwd_db_bind(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                           const wh_logger *log)
{
    binding *b = apr_pcalloc(p, sizeof(*b));
    binding_key *key = apr_palloc(p, sizeof(*key));

    if (!bindings) {
        apr_pool_create(&bindings_pool, NULL);
        bindings = apr_hash_make(bindings_pool);
    }
    b->pg = cfg->inbox_driver == WH_INBOX_PGSQL;
    b->params = cfg->inbox_params;
    b->driver_name = cfg->inbox_driver_name;
    if (log)
        b->log = *log;
    if (apr_dbd_init(p) != APR_SUCCESS ||
        apr_dbd_get_driver(p, b->driver_name, &b->driver) != APR_SUCCESS)
        return apr_psprintf(p, "the apr_dbd driver '%s' is not available", b->driver_name);
    apr_pool_create(&b->pool, p);
    b->broken = 1;
    key->ib = ib;
    apr_hash_set(bindings, &key->ib, sizeof(key->ib), b);
    apr_pool_cleanup_register(p, key, unbind, apr_pool_cleanup_null);
    return NULL;
}

static int ensure(binding *b)
{
    if (!b->broken && b->handle) {
        if (!b->pg || apr_dbd_check_conn(b->driver, b->pool, b->handle) == APR_SUCCESS)
            return 0;
    }
    return connect_db(b);
}

static int run(wh_inbox *ib, apr_pool_t *p, int txn, int durable, wh_fwd_db_fn fn,
               void *baton)
{
    binding *b = bound(ib);
    wh_fwd_db db;
    int rv;

    if (!b || ensure(b) != 0)
        return -1;
    db.b = b;
    if (txn) {
        if (query(b, b->pg ? "BEGIN" : "BEGIN IMMEDIATE") != 0) {
            b->broken = 1;
            return -1;
        }
        if (b->pg && !durable && query(b, "SET LOCAL synchronous_commit = off") != 0) {
            query(b, "ROLLBACK");
            b->broken = 1;
            return -1;
        }
    }
    rv = fn(&db, p, baton);
    if (txn) {
        if (rv == 0 && query(b, "COMMIT") == 0)
            return 0;
        query(b, "ROLLBACK");
        return rv ? rv : -1;
    }
    return rv;
}

int wh_fwd_db_write(wh_inbox *ib, apr_pool_t *p, int durable, wh_fwd_db_fn fn,
                    void *baton)
{
    return run(ib, p, 1, durable, fn, baton);
}

int wh_fwd_db_read(wh_inbox *ib, apr_pool_t *p, wh_fwd_db_fn fn, void *baton)
{
    return run(ib, p, 0, 1, fn, baton);
}

int wh_fwd_db_pg(const wh_fwd_db *db)
{
    return db->b->pg;
}

static apr_dbd_prepared_t *prepared(binding *b, const char *sql)
{
    apr_dbd_prepared_t *st = apr_hash_get(b->stmts, sql, APR_HASH_KEY_STRING);

    if (!st && apr_dbd_prepare(b->driver, b->pool, b->handle, sql, NULL, &st) != 0)
        return NULL;
    apr_hash_set(b->stmts, sql, APR_HASH_KEY_STRING, st);
    return st;
}

int wh_fwd_db_exec(wh_fwd_db *db, apr_pool_t *p, const char *sql, int *nrows,
                   const void **args)
{
    binding *b = db->b;
    apr_dbd_prepared_t *st = prepared(b, sql);
    int n = 0, rv;

    if (!st) {
        wh_logf(&b->log, WH_LOG_ERROR, "forward: preparing a statement failed: %s",
                db_error(b, -1));
        b->broken = 1;
        return -1;
    }
    rv = apr_dbd_pbquery(b->driver, p, b->handle, &n, st, args);
    if (rv != 0) {
        wh_logf(&b->log, WH_LOG_ERROR, "forward: %s", db_error(b, rv));
        b->broken = 1;
        return -1;
    }
    if (nrows)
        *nrows = n;
    return 0;
}

int wh_fwd_db_select(wh_fwd_db *db, apr_pool_t *p, const char *sql,
                     const void **args, int ncols, apr_array_header_t **rows)
{
    binding *b = db->b;
    apr_dbd_prepared_t *st = prepared(b, sql);
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv;

    *rows = apr_array_make(p, 8, sizeof(const char **));
    if (!st) {
        wh_logf(&b->log, WH_LOG_ERROR, "forward: preparing a query failed: %s",
                db_error(b, -1));
        b->broken = 1;
        return -1;
    }
    rv = apr_dbd_pbselect(b->driver, p, b->handle, &res, st, 0, args);
    if (rv != 0) {
        wh_logf(&b->log, WH_LOG_ERROR, "forward: %s", db_error(b, rv));
        b->broken = 1;
        return -1;
    }
    while ((rv = apr_dbd_get_row(b->driver, p, res, &row, -1)) == 0) {
        const char **cols = apr_pcalloc(p, sizeof(char *) * (apr_size_t)ncols);
        for (int i = 0; i < ncols; i++) {
            const char *v = apr_dbd_get_entry(b->driver, row, i);
            cols[i] = v ? apr_pstrdup(p, v) : NULL;
        }
        APR_ARRAY_PUSH(*rows, const char **) = cols;
    }
    return 0;
}

int wh_fwd_db_value(wh_fwd_db *db, apr_pool_t *p, const char *sql,
                    const void **args, const char **out)
{
    apr_array_header_t *rows;

    *out = NULL;
    if (wh_fwd_db_select(db, p, sql, args, 1, &rows) != 0)
        return -1;
    if (rows->nelts)
        *out = APR_ARRAY_IDX(rows, 0, const char **)[0];
    return 0;
}

int wh_fwd_db_sequence(wh_inbox *ib, apr_pool_t *p)
{
    (void)ib;
    (void)p;
    return 0;
}
