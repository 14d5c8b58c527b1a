#ifndef WH_DB_CELLS_H
#define WH_DB_CELLS_H
/* Reading the cells of wh_inbox_db_select() the same way on both engines:
 * apr_dbd's PostgreSQL driver gives SQL NULL as "", SQLite's as NULL. */
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

#endif
