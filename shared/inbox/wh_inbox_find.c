/* Finding an event or a payment by exact match (wh_inbox_find.h). */
#include "wh_inbox_find.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include "wh_pagination.h"

#include <string.h>

/* Kinds as the query gives them: -2 the event, -1 the payment, then
 * wh_payment_refs' own (WH_REF_*). Each part is an index seek. */
static const wh_inbox_stmt st_find = {
    "SELECT -2, id, payment_id FROM wh_events WHERE notification_id = %s"
    " AND " WH_SQL_NOT_TOMBSTONE("id")
    " UNION ALL SELECT -1, 0, payment_id FROM wh_payments WHERE payment_id = %s"
    " UNION ALL SELECT kind, 0, payment_id FROM wh_payment_refs WHERE ref = %s"
    " LIMIT %d", NULL, NULL };

const char *wh_found_name(wh_found_kind kind)
{
    switch (kind) {
    case WH_FOUND_NOTIFICATION: return "notificationId";
    case WH_FOUND_PAYMENT: return "paymentId";
    case WH_FOUND_END_TO_END_ID: return "endToEndId";
    case WH_FOUND_IMAD: return "IMAD";
    case WH_FOUND_OMAD: return "OMAD";
    }
    return "?";
}

static int kind_of(apr_int64_t k, wh_found_kind *out)
{
    switch (k) {
    case -2: *out = WH_FOUND_NOTIFICATION; return 0;
    case -1: *out = WH_FOUND_PAYMENT; return 0;
    case WH_REF_END_TO_END_ID: *out = WH_FOUND_END_TO_END_ID; return 0;
    case WH_REF_IMAD: *out = WH_FOUND_IMAD; return 0;
    case WH_REF_OMAD: *out = WH_FOUND_OMAD; return 0;
    default: return -1;
    }
}

int wh_inbox_find(wh_inbox *ib, apr_pool_t *p, const char *value,
                  apr_array_header_t **hits, int *more)
{
    int fetch = WH_FIND_MAX + 1;
    const void *args[4] = { value, value, value, &fetch };
    const char *checked;
    wh_inbox_rows rows;

    *hits = apr_array_make(p, 4, sizeof(wh_found));
    *more = 0;
    if (!value || wh_page_filter_value(p, "value", value, &checked) != NULL)
        return 0;
    if (wh_inbox_db_query(ib, p, "find", &st_find, args, fetch, &rows) != 0)
        return -1;
    for (int i = 0; i < rows.nrows && (*hits)->nelts < WH_FIND_MAX; i++) {
        wh_found f;
        if (kind_of(wh_cell_num(WH_ROW_CELL(&rows, i, 0)), &f.kind) != 0)
            continue;
        f.event_id = wh_cell_num(WH_ROW_CELL(&rows, i, 1));
        f.payment_id = wh_cell_opt(WH_ROW_CELL(&rows, i, 2));
        /* the event first: it is what the value names most precisely */
        if (f.kind == WH_FOUND_NOTIFICATION && (*hits)->nelts) {
            apr_array_push(*hits);
            memmove((*hits)->elts + sizeof(f), (*hits)->elts,
                    sizeof(f) * (apr_size_t)((*hits)->nelts - 1));
            memcpy((*hits)->elts, &f, sizeof(f));
        } else {
            *(wh_found *)apr_array_push(*hits) = f;
        }
    }
    *more = rows.total > WH_FIND_MAX;
    return 0;
}
