/* Statements on the inbox's connection: prepared on first use per
 * connection (one CGI process runs three or four of them, and each prepare
 * is a parse), run with bound values, rows copied into the caller's pool.
 * Called with the inbox's mutex held (inside wh_inbox_db_txn/read). */
#include "wh_inbox_conn.h"
#include <apr_strings.h>
#include <string.h>

/* Longest driver message kept for the log. */
#define WH_DB_MSG_MAX 300

/* A driver message on one bounded line (PostgreSQL's span lines). */
const char *wh_inbox_one_line(apr_pool_t *p, const char *m)
{
    apr_size_t i, n = strlen(m);
    char *s;

    if (n > WH_DB_MSG_MAX)
        n = WH_DB_MSG_MAX;
    s = apr_pstrmemdup(p, m, n);
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20)
            s[i] = ' ';
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
    return s;
}

const char *wh_inbox_db_error(wh_inbox *ib, apr_pool_t *p, int rv)
{
    const char *m = NULL;

    if (rv == -1)
        return "unexpected row count";
    if (ib->conn && ib->conn->handle)
        m = apr_dbd_error(ib->driver, ib->conn->handle, rv);
    if (!m || !*m)
        return apr_psprintf(p, "error %d", rv);
    return wh_inbox_one_line(p, m);
}

int wh_inbox_db_sql(wh_inbox *ib, const char *sql)
{
    int nrows = 0;
    return apr_dbd_query(ib->driver, ib->conn->handle, &nrows, sql);
}

int wh_inbox_db_sql_value(wh_inbox *ib, apr_pool_t *p, const char *sql,
                          const char **value)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv = apr_dbd_select(ib->driver, p, ib->conn->handle, &res, sql, 1);

    if (value)
        *value = NULL;
    if (rv != 0)
        return rv;
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0)
        if (value && !*value) {
            const char *v = apr_dbd_get_entry(ib->driver, row, 0);
            *value = v ? apr_pstrdup(p, v) : "";
        }
    return 0;
}

/* The statement prepared on the current connection. No label: PostgreSQL
 * then sends each statement with its values (unnamed statement), so
 * nothing server-side survives a reconnect that could go stale. In the
 * connection's pool, so a reconnect starts afresh. */
static int prepared(wh_inbox *ib, const wh_inbox_stmt *st, apr_dbd_prepared_t **out)
{
    apr_dbd_prepared_t *ps = apr_hash_get(ib->prepared, &st, sizeof(st));
    const char *sql = ib->engine == WH_INBOX_PGSQL && st->pg_sql ? st->pg_sql : st->sql;
    int rv = 0;

    if (!ps) {
        rv = apr_dbd_prepare(ib->driver, ib->cpool, ib->conn->handle, sql, NULL, &ps);
        if (rv == 0) {
            const wh_inbox_stmt **key = apr_palloc(ib->cpool, sizeof(*key));
            *key = st;
            apr_hash_set(ib->prepared, key, sizeof(*key), ps);
        }
    }
    *out = rv == 0 ? ps : NULL;
    return rv;
}

int wh_inbox_db_exec(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                     int *nrows, const void **args)
{
    apr_dbd_prepared_t *ps;
    int rv = prepared(ib, st, &ps), n = 0;

    if (rv == 0)
        rv = apr_dbd_pbquery(ib->driver, p, ib->conn->handle, &n, ps, args);
    if (nrows)
        *nrows = n;
    return rv;
}

int wh_inbox_db_select(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                       const void **args, int max_rows, wh_inbox_rows *out)
{
    apr_dbd_prepared_t *ps;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    apr_array_header_t *cells;
    int rv;

    memset(out, 0, sizeof(*out));
    if ((rv = prepared(ib, st, &ps)) != 0)
        return rv;
    /* Random access: the driver fetches every row at once, so the
     * connection is free again when this returns. */
    if ((rv = apr_dbd_pbselect(ib->driver, p, ib->conn->handle, &res, ps, 1, args)) != 0)
        return rv;
    out->ncols = apr_dbd_num_cols(ib->driver, res);
    if (out->ncols < 0)
        out->ncols = 0;
    cells = apr_array_make(p, out->ncols * (max_rows > 0 && max_rows < 64 ? max_rows : 64),
                           sizeof(const char *));
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0) {
        out->total++;
        if (out->nrows >= max_rows)
            continue;   /* read to the end: the driver frees as it goes */
        for (int j = 0; j < out->ncols; j++) {
            const char *v = apr_dbd_get_entry(ib->driver, row, j);
            APR_ARRAY_PUSH(cells, const char *) = v ? apr_pstrdup(p, v) : NULL;
        }
        out->nrows++;
    }
    out->cell = (const char **)cells->elts;
    return 0;
}

int wh_inbox_db_value(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                      const void **args, const char **value)
{
    wh_inbox_rows rows;
    int rv = wh_inbox_db_select(ib, p, st, args, 1, &rows);

    *value = rv == 0 && rows.nrows > 0 && rows.ncols > 0 ? WH_ROW_CELL(&rows, 0, 0) : NULL;
    return rv;
}
