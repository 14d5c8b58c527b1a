/* The payment views' queries: read-only, over wh_payments (kept by the
 * store transaction) and each payment's events. */
#include "wh_payments.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"

#include <apr_strings.h>
#include <string.h>

#define WH_PAY_COLS                                                           \
    "SELECT payment_id, status, event_time, notification_id, events,"         \
    " updated_at FROM wh_payments"
#define WH_PAY_SQL_GET WH_PAY_COLS " WHERE payment_id = %s"
/* Newest first to take the latest WH_PAYMENT_HISTORY_MAX, in the order
 * that decides the current status: the instant, then arrival; an event
 * without an instant counts as the earliest. */
#define WH_PAY_SQL_HISTORY                                                    \
    "SELECT notification_id, event_type, event_time, status, received_at,"   \
    " id FROM wh_events WHERE payment_id = %s"                                   \
    " ORDER BY event_instant DESC NULLS LAST, id DESC LIMIT %d"
#define WH_PAY_SQL_LIST WH_PAY_COLS " ORDER BY payment_id LIMIT %d OFFSET %lld"
/* A status matches whatever its case: wh_payments_status_ci is
 * (lower(status), payment_id), a seek there too. */
#define WH_PAY_STATUS " " WH_SQL_STATUS_IS("")
#define WH_PAY_STATUS_MY " " WH_MY_STATUS_IS("")
#define WH_PAY_SQL_LIST_STATUS(st)                                            \
    WH_PAY_COLS " WHERE" st " ORDER BY payment_id LIMIT %d OFFSET %lld"
#define WH_PAY_SQL_AFTER WH_PAY_COLS " WHERE payment_id > %s ORDER BY payment_id LIMIT %d"
#define WH_PAY_SQL_AFTER_STATUS(st)                                           \
    WH_PAY_COLS " WHERE" st " AND payment_id > %s"                            \
    " ORDER BY payment_id LIMIT %d"
/* By latest activity, newest first: wh_payments_recent (updated_at,
 * payment_id) and wh_payments_status_recent (lower(status), updated_at,
 * payment_id), read backwards from a row value. */
#define WH_PAY_RECENT " ORDER BY updated_at DESC, payment_id DESC LIMIT %d"
#define WH_PAY_BEFORE " (updated_at, payment_id) < (%lld, %s)"

static const wh_inbox_stmt st_get = { WH_PAY_SQL_GET, NULL, NULL };
/* MySQL has no NULLS LAST; its DESC puts NULLs last anyway. */
static const wh_inbox_stmt st_history = {
    WH_PAY_SQL_HISTORY, NULL,
    "SELECT notification_id, event_type, event_time, status, received_at,"
    " id FROM wh_events WHERE payment_id = %s"
    " ORDER BY event_instant DESC, id DESC LIMIT %d" };
static const wh_inbox_stmt st_list = { WH_PAY_SQL_LIST, NULL, NULL };
static const wh_inbox_stmt st_list_status = {
    WH_PAY_SQL_LIST_STATUS(WH_PAY_STATUS), NULL, WH_PAY_SQL_LIST_STATUS(WH_PAY_STATUS_MY) };
static const wh_inbox_stmt st_after = { WH_PAY_SQL_AFTER, NULL, NULL };
static const wh_inbox_stmt st_after_status = {
    WH_PAY_SQL_AFTER_STATUS(WH_PAY_STATUS), NULL, WH_PAY_SQL_AFTER_STATUS(WH_PAY_STATUS_MY) };
static const wh_inbox_stmt st_recent = { WH_PAY_COLS WH_PAY_RECENT, NULL, NULL };
static const wh_inbox_stmt st_recent_before = {
    WH_PAY_COLS " WHERE" WH_PAY_BEFORE WH_PAY_RECENT, NULL, NULL };
static const wh_inbox_stmt st_recent_status = {
    WH_PAY_COLS " WHERE" WH_PAY_STATUS WH_PAY_RECENT, NULL,
    WH_PAY_COLS " WHERE" WH_PAY_STATUS_MY WH_PAY_RECENT };
static const wh_inbox_stmt st_recent_status_before = {
    WH_PAY_COLS " WHERE" WH_PAY_STATUS " AND" WH_PAY_BEFORE WH_PAY_RECENT, NULL,
    WH_PAY_COLS " WHERE" WH_PAY_STATUS_MY " AND" WH_PAY_BEFORE WH_PAY_RECENT };


static void payment_row(const wh_inbox_rows *r, int i, wh_payment_row *out)
{
    out->payment_id = WH_ROW_CELL(r, i, 0);
    out->status = WH_ROW_CELL(r, i, 1);
    out->event_time = wh_cell_opt(WH_ROW_CELL(r, i, 2));
    out->notification_id = WH_ROW_CELL(r, i, 3);
    out->events = wh_cell_num(WH_ROW_CELL(r, i, 4));
    out->updated_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(r, i, 5));
}

/* A payment and its history, read under one hold of the connection. */
typedef struct {
    const char *id;
    wh_inbox_rows pay, hist;
} view_ctx;

static int read_payment(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    view_ctx *v = baton;
    int limit = WH_PAYMENT_HISTORY_MAX + 1, rv;
    const void *a1[1] = { v->id };
    const void *a2[2] = { v->id, &limit };

    if ((rv = wh_inbox_db_select(ib, p, &st_get, a1, 1, &v->pay)) != 0 || !v->pay.nrows)
        return rv;
    return wh_inbox_db_select(ib, p, &st_history, a2, limit, &v->hist);
}

wh_pay_result wh_payments_view(wh_inbox *ib, apr_pool_t *p, const char *payment_id,
                               wh_payment_row *pay, apr_array_header_t **history,
                               int *truncated)
{
    view_ctx v;
    int n;

    memset(&v, 0, sizeof(v));
    v.id = payment_id;
    *history = NULL;
    *truncated = 0;
    if (!ib || wh_inbox_db_read(ib, p, "payment view", read_payment, &v) != WH_DB_OK)
        return WH_PAY_UNAVAILABLE;
    if (!v.pay.nrows)
        return WH_PAY_NOT_FOUND;
    payment_row(&v.pay, 0, pay);
    *truncated = v.hist.total > WH_PAYMENT_HISTORY_MAX;
    n = *truncated ? WH_PAYMENT_HISTORY_MAX : v.hist.nrows;
    *history = apr_array_make(p, n + 1, sizeof(wh_payment_event));
    /* read newest first: oldest first in the answer */
    for (int i = n - 1; i >= 0; i--) {
        wh_payment_event *e = apr_array_push(*history);
        e->notification_id = WH_ROW_CELL(&v.hist, i, 0);
        e->event_type = wh_cell_opt(WH_ROW_CELL(&v.hist, i, 1));
        e->event_time = wh_cell_opt(WH_ROW_CELL(&v.hist, i, 2));
        e->status = wh_cell_opt(WH_ROW_CELL(&v.hist, i, 3));
        e->received_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&v.hist, i, 4));
        e->event_id = wh_cell_num(WH_ROW_CELL(&v.hist, i, 5));
    }
    return WH_PAY_OK;
}

wh_pay_result wh_payments_get(wh_inbox *ib, apr_pool_t *p, const char *payment_id,
                              const char **json_out)
{
    wh_payment_row pay;
    apr_array_header_t *history;
    int truncated;
    wh_pay_result res = wh_payments_view(ib, p, payment_id, &pay, &history, &truncated);

    *json_out = NULL;
    if (res != WH_PAY_OK)
        return res;
    *json_out = wh_payment_json(p, &pay, history, truncated);
    return *json_out ? WH_PAY_OK : WH_PAY_UNAVAILABLE;
}

wh_pay_result wh_payments_list(wh_inbox *ib, apr_pool_t *p, const wh_page_query *q,
                               const char **json_out)
{
    wh_inbox_rows found;
    apr_array_header_t *rows;
    const void *args[3] = { NULL, NULL, NULL };
    apr_int64_t offset;
    int n, more, fetch, k = 0;

    *json_out = NULL;
    if (!ib || !q || q->limit < 1 || q->offset < 0)
        return WH_PAY_UNAVAILABLE;
    fetch = q->limit + 1;              /* one more: are there more? */
    offset = q->offset;
    if (q->status)
        args[k++] = q->status;
    args[k++] = &fetch;
    args[k++] = &offset;
    if (wh_inbox_db_query(ib, p, "payments view", q->status ? &st_list_status : &st_list,
                          args, fetch, &found) != 0)
        return WH_PAY_UNAVAILABLE;
    more = found.nrows > q->limit;
    n = more ? q->limit : found.nrows;
    rows = apr_array_make(p, n + 1, sizeof(wh_payment_row));
    for (int i = 0; i < n; i++)
        payment_row(&found, i, apr_array_push(rows));
    *json_out = wh_payments_page_json(p, rows, q->offset + n, more);
    return *json_out ? WH_PAY_OK : WH_PAY_UNAVAILABLE;
}

wh_pay_result wh_payments_after(wh_inbox *ib, apr_pool_t *p, const char *after,
                                const char *status, int limit,
                                apr_array_header_t **rows, int *more)
{
    wh_inbox_rows found;
    const void *args[3] = { NULL, NULL, NULL };
    int n, fetch = limit + 1, k = 0;

    *rows = NULL;
    *more = 0;
    if (!ib || limit < 1)
        return WH_PAY_UNAVAILABLE;
    if (status)
        args[k++] = status;
    args[k++] = after ? after : "";
    args[k++] = &fetch;
    if (wh_inbox_db_query(ib, p, "payments page", status ? &st_after_status : &st_after,
                          args, fetch, &found) != 0)
        return WH_PAY_UNAVAILABLE;
    *more = found.nrows > limit;
    n = *more ? limit : found.nrows;
    *rows = apr_array_make(p, n + 1, sizeof(wh_payment_row));
    for (int i = 0; i < n; i++)
        payment_row(&found, i, apr_array_push(*rows));
    return WH_PAY_OK;
}

wh_pay_result wh_payments_recent(wh_inbox *ib, apr_pool_t *p, const char *status,
                                 apr_time_t before_at, const char *before_id, int limit,
                                 apr_array_header_t **rows, int *more)
{
    static const wh_inbox_stmt *const st[4] = { &st_recent, &st_recent_before,
                                                &st_recent_status, &st_recent_status_before };
    wh_inbox_rows found;
    const void *args[4] = { NULL, NULL, NULL, NULL };
    apr_int64_t at = (apr_int64_t)before_at;
    int n, fetch = limit + 1, k = 0, which = (status ? 2 : 0) + (before_id ? 1 : 0);

    *rows = NULL;
    *more = 0;
    if (!ib || limit < 1)
        return WH_PAY_UNAVAILABLE;
    if (status)
        args[k++] = status;
    if (before_id) {
        args[k++] = &at;
        args[k++] = before_id;
    }
    args[k++] = &fetch;
    if (wh_inbox_db_query(ib, p, "payments by activity", st[which], args, fetch, &found) != 0)
        return WH_PAY_UNAVAILABLE;
    *more = found.nrows > limit;
    n = *more ? limit : found.nrows;
    *rows = apr_array_make(p, n + 1, sizeof(wh_payment_row));
    for (int i = 0; i < n; i++)
        payment_row(&found, i, apr_array_push(*rows));
    return WH_PAY_OK;
}
