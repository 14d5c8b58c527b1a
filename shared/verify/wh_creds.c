/* Credentials re-read when their files change (wh_creds.h). */
#include "wh_creds.h"
#include "wh_account.h"
#include "wh_auth.h"
#include "wh_signature.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { WH_CREDS_SECRETS = 0, WH_CREDS_USERS = 1, WH_CREDS_KINDS = 2 };

struct wh_creds_version {
    apr_pool_t *pool;          /* its own; NULL for the configuration's */
    void *data;                /* apr_array_header_t * or apr_hash_t * */
    unsigned generation;
    unsigned refs;             /* callers holding it (under lock) */
};

typedef struct {
    const char *key;           /* the configuration key, for messages */
    const char *path;          /* NULL: nothing to re-read */
    wh_creds_version *current; /* under lock */
    wh_file_id seen;           /* the file when last looked at */
} slot;

struct wh_creds {
    apr_thread_mutex_t *lock;      /* each slot's current, refs */
    apr_thread_mutex_t *reloading; /* one look at the files at a time */
    apr_pool_t *stat_pool;         /* apr_stat's (it allocates nothing) */
    slot slots[WH_CREDS_KINDS];
    int watching;                  /* a slot has a file to look at */
    _Atomic apr_time_t looked_at;
    _Atomic int looking;           /* a look holds reloading (what every
                                    * request reads: a load, where trying
                                    * the lock would write its line) */
    apr_interval_time_t every;
    apr_interval_time_t wait;      /* for a look under way, at most */
    _Atomic unsigned long reloads;
};

/* A version still held when the verifier's pool goes is the caller's
 * bug; the ones nobody holds go with it. */
static apr_status_t destroy_versions(void *data)
{
    wh_creds *c = data;

    for (int i = 0; i < WH_CREDS_KINDS; i++) {
        wh_creds_version *v = c->slots[i].current;
        c->slots[i].current = NULL;
        if (v && v->pool && v->refs == 0)
            apr_pool_destroy(v->pool);
    }
    return APR_SUCCESS;
}

static void init_slot(apr_pool_t *p, slot *s, const char *key,
                      const char *path, void *data, const wh_file_id *id)
{
    s->key = key;
    s->path = path;
    s->current = apr_pcalloc(p, sizeof(*s->current));
    s->current->data = data;
    s->seen = *id;
}

wh_creds *wh_creds_create(apr_pool_t *p, const wh_config *cfg)
{
    wh_creds *c = apr_pcalloc(p, sizeof(*c));

    if (apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, p)
            != APR_SUCCESS
        || apr_thread_mutex_create(&c->reloading, APR_THREAD_MUTEX_TIMED, p)
            != APR_SUCCESS
        || apr_pool_create(&c->stat_pool, p) != APR_SUCCESS)
        return NULL;
    /* a file that was never loaded (the configuration did not ask for
     * it) is not watched either */
    init_slot(p, &c->slots[WH_CREDS_SECRETS], "SigningSecretFile",
              cfg->secrets ? cfg->signing_secret_file : NULL, cfg->secrets,
              &cfg->secrets_id);
    init_slot(p, &c->slots[WH_CREDS_USERS], "BasicAuthFile",
              cfg->users ? cfg->basic_auth_file : NULL, cfg->users,
              &cfg->users_id);
    c->watching = c->slots[WH_CREDS_SECRETS].path || c->slots[WH_CREDS_USERS].path;
    c->every = WH_CREDS_INTERVAL;
    c->wait = WH_CREDS_LOOK_WAIT;
    atomic_init(&c->looked_at, apr_time_now());
    atomic_init(&c->looking, 0);
    atomic_init(&c->reloads, 0);
    apr_pool_cleanup_register(p, c, destroy_versions, apr_pool_cleanup_null);
    return c;
}

void wh_creds_set_interval(wh_creds *c, apr_interval_time_t every)
{
    if (c)
        c->every = every < 0 ? 0 : every;
}

void wh_creds_set_look_wait(wh_creds *c, apr_interval_time_t wait)
{
    if (c)
        c->wait = wait < 0 ? 0 : wait;
}

unsigned long wh_creds_reloads(const wh_creds *c)
{
    return c ? atomic_load(&c->reloads) : 0;
}

/* Reads one file into a pool of its own (*out, set in both cases: the
 * error lives in it); NULL, or why not. */
static const char *read_version(int kind, const char *path, apr_pool_t **out,
                                void **data, wh_file_id *id)
{
    /* its own allocator: freed by whichever thread lets go of it last,
     * and never allocated from by two threads at once */
    if (apr_pool_create_unmanaged_ex(out, NULL, NULL) != APR_SUCCESS) {
        *out = NULL;
        return "out of memory";
    }
    if (kind == WH_CREDS_SECRETS)
        return wh_secrets_load_ex(*out, path, (apr_array_header_t **)data, id);
    return wh_htpasswd_load_ex(*out, path, (apr_hash_t **)data, id);
}

static unsigned count_of(int kind, const void *data)
{
    return kind == WH_CREDS_SECRETS
           ? (unsigned)((const apr_array_header_t *)data)->nelts
           : apr_hash_count((apr_hash_t *)data);
}

/* Called by one thread at a time (c->reloading). */
static void refresh(wh_creds *c, int kind, const wh_logger *log)
{
    slot *s = &c->slots[kind];
    wh_file_id id;
    wh_creds_version *v, *old;
    apr_pool_t *np = NULL;
    void *data = NULL;
    const char *err;
    int drop;

    if (wh_file_id_of(c->stat_pool, s->path, &id) != APR_SUCCESS)
        memset(&id, 0, sizeof(id));   /* gone: tried once, below */
    if (wh_file_id_same(&id, &s->seen))
        return;
    s->seen = id;
    err = read_version(kind, s->path, &np, &data, &id);
    if (err) {
        char who[64];
        wh_logf(log, WH_LOG_WARN, "%s %s changed but cannot be read as "
                "user %s: %s; the version read before stays in use",
                s->key, s->path, wh_user_name(who, sizeof(who), geteuid()),
                err);
        if (np)
            apr_pool_destroy(np);
        return;
    }
    s->seen = id;
    v = apr_pcalloc(np, sizeof(*v));
    v->pool = np;
    v->data = data;
    apr_thread_mutex_lock(c->lock);
    old = s->current;
    v->generation = old->generation + 1;
    s->current = v;
    drop = old->refs == 0 && old->pool != NULL;
    apr_thread_mutex_unlock(c->lock);
    if (drop)
        apr_pool_destroy(old->pool);
    atomic_fetch_add(&c->reloads, 1);
    wh_logf(log, WH_LOG_INFO, "%s %s changed: re-read (%u %s)", s->key,
            s->path, count_of(kind, data),
            kind == WH_CREDS_SECRETS ? "secrets" : "users");
}

/* At most once per c->every (either way: a clock set back does not stop
 * the looks), by one thread at a time. A request that finds a look under
 * way waits for it: that look began less than an interval before the
 * request, so it may be reading a change made an interval before the
 * request began, which the request must be checked against
 * (docs/security.md: "a second after a change, every request is checked
 * against the new file"). It waits c->wait at most: a file system that
 * stalls (a hung NFS server) holds up the looking thread, not the whole
 * child, whose requests then go on with the version in use. */
static int due(const wh_creds *c, apr_time_t now)
{
    apr_interval_time_t since = now - atomic_load(&c->looked_at);
    return since >= c->every || since <= -c->every;
}

static void look(wh_creds *c, apr_time_t now, const wh_logger *log)
{
    if (!c->watching)
        return;
    if (!due(c, now)) {
        /* looked_at is stored after looking is set: a look that moved
         * it and is not finished shows here */
        if (atomic_load(&c->looking)
            && apr_thread_mutex_timedlock(c->reloading, c->wait) == APR_SUCCESS)
            apr_thread_mutex_unlock(c->reloading);
        return;
    }
    if (apr_thread_mutex_timedlock(c->reloading, c->wait) != APR_SUCCESS)
        return;
    if (due(c, now)) {        /* not done meanwhile by the thread waited for */
        atomic_store(&c->looking, 1);
        atomic_store(&c->looked_at, now);
        for (int i = 0; i < WH_CREDS_KINDS; i++)
            if (c->slots[i].path)
                refresh(c, i, log);
        atomic_store(&c->looking, 0);
    }
    apr_thread_mutex_unlock(c->reloading);
}

static void *hold(wh_creds *c, int kind, apr_time_t now, const wh_logger *log,
                  wh_creds_version **held, unsigned *generation)
{
    wh_creds_version *v;

    look(c, now, log);
    apr_thread_mutex_lock(c->lock);
    v = c->slots[kind].current;
    v->refs++;
    apr_thread_mutex_unlock(c->lock);
    *held = v;
    if (generation)
        *generation = v->generation;
    return v->data;
}

const apr_array_header_t *wh_creds_secrets(wh_creds *c, apr_time_t now,
                                           const wh_logger *log,
                                           wh_creds_version **held)
{
    return hold(c, WH_CREDS_SECRETS, now, log, held, NULL);
}

apr_hash_t *wh_creds_users(wh_creds *c, apr_time_t now, const wh_logger *log,
                           wh_creds_version **held, unsigned *generation)
{
    return hold(c, WH_CREDS_USERS, now, log, held, generation);
}

void wh_creds_release(wh_creds *c, wh_creds_version *held)
{
    int drop;

    if (!c || !held)
        return;
    apr_thread_mutex_lock(c->lock);
    held->refs--;
    drop = held->refs == 0 && held->pool != NULL
           && held != c->slots[WH_CREDS_SECRETS].current
           && held != c->slots[WH_CREDS_USERS].current;
    apr_thread_mutex_unlock(c->lock);
    if (drop)
        apr_pool_destroy(held->pool);
}
