/* Group commit (see wh_batch.h). One mutex guards the queue; the commit
 * itself runs without it, so items keep queueing while a commit syncs,
 * and the next leader takes them all: the longer a commit takes, the
 * larger the next batch, with no timer involved.
 *
 * Every waiting thread sleeps on a condition of its own and is woken
 * only when its item is done or it is to lead the next round. One shared
 * condition with a broadcast woke every waiter after every commit: those
 * whose items were still queued went back to sleep, and all of them
 * fought for the mutex on the way. (Measured, that alone did not raise
 * the stored rate: the commit stage then waited for its one successor to
 * be scheduled, which is what WH_BATCH_EXTRA_ROUNDS addresses.) */
#include "wh_batch.h"
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <string.h>

/* Rounds a leader commits for others after its own: handing the place
 * over means waking a sleeping thread, and until the scheduler runs it no
 * commit is under way. The leader's own answer waits at most that many
 * more commits; bench/method.md has the inbox-http figures. */
#define WH_BATCH_EXTRA_ROUNDS 4

/* A sleeping thread's condition, reused: a batcher keeps as many as
 * threads ever waited on it at once. */
typedef struct wh_batch_waiter {
    apr_thread_cond_t *cond;
    struct wh_batch_waiter *next_free;
} wh_batch_waiter;

struct wh_batcher {
    apr_thread_mutex_t *mutex;
    apr_thread_cond_t *grew;        /* the batch is full (for a waiting leader) */
    wh_batch_item *head, *tail;
    int queued;
    int leading;
    int collecting;                 /* the leader waits for the batch to fill */
    int last_had_company;
    int since_after;                /* rounds since the after function ran */
    int max;
    apr_interval_time_t wait;
    wh_batch_commit_fn fn;
    wh_batch_after_fn after;
    void *ctx;
    apr_pool_t *scratch;            /* the leader's, cleared per batch */
    apr_pool_t *wpool;              /* waiters; used under the mutex only */
    wh_batch_waiter *free_waiters;
    wh_batch_item **slots;          /* the leader's batch, max entries */
    wh_batch_waiter **wakes;        /* its threads to wake, max entries */
    wh_batch_stats stats;
};

/* A pool with an allocator of its own: p's may serve other threads at
 * the same time. */
static apr_pool_t *own_pool(apr_pool_t *p)
{
    apr_allocator_t *alloc = NULL;
    apr_pool_t *sub = NULL;

    if (apr_allocator_create(&alloc) != APR_SUCCESS)
        return NULL;
    if (apr_pool_create_ex(&sub, p, NULL, alloc) != APR_SUCCESS) {
        apr_allocator_destroy(alloc);
        return NULL;
    }
    apr_allocator_owner_set(alloc, sub);
    return sub;
}

wh_batcher *wh_batcher_create(apr_pool_t *p, int max, apr_interval_time_t wait,
                              wh_batch_commit_fn fn, wh_batch_after_fn after,
                              void *ctx)
{
    wh_batcher *b;

    if (max < 1 || !fn)
        return NULL;
    b = apr_pcalloc(p, sizeof(*b));
    b->max = max;
    b->wait = wait > 0 ? wait : 0;
    b->fn = fn;
    b->after = after;
    b->ctx = ctx;
    b->slots = apr_pcalloc(p, sizeof(*b->slots) * (apr_size_t)max);
    b->wakes = apr_pcalloc(p, sizeof(*b->wakes) * (apr_size_t)max);
    if (apr_thread_mutex_create(&b->mutex, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS
        || apr_thread_cond_create(&b->grew, p) != APR_SUCCESS)
        return NULL;
    /* only the leader of the moment touches the scratch pool */
    if (!(b->scratch = own_pool(p)) || !(b->wpool = own_pool(p)))
        return NULL;
    return b;
}

/* Mutex held. NULL when out of memory: the caller then leads itself. */
static wh_batch_waiter *take_waiter(wh_batcher *b)
{
    wh_batch_waiter *w = b->free_waiters;

    if (w) {
        b->free_waiters = w->next_free;
        return w;
    }
    w = apr_pcalloc(b->wpool, sizeof(*w));
    if (apr_thread_cond_create(&w->cond, b->wpool) != APR_SUCCESS)
        return NULL;   /* the struct stays in the pool, unused */
    return w;
}

static void give_back_waiter(wh_batcher *b, wh_batch_waiter *w)
{
    w->next_free = b->free_waiters;
    b->free_waiters = w;
}

/* Signals go out with the mutex released: a thread woken while it is
 * held would only wake to block on it. A signal that arrives after its
 * thread has left (done, seen on another wake-up) reaches whoever reuses
 * that waiter, which checks its own item and sleeps again. */
static void wake(wh_batch_waiter *w)
{
    if (w)
        apr_thread_cond_signal(w->cond);
}

/* Mutex held. Waits for the batch to fill, at most b->wait, and only when
 * the last commit had company: a lone store is never held back. */
static int wait_for_more(wh_batcher *b)
{
    apr_time_t deadline;

    if (b->wait <= 0 || !b->last_had_company || b->queued >= b->max)
        return 0;
    deadline = apr_time_now() + b->wait;
    b->collecting = 1;
    while (b->queued < b->max) {
        apr_interval_time_t left = deadline - apr_time_now();
        if (left <= 0)
            break;
        (void)apr_thread_cond_timedwait(b->grew, b->mutex, left);
    }
    b->collecting = 0;
    return 1;
}

/* Mutex held. The leader's place goes to the oldest waiting item's
 * thread, woken for it; until it runs, the place stays taken, so that
 * newcomers queue behind it instead of leading while it wakes for
 * nothing. With nobody waiting, the place is free. */
static wh_batch_waiter *hand_over(wh_batcher *b)
{
    if (b->head) {
        b->head->lead = 1;
        return b->head->waiter;
    }
    b->leading = 0;
    return NULL;
}

/* One commit of what is queued. Mutex held on entry and on return;
 * released while committing and while waking the batch's threads. */
static void commit_round(wh_batcher *b, const wh_batch_item *mine)
{
    int n = 0, waited, k = 0, run_after;

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

    for (int i = 0; i < n; i++) {
        b->slots[i]->done = 1;
        if (b->slots[i] != mine && b->slots[i]->waiter)
            b->wakes[k++] = b->slots[i]->waiter;
    }
    b->stats.items += (apr_uint64_t)n;
    b->stats.batches++;
    if ((apr_uint64_t)n > b->stats.largest)
        b->stats.largest = (apr_uint64_t)n;
    if (n > 1)
        b->stats.shared += (apr_uint64_t)n;
    if (waited)
        b->stats.waited++;
    /* Queued items mean another round soon, whose after covers this one. */
    run_after = b->after && (!b->head || ++b->since_after >= WH_BATCH_AFTER_EVERY);
    if (run_after) {
        b->since_after = 0;
        b->stats.afters++;
    }
    /* Still the leader (so the scratch pool stays ours), but the batch's
     * threads have their answers. */
    apr_thread_mutex_unlock(b->mutex);
    for (int i = 0; i < k; i++)
        wake(b->wakes[i]);
    if (run_after)
        b->after(b->ctx, b->scratch);
    apr_thread_mutex_lock(b->mutex);
}

/* Mutex held. Rounds go on until mine (the leader's own item) is done: a
 * leader whose item did not fit keeps the place rather than wake another
 * thread to take it. Then, while stores are queued, it commits up to
 * WH_BATCH_EXTRA_ROUNDS more before handing over. Returns the successor's
 * waiter, to be woken once the mutex is released. */
static wh_batch_waiter *lead(wh_batcher *b, wh_batch_item *mine)
{
    int extra = 0;

    b->leading = 1;
    mine->lead = 0;
    do
        commit_round(b, mine);
    while (!mine->done || (b->head && extra++ < WH_BATCH_EXTRA_ROUNDS));
    b->stats.leaders++;
    return hand_over(b);
}

int wh_batcher_submit(wh_batcher *b, wh_batch_item *item)
{
    wh_batch_waiter *successor = NULL;

    item->done = 0;
    item->lead = 0;
    item->next = NULL;
    apr_thread_mutex_lock(b->mutex);
    item->waiter = take_waiter(b);
    if (b->tail)
        b->tail->next = item;
    else
        b->head = item;
    b->tail = item;
    b->queued++;
    if (b->collecting && b->queued >= b->max)
        apr_thread_cond_signal(b->grew);
    /* FIFO: a leader takes from the head, so an item beyond the first max
     * may see its thread lead a round for others first. Without a waiter
     * of its own (out of memory) a thread cannot sleep: it leads, and
     * between rounds lets the mutex go so the others get in. */
    while (!item->done) {
        if (!b->leading || item->lead) {
            successor = lead(b, item);
        } else if (item->waiter) {
            apr_thread_cond_wait(((wh_batch_waiter *)item->waiter)->cond, b->mutex);
            if (!item->done && !item->lead)
                b->stats.idle_wakes++;
        } else {
            apr_thread_mutex_unlock(b->mutex);
            apr_thread_yield();
            apr_thread_mutex_lock(b->mutex);
        }
    }
    if (item->waiter)
        give_back_waiter(b, item->waiter);
    item->waiter = NULL;
    apr_thread_mutex_unlock(b->mutex);
    wake(successor);
    return item->result;
}

void wh_batcher_stats(wh_batcher *b, wh_batch_stats *out)
{
    apr_thread_mutex_lock(b->mutex);
    *out = b->stats;
    apr_thread_mutex_unlock(b->mutex);
}
