#include "wh_verdict.h"
#include <apr_strings.h>
#include <json-c/json.h>

#define WH_CODE_DEFINE(name, code, counted) const char WH_CODE_##name[] = code;
WH_CODES(WH_CODE_DEFINE)
#undef WH_CODE_DEFINE

void wh_verdict_init(wh_verdict *v, apr_pool_t *p)
{
    memset(v, 0, sizeof(*v));
    v->status = 200;
    v->code = WH_CODE_ACCEPTED;
    v->details = apr_array_make(p, 4, sizeof(wh_problem));
}

int wh_verdict_fail(wh_verdict *v, int status, const char *code,
                    const char *message)
{
    v->ok = 0;
    v->status = status;
    v->code = code;
    v->message = message;
    return status;
}

int wh_retry_after(apr_interval_time_t wait)
{
    apr_interval_time_t max = apr_time_from_sec(WH_RETRY_AFTER_MAX);
    if (wait <= 0)
        return WH_RETRY_AFTER_UNKNOWN;
    if (wait >= max)
        return WH_RETRY_AFTER_MAX;
    return (int)((wait + APR_USEC_PER_SEC - 1) / APR_USEC_PER_SEC);
}

int wh_verdict_unavailable(wh_verdict *v, const char *code, const char *message,
                           apr_interval_time_t wait)
{
    wh_verdict_fail(v, 503, code, message);
    v->retry_after = wh_retry_after(wait);
    return v->status;
}

void wh_verdict_duplicate(wh_verdict *v)
{
    wh_verdict_fail(v, 200, WH_CODE_DUPLICATE, NULL);
}

void wh_verdict_add_problem(wh_verdict *v, apr_pool_t *p, const char *field,
                            const char *problem)
{
    wh_problem *pr = apr_array_push(v->details);
    pr->field = apr_pstrdup(p, field);
    pr->problem = apr_pstrdup(p, problem);
}

/* json-c owns the serialisation so quoting and escaping are never ours to
 * get wrong; the string is copied into the pool before the tree is freed. */
static const char *to_pool_string(apr_pool_t *p, json_object *o)
{
    const char *s = apr_pstrdup(p, json_object_to_json_string_ext(
                                       o, JSON_C_TO_STRING_PLAIN |
                                              JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return s;
}

const char *wh_verdict_error_json(apr_pool_t *p, const wh_verdict *v)
{
    json_object *root = json_object_new_object();
    json_object *err = json_object_new_object();
    json_object *details = json_object_new_array();

    json_object_object_add(err, "code", json_object_new_string(v->code ? v->code : WH_CODE_INTERNAL));
    json_object_object_add(err, "message",
                           json_object_new_string(v->message ? v->message : ""));
    for (int i = 0; v->details && i < v->details->nelts; i++) {
        const wh_problem *pr = &APR_ARRAY_IDX(v->details, i, wh_problem);
        json_object *d = json_object_new_object();
        json_object_object_add(d, "field", json_object_new_string(pr->field));
        json_object_object_add(d, "problem", json_object_new_string(pr->problem));
        json_object_array_add(details, d);
    }
    json_object_object_add(err, "details", details);
    json_object_object_add(root, "error", err);
    return to_pool_string(p, root);
}

const char *wh_error_json(apr_pool_t *p, const char *code, const char *message)
{
    wh_verdict v;
    wh_verdict_init(&v, p);
    wh_verdict_fail(&v, 500, code, message);
    return wh_verdict_error_json(p, &v);
}

const char *wh_ack_json(apr_pool_t *p, const char *status,
                        const char *notification_id)
{
    json_object *root = json_object_new_object();
    json_object_object_add(root, "status", json_object_new_string(status));
    json_object_object_add(root, "notificationId",
                           json_object_new_string(notification_id ? notification_id : ""));
    return to_pool_string(p, root);
}
