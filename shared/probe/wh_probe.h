#ifndef WH_PROBE_H
#define WH_PROBE_H
/* wirehook probe's core: the probe vectors (probe/vectors.json), the
 * requests they describe, how an answer is graded, and the report. Plain
 * data in and out: the CLI (cli/cmd_probe.c) does the sending. The format
 * of the vectors and the grading rules are documented in docs/probe.md. */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "verify/wh_config.h"

#define WH_PROBE_VECTORS_FORMAT "wirehook-probe-vectors"
/* The version of the vectors format this runner reads. A file of another
 * version is refused: a new version means fields an older runner would
 * silently ignore. */
#define WH_PROBE_VECTORS_VERSION 1
#define WH_PROBE_REPORT_FORMAT "wirehook-probe-report"
#define WH_PROBE_REPORT_VERSION 1
/* Largest body a probe builds (an oversized body is MaxBodySize + 1). */
#define WH_PROBE_MAX_BODY (64u * 1024u * 1024u)

typedef enum {
    WH_SEV_CRITICAL = 0, /* something forged, stale or replayed is accepted */
    WH_SEV_HIGH,         /* an invalid notification is accepted (or a
                              valid one refused) */
    WH_SEV_WARNING,      /* a status or behaviour that misleads the bank */
    WH_SEV_INFO
} wh_probe_severity;

typedef enum {
    WH_EXPECT_ACCEPTED = 0, /* 2xx */
    WH_EXPECT_REFUSED,      /* 4xx */
    WH_EXPECT_ONCE,         /* replay: delivered once */
    WH_EXPECT_ENDS,         /* a stalled request is ended by the receiver */
    WH_EXPECT_SAME_TIME     /* timing: no measurable difference */
} wh_probe_expect;

typedef enum {
    WH_REPLAY_NONE = 0,
    WH_REPLAY_AT_ONCE,    /* the copy right after the first answer */
    WH_REPLAY_AFTER_PAUSE /* the copy --replay-pause seconds later */
} wh_probe_replay;

typedef enum {
    WH_PACE_NONE = 0,
    WH_PACE_LATE_LAST_BYTE, /* all but the last byte, the last one `slow`
                               seconds later; timestamp now - tolerance +
                               slow/2 */
    WH_PACE_TRICKLE,        /* the body in 8 pieces over `slow` seconds */
    WH_PACE_STALL           /* half the body, then nothing */
} wh_probe_pace;

/* A probe's request parts, parsed (wh_probe_int.h). */
typedef struct wh_probe_parts wh_probe_parts;

typedef struct {
    const char *id;
    const char *description;
    wh_probe_severity severity;
    int is_timing; /* "kind": "timing" */
    /* the status codes the spec decisions answer, or none (any of the
     * expected class) */
    const int *statuses;
    int n_statuses;
    const wh_probe_parts *parts; /* the request */
    /* timing: the two kinds of request compared, and the thresholds */
    const wh_probe_parts *timing_a, *timing_b;
    double significance_z, min_difference;
    int index; /* position in the file */
    /* expect: fixed, or chosen by a configuration key (private) */
    const char *expect_key;
    const char *expect_by[3];
    wh_probe_expect expect;
} wh_probe;

typedef struct {
    int version;
    const char *other_secret;
    apr_array_header_t *probes; /* of const wh_probe * */
    void *notification;         /* json_object *, owned by the pool */
} wh_probe_set;

/* Parses and checks a vectors file. Returns NULL or every problem, one a
 * line, each naming the probe and the field. */
const char *wh_probe_set_load(apr_pool_t *p, const char *text, apr_size_t len,
                              wh_probe_set **out);

/* The probe's expectation under cfg (UnknownStatus, TimestampUnit). */
wh_probe_expect wh_probe_expectation(const wh_probe *probe,
                                     const wh_config *cfg);
wh_probe_replay wh_probe_replay_of(const wh_probe_parts *parts);
/* 1 when the request's timestamp is shifted (timestamp.shift): it is
 * built and sent in the first WH_PROBE_SECOND_START microseconds of a
 * second, so that its whole-second value stays a whole second past the
 * receiver's boundary while the request travels. */
int wh_probe_at_second_start(const wh_probe_parts *parts);
#define WH_PROBE_SECOND_START 100000
wh_probe_pace wh_probe_pace_of(const wh_probe_parts *parts);

/* 1 when id is selected by a comma-separated list of ids or groups
 * ("signature" selects every "signature.*"); a NULL list selects all. */
int wh_probe_selected(const char *only, const char *id);
/* The entries of only that select no probe of set, joined by ",", or
 * NULL. */
const char *wh_probe_unmatched(apr_pool_t *p, const wh_probe_set *set,
                               const char *only);

const char *wh_probe_severity_name(wh_probe_severity s);
const char *wh_probe_expect_name(wh_probe_expect e);

/* ------------------------------------------------------------ requests --- */

typedef void (*wh_probe_random_fn)(void *ctx, unsigned char *buf,
                                   apr_size_t n);

typedef struct {
    const wh_config *cfg;        /* header names, TimestampUnit and
                                      Tolerance, MaxBodySize */
    const unsigned char *secret; /* the bank's signing secret */
    apr_size_t secret_len;
    const char *signed_url;      /* what the receiver signs
                                      (wh_probe_signed_url) */
    const char *user, *password; /* the bank's Basic credentials */
    apr_int64_t slow_seconds;    /* the paced probes' length, >= 2 */
    wh_probe_random_fn random;   /* NULL: OpenSSL's RAND_bytes */
    void *random_ctx;
} wh_probe_ctx;

typedef struct {
    const char *name;
    const char *value;
    const char *shown; /* what a report prints: Authorization
                                      without its password */
} wh_probe_header;

typedef struct {
    const char *method;
    apr_array_header_t *headers; /* of wh_probe_header, in sending order;
                                      a name may repeat */
    const char *body;
    apr_size_t body_len;
    const char *notification_id; /* the fresh id the body started with */
    /* what the signature covered (for the report); NULL when unsigned */
    const char *signed_method;
    const char *signed_url;
    const char *signed_with; /* "the signing secret" / "another secret" */
    int signed_body_differs; /* the body changed after signing */
    wh_probe_pace pace;
    apr_int64_t pace_seconds;
    const char *skipped; /* not applicable here: why; else NULL */
} wh_probe_req;

/* The URL a receiver signs for requests to target: SignedUrl when set,
 * else built from target as the request will carry it (the Host header
 * without a default port), in SignedUrlForm. NULL when target is not an
 * absolute http(s) URL. */
const char *wh_probe_signed_url(apr_pool_t *p, const wh_config *cfg,
                                const char *target);

/* The request parts describes, at now: a fresh notification, its
 * transformations, signed. Returns NULL or why it cannot be built (then
 * *out is NULL); a probe that does not apply here (a URL part the
 * receiver does not sign) is built with skipped set. */
const char *wh_probe_build(apr_pool_t *p, const wh_probe_ctx *ctx,
                           const wh_probe_set *set,
                           const wh_probe_parts *parts, apr_time_t now,
                           wh_probe_req **out);

/* ------------------------------------------------------------- grading --- */

typedef enum {
    WH_CLASS_ACCEPTED = 0, /* 2xx */
    WH_CLASS_REFUSED,      /* 4xx */
    WH_CLASS_RETRY,        /* 5xx: the bank retries */
    WH_CLASS_OTHER,        /* 1xx, 3xx */
    WH_CLASS_NONE          /* no answer: closed, reset, timed out */
} wh_probe_class;

typedef struct {
    int status;       /* 0: no answer */
    const char *body; /* the first bytes of the answer */
    apr_size_t body_len;
    const char *error; /* why there was no answer, or NULL */
    int still_open;    /* the receiver had not ended the request
                                      when the runner gave up waiting */
    apr_interval_time_t elapsed;
} wh_probe_answer;

wh_probe_class wh_probe_class_of(const wh_probe_answer *a);
const char *wh_probe_class_name(wh_probe_class c);

typedef enum {
    WH_OUT_PASS = 0,
    WH_OUT_FAIL,         /* the receiver did what the probe forbids */
    WH_OUT_WARN,         /* the expected class, but a misleading answer */
    WH_OUT_INCONCLUSIVE, /* cannot be told from outside */
    WH_OUT_SKIPPED,      /* does not apply, or not selected */
    WH_OUT_ERROR         /* the runner could not send it */
} wh_probe_outcome;

const char *wh_probe_outcome_name(wh_probe_outcome o);

typedef struct {
    const wh_probe *probe;
    wh_probe_expect expect;
    wh_probe_outcome outcome;
    wh_probe_severity severity; /* the probe's; warning for WARN */
    const char *message;
    const char *note; /* a detail that changes no outcome */
    const wh_probe_req *req;
    const wh_probe_answer *answer; /* NULL: nothing was sent */
    const wh_probe_answer *copy;   /* replay: the copy's answer */
    int deliveries;                /* replay: times the id was delivered,
                                      -1 when no deliveries source */
    /* timing: medians in milliseconds, samples per side, the statistic */
    double median_a, median_b, z;
    int samples;
} wh_probe_result;

/* Grades r->answer (and r->copy, r->deliveries for a replay) against
 * r->expect; sets outcome, severity, message. */
void wh_probe_grade(apr_pool_t *p, wh_probe_result *r);

/* Grades a timing probe: the server times of requests a and b (each
 * refused, else the probe is inconclusive), in microseconds. */
void wh_probe_grade_timing(apr_pool_t *p, wh_probe_result *r, const double *a,
                           int na, const double *b, int nb, int all_refused);

/* Mann-Whitney U of two samples, normal approximation with the tie
 * correction: z, positive when a tends to be larger. 0 when either is
 * empty or every value is equal. */
double wh_probe_mann_whitney_z(apr_pool_t *p, const double *a, int na,
                               const double *b, int nb);
double wh_probe_median(apr_pool_t *p, const double *v, int n);

/* Sets r's outcome to skipped with why. */
void wh_probe_skip(wh_probe_result *r, const char *why);

/* -------------------------------------------------------------- report --- */

typedef struct {
    const char *target;  /* shown: without userinfo */
    const char *vectors; /* "built-in" or the file */
    int vectors_version;
    const wh_config *cfg;
    const char *user;       /* the Basic user (never its password) */
    const char *deliveries; /* the deliveries source shown, or NULL */
    apr_time_t started;
    apr_interval_time_t duration;
    int rate;
    apr_int64_t slow_seconds, replay_pause, stall_limit;
    int timing_samples;
    int clock_offset_known;      /* from the receiver's Date header */
    apr_int64_t clock_offset;    /* seconds, receiver minus ours */
    apr_array_header_t *results; /* of wh_probe_result * */
} wh_probe_report;

/* Failures first (fail, warn, error, inconclusive), each by severity,
 * then the rest; the file's order within each. */
void wh_probe_report_sort(wh_probe_report *rep);
/* 1 when a critical or high probe failed, else 0. */
int wh_probe_exit_status(const wh_probe_report *rep);

const char *wh_probe_report_json(apr_pool_t *p, const wh_probe_report *rep);
const char *wh_probe_report_text(apr_pool_t *p, const wh_probe_report *rep);
const char *wh_probe_report_junit(apr_pool_t *p, const wh_probe_report *rep);

#endif
