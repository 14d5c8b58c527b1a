/* The payment views' queries: read-only, over wh_payments (kept by the
 * store transaction) and each payment's events. */
#include "wh_payments.h"
#include "wh_fwd_db.h"

#include <apr_strings.h>

#define WH_PAY_COLS                                                           \
    "SELECT payment_id, status, event_time, notification_id, events,"         \
    " updated_at FROM wh_payments"
#define WH_PAY_SQL_GET WH_PAY_COLS " WHERE payment_id = %s"
/* Newest first to take the latest WH_PAYMENT_HISTORY_MAX, in the order
 * that decides the current status: the instant, then arrival; an event
 * without an instant counts as the earliest. */
#define WH_PAY_SQL_HISTORY                                                    \
    "SELECT notification_id, event_type, event_time, status, received_at"     \
    " FROM wh_events WHERE payment_id = %s"                                   \
    " ORDER BY event_instant DESC NULLS LAST, id DESC LIMIT %d"
#define WH_PAY_SQL_LIST WH_PAY_COLS " ORDER BY payment_id LIMIT %d OFFSET %lld"
#define WH_PAY_SQL_LIST_STATUS                                                \
    WH_PAY_COLS " WHERE status = %s ORDER BY payment_id LIMIT %d OFFSET %lld"

static apr_int64_t num(const char *s)
{
    return s ? apr_atoi64(s) : 0;
}

static void payment_row(const char **r, wh_payment_row *out)
{
    out->payment_id = r[0];
    out->status = r[1];
    out->event_time = r[2];
    out->notification_id = r[3];
    out->events = num(r[4]);
    out->updated_at = (apr_time_t)num(r[5]);
}

typedef struct {
    const char *id;
    const wh_page_query *q;
    apr_array_header_t *pay, *hist;
} view_ctx;

static int read_payment(wh_fwd_db *db, apr_pool_t *p, void *baton)
{
    view_ctx *v = baton;
    int limit = WH_PAYMENT_HISTORY_MAX + 1;
    const void *a1[1] = { v->id };
    const void *a2[2] = { v->id, &limit };

    if (wh_fwd_db_select(db, p, WH_PAY_SQL_GET, a1, 6, &v->pay) != 0)
        return -1;
    if (!v->pay->nelts)
        return 0;
    return wh_fwd_db_select(db, p, WH_PAY_SQL_HISTORY, a2, 5, &v->hist);
}

wh_pay_result wh_payments_get(wh_inbox *ib, apr_pool_t *p, const char *payment_id,
                              const char **json_out)
{
    view_ctx v = { payment_id, NULL, NULL, NULL };
    wh_payment_row pay;
    apr_array_header_t *history;
    int n, truncated;

    *json_out = NULL;
    if (!ib || wh_fwd_db_read(ib, p, read_payment, &v) != 0)
        return WH_PAY_UNAVAILABLE;
    if (!v.pay->nelts)
        return WH_PAY_NOT_FOUND;
    payment_row(APR_ARRAY_IDX(v.pay, 0, const char **), &pay);
    truncated = v.hist->nelts > WH_PAYMENT_HISTORY_MAX;
    n = truncated ? WH_PAYMENT_HISTORY_MAX : v.hist->nelts;
    history = apr_array_make(p, n + 1, sizeof(wh_payment_event));
    /* read newest first: oldest first in the answer */
    for (int i = n - 1; i >= 0; i--) {
        const char **r = APR_ARRAY_IDX(v.hist, i, const char **);
        wh_payment_event *e = apr_array_push(history);
        e->notification_id = r[0];
        e->event_type = r[1];
        e->event_time = r[2];
        e->status = r[3];
        e->received_at = (apr_time_t)num(r[4]);
    }
    *json_out = wh_payment_json(p, &pay, history, truncated);
    return *json_out ? WH_PAY_OK : WH_PAY_UNAVAILABLE;
}

static int read_list(wh_fwd_db *db, apr_pool_t *p, void *baton)
{
    view_ctx *v = baton;
    int fetch = v->q->limit + 1;       /* one more: are there more? */
    apr_int64_t offset = v->q->offset;
    const void *args[3];

    if (v->q->status) {
        args[0] = v->q->status;
        args[1] = &fetch;
        args[2] = &offset;
        return wh_fwd_db_select(db, p, WH_PAY_SQL_LIST_STATUS, args, 6, &v->pay);
    }
    args[0] = &fetch;
    args[1] = &offset;
    return wh_fwd_db_select(db, p, WH_PAY_SQL_LIST, args, 6, &v->pay);
}

wh_pay_result wh_payments_list(wh_inbox *ib, apr_pool_t *p, const wh_page_query *q,
                               const char **json_out)
{
    view_ctx v = { NULL, q, NULL, NULL };
    apr_array_header_t *rows;
    int n, more;

    *json_out = NULL;
    if (!ib || !q || q->limit < 1 || q->offset < 0 ||
        wh_fwd_db_read(ib, p, read_list, &v) != 0)
        return WH_PAY_UNAVAILABLE;
    more = v.pay->nelts > q->limit;
    n = more ? q->limit : v.pay->nelts;
    rows = apr_array_make(p, n + 1, sizeof(wh_payment_row));
    for (int i = 0; i < n; i++)
        payment_row(APR_ARRAY_IDX(v.pay, i, const char **), apr_array_push(rows));
    *json_out = wh_payments_page_json(p, rows, q->offset + n, more);
    return *json_out ? WH_PAY_OK : WH_PAY_UNAVAILABLE;
}
