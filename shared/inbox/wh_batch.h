#ifndef WH_BATCH_H
#define WH_BATCH_H
/* Group commit: threads that each have one unit of work to make durable
 * share one commit. Leader/follower: a thread submits its item and, when
 * no commit is under way, becomes the leader and commits everything queued
 * (at most `max` items) in one call of the commit function; threads that
 * arrive meanwhile queue for the next round and sleep until their item is
 * done. A thread that arrives alone commits at once. APR threads only. */
#include <apr_pools.h>
#include <apr_time.h>

typedef struct wh_batch_item {
    void *data;                     /* the caller's */
    int result;                     /* set by the commit function */
    /* private */
    int done;
    int lead;                       /* handed the leader's place */
    void *waiter;                   /* the sleeping thread's condition */
    struct wh_batch_item *next;
} wh_batch_item;

/* Commits items[0..n) and sets each one's result. Runs in the leader's
 * thread, with no lock of the batcher held, one at a time; p is a pool
 * for this call only. */
typedef void (*wh_batch_commit_fn)(void *ctx, apr_pool_t *p, wh_batch_item **items, int n);
/* Optional: runs in the leader's thread after the batch's threads have
 * been given their results (work the answers need not wait for), for
 * work one run of which covers every commit before it. So it is left out
 * while more items are queued (the round that commits them runs it), but
 * never more than WH_BATCH_AFTER_EVERY - 1 rounds in a row, and a round
 * that leaves the queue empty always runs it. */
typedef void (*wh_batch_after_fn)(void *ctx, apr_pool_t *p);
#define WH_BATCH_AFTER_EVERY 4

typedef struct wh_batcher wh_batcher;

typedef struct {
    apr_uint64_t items;             /* items committed */
    apr_uint64_t batches;           /* commit calls */
    apr_uint64_t largest;           /* most items in one call */
    apr_uint64_t shared;            /* items committed in a call with others */
    apr_uint64_t waited;            /* calls whose leader waited for more */
    apr_uint64_t idle_wakes;        /* a waiting thread woken with nothing to do */
    apr_uint64_t leaders;           /* turns as leader (each one or more calls) */
    apr_uint64_t afters;            /* runs of the after function */
} wh_batch_stats;

/* max: most items per commit (>= 1). wait: how long a leader may wait for
 * more items before committing, 0 for never; it waits only when the
 * previous commit had company (others queued behind it), so a store that
 * arrives alone is never delayed. Lives as long as p. NULL when out of
 * memory or the thread primitives cannot be made. */
wh_batcher *wh_batcher_create(apr_pool_t *p, int max, apr_interval_time_t wait,
                              wh_batch_commit_fn fn, wh_batch_after_fn after,
                              void *ctx);

/* Queues item and returns once a commit has set its result (which is
 * returned). Runs commits of other threads' items meanwhile when it
 * becomes the leader. */
int wh_batcher_submit(wh_batcher *b, wh_batch_item *item);

/* A consistent copy of the counters. */
void wh_batcher_stats(wh_batcher *b, wh_batch_stats *out);

#endif
