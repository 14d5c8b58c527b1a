/* wirehook.cgi under a FastCGI server (mod_fcgid): one process answers
 * request after request, through the FastCGI library (libfcgi's FCGX
 * interface, one request at a time), so the configuration, the
 * credentials, the auth cache and the inbox connection that a plain CGI
 * process builds for every request are built once (cgi_site.c).
 *
 * Each request is read only through its own parameters and streams
 * (wh_cgi_io), and everything allocated for it lives in a pool cleared
 * when it has been answered, so neither a variable, a header, a body nor
 * memory carries over from one request to the next.
 *
 * Stopping: mod_fcgid ends a process with SIGTERM (idle too long, too
 * many requests, a graceful restart of httpd), some FastCGI servers with
 * SIGUSR1; SIGKILL follows a few seconds later. Both signals are blocked
 * while a request is served and delivered only while the process waits
 * for the next connection (ppoll), so a request in hand is always
 * answered, and the process then closes its inbox connection and exits. */
#include "cgi.h"
#include <apr_allocator.h>
#include <errno.h>
#include <fcgiapp.h>
#include <openssl/err.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>

/* What a request's pool keeps for the next one when cleared; a larger
 * request (a console page, a listing) gives the rest back. */
#define WH_FCGI_KEEP_FREE (1024 * 1024)

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* libfcgi's own test (FCGX_IsCGI) would first initialise the library,
 * which installs signal handlers and allocates: this is the same
 * getpeername, and costs a plain CGI process nothing else. */
int wh_cgi_fastcgi_listening(void)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof(sa);

    errno = 0;
    return getpeername(0, (struct sockaddr *)&sa, &len) != 0 && errno == ENOTCONN;
}

static apr_ssize_t fcgi_read(void *ctx, char *buf, apr_size_t n)
{
    FCGX_Request *rq = ctx;
    int chunk = n > 65536 ? 65536 : (int)n;
    int got = FCGX_GetStr(buf, chunk, rq->in);

    if (got <= 0 && FCGX_GetError(rq->in) != 0)
        return -1;
    return got;
}

static int fcgi_write(void *ctx, const char *buf, apr_size_t n)
{
    FCGX_Request *rq = ctx;

    while (n > 0) {
        int chunk = n > 65536 ? 65536 : (int)n;
        if (FCGX_PutStr(buf, chunk, rq->out) != chunk)
            return -1;
        buf += chunk;
        n -= (apr_size_t)chunk;
    }
    return FCGX_FFlush(rq->out) == 0 ? 0 : -1;
}

/* FCGI_STDERR: mod_fcgid logs each line in the error log with the
 * request it belongs to. */
static void fcgi_log(void *ctx, const char *line, apr_size_t n)
{
    FCGX_Request *rq = ctx;

    (void)FCGX_PutStr(line, (int)n, rq->err);
    (void)FCGX_FFlush(rq->err);
}

/* Waits for the next connection with the stop signals let through;
 * 0 when one is there, -1 when the process is to stop. */
static int wait_for_connection(const sigset_t *waiting)
{
    struct pollfd pfd = { 0, POLLIN, 0 };

    while (!stop_signal) {
        int n = ppoll(&pfd, 1, NULL, waiting);
        if (n > 0)
            return (pfd.revents & POLLIN) ? 0 : -1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
    return -1;
}

static int catch_stop_signals(sigset_t *stops, sigset_t *waiting)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigemptyset(stops);
    sigaddset(stops, SIGTERM);
    sigaddset(stops, SIGUSR1);
    sa.sa_mask = *stops;
    /* before FCGX_Init, which installs its own only where none is set */
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0
        || sigprocmask(SIG_BLOCK, stops, waiting) != 0)
        return -1;
    sigdelset(waiting, SIGTERM);
    sigdelset(waiting, SIGUSR1);
    return 0;
}

int wh_cgi_fastcgi_run(apr_pool_t *p,
                       void (*serve)(void *ctx, const wh_cgi_io *io, apr_pool_t *rp),
                       void *ctx)
{
    FCGX_Request rq;
    sigset_t stops, waiting;
    apr_allocator_t *alloc;
    apr_pool_t *rp;
    unsigned long served = 0;

    if (catch_stop_signals(&stops, &waiting) != 0 || FCGX_Init() != 0
        || FCGX_InitRequest(&rq, 0, 0) != 0
        || apr_allocator_create(&alloc) != APR_SUCCESS) {
        wh_logf(&wh_cgi_logger, WH_LOG_ERROR, "FastCGI: could not start");
        return 1;
    }
    apr_allocator_max_free_set(alloc, WH_FCGI_KEEP_FREE);
    if (apr_pool_create_ex(&rp, p, NULL, alloc) != APR_SUCCESS)
        return 1;
    apr_allocator_owner_set(alloc, rp);

    while (wait_for_connection(&waiting) == 0 && FCGX_Accept_r(&rq) == 0) {
        wh_cgi_io io = { rq.envp, fcgi_read, fcgi_write, fcgi_log, 1, &rq };

        served++;
        ERR_clear_error();
        wh_cgi_log_to(&io);
        serve(ctx, &io, rp);
        wh_cgi_log_to(NULL);
        FCGX_Finish_r(&rq);
        apr_pool_clear(rp);
    }
    wh_logf(&wh_cgi_logger, WH_LOG_INFO, "FastCGI: process %s after %lu requests",
            stop_signal == SIGTERM ? "stopped by SIGTERM"
            : stop_signal == SIGUSR1 ? "stopped by SIGUSR1"
            : "ends: the server closed its socket", served);
    return 0;
}
