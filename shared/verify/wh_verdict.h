#ifndef WH_VERDICT_H
#define WH_VERDICT_H
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>

/* Error codes: the contract with senders and operators (see README). */
#define WH_CODE_METHOD_NOT_ALLOWED   "method_not_allowed"
#define WH_CODE_AUTH_REQUIRED        "auth_required"
#define WH_CODE_AUTH_FAILED          "auth_failed"
#define WH_CODE_UNSUPPORTED_MEDIA    "unsupported_media_type"
#define WH_CODE_BODY_TOO_LARGE       "body_too_large"
#define WH_CODE_TS_MISSING           "timestamp_missing"
#define WH_CODE_TS_MALFORMED         "timestamp_malformed"
#define WH_CODE_TS_EXPIRED           "timestamp_expired"
#define WH_CODE_TS_FUTURE            "timestamp_in_future"
#define WH_CODE_SIG_MISSING          "signature_missing"
#define WH_CODE_SIG_MALFORMED        "signature_malformed"
#define WH_CODE_SIG_MISMATCH         "signature_mismatch"
#define WH_CODE_INVALID_JSON         "invalid_json"
#define WH_CODE_SCHEMA_VIOLATION     "schema_violation"
#define WH_CODE_ACCEPTED             "accepted"
/* Used by hosts (module, CGI, inbox), not by wh_verify itself. */
#define WH_CODE_REPLAY_UNAVAILABLE   "replay_cache_unavailable"
#define WH_CODE_IN_PROGRESS          "delivery_in_progress"
#define WH_CODE_INBOX_UNAVAILABLE    "inbox_unavailable"
#define WH_CODE_INVALID_PAGINATION   "invalid_pagination"
#define WH_CODE_BAD_REQUEST          "bad_request"
#define WH_CODE_INTERNAL             "internal_error"
#define WH_CODE_NOT_FOUND            "not_found"

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
    const char *payment_id;      /* NULL for non-wire events */
    const char *status;          /* NULL for non-wire events */
    int status_known;            /* status is one of the spec's list */
    const char *user;            /* Basic-auth user that was accepted */
    apr_time_t signed_at;        /* the timestamp header's instant: what
                                    the sender signed; 0 before it is
                                    checked */
} wh_facts;

typedef struct {
    int ok;                      /* 1: accepted, hand to the application */
    int status;                  /* HTTP status */
    const char *code;            /* WH_CODE_* */
    const char *message;         /* human readable, never holds secrets */
    apr_array_header_t *details; /* of wh_problem; never NULL after init */
    const char *allow;           /* for 405: value of the Allow header */
    const char *www_authenticate;/* for auth 401s: WWW-Authenticate value */
    int close_connection;        /* 413: the body was not (fully) read */
    int authentic;               /* signature verified (even if body bad):
                                    such bodies may be quarantined */
    wh_facts facts;
} wh_verdict;

void wh_verdict_init(wh_verdict *v, apr_pool_t *p);
/* Sets status/code/message; returns v->status for convenient returns. */
int wh_verdict_fail(wh_verdict *v, int status, const char *code,
                    const char *message);
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
