/* Statements on the inbox's connection: prepared on first use per
 * connection (one CGI process runs three or four of them, and each prepare
 * is a parse), run with bound values, rows copied into the caller's pool.
 * Called with the inbox's mutex held (inside wh_inbox_db_txn/read). */
#include "wh_db_conn.h"
#include "wh_inbox_mysql.h"
#include "verify/wh_log.h"
#include <apr_strings.h>
#include <string.h>
#include <sys/uio.h>

const char *wh_inbox_db_error(wh_inbox *ib, apr_pool_t *p, int rv)
{
    const wh_db_conn *c = wh_inbox_db_conn(ib);
    const char *m = NULL;

    if (rv == -1)
        return "unexpected row count";
    if (c && c->handle)
        m = apr_dbd_error(c->driver, c->handle, rv);
    if (!m || !*m)
        return apr_psprintf(p, "error %d", rv);
    m = wh_log_one_line(p, m);
    /* A right the server's administrator must grant: say which. */
    if (c && c->engine == WH_INBOX_MYSQL && c->grant && wh_mysql_denied(rv))
        m = apr_psprintf(p, "%s (the inbox needs: %s)", m, c->grant);
    return m;
}

/* apr_dbd's MySQL driver reads rows at random only by their numbers
 * (get_row with -1 answers none): it is asked for rows in order, and
 * stores the whole result of a prepared statement anyway. The others read
 * every row at once when asked for random access, which frees the
 * connection before the rows are read. */
static int random_access(const wh_db_conn *c)
{
    return c->engine != WH_INBOX_MYSQL;
}

int wh_inbox_db_sql(wh_inbox *ib, const char *sql)
{
    const wh_db_conn *c = wh_inbox_db_conn(ib);
    int nrows = 0;

    wh_inbox_db_awaiting(ib);
    return apr_dbd_query(c->driver, c->handle, &nrows, sql);
}

int wh_inbox_db_sql_value(wh_inbox *ib, apr_pool_t *p, const char *sql,
                          const char **value)
{
    const wh_db_conn *c = wh_inbox_db_conn(ib);
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv;

    wh_inbox_db_awaiting(ib);
    rv = apr_dbd_select(c->driver, p, c->handle, &res, sql, random_access(c));
    if (value)
        *value = NULL;
    if (rv != 0)
        return rv;
    while (apr_dbd_get_row(c->driver, p, res, &row, -1) == 0)
        if (value && !*value) {
            const char *v = apr_dbd_get_entry(c->driver, row, 0);
            *value = v ? apr_pstrdup(p, v) : "";
        }
    return 0;
}

/* The one place a statement's text is picked for the engine: a dialect's
 * own text where it has one, else the shared one. */
static const char *dialect_sql(const wh_inbox_stmt *st, wh_inbox_driver engine)
{
    switch (engine) {
    case WH_INBOX_PGSQL:
        return st->pg_sql ? st->pg_sql : st->sql;
    case WH_INBOX_MYSQL:
        return st->my_sql ? st->my_sql : st->sql;
    case WH_INBOX_SQLITE3:
        break;
    }
    return st->sql;
}

/* The statement prepared on the current connection. No label: PostgreSQL
 * then sends each statement with its values (unnamed statement), so
 * nothing server-side survives a reconnect that could go stale (MySQL's
 * prepared statements live as long as their session). In the
 * connection's pool, so a reconnect starts afresh. */
static int prepared(const wh_db_conn *c, const wh_inbox_stmt *st, apr_dbd_prepared_t **out)
{
    apr_dbd_prepared_t *ps = apr_hash_get(c->prepared, &st, sizeof(st));
    int rv = 0;

    if (!ps) {
        rv = apr_dbd_prepare(c->driver, c->pool, c->handle, dialect_sql(st, c->engine),
                             NULL, &ps);
        if (rv == 0) {
            const wh_inbox_stmt **key = apr_palloc(c->pool, sizeof(*key));
            *key = st;
            apr_hash_set(c->prepared, key, sizeof(*key), ps);
        }
    }
    *out = rv == 0 ? ps : NULL;
    return rv;
}

static int run(wh_inbox *ib, apr_pool_t *p, apr_dbd_prepared_t *ps, int rv,
               int *nrows, const void **args)
{
    const wh_db_conn *c = wh_inbox_db_conn(ib);
    int n = 0;

    wh_inbox_db_awaiting(ib);
    if (rv == 0)
        rv = apr_dbd_pbquery(c->driver, p, c->handle, &n, ps, args);
    if (nrows)
        *nrows = n;
    return rv;
}

int wh_inbox_db_exec(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                     int *nrows, const void **args)
{
    apr_dbd_prepared_t *ps;
    int rv = prepared(wh_inbox_db_conn(ib), st, &ps);

    return run(ib, p, ps, rv, nrows, args);
}

/* rs for k rows, prepared on this connection; kept beside the plain
 * statements, under a key of its own size. */
static int prepared_rows(const wh_db_conn *c, const wh_inbox_rows_stmt *rs, int k,
                         apr_dbd_prepared_t **out)
{
    /* hashed byte for byte: no padding may be left unset */
    struct rows_key { const wh_inbox_rows_stmt *rs; apr_uintptr_t k; } key;
    apr_dbd_prepared_t *ps;
    int rv = 0;

    memset(&key, 0, sizeof(key));
    key.rs = rs;
    key.k = (apr_uintptr_t)k;
    ps = apr_hash_get(c->prepared, &key, sizeof(key));
    if (!ps) {
        struct rows_key *kept = apr_pmemdup(c->pool, &key, sizeof(key));
        struct iovec part[2 * WH_INBOX_ROWS_MAX + 1];
        apr_size_t n = 0;

        part[n++].iov_base = (void *)dialect_sql(&rs->head, c->engine);
        for (int i = 0; i < k; i++) {
            part[n++].iov_base = (void *)rs->row;
            part[n++].iov_base = (void *)(i + 1 < k ? ", "
                                          : dialect_sql(&rs->tail, c->engine));
        }
        for (apr_size_t i = 0; i < n; i++)
            part[i].iov_len = strlen(part[i].iov_base);
        rv = apr_dbd_prepare(c->driver, c->pool, c->handle,
                             apr_pstrcatv(c->pool, part, n, NULL), NULL, &ps);
        if (rv == 0)
            apr_hash_set(c->prepared, kept, sizeof(*kept), ps);
    }
    *out = rv == 0 ? ps : NULL;
    return rv;
}

int wh_inbox_db_exec_rows(wh_inbox *ib, apr_pool_t *p, const wh_inbox_rows_stmt *rs,
                          int k, int *nrows, const void **args)
{
    apr_dbd_prepared_t *ps = NULL;
    int rv = k < 1 || k > WH_INBOX_ROWS_MAX
                 ? -1 : prepared_rows(wh_inbox_db_conn(ib), rs, k, &ps);

    return run(ib, p, ps, rv, nrows, args);
}

apr_int64_t wh_inbox_db_insert_id(wh_inbox *ib)
{
    const wh_db_conn *c = wh_inbox_db_conn(ib);

    if (!c || !c->handle || c->engine != WH_INBOX_MYSQL)
        return 0;
    return wh_mysql_insert_id(c->driver, c->handle);
}

int wh_inbox_db_select(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                       const void **args, int max_rows, wh_inbox_rows *out)
{
    const wh_db_conn *c = wh_inbox_db_conn(ib);
    apr_dbd_prepared_t *ps;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    apr_array_header_t *cells;
    int rv;

    memset(out, 0, sizeof(*out));
    if ((rv = prepared(c, st, &ps)) != 0)
        return rv;
    /* Every row fetched at once (random_access), so the connection is
     * free again when this returns. */
    wh_inbox_db_awaiting(ib);
    if ((rv = apr_dbd_pbselect(c->driver, p, c->handle, &res, ps, random_access(c),
                               args)) != 0)
        return rv;
    out->ncols = apr_dbd_num_cols(c->driver, res);
    if (out->ncols < 0)
        out->ncols = 0;
    cells = apr_array_make(p, out->ncols * (max_rows > 0 && max_rows < 64 ? max_rows : 64),
                           sizeof(const char *));
    while (apr_dbd_get_row(c->driver, p, res, &row, -1) == 0) {
        out->total++;
        if (out->nrows >= max_rows)
            continue;   /* read to the end: the driver frees as it goes */
        for (int j = 0; j < out->ncols; j++) {
            const char *v = apr_dbd_get_entry(c->driver, row, j);
            APR_ARRAY_PUSH(cells, const char *) = v ? apr_pstrdup(p, v) : NULL;
        }
        out->nrows++;
    }
    out->cell = (const char **)cells->elts;
    return 0;
}

/* Rows per round trip of wh_inbox_db_walk. */
#define WH_WALK_CHUNK 500

int wh_inbox_db_walk(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                     wh_inbox_row_fn fn, void *baton)
{
    apr_int64_t last = 0;
    int chunk = WH_WALK_CHUNK, rv = 0;
    apr_pool_t *tmp;

    if (apr_pool_create(&tmp, p) != APR_SUCCESS)
        return -1;
    for (;;) {
        const void *args[2] = { &last, &chunk };
        wh_inbox_rows rows;

        apr_pool_clear(tmp);
        if ((rv = wh_inbox_db_select(ib, tmp, st, args, chunk, &rows)) != 0)
            break;
        for (int i = 0; rv == 0 && i < rows.nrows; i++) {
            const char *key = WH_ROW_CELL(&rows, i, 0);
            if (key && apr_atoi64(key) > last)
                last = apr_atoi64(key);
            rv = fn(ib, tmp, &rows, i, baton);
        }
        if (rv != 0 || rows.nrows < chunk)
            break;
    }
    apr_pool_destroy(tmp);
    return rv;
}

int wh_inbox_db_value(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                      const void **args, const char **value)
{
    wh_inbox_rows rows;
    int rv = wh_inbox_db_select(ib, p, st, args, 1, &rows);

    *value = rv == 0 && rows.nrows > 0 && rows.ncols > 0 ? WH_ROW_CELL(&rows, 0, 0) : NULL;
    return rv;
}
