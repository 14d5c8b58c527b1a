/* The forward queue's side of a purge (wh_forward_purge.h). Runs inside
 * the purge's transactions, after the cursor: on PostgreSQL its row lock
 * orders the purge with every change of the queue (taking events in,
 * outcomes, dead retry), so no event is purged while it becomes pending
 * again. */
#include "wh_forward_purge.h"
#include "wh_forward_queue.h"
#include "wh_forward_queue_sql.h"
#include "inbox/wh_db_cells.h"
#include "inbox/wh_inbox_db.h"

#include <apr_hash.h>
#include <apr_strings.h>

static const wh_inbox_stmt st_cursor = {
    "SELECT last_seq FROM wh_forward_cursor WHERE id = 1",
    "SELECT last_seq FROM wh_forward_cursor WHERE id = 1 FOR UPDATE",
    "SELECT last_seq FROM wh_forward_cursor WHERE id = 1 FOR UPDATE" };
static const wh_inbox_stmt st_states = {
    "SELECT event_id, state, done_at FROM wh_delivery"
    " WHERE event_id IN (" WH_SQL_IDS ")",
    "SELECT event_id, state, done_at FROM wh_delivery"
    " WHERE event_id IN (" WH_SQL_IDS_PG ")",
    "SELECT event_id, state, done_at FROM wh_delivery"
    " WHERE event_id IN (" WH_SQL_IDS_MY ")" };
static const wh_inbox_stmt st_del_attempts = {
    "DELETE FROM wh_attempts WHERE event_id IN (" WH_SQL_IDS ")",
    "DELETE FROM wh_attempts WHERE event_id IN (" WH_SQL_IDS_PG ")",
    "DELETE FROM wh_attempts WHERE event_id IN (" WH_SQL_IDS_MY ")" };
static const wh_inbox_stmt st_del_queue = {
    "DELETE FROM wh_delivery WHERE event_id IN (" WH_SQL_IDS ")",
    "DELETE FROM wh_delivery WHERE event_id IN (" WH_SQL_IDS_PG ")",
    "DELETE FROM wh_delivery WHERE event_id IN (" WH_SQL_IDS_MY ")" };

static int limit(void *ctx, wh_inbox *ib, apr_pool_t *p, apr_int64_t *upto)
{
    const char *v = NULL;
    int rv = wh_inbox_db_value(ib, p, &st_cursor, NULL, &v);

    (void)ctx;
    *upto = v ? wh_cell_num(v) : 0;
    return rv;
}

static int judge(void *ctx, wh_inbox *ib, apr_pool_t *p, const char *ids,
                 const apr_int64_t *idv, int n, apr_time_t dead_before,
                 unsigned char *verdict)
{
    const void *args[1] = { ids };
    apr_hash_t *rows = apr_hash_make(p);
    wh_inbox_rows r;
    int rv;

    (void)ctx;
    if ((rv = wh_inbox_db_select(ib, p, &st_states, args, n, &r)) != 0)
        return rv;
    for (int i = 0; i < r.nrows; i++) {
        apr_int64_t *id = apr_palloc(p, sizeof(*id));
        *id = wh_cell_num(WH_ROW_CELL(&r, i, 0));
        apr_hash_set(rows, id, sizeof(*id), (void *)(apr_uintptr_t)(i + 1));
    }
    for (int i = 0; i < n; i++) {
        apr_uintptr_t at = (apr_uintptr_t)apr_hash_get(rows, &idv[i], sizeof(idv[i]));
        int state;
        apr_time_t done;

        /* below the cursor without a row: never the forwarder's to send */
        if (!at) {
            verdict[i] = WH_PURGE_GO;
            continue;
        }
        state = (int)wh_cell_num(WH_ROW_CELL(&r, (int)at - 1, 1));
        done = (apr_time_t)wh_cell_num(WH_ROW_CELL(&r, (int)at - 1, 2));
        if (state == WH_FQ_FORWARDED)
            verdict[i] = WH_PURGE_GO;
        else if (state == WH_FQ_DEAD && dead_before && done < dead_before)
            verdict[i] = WH_PURGE_GO_DEAD;
        else
            verdict[i] = WH_PURGE_KEEP;
    }
    return 0;
}

static int forget(void *ctx, wh_inbox *ib, apr_pool_t *p, const char *ids)
{
    const wh_fq *q = ctx;
    const void *args[1] = { ids };
    int rows = 0, rv = 0;

    if (wh_fq_has_attempts(q))
        rv = wh_inbox_db_exec(ib, p, &st_del_attempts, &rows, args);
    if (rv == 0)
        rv = wh_inbox_db_exec(ib, p, &st_del_queue, &rows, args);
    return rv;
}

/* ForwardUrl without a queue yet: nothing is purged until the forwarder
 * has started and taken the events in. */
static int nothing(void *ctx, wh_inbox *ib, apr_pool_t *p, apr_int64_t *upto)
{
    (void)ctx;
    (void)ib;
    (void)p;
    *upto = 0;
    return 0;
}

static const wh_purge_guard hold_all = { NULL, nothing, judge, forget };

const char *wh_fq_purge_guard(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                              const wh_purge_guard **out)
{
    wh_purge_guard *g;
    wh_fq *q = NULL;
    int found = wh_fq_attach(p, ib, cfg, &q);

    *out = NULL;
    if (found < 0)
        return "the inbox database did not answer";
    if (found == 0) {
        *out = cfg->forward_url ? &hold_all : NULL;
        return NULL;
    }
    g = apr_pcalloc(p, sizeof(*g));
    g->ctx = q;
    g->limit = limit;
    g->judge = judge;
    g->forget = forget;
    *out = g;
    return NULL;
}
