#ifndef WH_CLI_FORWARD_HTTP_H
#define WH_CLI_FORWARD_HTTP_H
/* The forwarder's HTTP client: libcurl's multi interface, many requests
 * in flight on kept-alive connections, each request exactly the one
 * wh_forward_headers() describes. */
#include <apr_pools.h>
#include "forward/wh_forward.h"

/* How much of an answer's body is kept (for the dead letters and the
 * log); the rest is read and dropped so the connection stays usable. */
#define WH_FWD_KEEP_BODY 1024

typedef struct {
    void *baton;                 /* as given to wh_fwd_http_start */
    int answered;                /* a status line arrived */
    long status;                 /* its code */
    const char *error;           /* !answered: what went wrong */
    apr_int64_t retry_after_ms;  /* the answer's Retry-After, or -1 */
    const char *body;            /* the first WH_FWD_KEEP_BODY bytes */
    apr_size_t body_len;
    apr_int64_t elapsed_ms;      /* start to end of the attempt */
} wh_fwd_result;

typedef struct wh_fwd_http wh_fwd_http;

/* At most cfg->forward_concurrency requests at once to cfg->forward_url,
 * signed with secret (NULL: set it before the first request starts).
 * NULL and *err on failure. */
wh_fwd_http *wh_fwd_http_create(apr_pool_t *p, const wh_config *cfg,
                                const wh_secret *secret, const char **err);
/* The secret the requests started from now on are signed with (it must
 * stay valid until the next request starts). */
void wh_fwd_http_set_secret(wh_fwd_http *h, const wh_secret *secret);

/* Starts one attempt; the event is copied, baton is handed back in the
 * result. 0, or -1 when the request could not be built (the caller
 * treats it as a failed attempt). */
int wh_fwd_http_start(wh_fwd_http *h, const wh_fwd_event *ev, void *baton);

int wh_fwd_http_inflight(const wh_fwd_http *h);

/* Moves the transfers on, waiting at most wait_ms for something to
 * happen, and calls done once per finished attempt (its result and
 * strings live until done returns). Returns how many finished. */
typedef void (*wh_fwd_done_fn)(void *ctx, const wh_fwd_result *r);
int wh_fwd_http_run(wh_fwd_http *h, int wait_ms, wh_fwd_done_fn done, void *ctx);

/* Cancels what is in flight (no callbacks) and frees everything. */
void wh_fwd_http_destroy(wh_fwd_http *h);

#endif
