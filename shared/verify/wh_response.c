#include "wh_response.h"

#define WH_JSON_TYPE "application/json"

void wh_response_from_verdict(apr_pool_t *p, const wh_verdict *v,
                              wh_response *out)
{
    memset(out, 0, sizeof(*out));
    out->status = v->status;
    out->content_type = WH_JSON_TYPE;
    out->body = wh_verdict_error_json(p, v);
    out->allow = v->allow;
    out->www_authenticate = v->www_authenticate;
    out->close_connection = v->close_connection;
}

void wh_response_error(apr_pool_t *p, int status, const char *code,
                       const char *message, wh_response *out)
{
    memset(out, 0, sizeof(*out));
    out->status = status;
    out->content_type = WH_JSON_TYPE;
    out->body = wh_error_json(p, code, message);
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
