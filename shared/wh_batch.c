/* Group commit (see wh_batch.h). One mutex guards the queue; the commit
 * itself runs without it, so items keep queueing while a commit syncs,
 * and the next leader takes them all: the longer a commit takes, the
 * larger the next batch, with no timer involved. */
#include "wh_batch.h"
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <string.h>

struct wh_batcher {
    apr_thread_mutex_t *mutex;
    apr_thread_cond_t *changed;     /* items done, or the leader's place free */
    apr_thread_cond_t *grew;        /* an item queued (for a waiting leader) */
    wh_batch_item *head, *tail;
    int queued;
    int leading;
    int last_had_company;
    int max;
    apr_interval_time_t wait;
    wh_batch_commit_fn fn;
    wh_batch_after_fn after;
    void *ctx;
    apr_pool_t *scratch;            /* the leader's, cleared per batch */
    wh_batch_item **slots;          /* the leader's batch, max entries */
    wh_batch_stats stats;
};

wh_batcher *wh_batcher_create(apr_pool_t *p, int max, apr_interval_time_t wait,
                              wh_batch_commit_fn fn, wh_batch_after_fn after,
                              void *ctx)
{
    wh_batcher *b;
    apr_allocator_t *alloc = NULL;

    if (max < 1 || !fn)
        return NULL;
    b = apr_pcalloc(p, sizeof(*b));
    b->max = max;
    b->wait = wait > 0 ? wait : 0;
    b->fn = fn;
    b->after = after;
    b->ctx = ctx;
    b->slots = apr_pcalloc(p, sizeof(*b->slots) * (apr_size_t)max);
    if (apr_thread_mutex_create(&b->mutex, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS
        || apr_thread_cond_create(&b->changed, p) != APR_SUCCESS
        || apr_thread_cond_create(&b->grew, p) != APR_SUCCESS)
        return NULL;
    /* Its own allocator: only the leader of the moment touches it, while
     * p's may serve other threads at the same time. */
    if (apr_allocator_create(&alloc) != APR_SUCCESS)
        return NULL;
    if (apr_pool_create_ex(&b->scratch, p, NULL, alloc) != APR_SUCCESS) {
        apr_allocator_destroy(alloc);
        return NULL;
    }
    apr_allocator_owner_set(alloc, b->scratch);
    return b;
}

/* Mutex held. Waits for the batch to fill, at most b->wait, and only when
 * the last commit had company: a lone store is never held back. */
static int wait_for_more(wh_batcher *b)
{
    apr_time_t deadline;

    if (b->wait <= 0 || !b->last_had_company || b->queued >= b->max)
        return 0;
    deadline = apr_time_now() + b->wait;
    while (b->queued < b->max) {
        apr_interval_time_t left = deadline - apr_time_now();
        if (left <= 0)
            break;
        (void)apr_thread_cond_timedwait(b->grew, b->mutex, left);
    }
    return 1;
}

/* Mutex held on entry and on return; released while committing. */
static void lead(wh_batcher *b)
{
    int n = 0, waited;

    b->leading = 1;
    waited = wait_for_more(b);
    while (b->head && n < b->max) {
        b->slots[n++] = b->head;
        b->head = b->head->next;
    }
    if (!b->head)
        b->tail = NULL;
    b->queued -= n;
    b->last_had_company = n > 1 || b->queued > 0;

    apr_thread_mutex_unlock(b->mutex);
    apr_pool_clear(b->scratch);
    b->fn(b->ctx, b->scratch, b->slots, n);
    apr_thread_mutex_lock(b->mutex);

    for (int i = 0; i < n; i++)
        b->slots[i]->done = 1;
    b->stats.items += (apr_uint64_t)n;
    b->stats.batches++;
    if ((apr_uint64_t)n > b->stats.largest)
        b->stats.largest = (apr_uint64_t)n;
    if (n > 1)
        b->stats.shared += (apr_uint64_t)n;
    if (waited)
        b->stats.waited++;
    if (!b->after) {
        b->leading = 0;
        apr_thread_cond_broadcast(b->changed);
        return;
    }
    /* Still the leader (so the scratch pool stays ours), but the batch's
     * threads may go. */
    apr_thread_cond_broadcast(b->changed);
    apr_thread_mutex_unlock(b->mutex);
    b->after(b->ctx, b->scratch);
    apr_thread_mutex_lock(b->mutex);
    b->leading = 0;
    apr_thread_cond_broadcast(b->changed);
}

int wh_batcher_submit(wh_batcher *b, wh_batch_item *item)
{
    item->done = 0;
    item->next = NULL;
    apr_thread_mutex_lock(b->mutex);
    if (b->tail)
        b->tail->next = item;
    else
        b->head = item;
    b->tail = item;
    b->queued++;
    if (b->leading)
        apr_thread_cond_signal(b->grew);
    /* FIFO: a leader takes from the head, so an item beyond the first max
     * may see its thread lead a round for others first. */
    while (!item->done) {
        if (!b->leading)
            lead(b);
        else
            apr_thread_cond_wait(b->changed, b->mutex);
    }
    apr_thread_mutex_unlock(b->mutex);
    return item->result;
}

void wh_batcher_stats(wh_batcher *b, wh_batch_stats *out)
{
    apr_thread_mutex_lock(b->mutex);
    *out = b->stats;
    apr_thread_mutex_unlock(b->mutex);
}
