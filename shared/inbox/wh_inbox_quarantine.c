/* The quarantine: an authentic body that failed the JSON or schema
 * checks, kept (never listed) with the verdict's code and problems. */
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>
#include <json-c/json.h>

static const wh_inbox_stmt st_quarantine = {
    "INSERT INTO wh_quarantine (id, received_at, code, message, details,"
    " notification_id, body) VALUES (%lld, %lld, %s, %s, %s, %s, %pDb)", NULL, NULL };

static const char *details_json(apr_pool_t *p, const wh_verdict *v)
{
    json_object *arr = json_object_new_array();
    const char *s;

    if (!arr)
        return "[]";
    if (v->details)
        for (int i = 0; i < v->details->nelts; i++) {
            const wh_problem *pr = &APR_ARRAY_IDX(v->details, i, wh_problem);
            json_object *o = json_object_new_object();
            if (!o)
                break;
            json_object_object_add(o, "field", json_object_new_string(pr->field ? pr->field : ""));
            json_object_object_add(o, "problem", json_object_new_string(pr->problem ? pr->problem : ""));
            json_object_array_add(arr, o);
        }
    s = apr_pstrdup(p, json_object_to_json_string_ext(
                           arr, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(arr);
    return s;
}

typedef struct {
    const void *args[10];
    apr_int64_t id, received;
    apr_size_t len;
} quarantine_job;

static int quarantine_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    quarantine_job *j = baton;
    int nrows = 0, rv;

    if ((rv = wh_inbox_counter_next(ib, p, WH_COUNTER_QUARANTINE, &j->id)) != 0)
        return wh_inbox_db_fail(ib, p, "allocating a quarantine id", rv);
    j->args[0] = &j->id;
    rv = wh_inbox_db_exec(ib, p, &st_quarantine, &nrows, j->args);
    if (rv != 0 || nrows != 1)
        return wh_inbox_db_fail(ib, p, "quarantine INSERT", rv ? rv : -1);
    return WH_TXN_COMMIT;
}

wh_inbox_result wh_inbox_quarantine(wh_inbox *ib, apr_pool_t *p,
                                    const wh_verdict *v, const char *body,
                                    apr_size_t body_len, apr_time_t now)
{
    quarantine_job j;

    if (!ib || !v)
        return WH_INBOX_UNAVAILABLE;
    j.received = (apr_int64_t)now;
    j.len = body_len;
    j.args[1] = &j.received;
    j.args[2] = v->code ? v->code : "";
    j.args[3] = v->message;
    j.args[4] = details_json(p, v);
    j.args[5] = v->facts.notification_id;
    /* Kept as a blob: a body that failed JSON checks may hold any bytes,
     * NULs and invalid UTF-8 included, which a TEXT column would refuse. */
    j.args[6] = body ? body : "";
    j.args[7] = &j.len;
    j.args[8] = "wh_quarantine";
    j.args[9] = "body";
    return wh_inbox_db_txn(ib, p, "quarantine", quarantine_txn, &j) == WH_DB_OK
               ? WH_INBOX_STORED : WH_INBOX_UNAVAILABLE;
}
