#ifndef WH_METRICS_H
#define WH_METRICS_H
/* wirehook's metrics for Prometheus, host-neutral: the module's
 * `SetHandler wirehook-metrics` (and wirehook.cgi's /metrics) gathers
 * plain numbers into a wh_metrics -- its own counters, the replay
 * store's state, and the inbox's and the forwarder's figures read by
 * wh_metrics_read_inbox -- and wh_metrics_render writes the exposition
 * text. docs/monitoring.md lists every metric; a figure a host does not
 * know is left out, never shown as 0. */
#include <apr_pools.h>
#include <apr_time.h>
#include "verify/wh_config.h"
#include "inbox/wh_inbox.h"
#include "forward/wh_forward_queue.h"

#define WH_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Verification latency's buckets, the one list: upper bounds in
 * microseconds, fine below a millisecond (checks that need no disk),
 * up to seconds (a synced commit on a slow disk, a slow client's upload).
 * A host keeps one count per bucket, plus one for larger. */
#define WH_METRICS_LATENCY_BOUNDS(X)                                          \
    X(500) X(1000) X(2500) X(5000) X(10000) X(25000) X(50000) X(100000)        \
    X(250000) X(500000) X(1000000) X(2500000) X(5000000) X(10000000)
#define WH_METRICS_COUNT_ONE(us) +1
enum {
    WH_METRICS_LATENCY_BOUNDS_N = 0 WH_METRICS_LATENCY_BOUNDS(WH_METRICS_COUNT_ONE),
    WH_METRICS_LATENCY_BUCKETS = WH_METRICS_LATENCY_BOUNDS_N + 1
};
/* The bucket a duration is counted in: the first bound it does not
 * exceed, WH_METRICS_LATENCY_BOUNDS_N above every bound. */
int wh_metrics_latency_bucket(apr_interval_time_t took);

/* One answer counted: "accepted", "duplicate", an error code of
 * WH_CODES, or "other". */
typedef struct {
    const char *code;
    apr_uint64_t n;
} wh_metrics_answer;

/* One configuration's figures. */
typedef struct {
    const char *config;                 /* its path: the label */

    /* the host's counters (counted 0: it keeps none for it) */
    int counted;
    const wh_metrics_answer *answers;
    int nanswers;
    apr_uint64_t inbox_stored, inbox_duplicate, inbox_unavailable;
    /* per bucket (not cumulative), and their sum in microseconds */
    apr_uint64_t latency[WH_METRICS_LATENCY_BUCKETS];
    apr_uint64_t latency_sum_us;

    /* the replay store (provider NULL: none) */
    const char *replay_provider;
    int replay_up;                      /* it answered, or needs no asking */
    int replay_fill_known;
    apr_uint64_t replay_live, replay_capacity;  /* capacity 0: no fixed one */

    /* wh_metrics_read_inbox fills the rest */
    int has_inbox;                      /* InboxParams */
    int inbox_up;                       /* every read of this scrape answered */
    apr_int64_t events;                 /* listed */
    apr_int64_t quarantined;            /* held, not released */
    /* When the inbox was last purged; 0: it records none. The inbox keeps
     * no purge yet (retention is to come: issue 35): when it records one,
     * wh_metrics_read_inbox reads it here and the gauge appears. */
    apr_time_t last_purge;
    int forwards;                       /* ForwardUrl beside the inbox */
    int forward_known;                  /* the figures below were read */
    apr_int64_t backlog;                /* neither forwarded nor dead */
    apr_int64_t unqueued;               /* not yet taken in by a forwarder */
    apr_int64_t retrying;
    apr_int64_t dead;
    double lag_seconds;                 /* age of the oldest in backlog */
    int attempts_known;
    wh_fq_totals attempts;
} wh_metrics_config;

typedef struct {
    const char *version;
    apr_time_t counters_since;          /* 0: the host keeps no counters */
    const wh_metrics_config *configs;
    int nconfigs;
} wh_metrics;

/* Reads the inbox's figures into m (has_inbox, forwards and the rest),
 * with a bounded number of indexed reads: their cost follows the
 * backlog, the dead letters and the quarantine, never the number of
 * events stored. ib NULL: the inbox could not be opened (inbox_up 0). */
void wh_metrics_read_inbox(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                           apr_time_t now, wh_metrics_config *m);

/* The exposition text (NUL-terminated, in p), *len its length. */
const char *wh_metrics_render(apr_pool_t *p, const wh_metrics *m,
                              apr_size_t *len);

#endif
