#ifndef WH_FORWARD_H
#define WH_FORWARD_H
/* wirehook forward: the parts of forwarding that are decisions, not I/O.
 * What an answer means (forwarded, retry, rejected), when to try again,
 * when to give up, and the exact request an event becomes. The HTTP
 * client (cli/forward_http.c) and the forward queue in the inbox
 * database (wh_forward_queue.c) build on these. */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "verify/wh_config.h"

/* What one attempt came to. */
typedef enum {
    WH_FWD_FORWARDED = 0,        /* 2xx */
    WH_FWD_RETRY,                /* 408, 429, 5xx, 1xx/3xx, no answer */
    WH_FWD_REJECTED              /* any other 4xx: dead at once */
} wh_fwd_class;

/* answered: an HTTP status line arrived (status is its code); otherwise
 * the connection failed or timed out before one did. */
wh_fwd_class wh_forward_classify(int answered, long status);

/* Delay before the retry that follows failed attempt number `attempt`
 * (1 for the first): d = min(max_ms, min_ms * 2^(attempt-1)), jittered
 * uniformly into [d/2, d] by rnd (any 64-bit random value), so retries
 * of many events spread out but never come sooner than half the
 * schedule. */
apr_int64_t wh_forward_backoff_ms(int attempt, apr_int64_t min_ms,
                                  apr_int64_t max_ms, apr_uint64_t rnd);

/* A Retry-After value (RFC 9110 10.2.3): delta-seconds, or an HTTP-date
 * (IMF-fixdate, RFC 850 or asctime form). 0 with *delay_ms >= 0 (a date
 * in the past is 0), or -1 when the value is neither. Values beyond
 * WH_FWD_RETRY_AFTER_MAX_S are clamped to it. */
#define WH_FWD_RETRY_AFTER_MAX_S (30 * 86400)
int wh_forward_retry_after(const char *value, apr_time_t now,
                           apr_int64_t *delay_ms);

/* What happens to an event after an attempt that was not forwarded. */
typedef struct {
    int dead;                    /* 1: give up (dead letter) */
    apr_time_t next_at;          /* when dead == 0: the next attempt */
    const char *reason;          /* when dead == 1: why, for the operator */
} wh_fwd_plan;

/* attempts: attempts made so far, this one included; first_at: when the
 * first attempt started; retry_after_ms: the answer's Retry-After, or -1.
 * Dead when rejected, when attempts reached ForwardMaxAttempts, or when
 * the next attempt would start later than first_at + ForwardMaxAge. A
 * Retry-After longer than the backoff is waited for in full. */
void wh_forward_plan(apr_pool_t *p, const wh_config *cfg, wh_fwd_class c,
                     int attempts, apr_time_t first_at, apr_time_t now,
                     apr_int64_t retry_after_ms, apr_uint64_t rnd,
                     wh_fwd_plan *out);

/* The lease on an event being forwarded: longer than any one attempt can
 * take (ForwardTimeout), so that no other forwarder leases it while its
 * request may still be in flight, plus a margin for writing its outcome
 * (ForwardTimeout again, at least 1 s and at most 10 s): an outcome
 * written after the lease passed on is dropped, and the event is sent
 * once more. */
#define WH_FWD_LEASE_MARGIN_MIN_MS 1000
#define WH_FWD_LEASE_MARGIN_MAX_MS 10000
apr_int64_t wh_forward_lease_ms(const wh_config *cfg);

/* One stored event, as forwarding needs it. */
typedef struct {
    apr_int64_t id;              /* wh_events.id */
    const char *notification_id;
    const char *event_type;
    const char *event_time;
    const char *payment_id;      /* NULL for events without one */
    const char *status;
    const char *body;            /* exactly as received */
    apr_size_t body_len;
    int attempt;                 /* this attempt's number, from 1 */
} wh_fwd_event;

/* The request headers of one attempt as "Name: value" strings
 * (in p): Content-Type, the Wirehook-* facts the module hands an
 * application, Idempotency-Key (the notificationId), Wirehook-Attempt,
 * traceparent (W3C Trace Context: the event's trace id,
 * wh_forward_trace_id, and a random span id for this attempt),
 * and TimestampHeader/SignatureHeader signed with `secret` over
 * "POST" + ForwardUrl + body + timestamp, the bank's own scheme. The
 * timestamp is `now` in TimestampUnit (milliseconds when so configured,
 * else seconds). Control characters in a fact become '?'. NULL when the
 * signature cannot be computed. */
apr_array_header_t *wh_forward_headers(apr_pool_t *p, const wh_config *cfg,
                                       const wh_secret *secret,
                                       const wh_fwd_event *ev, apr_time_t now);

/* The packaged unit wirehook-forward@NAME.service runs the configuration
 * WH_FORWARD_UNIT_CONFIG_DIR/NAME.conf and may write only under
 * WH_FORWARD_UNIT_WRITABLE (its ExecStart= and ReadWritePaths=;
 * test_layout.sh checks that they agree, and docs/files.md puts the
 * inbox there). */
#define WH_FORWARD_UNIT_CONFIG_DIR "/etc/wirehook"
#define WH_FORWARD_UNIT_WRITABLE "/var/lib/wirehook"

/* For a configuration the unit runs (cfg->source is
 * WH_FORWARD_UNIT_CONFIG_DIR/NAME.conf), with forwarding configured and
 * an SQLite inbox outside WH_FORWARD_UNIT_WRITABLE: the warning, with
 * the drop-in that fixes it, for `wirehook configtest`; else NULL. */
const char *wh_forward_unit_warning(apr_pool_t *p, const wh_config *cfg);

/* An event's W3C trace id (32 lowercase hex digits, in p): its
 * notificationId's own digits when it is a UUID (the same for every
 * attempt, and found from the id the bank quotes), else the first half of
 * its SHA-256. NULL only when the digest fails. */
const char *wh_forward_trace_id(apr_pool_t *p, const char *notification_id);

/* Loads ForwardSecretFile (the first secret signs). NULL or an error. */
const char *wh_forward_secret_load(apr_pool_t *p, const wh_config *cfg,
                                   const wh_secret **out);

/* ForwardSecretFile, read again when it changes (wh_forward_secret.c): its
 * file is looked at (one stat) at most once per WH_FWD_SECRET_INTERVAL and
 * read again only when its identity changed. A changed file that cannot
 * be read leaves the secret in use. */
#define WH_FWD_SECRET_INTERVAL apr_time_from_sec(1)
typedef struct wh_fwd_secret wh_fwd_secret;
/* Reads the file once (the first line signs); NULL or an error naming the
 * key's line. */
const char *wh_fwd_secret_open(apr_pool_t *p, const wh_config *cfg,
                               wh_fwd_secret **out);
/* The secret to sign with at now. *note (in p) is set when the file was
 * read again, or could not be (*failed 1): a line for the log; else NULL.
 * The secret returned stays valid until the next call. */
const wh_secret *wh_fwd_secret_now(wh_fwd_secret *s, apr_time_t now,
                                   apr_pool_t *p, const char **note, int *failed);
/* How often the file is looked at (tests: 0, at every call). */
void wh_fwd_secret_set_interval(wh_fwd_secret *s, apr_interval_time_t every);

#endif
