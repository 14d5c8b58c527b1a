#ifndef WH_RESPONSE_H
#define WH_RESPONSE_H
#include <apr_pools.h>
#include "wh_verdict.h"

/* A complete HTTP answer as plain data: hosts (module, CGI) only copy it
 * onto the wire. */
typedef struct {
    int status;
    const char *content_type;     /* "application/json" */
    const char *body;             /* NUL-terminated JSON */
    const char *allow;            /* Allow header or NULL */
    const char *www_authenticate; /* WWW-Authenticate header or NULL */
    int retry_after;              /* Retry-After seconds, 0: none; every
                                     503 has one */
    int close_connection;         /* send Connection: close */
} wh_response;

/* The answer to a verdict that is not handed on: a duplicate's 200
 * {"status":"duplicate",...}, or the error (status, JSON error, headers). */
void wh_response_from_verdict(apr_pool_t *p, const wh_verdict *v,
                              wh_response *out);
/* Plain JSON error answer for host-level failures (503, 500, 400); a 503
 * says Retry-After WH_RETRY_AFTER_UNKNOWN. */
void wh_response_error(apr_pool_t *p, int status, const char *code,
                       const char *message, wh_response *out);
/* 503 code message, to be asked again in wait (<= 0: not known). */
void wh_response_unavailable(apr_pool_t *p, const char *code,
                             const char *message, apr_interval_time_t wait,
                             wh_response *out);
/* 200 {"status":"accepted"|"duplicate","notificationId":".."} */
void wh_response_ack(apr_pool_t *p, const char *status,
                     const char *notification_id, wh_response *out);
/* Standard reason phrase ("Unauthorized"), for CGI Status: lines. */
const char *wh_status_reason(int status);

#endif
