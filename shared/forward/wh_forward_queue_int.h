#ifndef WH_FORWARD_QUEUE_INT_H
#define WH_FORWARD_QUEUE_INT_H
/* The forward queue's internals, shared by its files (the queue itself,
 * wh_forward_queue.c, and its views, wh_forward_views.c). Not for the
 * hosts: they use wh_forward_queue.h and wh_forward_views.h. */
#include "wh_forward_queue.h"
#include "inbox/wh_inbox_db.h"

struct wh_fq {
    wh_inbox *ib;
    const wh_config *cfg;
    const char *owner;
    int attempts_table;          /* wh_attempts exists (attach) */
};

/* Row i of a dead letter query (the columns of WH_FQ_DEAD_COLS). */
void wh_fq_dead_row_read(const wh_inbox_rows *rows, int i, wh_fq_dead *o);

/* Inside a write transaction: the cursor row's lock, which orders every
 * change of who is ready (0 or the failure), and then the dead letters
 * ids (in that order) back in the queue, *n += how many. */
int wh_fq_lock_cursor(wh_inbox *ib, apr_pool_t *p);
int wh_fq_revive_ids(wh_inbox *ib, apr_pool_t *p, const apr_array_header_t *ids,
                     apr_int64_t now, int *n);

#endif
