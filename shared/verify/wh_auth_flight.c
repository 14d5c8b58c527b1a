/* One password check per credential at a time (see wh_auth_flight.h). */
#include "wh_auth_flight.h"
#include "wh_auth.h"
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <openssl/crypto.h>
#include <string.h>

/* Credentials checked at once in one process: more is no bank's traffic
 * (one user, a rotation's second at most), and beyond it checks go alone. */
#define WH_AUTH_FLIGHTS 8
/* A waiter checks by itself after this: a leader never takes this long
 * unless the machine is starved, and then waiting on gains nothing. */
#define WH_AUTH_FLIGHT_WAIT apr_time_from_sec(10)

struct wh_auth_flight {
    unsigned char key[WH_AUTH_FLIGHT_KEY_LEN];
    unsigned generation;
    int busy;           /* checking, or landed with waiters still to read */
    int landed;
    unsigned waiters;
    int ok;
    char user[WH_AUTH_MAX_USER + 1];
};

struct wh_auth_flights {
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *landed;
    wh_auth_flight slot[WH_AUTH_FLIGHTS];
};

wh_auth_flights *wh_auth_flights_create(apr_pool_t *p)
{
    wh_auth_flights *f = apr_pcalloc(p, sizeof(*f));

    if (apr_thread_mutex_create(&f->lock, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS
        || apr_thread_cond_create(&f->landed, p) != APR_SUCCESS)
        return NULL;
    return f;
}

static wh_auth_flight *under_way(wh_auth_flights *f, const unsigned char *key,
                                 unsigned generation)
{
    for (int i = 0; i < WH_AUTH_FLIGHTS; i++) {
        wh_auth_flight *s = &f->slot[i];
        if (s->busy && !s->landed && s->generation == generation
            && CRYPTO_memcmp(s->key, key, WH_AUTH_FLIGHT_KEY_LEN) == 0)
            return s;
    }
    return NULL;
}

static wh_auth_flight *free_slot(wh_auth_flights *f)
{
    for (int i = 0; i < WH_AUTH_FLIGHTS; i++)
        if (!f->slot[i].busy)
            return &f->slot[i];
    return NULL;
}

/* The last reader of a landed flight frees its slot. Under the lock. */
static void leave(wh_auth_flight *s)
{
    if (s->landed && s->waiters == 0)
        s->busy = 0;
}

/* Waits on s under the lock; 1 when it landed, 0 after the bound. */
static int wait_landed(wh_auth_flights *f, wh_auth_flight *s)
{
    apr_time_t until = apr_time_now() + WH_AUTH_FLIGHT_WAIT, left;

    while (!s->landed && (left = until - apr_time_now()) > 0)
        (void)apr_thread_cond_timedwait(f->landed, f->lock, left);
    return s->landed;
}

wh_flight_role wh_auth_flights_join(wh_auth_flights *f,
                                    const unsigned char key[WH_AUTH_FLIGHT_KEY_LEN],
                                    unsigned generation, apr_pool_t *p, int *ok,
                                    const char **user, wh_auth_flight **mine)
{
    wh_flight_role role = WH_FLIGHT_ALONE;
    wh_auth_flight *s;

    *mine = NULL;
    if (!f)
        return WH_FLIGHT_ALONE;
    apr_thread_mutex_lock(f->lock);
    if ((s = under_way(f, key, generation)) != NULL) {
        s->waiters++;
        if (wait_landed(f, s)) {
            role = WH_FLIGHT_SHARED;
            *ok = s->ok;
            *user = s->ok ? apr_pstrdup(p, s->user) : NULL;
        }
        s->waiters--;
        leave(s);
    } else if ((s = free_slot(f)) != NULL) {
        memcpy(s->key, key, WH_AUTH_FLIGHT_KEY_LEN);
        s->generation = generation;
        s->busy = 1;
        s->landed = 0;
        s->waiters = 0;
        *mine = s;
        role = WH_FLIGHT_LEAD;
    }
    apr_thread_mutex_unlock(f->lock);
    return role;
}

void wh_auth_flights_land(wh_auth_flights *f, wh_auth_flight *mine, int ok,
                          const char *user)
{
    if (!f || !mine)
        return;
    apr_thread_mutex_lock(f->lock);
    mine->ok = ok && user && strlen(user) <= WH_AUTH_MAX_USER;
    apr_cpystrn(mine->user, mine->ok ? user : "", sizeof(mine->user));
    mine->landed = 1;
    leave(mine);
    apr_thread_cond_broadcast(f->landed);
    apr_thread_mutex_unlock(f->lock);
}

unsigned wh_auth_flights_waiters(wh_auth_flights *f)
{
    unsigned n = 0;

    if (!f)
        return 0;
    apr_thread_mutex_lock(f->lock);
    for (int i = 0; i < WH_AUTH_FLIGHTS; i++)
        n += f->slot[i].waiters;
    apr_thread_mutex_unlock(f->lock);
    return n;
}
