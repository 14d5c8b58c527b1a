/* The listing: one page of stored events, bodies spliced in
 * exactly as received, with the spec's offset/limit pagination. */
#include "wh_inbox_db.h"
#include <apr_strings.h>
#include <string.h>

/* Pages are positions in wh_order (1, 2, 3 ... without gaps): unfiltered
 * paging seeks on it, seq > offset being "skip offset records", at a cost
 * that does not grow with offset. Filtered paging counts within the
 * filter: OFFSET over the (filter, seq) index range of wh_order, which is
 * small for one payment. The body comes from wh_events by its key. */
#define WH_LIST_FROM " FROM wh_order o JOIN wh_events e ON e.id = o.event_id"
static const wh_inbox_stmt st_list = {
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE o.seq > %lld ORDER BY o.seq LIMIT %d",
    NULL };
static const wh_inbox_stmt st_list_payment = {
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE o.payment_id = %s"
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL };
static const wh_inbox_stmt st_list_status = {
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE o.status = %s"
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL };
static const wh_inbox_stmt st_list_both = {
    "SELECT o.seq, e.body" WH_LIST_FROM " WHERE o.payment_id = %s AND o.status = %s"
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL };

typedef struct {
    const wh_inbox_stmt *st;
    const void *args[4];
    int limit, fetch;
    apr_int64_t offset;
    wh_inbox_rows rows;
} list_job;

static int list_read(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    list_job *j = baton;
    return wh_inbox_db_select(ib, p, j->st, j->args, j->limit, &j->rows);
}

wh_inbox_result wh_inbox_list(wh_inbox *ib, apr_pool_t *p,
                              const wh_page_query *q, const char **json_out)
{
    list_job j;
    const char *tail;
    char *json, *w;
    apr_size_t total, *lens;
    int n;

    *json_out = NULL;
    if (!ib || !q || q->limit < 1 || q->offset < 0)
        return WH_INBOX_UNAVAILABLE;
    memset(&j, 0, sizeof(j));
    /* One row more than asked tells whether more records remain. */
    j.limit = q->limit;
    j.fetch = q->limit + 1;
    j.offset = q->offset;
    if (q->payment_id && q->status) {
        j.st = &st_list_both;
        j.args[0] = q->payment_id;
        j.args[1] = q->status;
        j.args[2] = &j.fetch;
        j.args[3] = &j.offset;
    } else if (q->payment_id || q->status) {
        j.st = q->payment_id ? &st_list_payment : &st_list_status;
        j.args[0] = q->payment_id ? q->payment_id : q->status;
        j.args[1] = &j.fetch;
        j.args[2] = &j.offset;
    } else {
        j.st = &st_list;
        j.args[0] = &j.offset;
        j.args[1] = &j.fetch;
    }
    /* PostgreSQL: every committed event numbered before the page is read,
     * so what was acknowledged is listed. */
    if (wh_inbox_sequence(ib, p) != 0
        || wh_inbox_db_read(ib, p, "listing", list_read, &j) != WH_DB_OK)
        return WH_INBOX_UNAVAILABLE;

    n = j.rows.nrows;
    tail = apr_psprintf(p, "],\"pagination\":{\"offset\":\"%" APR_INT64_T_FMT
                        "\",\"moreRecords\":%s}}",
                        q->offset + n, j.rows.total > q->limit ? "true" : "false");
    /* Bodies are spliced in exactly as received, never re-serialized. */
    lens = apr_palloc(p, sizeof(*lens) * (apr_size_t)(n > 0 ? n : 1));
    total = strlen("{\"events\":[") + strlen(tail) + 1;
    for (int i = 0; i < n; i++) {
        const char *b = WH_ROW_CELL(&j.rows, i, 1);
        lens[i] = b ? strlen(b) : 0;
        total += lens[i] + 1;
    }
    json = w = apr_palloc(p, total);
    memcpy(w, "{\"events\":[", 11);
    w += 11;
    for (int i = 0, k = 0; i < n; i++) {
        if (!WH_ROW_CELL(&j.rows, i, 1))
            continue;
        if (k++ > 0)
            *w++ = ',';
        memcpy(w, WH_ROW_CELL(&j.rows, i, 1), lens[i]);
        w += lens[i];
    }
    strcpy(w, tail);
    *json_out = json;
    return WH_INBOX_STORED;       /* the enum's "ok" */
}
