#ifndef WH_DB_CELLS_H
#define WH_DB_CELLS_H
/* Values passed to and read from wh_inbox_db_*() the same way on every
 * engine: cells (apr_dbd's PostgreSQL driver gives SQL NULL as "",
 * SQLite's as NULL), and the JSON array of ids a WH_SQL_IDS parameter
 * holds. */
#include <apr_strings.h>

/* A number, 0 for NULL. */
static inline apr_int64_t wh_cell_num(const char *v)
{
    return v && *v ? apr_atoi64(v) : 0;
}

/* NULL for NULL: for columns that are never "" when set (an empty
 * paymentId, status or eventDateTime never passes the schema). */
static inline const char *wh_cell_opt(const char *v)
{
    return v && *v ? v : NULL;
}

/* ids[0..n) as a JSON array, "[3,5,8]": the parameter of WH_SQL_IDS
 * (wh_inbox_sql.h). In p. */
static inline const char *wh_cell_ids(apr_pool_t *p, const apr_int64_t *ids, int n)
{
    char *s = apr_palloc(p, (apr_size_t)(n > 0 ? n : 0) * 21 + 3), *w = s;

    *w++ = '[';
    for (int i = 0; i < n; i++)
        w += apr_snprintf(w, 22, "%s%" APR_INT64_T_FMT, i ? "," : "", ids[i]);
    *w++ = ']';
    *w = '\0';
    return s;
}

#endif
