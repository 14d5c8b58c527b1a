/* wh_batcher, the group commit: every item gets its own result from
 * exactly one commit; commits never hold more than the maximum; threads
 * arriving during a commit share the next one; an item arriving alone is
 * committed at once, never held back by InboxBatchWait. Asserted on the
 * batcher's counters, never on time. */
#include "wh_test.h"
#include "inbox/wh_batch.h"
#include <apr_atomic.h>
#include <apr_thread_proc.h>
#include <string.h>
#include <unistd.h>

#define THREADS 12
#define PER_THREAD 150

typedef struct {
    int value;
    int commits;                    /* how often a commit held it */
} job;

typedef struct {
    apr_uint32_t calls, afters, overlap;
    volatile apr_uint32_t inside;
    int max_seen;
    int sizes;                      /* sum of batch sizes */
    int sleep_us;                   /* a commit's "sync" */
    volatile int owed;              /* a commit no after has covered yet */
} committer;

static void commit(void *ctx, apr_pool_t *p, wh_batch_item **items, int n)
{
    committer *c = ctx;

    /* never two commits at once */
    if (apr_atomic_inc32(&c->inside) != 0)
        apr_atomic_inc32(&c->overlap);
    (void)apr_palloc(p, 64);   /* the pool is the leader's to use */
    for (int i = 0; i < n; i++) {
        job *j = items[i]->data;
        j->commits++;
        items[i]->result = j->value * 2;
    }
    if (n > c->max_seen)
        c->max_seen = n;
    c->sizes += n;
    c->calls++;
    c->owed = 1;
    if (c->sleep_us)
        apr_sleep(c->sleep_us);
    apr_atomic_dec32(&c->inside);
}

static void after(void *ctx, apr_pool_t *p)
{
    (void)p;
    ((committer *)ctx)->owed = 0;
    apr_atomic_inc32(&((committer *)ctx)->afters);
}

typedef struct {
    wh_batcher *b;
    int base;
    int wrong;
    job jobs[PER_THREAD];
} thread_arg;

static void *APR_THREAD_FUNC submitter(apr_thread_t *t, void *data)
{
    thread_arg *a = data;
    (void)t;
    for (int i = 0; i < PER_THREAD; i++) {
        wh_batch_item item;
        memset(&item, 0, sizeof(item));
        a->jobs[i].value = a->base + i;
        item.data = &a->jobs[i];
        if (wh_batcher_submit(a->b, &item) != 2 * (a->base + i))
            a->wrong++;
    }
    return NULL;
}

static void run_threads(wh_batcher *b, thread_arg *args)
{
    apr_thread_t *th[THREADS];
    apr_status_t st;

    for (int i = 0; i < THREADS; i++) {
        memset(&args[i], 0, sizeof(args[i]));
        args[i].b = b;
        args[i].base = i * 1000;
        CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th[i], NULL, submitter, &args[i],
                                                wh_test_pool()), APR_SUCCESS);
    }
    for (int i = 0; i < THREADS; i++)
        apr_thread_join(&st, th[i]);
}

static void test_lone_item_commits_at_once(void)
{
    committer c = { 0 };
    wh_batcher *b = wh_batcher_create(wh_test_pool(), 64, apr_time_from_msec(200),
                                      commit, after, &c);
    wh_batch_stats s;
    job j = { 21, 0 };
    wh_batch_item item;

    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (int k = 0; k < 3; k++) {
        memset(&item, 0, sizeof(item));
        item.data = &j;
        CU_ASSERT_EQUAL(wh_batcher_submit(b, &item), 42);
    }
    wh_batcher_stats(b, &s);
    /* three commits of one, none of them waited for company */
    CU_ASSERT_EQUAL(s.batches, 3);
    CU_ASSERT_EQUAL(s.items, 3);
    CU_ASSERT_EQUAL(s.largest, 1);
    CU_ASSERT_EQUAL(s.shared, 0);
    CU_ASSERT_EQUAL(s.waited, 0);
    CU_ASSERT_EQUAL(j.commits, 3);
    CU_ASSERT_EQUAL(s.leaders, 3);
    CU_ASSERT_EQUAL(c.afters, 3);     /* nothing queued: after every round */
    CU_ASSERT_EQUAL(s.afters, 3);
}

/* THREADS x PER_THREAD items through a batcher of at most max items per
 * commit, each commit "syncing" for sleep_us; asserts what holds for every
 * configuration (each item committed once with its own result, one commit
 * at a time, the counters agree with the commits seen) and gives the
 * counters for the test's own assertions. */
static void run_and_check(int max, apr_interval_time_t wait, int sleep_us,
                          wh_batch_after_fn after_fn, wh_batch_stats *s)
{
    committer c = { 0 };
    thread_arg *args = apr_pcalloc(wh_test_pool(), sizeof(*args) * THREADS);
    wh_batcher *b;
    int once = 1, wrong = 0;

    c.sleep_us = sleep_us;
    b = wh_batcher_create(wh_test_pool(), max, wait, commit, after_fn, &c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    run_threads(b, args);
    for (int i = 0; i < THREADS; i++) {
        wrong += args[i].wrong;
        for (int k = 0; k < PER_THREAD; k++)
            once &= args[i].jobs[k].commits == 1;
    }
    wh_batcher_stats(b, s);
    CU_ASSERT_EQUAL(wrong, 0);           /* each got its own result */
    CU_ASSERT_TRUE(once);                /* from exactly one commit */
    CU_ASSERT_EQUAL(c.overlap, 0);       /* one commit at a time */
    CU_ASSERT_EQUAL(s->items, THREADS * PER_THREAD);
    CU_ASSERT_EQUAL((int)s->items, c.sizes);
    CU_ASSERT_EQUAL(s->batches, c.calls);
    CU_ASSERT(s->largest <= (apr_uint64_t)max);
    CU_ASSERT_EQUAL((int)s->largest, c.max_seen);
    /* The after function, when there is one, covered every commit: it
     * ran after the last, and never skipped WH_BATCH_AFTER_EVERY rounds. */
    CU_ASSERT_EQUAL(s->afters, c.afters);
    if (after_fn) {
        CU_ASSERT_EQUAL(c.owed, 0);
        CU_ASSERT(c.afters <= c.calls);
        CU_ASSERT(c.afters * WH_BATCH_AFTER_EVERY >= c.calls);
    } else {
        CU_ASSERT_EQUAL(c.afters, 0);
    }
}

static void test_threads_share_commits(void)
{
    wh_batch_stats s;

    /* while one commit "syncs", the others queue */
    run_and_check(64, 0, 300, after, &s);
    CU_ASSERT(s.batches < s.items);     /* commits were shared */
    CU_ASSERT(s.shared > 0);
    CU_ASSERT(s.largest > 1);
    CU_ASSERT_EQUAL(s.waited, 0);       /* no InboxBatchWait: never waited */
    /* a leader with stores queued behind it went on committing them
     * rather than wake another thread to do it */
    CU_ASSERT(s.leaders < s.batches);
    /* rounds with stores queued behind them left the after to the next */
    CU_ASSERT(s.afters < s.batches);
}

static void test_waiters_woken_only_for_their_item(void)
{
    wh_batch_stats s;

    /* Small batches, so most waiters sit through commits that are not
     * theirs. A broadcast after each commit woke every one of them each
     * time (thousands of idle wakes here); a waiter is now woken only when
     * its item is done or it is to lead. The few left are a newcomer
     * taking the leader's place first, or the system's spurious wakeups. */
    run_and_check(2, 0, 200, after, &s);
    CU_ASSERT(s.idle_wakes * 20 < s.items);
}

static void test_batch_size_is_bounded(void)
{
    wh_batch_stats s;

    run_and_check(3, 0, 500, NULL, &s);
}

static void test_wait_gathers_company(void)
{
    wh_batch_stats s;

    /* a leader that saw company waits (bounded) for the batch to fill */
    run_and_check(THREADS, 2000, 300, after, &s);
    CU_ASSERT(s.waited > 0);
    CU_ASSERT(s.waited <= s.batches);
}

static void test_bad_arguments(void)
{
    committer c = { 0 };
    CU_ASSERT_PTR_NULL(wh_batcher_create(wh_test_pool(), 0, 0, commit, NULL, &c));
    CU_ASSERT_PTR_NULL(wh_batcher_create(wh_test_pool(), 4, 0, NULL, NULL, &c));
}

static const wh_test_case cases[] = {
    { "a lone item commits at once (no wait, batch of one)", test_lone_item_commits_at_once },
    { "threads share commits; each item committed once, own result", test_threads_share_commits },
    { "batch size never exceeds the maximum", test_batch_size_is_bounded },
    { "a waiting thread is woken only for its own item or to lead", test_waiters_woken_only_for_their_item },
    { "InboxBatchWait: a leader with company waits for more", test_wait_gathers_company },
    { "bad arguments refused", test_bad_arguments },
    { NULL, NULL }
};

WH_TEST_SUITE(batch, cases)
