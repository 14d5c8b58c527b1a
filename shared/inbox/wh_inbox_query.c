/* One query on its own: the select every reader of the inbox database
 * (the listing, the views, the payments, the quarantine, the forward
 * queue's reports) runs, with the rows collected through one function. */
#include "wh_inbox_db.h"
#include <string.h>

typedef struct {
    const wh_inbox_stmt *st;
    const void **args;
    int max_rows;
    wh_inbox_rows *out;
} query_job;

static int run_query(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    query_job *j = baton;
    return wh_inbox_db_select(ib, p, j->st, j->args, j->max_rows, j->out);
}

int wh_inbox_db_query(wh_inbox *ib, apr_pool_t *p, const char *what,
                      const wh_inbox_stmt *st, const void **args, int max_rows,
                      wh_inbox_rows *out)
{
    query_job j;

    memset(out, 0, sizeof(*out));
    j.st = st;
    j.args = args;
    j.max_rows = max_rows;
    j.out = out;
    return wh_inbox_db_read(ib, p, what, run_query, &j) == WH_DB_OK ? 0 : -1;
}
