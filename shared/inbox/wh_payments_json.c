/* The JSON of the payment views, built with json-c from plain rows, so
 * the module, the CGI and `wirehook inbox payment(s)` print the same. */
#include "wh_payments.h"
#include "verify/wh_datetime.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <json-c/json.h>

/* json-c copies strings; NULL becomes JSON null. */
static void put_str(json_object *o, const char *k, const char *v)
{
    json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static json_object *payment_object(apr_pool_t *p, const wh_payment_row *r)
{
    json_object *o = json_object_new_object();

    if (!o)
        return NULL;
    put_str(o, "paymentId", r->payment_id);
    put_str(o, "status", r->status);
    json_object_object_add(o, "statusKnown", json_object_new_boolean(
                               r->status && wh_schema_status_known(r->status)));
    put_str(o, "eventDateTime", r->event_time);
    put_str(o, "notificationId", r->notification_id);
    json_object_object_add(o, "events", json_object_new_int64(r->events));
    put_str(o, "updatedAt", wh_time_rfc3339(p, r->updated_at));
    return o;
}

static const char *serialize(apr_pool_t *p, json_object *o)
{
    const char *s = o ? json_object_to_json_string_ext(
                            o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                      : NULL;
    const char *out = s ? apr_pstrdup(p, s) : NULL;

    if (o)
        json_object_put(o);
    return out;
}

const char *wh_payment_json(apr_pool_t *p, const wh_payment_row *pay,
                            const apr_array_header_t *history, int truncated)
{
    json_object *o = payment_object(p, pay), *arr;

    if (!o || !(arr = json_object_new_array())) {
        if (o)
            json_object_put(o);
        return NULL;
    }
    for (int i = 0; history && i < history->nelts; i++) {
        const wh_payment_event *e = &APR_ARRAY_IDX(history, i, wh_payment_event);
        json_object *h = json_object_new_object();
        if (!h)
            break;
        put_str(h, "notificationId", e->notification_id);
        put_str(h, "eventType", e->event_type);
        put_str(h, "eventDateTime", e->event_time);
        put_str(h, "status", e->status);
        put_str(h, "receivedAt", wh_time_rfc3339(p, e->received_at));
        json_object_array_add(arr, h);
    }
    json_object_object_add(o, "history", arr);
    json_object_object_add(o, "historyTruncated", json_object_new_boolean(truncated));
    return serialize(p, o);
}

const char *wh_payments_page_json(apr_pool_t *p, const apr_array_header_t *rows,
                                  apr_int64_t next_offset, int more)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array(), *pg;

    if (!o || !arr || !(pg = json_object_new_object())) {
        if (o)
            json_object_put(o);
        if (arr)
            json_object_put(arr);
        return NULL;
    }
    for (int i = 0; rows && i < rows->nelts; i++) {
        json_object *r = payment_object(p, &APR_ARRAY_IDX(rows, i, wh_payment_row));
        if (r)
            json_object_array_add(arr, r);
    }
    json_object_object_add(o, "payments", arr);
    /* offset as a string, as the listing (and the spec's sample) has it */
    put_str(pg, "offset", apr_psprintf(p, "%" APR_INT64_T_FMT, next_offset));
    json_object_object_add(pg, "moreRecords", json_object_new_boolean(more));
    json_object_object_add(o, "pagination", pg);
    return serialize(p, o);
}
