/* A thread that shuts down the socket of a wait a silent server never
 * answers (see wh_sock_watch.h). */
#include "wh_sock_watch.h"
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
    int fd;                            /* -1: free */
    apr_time_t deadline;
    int cut;                           /* shut down at its deadline */
} watch_slot;

struct wh_sock_watch {
    apr_pool_t *pool;
    apr_thread_mutex_t *mu;            /* guards what follows */
    apr_thread_cond_t *wake;
    watch_slot *slots;
    int nslots;
    apr_thread_t *thread;
    pid_t thread_pid;                  /* the process that started it */
    apr_time_t wake_at;                /* when the thread wakes by itself,
                                          0: not before it is woken */
    int stopping;
};

/* Sleeps until the earliest deadline, and shuts down a socket whose
 * deadline passed, under the lock a watch ends under. */
static void *APR_THREAD_FUNC watch_thread(apr_thread_t *t, void *data)
{
    wh_sock_watch *w = data;

    apr_thread_mutex_lock(w->mu);
    while (!w->stopping) {
        apr_time_t now = apr_time_now(), next = 0;

        for (int i = 0; i < w->nslots; i++) {
            watch_slot *s = &w->slots[i];
            if (s->fd < 0 || s->cut)
                continue;
            if (s->deadline <= now) {
                (void)shutdown(s->fd, SHUT_RDWR);
                s->cut = 1;
            }
            else if (next == 0 || s->deadline < next)
                next = s->deadline;
        }
        w->wake_at = next;
        if (next == 0)
            apr_thread_cond_wait(w->wake, w->mu);
        else
            apr_thread_cond_timedwait(w->wake, w->mu, next - now);
    }
    apr_thread_mutex_unlock(w->mu);
    (void)t;
    return NULL;
}

/* A pre-cleanup: the thread stops before the pool's memory goes. A child
 * process never joins its parent's thread, which it does not have. */
static apr_status_t watch_stop(void *data)
{
    wh_sock_watch *w = data;
    apr_status_t ignored;

    if (w->thread && w->thread_pid == getpid()) {
        apr_thread_mutex_lock(w->mu);
        w->stopping = 1;
        apr_thread_cond_signal(w->wake);
        apr_thread_mutex_unlock(w->mu);
        apr_thread_join(&ignored, w->thread);
    }
    w->thread = NULL;
    return APR_SUCCESS;
}

/* Under mu: the thread of this process, started on first use, born with
 * every signal blocked (they are the process's main thread's). */
static int thread_started(wh_sock_watch *w)
{
    apr_threadattr_t *attr = NULL;
    sigset_t all, old;
    apr_status_t rv = APR_EGENERAL;

    if (w->thread && w->thread_pid == getpid())
        return 1;
    if (w->thread) {
        /* forked since: the parent's thread and watches are not ours */
        w->thread = NULL;
        w->wake_at = 0;
        for (int i = 0; i < w->nslots; i++)
            w->slots[i].fd = -1;
    }
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (apr_threadattr_create(&attr, w->pool) == APR_SUCCESS)
        rv = apr_thread_create(&w->thread, attr, watch_thread, w, w->pool);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rv != APR_SUCCESS)
        w->thread = NULL;
    else
        w->thread_pid = getpid();
    return w->thread != NULL;
}

const char *wh_sock_watch_create(apr_pool_t *p, int nslots, wh_sock_watch **out)
{
    wh_sock_watch *w = apr_pcalloc(p, sizeof(*w));

    *out = NULL;
    w->pool = p;
    w->nslots = nslots > 0 ? nslots : 1;
    w->slots = apr_palloc(p, sizeof(*w->slots) * (apr_size_t)w->nslots);
    for (int i = 0; i < w->nslots; i++)
        w->slots[i].fd = -1;
    if (apr_thread_mutex_create(&w->mu, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS)
        return "cannot create a mutex";
    if (apr_thread_cond_create(&w->wake, p) != APR_SUCCESS)
        return "cannot create a condition";
    apr_pool_pre_cleanup_register(p, w, watch_stop);
    *out = w;
    return NULL;
}

int wh_sock_watch_begin(wh_sock_watch *w, int fd, apr_interval_time_t timeout)
{
    int slot = -1;

    if (!w || fd < 0)
        return -1;
    apr_thread_mutex_lock(w->mu);
    if (!w->stopping && thread_started(w))
        for (int i = 0; i < w->nslots && slot < 0; i++)
            if (w->slots[i].fd < 0)
                slot = i;
    if (slot >= 0) {
        apr_time_t deadline = apr_time_now() + timeout;
        w->slots[slot].fd = fd;
        w->slots[slot].cut = 0;
        w->slots[slot].deadline = deadline;
        /* woken only when it would sleep past this deadline: a watch
         * begun per unit of work costs no wake-up while an earlier one
         * is due */
        if (w->wake_at == 0 || deadline < w->wake_at)
            apr_thread_cond_signal(w->wake);
    }
    apr_thread_mutex_unlock(w->mu);
    return slot;
}

int wh_sock_watch_renew(wh_sock_watch *w, int slot, apr_interval_time_t timeout)
{
    int cut;

    if (!w || slot < 0 || slot >= w->nslots)
        return 0;
    apr_thread_mutex_lock(w->mu);
    cut = w->slots[slot].cut;
    /* a later deadline needs no wake-up: the thread finds it when the
     * earlier one comes */
    if (!cut)
        w->slots[slot].deadline = apr_time_now() + timeout;
    apr_thread_mutex_unlock(w->mu);
    return cut;
}

int wh_sock_watch_end(wh_sock_watch *w, int slot)
{
    int cut;

    if (!w || slot < 0 || slot >= w->nslots)
        return 0;
    apr_thread_mutex_lock(w->mu);
    cut = w->slots[slot].cut;
    w->slots[slot].fd = -1;
    w->slots[slot].cut = 0;
    apr_thread_mutex_unlock(w->mu);
    return cut;
}

/* ---- a database client's socket --------------------------------------- */

/* libpq's PQsocket and the MySQL client's mysql_get_socket, from the
 * libraries apr_dbd's drivers loaded (as inbox/wh_sqlite_api.c finds
 * SQLite's): wirehook links neither client. */
typedef int (*client_socket_fn)(const void *conn);
static client_socket_fn pq_socket, my_socket;
static pthread_once_t client_once = PTHREAD_ONCE_INIT;

static void client_lookup(void)
{
    pq_socket = (client_socket_fn)dlsym(RTLD_DEFAULT, "PQsocket");
    my_socket = (client_socket_fn)dlsym(RTLD_DEFAULT, "mysql_get_socket");
}

int wh_sock_watch_dbd_socket(const apr_dbd_driver_t *drv, apr_dbd_t *handle)
{
    client_socket_fn fn;
    const void *native;

    if (!drv || !handle)
        return -1;
    pthread_once(&client_once, client_lookup);
    if (strcmp(apr_dbd_name(drv), "pgsql") == 0)
        fn = pq_socket;
    else if (strcmp(apr_dbd_name(drv), "mysql") == 0)
        fn = my_socket;
    else
        return -1;
    native = fn ? apr_dbd_native_handle(drv, handle) : NULL;
    return native ? fn(native) : -1;
}

const char *wh_sock_watch_pq_conninfo(apr_pool_t *p, const char *conninfo,
                                      apr_interval_time_t timeout)
{
    apr_int64_t secs = apr_time_sec(timeout);

    if (conninfo == NULL || strstr(conninfo, "connect_timeout") != NULL)
        return conninfo;
    if (secs < 2)
        secs = 2;                      /* libpq's least */
    if (strncmp(conninfo, "postgresql://", 13) == 0
        || strncmp(conninfo, "postgres://", 11) == 0)
        return apr_psprintf(p, "%s%sconnect_timeout=%" APR_INT64_T_FMT, conninfo,
                            strchr(conninfo, '?') ? "&" : "?", secs);
    return apr_psprintf(p, "%s connect_timeout=%" APR_INT64_T_FMT, conninfo, secs);
}
