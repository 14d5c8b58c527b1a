#include "wh_response.h"
#include <string.h>

#define WH_JSON_TYPE "application/json"

/* Every 503 says when to come back, whoever built it. */
static void retry_after(wh_response *out, int seconds)
{
    if (out->status == 503)
        out->retry_after = seconds > 0 ? seconds : WH_RETRY_AFTER_UNKNOWN;
}

void wh_response_from_verdict(apr_pool_t *p, const wh_verdict *v,
                              wh_response *out)
{
    if (v->status == 200 && v->code && strcmp(v->code, WH_CODE_DUPLICATE) == 0) {
        wh_response_ack(p, v->code, v->facts.notification_id, out);
        return;
    }
    memset(out, 0, sizeof(*out));
    out->status = v->status;
    out->content_type = WH_JSON_TYPE;
    out->body = wh_verdict_error_json(p, v);
    out->allow = v->allow;
    out->www_authenticate = v->www_authenticate;
    out->close_connection = v->close_connection;
    retry_after(out, v->retry_after);
}

void wh_response_error(apr_pool_t *p, int status, const char *code,
                       const char *message, wh_response *out)
{
    memset(out, 0, sizeof(*out));
    out->status = status;
    out->content_type = WH_JSON_TYPE;
    out->body = wh_error_json(p, code, message);
    retry_after(out, 0);
}

void wh_response_unavailable(apr_pool_t *p, const char *code,
                             const char *message, apr_interval_time_t wait,
                             wh_response *out)
{
    wh_response_error(p, 503, code, message, out);
    out->retry_after = wh_retry_after(wait);
}

void wh_response_ack(apr_pool_t *p, const char *status,
                     const char *notification_id, wh_response *out)
{
    memset(out, 0, sizeof(*out));
    out->status = 200;
    out->content_type = WH_JSON_TYPE;
    out->body = wh_ack_json(p, status, notification_id);
}

const char *wh_status_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return status >= 500 ? "Server Error"
                  : status >= 400 ? "Client Error" : "OK";
    }
}
