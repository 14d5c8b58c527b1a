/* The listing: one page of stored events, bodies spliced in
 * exactly as received, with the spec's offset/limit pagination. */
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include <apr_strings.h>
#include <string.h>

/* Pages are positions in wh_order (1, 2, 3 ... without gaps until a
 * purge deletes the oldest): unfiltered paging seeks on it, seq > offset
 * being "skip offset records", at a cost that does not grow with offset,
 * and the next page's offset is the last position of this one, so that
 * offsets keep their meaning once the first positions are gone. Filtered
 * paging counts within the filter: OFFSET over the (filter, seq) index
 * range of wh_order, which is small for one payment. The body comes from
 * wh_events by its key. */
#define WH_LIST_FROM " FROM wh_order o JOIN wh_events e ON e.id = o.event_id"
static const wh_inbox_stmt st_list = {
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE o.seq > %lld ORDER BY o.seq LIMIT %d",
    NULL, NULL };
static const wh_inbox_stmt st_list_payment = {
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE o.payment_id = %s"
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL, NULL };
/* A status matches whatever its case: the index is on lower(status)
 * (MySQL: status_ci). */
#define ST_LIST_STATUS(st)                                                    \
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE " st " ORDER BY o.seq LIMIT %d OFFSET %lld"
static const wh_inbox_stmt st_list_status = {
    ST_LIST_STATUS(WH_SQL_STATUS_IS("o.")), NULL, ST_LIST_STATUS(WH_MY_STATUS_IS("o.")) };
static const wh_inbox_stmt st_list_both = {
    ST_LIST_STATUS("o.payment_id = %s AND " WH_SQL_STATUS_IS("o.")), NULL,
    ST_LIST_STATUS("o.payment_id = %s AND " WH_MY_STATUS_IS("o.")) };
/* One event by its notificationId (unique): the page holds it or
 * nothing. The other filters are applied to it here. */
static const wh_inbox_stmt st_list_nid = {
    "SELECT o.seq, e.body, o.payment_id, o.status" WH_LIST_FROM
    " WHERE e.notification_id = %s", NULL, NULL };

/* 1 when the one event found by its notificationId passes the other
 * filters (row i of rows: seq, body, payment_id, status). */
static int nid_passes(const wh_page_query *q, const wh_inbox_rows *rows, int i)
{
    const char *pay = WH_ROW_CELL(rows, i, 2), *st = WH_ROW_CELL(rows, i, 3);
    return q->offset == 0 && (!q->payment_id || (pay && strcmp(pay, q->payment_id) == 0))
           && (!q->status || (st && strcasecmp(st, q->status) == 0));
}

wh_inbox_result wh_inbox_list(wh_inbox *ib, apr_pool_t *p,
                              const wh_page_query *q, const char **json_out)
{
    const wh_inbox_stmt *st;
    const void *args[4];
    int fetch;
    apr_int64_t offset, next;
    wh_inbox_rows rows;
    const char *tail;
    char *json, *w;
    apr_size_t total, *lens;
    int n;

    *json_out = NULL;
    if (!ib || !q || q->limit < 1 || q->offset < 0)
        return WH_INBOX_UNAVAILABLE;
    /* One row more than asked tells whether more records remain. */
    fetch = q->limit + 1;
    offset = q->offset;
    if (q->notification_id) {
        st = &st_list_nid;
        args[0] = q->notification_id;
    } else if (q->payment_id && q->status) {
        st = &st_list_both;
        args[0] = q->payment_id;
        args[1] = q->status;
        args[2] = &fetch;
        args[3] = &offset;
    } else if (q->payment_id || q->status) {
        st = q->payment_id ? &st_list_payment : &st_list_status;
        args[0] = q->payment_id ? q->payment_id : q->status;
        args[1] = &fetch;
        args[2] = &offset;
    } else {
        st = &st_list;
        args[0] = &offset;
        args[1] = &fetch;
    }
    /* PostgreSQL: every committed event numbered before the page is read,
     * so what was acknowledged is listed. */
    if (wh_inbox_sequence(ib, p) != 0
        || wh_inbox_db_query(ib, p, "listing", st, args, q->limit, &rows) != 0)
        return WH_INBOX_UNAVAILABLE;

    if (q->notification_id && rows.nrows && !nid_passes(q, &rows, 0))
        rows.nrows = rows.total = 0;
    n = rows.nrows;
    next = q->offset + n;
    if (st == &st_list && n > 0)
        next = wh_cell_num(WH_ROW_CELL(&rows, n - 1, 0));
    tail = apr_psprintf(p, "],\"pagination\":{\"offset\":\"%" APR_INT64_T_FMT
                        "\",\"moreRecords\":%s}}",
                        next, rows.total > q->limit ? "true" : "false");
    /* Bodies are spliced in exactly as received, never re-serialized. */
    lens = apr_palloc(p, sizeof(*lens) * (apr_size_t)(n > 0 ? n : 1));
    total = strlen("{\"events\":[") + strlen(tail) + 1;
    for (int i = 0; i < n; i++) {
        const char *b = WH_ROW_CELL(&rows, i, 1);
        lens[i] = b ? strlen(b) : 0;
        total += lens[i] + 1;
    }
    json = w = apr_palloc(p, total);
    memcpy(w, "{\"events\":[", 11);
    w += 11;
    for (int i = 0, k = 0; i < n; i++) {
        if (!WH_ROW_CELL(&rows, i, 1))
            continue;
        if (k++ > 0)
            *w++ = ',';
        memcpy(w, WH_ROW_CELL(&rows, i, 1), lens[i]);
        w += lens[i];
    }
    strcpy(w, tail);
    *json_out = json;
    return WH_INBOX_STORED;       /* the enum's "ok" */
}
