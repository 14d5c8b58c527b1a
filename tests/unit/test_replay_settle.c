/* Claims nobody holds (wh_replay_settle.h), with a store whose claims a
 * test sets by hand and which counts what it is asked, so every rule is
 * tried without a server and without waiting (the time is the test's):
 * a lost claim the store made is released; one it makes only later (a
 * stalled store running again) is released by the second try; nothing
 * there twice, QUIET apart, is done; a claim another delivery holds is
 * never released; a store that cannot be reached is tried again and its
 * other entries wait; a confirm is retried until taken; the list is
 * bounded; a copy finding its id held settles it at once and claims
 * under a new holder; nothing owed is sent to a stalled store before it
 * answers; and the renewal thread settles by itself. The real stores'
 * forget is test_replay_shared's. */
#include "wh_test.h"
#include "replay/wh_replay_renew.h"
#include "replay/wh_replay_settle.h"
#include <apr_strings.h>
#include <apr_thread_mutex.h>

#define P() wh_test_pool()
#define SEC(n) apr_time_from_sec(n)
#define T0 SEC(1000000)

#define IDS 4
#define QUEUED 8

/* A store of a few ids: each free, claimed by a holder, or confirmed. */
typedef struct {
    apr_thread_mutex_t *mu;
    const char *id[IDS];
    char holder[IDS][WH_REPLAY_HOLDER_MAX + 1];   /* "" free */
    int confirmed[IDS];
    int down;                 /* every call answers -1 */
    int lose;                 /* a claim is made, its answer lost */
    int forgets, confirms, claims, healths;
    /* stalled as a stopped server is: what it is sent waits unanswered
     * (-1, a claim's answer lost) and runs, in order, when it resumes */
    int stalled, nq;
    struct {
        char op;              /* 'C' claim, 'F' forget, 'P' health */
        const char *id;
        char holder[WH_REPLAY_HOLDER_MAX + 1];
    } q[QUEUED];
} fake_store;

/* Sent to a stalled store: queued (under f->mu). */
static void enqueue(fake_store *f, char op, const char *id, const char *holder)
{
    if (f->nq < QUEUED) {
        f->q[f->nq].op = op;
        f->q[f->nq].id = id;
        apr_cpystrn(f->q[f->nq].holder, holder ? holder : "",
                    sizeof(f->q[f->nq].holder));
        f->nq++;
    }
}

static int slot(fake_store *f, const char *id)
{
    for (int i = 0; i < IDS; i++)
        if (f->id[i] && strcmp(f->id[i], id) == 0)
            return i;
    return -1;
}

static int fake_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                       const char *holder, const char **err)
{
    fake_store *f = st->impl;
    int i, rv = 0;
    (void)p;
    apr_thread_mutex_lock(f->mu);
    f->forgets++;
    if (f->stalled)
        enqueue(f, 'F', id, holder);
    if (f->down || f->stalled) {
        *err = "unreachable";
        rv = -1;
    }
    else if ((i = slot(f, id)) >= 0 && !f->confirmed[i]
             && strcmp(f->holder[i], holder) == 0) {
        f->holder[i][0] = '\0';
        rv = 1;
    }
    apr_thread_mutex_unlock(f->mu);
    return rv;
}

static int fake_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                        const char *holder, apr_int64_t window_sec,
                        const char **err)
{
    fake_store *f = st->impl;
    int i, rv = 0;
    (void)p;
    (void)holder;
    (void)window_sec;
    apr_thread_mutex_lock(f->mu);
    f->confirms++;
    if (f->down) {
        *err = "unreachable";
        rv = -1;
    }
    else if ((i = slot(f, id)) >= 0) {
        f->confirmed[i] = 1;
        f->holder[i][0] = '\0';
    }
    apr_thread_mutex_unlock(f->mu);
    return rv;
}

static wh_claim_result fake_claim(wh_replay_store *st, apr_pool_t *p,
                                  const wh_claim *c, wh_claim_info *info)
{
    fake_store *f = st->impl;
    int i = slot(f, c->id);
    wh_claim_result res;
    (void)p;
    apr_thread_mutex_lock(f->mu);
    f->claims++;
    if (f->stalled) {
        enqueue(f, 'C', c->id, c->holder);
        info->lost = 1;
        res = WH_CLAIM_ERROR;
    }
    else if (f->down)
        res = WH_CLAIM_ERROR;
    else if (f->confirmed[i])
        res = WH_CLAIM_DUPLICATE;
    else if (f->holder[i][0] && strcmp(f->holder[i], c->holder) != 0)
        res = WH_CLAIM_IN_PROGRESS;
    else {
        apr_cpystrn(f->holder[i], c->holder, sizeof(f->holder[i]));
        res = WH_CLAIM_FIRST;
        if (f->lose) {
            info->lost = 1;
            res = WH_CLAIM_ERROR;
        }
    }
    apr_thread_mutex_unlock(f->mu);
    return res;
}

static int fake_health(wh_replay_store *st, apr_pool_t *p, const char **err)
{
    fake_store *f = st->impl;
    int rv = 0;
    (void)p;
    apr_thread_mutex_lock(f->mu);
    f->healths++;
    if (f->stalled)
        enqueue(f, 'P', "", "");
    if (f->down || f->stalled) {
        *err = "unreachable";
        rv = -1;
    }
    apr_thread_mutex_unlock(f->mu);
    return rv;
}

static const wh_replay_store_ops fake_ops = {
    "fake", fake_claim, fake_confirm, fake_forget, NULL, NULL, NULL, NULL
};
/* the same store, which can be asked whether it answers (as every shared
 * store can) */
static const wh_replay_store_ops fake_health_ops = {
    "fake", fake_claim, fake_confirm, fake_forget, NULL, NULL, fake_health,
    NULL
};

/* The stalled store runs again: what it was sent runs, in order; the
 * answers went with their connections. */
static void resume(fake_store *f)
{
    apr_thread_mutex_lock(f->mu);
    f->stalled = 0;
    for (int k = 0; k < f->nq; k++) {
        int i = f->q[k].op == 'P' ? -1 : slot(f, f->q[k].id);
        if (i < 0 || f->confirmed[i])
            continue;
        if (f->q[k].op == 'C' && f->holder[i][0] == '\0')
            apr_cpystrn(f->holder[i], f->q[k].holder, sizeof(f->holder[i]));
        else if (f->q[k].op == 'F' && strcmp(f->holder[i], f->q[k].holder) == 0)
            f->holder[i][0] = '\0';
    }
    f->nq = 0;
    apr_thread_mutex_unlock(f->mu);
}

static wh_replay_store *fake(fake_store *f)
{
    wh_replay_store *st = apr_pcalloc(P(), sizeof(*st));
    memset(f, 0, sizeof(*f));
    apr_thread_mutex_create(&f->mu, APR_THREAD_MUTEX_DEFAULT, P());
    for (int i = 0; i < IDS; i++)
        f->id[i] = apr_psprintf(P(), "n%d", i);
    st->ops = &fake_ops;
    st->impl = f;
    return st;
}

/* The store makes holder's claim on id (a late claim running now). */
static void claim(fake_store *f, const char *id, const char *holder)
{
    int i = slot(f, id);
    apr_thread_mutex_lock(f->mu);
    apr_cpystrn(f->holder[i], holder, sizeof(f->holder[i]));
    apr_thread_mutex_unlock(f->mu);
}

static int held_by(fake_store *f, const char *id, const char *holder)
{
    int i = slot(f, id), rv;
    apr_thread_mutex_lock(f->mu);
    rv = strcmp(f->holder[i], holder) == 0;
    apr_thread_mutex_unlock(f->mu);
    return rv;
}

static int warnings, released_said;
static void count_warn(void *baton, wh_log_level level, const char *msg)
{
    (void)baton;
    warnings += level == WH_LOG_WARN;
    released_said += strstr(msg, "released the claim") != NULL;
}

static wh_replay_settle *new_list(unsigned max)
{
    wh_replay_settle *s = NULL;
    wh_logger lg = { count_warn, NULL };
    CU_ASSERT_PTR_NULL(wh_replay_settle_create(P(), max, &lg, &s));
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

/* The late claim was made before the first try: released at once. */
static void test_made_claim_released(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    wh_settle_counts c;

    claim(&f, "n0", "h.1");
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 1);
    /* not tried before it is due (the store has just failed) */
    CU_ASSERT_EQUAL(wh_replay_settle_due(s), T0 + WH_REPLAY_SETTLE_RETRY);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, T0, &c), 0);
    CU_ASSERT_EQUAL(f.forgets, 0);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, T0 + WH_REPLAY_SETTLE_RETRY, &c), 1);
    CU_ASSERT_EQUAL(c.released, 1);
    CU_ASSERT(held_by(&f, "n0", ""));
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_due(s), 0);
}

/* The store runs the claim only after the first try found nothing (it
 * had it queued): the second try, QUIET later, releases it. */
static void test_late_claim_released_by_second_try(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    apr_time_t t1 = T0 + WH_REPLAY_SETTLE_RETRY;
    wh_settle_counts c;

    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t1, &c), 0);
    CU_ASSERT_EQUAL(f.forgets, 1);
    CU_ASSERT_EQUAL(wh_replay_settle_due(s), t1 + WH_REPLAY_SETTLE_QUIET);
    /* not again before QUIET */
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t1 + WH_REPLAY_SETTLE_QUIET - 1, &c), 0);
    CU_ASSERT_EQUAL(f.forgets, 1);
    claim(&f, "n0", "h.1");
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t1 + WH_REPLAY_SETTLE_QUIET, &c), 1);
    CU_ASSERT_EQUAL(c.released, 1);
    CU_ASSERT(held_by(&f, "n0", ""));
}

/* Nothing there, twice, QUIET apart: done, and nothing else is touched;
 * a claim another delivery holds on the id is never released. */
static void test_nothing_twice_done_and_others_kept(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    apr_time_t t1 = T0 + WH_REPLAY_SETTLE_RETRY;
    wh_settle_counts c;

    claim(&f, "n0", "live.7");                   /* a running delivery */
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0);
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n1", "h.2", 0, T0);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t1, &c), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t1 + WH_REPLAY_SETTLE_QUIET, &c), 2);
    CU_ASSERT_EQUAL(c.nothing, 2);
    CU_ASSERT_EQUAL(c.released, 0);
    CU_ASSERT(held_by(&f, "n0", "live.7"));
    CU_ASSERT_EQUAL(f.forgets, 4);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 0);
}

/* A store that does not answer: its other entries wait (one try a pass),
 * the entry is tried again after RETRY, and what it said before no
 * longer counts; another store's entries go on. */
static void test_unreachable_store(void)
{
    fake_store f, g;
    wh_replay_store *st = fake(&f), *other = fake(&g);
    wh_replay_settle *s = new_list(0);
    apr_time_t t = T0 + WH_REPLAY_SETTLE_RETRY;
    wh_settle_counts c;

    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0);
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n1", "h.2", 0, T0);
    wh_replay_settle_add(s, other, WH_SETTLE_RELEASE, "n0", "h.3", 0, T0);
    claim(&g, "n0", "h.3");
    /* a first "nothing" for both of st's */
    f.down = 0;
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t, &c), 1);   /* other's released */
    CU_ASSERT_EQUAL(f.forgets, 2);
    /* QUIET later st stops answering: one try, the other entry waits */
    f.down = 1;
    t += WH_REPLAY_SETTLE_QUIET;
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t, &c), 0);
    CU_ASSERT_EQUAL(c.failed, 1);
    CU_ASSERT_EQUAL(f.forgets, 3);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 2);
    /* both wait RETRY */
    CU_ASSERT_EQUAL(wh_replay_settle_due(s), t + WH_REPLAY_SETTLE_RETRY);
    /* back: "nothing" again, but the store may have stalled since it
     * first said so: not done until QUIET after this answer */
    f.down = 0;
    t += WH_REPLAY_SETTLE_RETRY;
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t, &c), 0);
    CU_ASSERT_EQUAL(f.forgets, 5);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 2);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t + WH_REPLAY_SETTLE_QUIET, &c), 2);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 0);
}

/* The store answers a request meanwhile: what waits after a failure is
 * due now. */
static void test_answered_makes_due(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    apr_time_t t = T0 + WH_REPLAY_SETTLE_RETRY;

    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0);
    CU_ASSERT_EQUAL(wh_replay_settle_answered(s, st), 0);   /* never tried */
    f.down = 1;
    wh_replay_settle_pass(s, t, NULL);
    CU_ASSERT_EQUAL(wh_replay_settle_due(s), t + WH_REPLAY_SETTLE_RETRY);
    CU_ASSERT_EQUAL(wh_replay_settle_answered(s, st), 1);
    CU_ASSERT(wh_replay_settle_due(s) <= t);
}

/* A delivery whose end the store could not take: confirmed once it can. */
static void test_confirm_retried(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    apr_time_t t = T0 + WH_REPLAY_SETTLE_RETRY;
    wh_settle_counts c;

    claim(&f, "n2", "h.9");
    f.down = 1;
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_CONFIRM, "n2", "h.9", 600, T0), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t, &c), 0);
    CU_ASSERT_EQUAL(c.failed, 1);
    f.down = 0;
    CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t + WH_REPLAY_SETTLE_RETRY, &c), 1);
    CU_ASSERT_EQUAL(c.confirmed, 1);
    CU_ASSERT_EQUAL(f.confirmed[2], 1);
    CU_ASSERT_EQUAL(f.confirms, 2);
}

/* At most max entries; the same one twice is one; what cannot be copied
 * or has no holder is refused. */
static void test_bounded(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(2);
    char long_id[WH_REPLAY_NET_ID_MAX + 2];

    warnings = 0;
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 1);
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_CONFIRM, "n1", "h.2", 60, T0), 0);
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n2", "h.3", 0, T0), -1);
    CU_ASSERT_EQUAL(warnings, 1);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 2);
    memset(long_id, 'x', sizeof(long_id) - 1);
    long_id[sizeof(long_id) - 1] = '\0';
    s = new_list(0);
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, long_id, "h", 0, T0), -1);
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "", 0, T0), -1);
    CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", NULL, 0, T0), -1);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 0);
    /* entries done are reused */
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(wh_replay_settle_add(s, st, WH_SETTLE_CONFIRM, "n3", "h.4", 60, T0), 0);
        CU_ASSERT_EQUAL(wh_replay_settle_pass(s, T0 + WH_REPLAY_SETTLE_RETRY, NULL), 1);
    }
}

/* A copy finds its id held: the releases owed for that id are tried now,
 * due or not; 1 when one removed the claim. */
static void test_settle_id_now(void)
{
    fake_store f, g;
    wh_replay_store *st = fake(&f), *other = fake(&g);
    wh_replay_settle *s = new_list(0);

    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, T0);
    wh_replay_settle_add(s, st, WH_SETTLE_CONFIRM, "n1", "h.2", 60, T0);
    claim(&f, "n0", "h.1");
    claim(&f, "n1", "h.2");
    CU_ASSERT_EQUAL(wh_replay_settle_id(s, other, "n0", T0), 0);  /* not its store */
    CU_ASSERT_EQUAL(wh_replay_settle_id(s, st, "n1", T0), 0);     /* confirms wait */
    CU_ASSERT_EQUAL(f.confirms, 0);
    CU_ASSERT_EQUAL(wh_replay_settle_id(s, st, "n0", T0), 1);
    CU_ASSERT(held_by(&f, "n0", ""));
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 1);
    /* another delivery's claim: not released, and 0 */
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.5", 0, T0);
    claim(&f, "n0", "live.1");
    CU_ASSERT_EQUAL(wh_replay_settle_id(s, st, "n0", T0), 0);
    CU_ASSERT(held_by(&f, "n0", "live.1"));
}

/* Claims through the list: a lost claim is owed; a copy finding the id
 * held by it settles it and claims again under a new holder, so the old
 * holder's release, still owed, never touches the delivery's claim. */
static void test_claims_through_the_list(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    wh_replay_holders h;
    wh_claim c = { "n0", "h.1", 0, 300, 600, SEC(120) };
    wh_claim_info info;
    int wake;
    const char *mine;

    CU_ASSERT_PTR_NULL(wh_replay_holders_init(&h));
    /* the answer is lost; the store made the claim all the same */
    f.lose = 1;
    CU_ASSERT_EQUAL(wh_replay_settle_claim(s, st, P(), &h, &c, &info, &wake),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(wake, 1);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 1);
    f.lose = 0;
    /* the bank's copy, with a holder of its own: the lost claim is taken
     * back, and the copy claims under yet another holder */
    c.holder = "h.2";
    CU_ASSERT_EQUAL(wh_replay_settle_claim(s, st, P(), &h, &c, &info, &wake),
                    WH_CLAIM_FIRST);
    mine = c.holder;
    CU_ASSERT(strcmp(mine, "h.2") != 0 && strcmp(mine, "h.1") != 0);
    CU_ASSERT(held_by(&f, "n0", mine));
    CU_ASSERT_EQUAL(f.claims, 3);
    /* what is still owed never releases the delivery's claim */
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.2", 0, T0);
    for (int i = 1; i <= 3; i++)
        wh_replay_settle_pass(s, T0 + i * (WH_REPLAY_SETTLE_RETRY + WH_REPLAY_SETTLE_QUIET), NULL);
    CU_ASSERT(held_by(&f, "n0", mine));
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 0);
    /* held by a running delivery (nothing owed for it): in progress */
    c.holder = "h.3";
    CU_ASSERT_EQUAL(wh_replay_settle_claim(s, st, P(), &h, &c, &info, &wake),
                    WH_CLAIM_IN_PROGRESS);
    ASSERT_STR(c.holder, "h.3");
    CU_ASSERT_EQUAL(wake, 0);
    /* a store down, then answering: what waited is woken for */
    f.down = 1;
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n1", "h.4", 0, T0);
    wh_replay_settle_pass(s, T0 + WH_REPLAY_SETTLE_RETRY, NULL);
    f.down = 0;
    c.id = "n2";
    c.holder = "h.5";
    CU_ASSERT_EQUAL(wh_replay_settle_claim(s, st, P(), &h, &c, &info, &wake),
                    WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(wake, 1);
    /* no list: a plain claim */
    c.id = "n3";
    c.holder = "h.6";
    CU_ASSERT_EQUAL(wh_replay_settle_claim(NULL, st, P(), &h, &c, &info, &wake),
                    WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(wake, 0);
}

/* A claim lost in a stalled store, which makes it when it runs again:
 * while the store does not answer, nothing owed is sent to it (only the
 * question whether it answers), so no release waits in its queue behind
 * the claim to remove it unseen; once it answers, the release removes
 * the claim, and says so. */
static void test_stalled_store_asked_first(void)
{
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = new_list(0);
    wh_replay_holders h;
    wh_claim c = { "n0", "h.1", 0, 300, 600, SEC(120) };
    wh_claim_info info;
    wh_settle_counts n;
    apr_time_t t;
    int wake, released = 0, nothing = 0;

    st->ops = &fake_health_ops;
    released_said = 0;
    CU_ASSERT_PTR_NULL(wh_replay_holders_init(&h));
    f.stalled = 1;
    CU_ASSERT_EQUAL(wh_replay_settle_claim(s, st, P(), &h, &c, &info, &wake),
                    WH_CLAIM_ERROR);
    t = apr_time_now();                 /* owed from the claim's time on */
    CU_ASSERT_EQUAL(wake, 1);
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 1);
    /* passes while it is stalled: asked, never sent the release */
    for (int i = 0; i < 3; i++) {
        t += WH_REPLAY_SETTLE_RETRY;
        CU_ASSERT_EQUAL(wh_replay_settle_pass(s, t, &n), 0);
        CU_ASSERT_EQUAL(n.failed, 1);
    }
    CU_ASSERT_EQUAL(f.healths, 3);
    CU_ASSERT_EQUAL(f.forgets, 0);
    /* it runs again: the lost claim is made, and released by the next
     * pass, which says so */
    resume(&f);
    CU_ASSERT(held_by(&f, "n0", "h.1"));
    for (int i = 0; i < 4 && wh_replay_settle_pending(s) > 0; i++) {
        t += WH_REPLAY_SETTLE_RETRY + WH_REPLAY_SETTLE_QUIET;
        wh_replay_settle_pass(s, t, &n);
        released += n.released;
        nothing += n.nothing;
    }
    CU_ASSERT_EQUAL(released, 1);
    CU_ASSERT_EQUAL(nothing, 0);
    CU_ASSERT_EQUAL(released_said, 1);
    CU_ASSERT(held_by(&f, "n0", ""));
    CU_ASSERT_EQUAL(wh_replay_settle_pending(s), 0);
    /* a copy finding its id held asks nothing first: the store has just
     * answered its claim */
    f.healths = 0;
    claim(&f, "n1", "h.2");
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n1", "h.2", 0, t);
    CU_ASSERT_EQUAL(wh_replay_settle_id(s, st, "n1", t), 1);
    CU_ASSERT_EQUAL(f.healths, 0);
}

/* The renewal thread settles as entries fall due, and at once when poked
 * after the store answered again. */
static void test_renewer_thread_settles(void)
{
    apr_pool_t *p;
    fake_store f;
    wh_replay_store *st = fake(&f);
    wh_replay_settle *s = NULL;
    wh_replay_renewer *rn = NULL;
    int i;

    apr_pool_create(&p, P());
    CU_ASSERT_PTR_NULL(wh_replay_settle_create(p, 0, NULL, &s));
    CU_ASSERT_PTR_NULL(wh_replay_renewer_create(p, NULL, &rn));
    CU_ASSERT_FATAL(s && rn);
    wh_replay_renewer_settle(rn, s);
    /* renewal passes far apart: only settling wakes the thread */
    CU_ASSERT_PTR_NULL(wh_replay_renewer_start(rn, SEC(40)));
    claim(&f, "n0", "h.1");
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n0", "h.1", 0, apr_time_now());
    wh_replay_renewer_poke(rn);               /* sleeps until it is due */
    /* waited for with a bound */
    for (i = 0; i < 1000 && !held_by(&f, "n0", ""); i++)
        apr_sleep(apr_time_from_msec(10));
    CU_ASSERT(held_by(&f, "n0", ""));
    CU_ASSERT_EQUAL(wh_replay_renewer_passes(rn), 0);
    /* the store is down: the entry waits; it answers again, a poke */
    apr_thread_mutex_lock(f.mu);
    f.down = 1;
    apr_thread_mutex_unlock(f.mu);
    claim(&f, "n1", "h.2");
    wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, "n1", "h.2", 0, apr_time_now());
    wh_replay_renewer_poke(rn);
    for (i = 0; i < 1000 && f.forgets < 2; i++)
        apr_sleep(apr_time_from_msec(10));
    apr_thread_mutex_lock(f.mu);
    f.down = 0;
    apr_thread_mutex_unlock(f.mu);
    if (wh_replay_settle_answered(s, st))
        wh_replay_renewer_poke(rn);
    for (i = 0; i < 1000 && !held_by(&f, "n1", ""); i++)
        apr_sleep(apr_time_from_msec(10));
    CU_ASSERT(held_by(&f, "n1", ""));
    apr_pool_destroy(p);                      /* joins the thread */
}

static const wh_test_case cases[] = {
    { "a lost claim the store made is released", test_made_claim_released },
    { "a claim made after the first try: the second releases it", test_late_claim_released_by_second_try },
    { "nothing there twice: done; another's claim is kept", test_nothing_twice_done_and_others_kept },
    { "a store that does not answer: tried again, others wait", test_unreachable_store },
    { "the store answered: what waited is due now", test_answered_makes_due },
    { "a confirm is retried until the store takes it", test_confirm_retried },
    { "the list is bounded", test_bounded },
    { "a copy finding its id held settles it now", test_settle_id_now },
    { "claims through the list: a lost claim is owed, then settled", test_claims_through_the_list },
    { "a stalled store is asked before it is sent a release", test_stalled_store_asked_first },
    { "the renewal thread settles by itself", test_renewer_thread_settles },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_settle, cases)
