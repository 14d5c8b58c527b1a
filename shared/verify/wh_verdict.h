#ifndef WH_VERDICT_H
#define WH_VERDICT_H
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>

/* Every code wirehook answers with, the one list: X(NAME, "code", counted).
 * A code is the contract with senders and operators and never changes once
 * released; docs/errors.md has a row for each (test_docs.sh checks).
 * counted: a POSTed notification can be refused with it, so the module's
 * mod_status counters have one per code (wh_mod_status.c); the others
 * answer listings and lookups, or are no refusal (accepted and duplicate
 * are 200s: {"status":"accepted"|"duplicate",...}, counted on their own). */
#define WH_CODES(X)                                                   \
    X(METHOD_NOT_ALLOWED, "method_not_allowed", 1)                    \
    X(AUTH_REQUIRED, "auth_required", 1)                              \
    X(AUTH_FAILED, "auth_failed", 1)                                  \
    X(UNSUPPORTED_MEDIA, "unsupported_media_type", 1)                 \
    X(BAD_REQUEST, "bad_request", 1)                                  \
    X(BODY_TOO_LARGE, "body_too_large", 1)                            \
    X(TS_MISSING, "timestamp_missing", 1)                             \
    X(TS_MALFORMED, "timestamp_malformed", 1)                         \
    X(TS_EXPIRED, "timestamp_expired", 1)                             \
    X(TS_FUTURE, "timestamp_in_future", 1)                            \
    X(SIG_MISSING, "signature_missing", 1)                            \
    X(SIG_MALFORMED, "signature_malformed", 1)                        \
    X(SIG_MISMATCH, "signature_mismatch", 1)                          \
    X(INVALID_JSON, "invalid_json", 1)                                \
    X(SCHEMA_VIOLATION, "schema_violation", 1)                        \
    X(REPLAY_UNAVAILABLE, "replay_cache_unavailable", 1)              \
    X(IN_PROGRESS, "delivery_in_progress", 1)                         \
    X(INBOX_UNAVAILABLE, "inbox_unavailable", 1)                      \
    X(INTERNAL, "internal_error", 1)                                  \
    X(ACCEPTED, "accepted", 0)                                        \
    X(DUPLICATE, "duplicate", 0)                                      \
    X(INVALID_PAGINATION, "invalid_pagination", 0)                    \
    X(NOT_FOUND, "not_found", 0)                                      \
    X(FORBIDDEN, "forbidden", 0)

#define WH_CODE_DECLARE(name, code, counted) extern const char WH_CODE_##name[];
WH_CODES(WH_CODE_DECLARE)
#undef WH_CODE_DECLARE

/* One schema (or other field-level) problem. field is a JSON pointer
 * (RFC 6901) into the body, "" for the document itself. */
typedef struct {
    const char *field;
    const char *problem;
} wh_problem;

/* What a host needs to know about an accepted notification. All strings
 * live in the verdict's pool. */
typedef struct {
    const char *notification_id;
    const char *event_type;
    const char *event_time;      /* eventDateTime exactly as sent */
    const char *payment_id;      /* NULL for other notifications */
    const char *status;          /* NULL for other notifications */
    int status_known;            /* status is one of the spec's list */
    const char *user;            /* Basic-auth user that was accepted */
    apr_time_t signed_at;        /* the timestamp header's instant: what
                                    the sender signed; 0 before it is
                                    checked */
    /* The wire's references, which the bank's support quotes: kept by the
     * inbox so an operator finds a payment by them, never handed to the
     * application (not facts). NULL when absent or not a string. */
    const char *end_to_end_id;   /* originalWire.wireInfo.endToEndId */
    const char *imad;            /* wireEventInfo.IMAD */
    const char *omad;            /* wireEventInfo.OMAD */
} wh_facts;

typedef struct {
    int ok;                      /* 1: accepted, hand to the application */
    int status;                  /* HTTP status (200 with ok 0: duplicate) */
    const char *code;            /* WH_CODE_* */
    const char *message;         /* human readable, never holds secrets */
    apr_array_header_t *details; /* of wh_problem; never NULL after init */
    const char *allow;           /* for 405: value of the Allow header */
    const char *www_authenticate;/* for auth 401s: WWW-Authenticate value */
    int close_connection;        /* 413: the body was not (fully) read */
    int authentic;               /* signature verified (even if body bad):
                                    such bodies may be quarantined */
    int retry_after;             /* 503: seconds until the answer may
                                    change (Retry-After); 0: unknown */
    wh_facts facts;
} wh_verdict;

/* Every 503 says when to come back (Retry-After, whole seconds). Where
 * nothing better is known: WH_RETRY_AFTER_UNKNOWN, soon enough that a
 * store back within seconds costs the sender little, late enough that a
 * store down for longer is not asked again at once. At most
 * WH_RETRY_AFTER_MAX. */
#define WH_RETRY_AFTER_UNKNOWN 10
#define WH_RETRY_AFTER_MAX 3600
/* wait as Retry-After seconds: rounded up, at least 1, at most
 * WH_RETRY_AFTER_MAX; wait <= 0 (not known): WH_RETRY_AFTER_UNKNOWN. */
int wh_retry_after(apr_interval_time_t wait);

void wh_verdict_init(wh_verdict *v, apr_pool_t *p);
/* Sets status/code/message; returns v->status for convenient returns. */
int wh_verdict_fail(wh_verdict *v, int status, const char *code,
                    const char *message);
/* 503 code message, to be asked again in wait (<= 0: not known). */
int wh_verdict_unavailable(wh_verdict *v, const char *code, const char *message,
                           apr_interval_time_t wait);
/* 200 duplicate: seen before, not delivered again. */
void wh_verdict_duplicate(wh_verdict *v);
void wh_verdict_add_problem(wh_verdict *v, apr_pool_t *p, const char *field,
                            const char *problem);
/* {"error":{"code":..,"message":..,"details":[{"field":..,"problem":..}]}} */
const char *wh_verdict_error_json(apr_pool_t *p, const wh_verdict *v);
/* Generic error body for hosts' own failures (503 etc.). */
const char *wh_error_json(apr_pool_t *p, const char *code, const char *message);
/* {"status":"accepted"|"duplicate","notificationId":".."} */
const char *wh_ack_json(apr_pool_t *p, const char *status,
                        const char *notification_id);

#endif
