/* apr_dbd_open_ex with a deadline (see wh_replay_dbd_open.h). */
#include "wh_replay_dbd_open.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

/* Allocated, not in a pool: an attempt given up on outlives the pool the
 * opener was made in, and the last of them frees it. */
struct wh_dbd_opener {
    pthread_mutex_t mu;                /* guards what follows and every
                                          attempt's fields */
    pthread_cond_t ended;              /* an attempt ended */
    int refs;                          /* the pool's, one per attempt */
    int left;                          /* attempts given up on, running */
};

typedef struct {
    wh_dbd_opener *o;
    const apr_dbd_driver_t *drv;
    apr_pool_t *cp;
    const char *params;
    int done, abandoned;
    apr_status_t rv;
    apr_dbd_t *h;
    const char *err;
} attempt;

/* Under o->mu, which it releases: one reference fewer. */
static void opener_unref(wh_dbd_opener *o)
{
    int last = --o->refs == 0;

    pthread_mutex_unlock(&o->mu);
    if (last) {
        pthread_cond_destroy(&o->ended);
        pthread_mutex_destroy(&o->mu);
        free(o);
    }
}

static apr_status_t opener_cleanup(void *data)
{
    wh_dbd_opener *o = data;

    pthread_mutex_lock(&o->mu);
    opener_unref(o);
    return APR_SUCCESS;
}

const char *wh_dbd_opener_create(apr_pool_t *p, wh_dbd_opener **out)
{
    wh_dbd_opener *o = calloc(1, sizeof(*o));
    pthread_condattr_t ca;

    *out = NULL;
    if (!o)
        return "out of memory";
    if (pthread_condattr_init(&ca) != 0) {
        free(o);
        return "cannot create a condition";
    }
    (void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&o->mu, NULL) != 0) {
        pthread_condattr_destroy(&ca);
        free(o);
        return "cannot create a mutex";
    }
    if (pthread_cond_init(&o->ended, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&o->mu);
        free(o);
        return "cannot create a condition";
    }
    pthread_condattr_destroy(&ca);
    o->refs = 1;
    apr_pool_cleanup_register(p, o, opener_cleanup, apr_pool_cleanup_null);
    *out = o;
    return NULL;
}

static void *attempt_run(void *data)
{
    attempt *a = data;
    wh_dbd_opener *o = a->o;
    apr_dbd_t *h = NULL;
    const char *err = NULL;
    apr_status_t rv = apr_dbd_open_ex(a->drv, a->cp, a->params, &h, &err);

    pthread_mutex_lock(&o->mu);
    if (a->abandoned) {
        /* nobody waits for it: what it opened goes */
        o->left--;
        if (rv == APR_SUCCESS && h)
            apr_dbd_close(a->drv, h);
        apr_pool_destroy(a->cp);
        free(a);
    }
    else {
        a->done = 1;
        a->rv = rv;
        a->h = h;
        a->err = err;
        pthread_cond_broadcast(&o->ended);
    }
    opener_unref(o);
    return NULL;
}

/* now + t on the monotonic clock */
static struct timespec deadline_in(apr_interval_time_t t)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)apr_time_sec(t);
    ts.tv_nsec += (long)apr_time_usec(t) * 1000;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

apr_status_t wh_dbd_open_within(wh_dbd_opener *o, const apr_dbd_driver_t *drv,
                                apr_pool_t *cp, const char *params,
                                apr_interval_time_t timeout, apr_dbd_t **h,
                                const char **err)
{
    attempt *a;
    pthread_attr_t attr;
    pthread_t t;
    sigset_t all, old;
    struct timespec until = deadline_in(timeout);
    apr_status_t rv;
    int rc;

    *h = NULL;
    *err = NULL;
    pthread_mutex_lock(&o->mu);
    if (o->left > 0) {
        pthread_mutex_unlock(&o->mu);
        return APR_EBUSY;
    }
    pthread_mutex_unlock(&o->mu);
    if (!(a = calloc(1, sizeof(*a)))) {
        *err = "out of memory";
        return APR_ENOMEM;
    }
    a->o = o;
    a->drv = drv;
    a->cp = cp;
    a->params = params;
    pthread_mutex_lock(&o->mu);
    o->refs++;
    pthread_mutex_unlock(&o->mu);
    /* detached, and born with every signal blocked (they are the
     * process's main thread's) */
    rc = pthread_attr_init(&attr);
    if (rc == 0) {
        (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        rc = pthread_create(&t, &attr, attempt_run, a);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_lock(&o->mu);
    if (rc != 0) {
        free(a);
        opener_unref(o);
        *err = "cannot start a thread to connect";
        return APR_EGENERAL;
    }
    while (!a->done
           && pthread_cond_timedwait(&o->ended, &o->mu, &until) != ETIMEDOUT)
        ;
    if (!a->done) {
        a->abandoned = 1;
        o->left++;
        pthread_mutex_unlock(&o->mu);
        return APR_TIMEUP;
    }
    pthread_mutex_unlock(&o->mu);
    rv = a->rv;
    *h = rv == APR_SUCCESS ? a->h : NULL;
    *err = a->err;
    free(a);
    return rv;
}
