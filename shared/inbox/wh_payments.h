#ifndef WH_PAYMENTS_H
#define WH_PAYMENTS_H
/* The current state of every payment, read from the inbox: wh_payments
 * (kept by the store transaction: the status of the latest event by
 * eventDateTime as an instant, arrival breaking ties) and each payment's
 * events. Read-only; served as GET <inbox>/payments[/{id}] and by
 * `wirehook inbox payment(s)`, with the same JSON. */
#include <apr_pools.h>
#include <apr_tables.h>
#include "wh_inbox.h"

/* A payment's history holds at most this many events (the latest ones). */
#define WH_PAYMENT_HISTORY_MAX 1000

typedef struct {
    const char *payment_id;
    const char *status;          /* the current status */
    const char *event_time;      /* eventDateTime of the event that set it */
    const char *notification_id; /* that event's */
    apr_int64_t events;          /* how many events the payment has */
    apr_time_t updated_at;       /* when the row last changed */
} wh_payment_row;

typedef struct {
    apr_int64_t event_id;        /* wh_events.id, the arrival key */
    const char *notification_id;
    const char *event_type;
    const char *event_time;      /* as sent */
    const char *status;
    apr_time_t received_at;
} wh_payment_event;

typedef enum {
    WH_PAY_OK = 0,
    WH_PAY_NOT_FOUND,
    WH_PAY_UNAVAILABLE
} wh_pay_result;

/* {"paymentId":..,"status":..,"statusKnown":b,"eventDateTime":..,
 *  "notificationId":..,"events":n,"updatedAt":..,
 *  "history":[{"notificationId","eventType","eventDateTime","status",
 *              "receivedAt"}...],"historyTruncated":b}
 * history: oldest first, in the order that decides the status, so its
 * last entry set the current status. */
const char *wh_payment_json(apr_pool_t *p, const wh_payment_row *pay,
                            const apr_array_header_t *history, int truncated);

/* {"payments":[{payment without history}...],
 *  "pagination":{"offset":"N","moreRecords":b}} */
const char *wh_payments_page_json(apr_pool_t *p, const apr_array_header_t *rows,
                                  apr_int64_t next_offset, int more);

/* One payment and its history. */
wh_pay_result wh_payments_get(wh_inbox *ib, apr_pool_t *p, const char *payment_id,
                              const char **json_out);

/* The same as rows: *pay, and history (of wh_payment_event, oldest first
 * in the order that decides the status), *truncated when older events
 * were left out. */
wh_pay_result wh_payments_view(wh_inbox *ib, apr_pool_t *p, const char *payment_id,
                               wh_payment_row *pay, apr_array_header_t **history,
                               int *truncated);

/* Payments after paymentId `after` ("" or NULL: from the first) in
 * paymentId order, of current status `status` (NULL: any, else
 * whatever its case): at most limit
 * rows of wh_payment_row, *more when others follow. A seek on the key,
 * the same cost at any depth. */
wh_pay_result wh_payments_after(wh_inbox *ib, apr_pool_t *p, const char *after,
                                const char *status, int limit,
                                apr_array_header_t **rows, int *more);

/* Payments by latest activity (updated_at), newest first, of current
 * status `status` (NULL: any, else whatever its case): the page after
 * the row (before_at, before_id) of the previous one (before_id NULL:
 * the first page). At most limit rows, *more when others follow; a seek,
 * the same cost at any depth. */
wh_pay_result wh_payments_recent(wh_inbox *ib, apr_pool_t *p, const char *status,
                                 apr_time_t before_at, const char *before_id, int limit,
                                 apr_array_header_t **rows, int *more);

/* Payments by current status (q->status, or every payment when NULL),
 * ordered by paymentId, offset/limit as q says. */
wh_pay_result wh_payments_list(wh_inbox *ib, apr_pool_t *p, const wh_page_query *q,
                               const char **json_out);

#endif
