#ifndef WH_CLI_PROBE_HTTP_H
#define WH_CLI_PROBE_HTTP_H
/* wirehook probe's HTTP side: libcurl's multi interface sends the core's
 * requests (shared/probe) to one URL, several at once when a probe is
 * slow on purpose, and turns what comes back into answers to grade. */
#include "probe/wh_probe.h"
#include <apr_pools.h>

typedef struct probe_http probe_http;
typedef struct probe_transfer probe_transfer;

typedef struct {
    const char *url;         /* every request goes here, and only here */
    const char *cacert;      /* CA bundle for https, or NULL */
    int insecure;            /* no TLS verification */
    long timeout;            /* seconds per request */
    apr_int64_t stall_limit; /* seconds a stalled request is held */
} probe_http_opts;

/* Called once per transfer when it ends (answered, failed, or given up). */
typedef void (*probe_done_fn)(void *ctx, probe_transfer *t,
                              const wh_probe_answer *answer);

const char *probe_http_create(apr_pool_t *p, const probe_http_opts *o,
                              probe_http **out);
void probe_http_destroy(probe_http *h);

/* Starts sending req (paced as req->pace says). NULL when curl refuses. */
probe_transfer *probe_http_start(probe_http *h, const wh_probe_req *req,
                                 probe_done_fn done, void *ctx);
/* Runs transfers for at most wait: reads answers, releases paced bytes
 * when their time comes, gives up stalled requests at the limit, and
 * calls the done functions. Returns the number still running. */
int probe_http_step(probe_http *h, apr_interval_time_t wait);

/* The server's time for a finished transfer, in microseconds: from the
 * request sent to the first byte of the answer. */
double probe_transfer_server_time(const probe_transfer *t);
/* The Date header of the answer, or 0; when the transfer started. */
apr_time_t probe_transfer_date(const probe_transfer *t);
apr_time_t probe_transfer_started(const probe_transfer *t);

/* GETs url (userinfo becomes Basic credentials) or reads a file, at most
 * max bytes. Returns NULL or an error that never shows the userinfo. */
const char *probe_http_fetch(apr_pool_t *p, const probe_http_opts *o,
                             const char *source, apr_size_t max,
                             const char **body, apr_size_t *len);

#endif
