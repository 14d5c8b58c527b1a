/* The inbox's read-only views for people (wh_inbox_views.h): pages of
 * facts, one event, arrivals as listing positions, the quarantine's size. */
#include "wh_inbox_views.h"
#include "wh_event_rows.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define WH_EV_COLS "SELECT " WH_EVENT_ROW_COLS
#define WH_EV_FROM WH_EV_COLS " FROM wh_order o JOIN wh_events e ON e.id = o.event_id"
#define WH_EV_WINDOW " o.seq > %lld AND o.seq <= %lld"

/* Unfiltered: a range of positions, whatever the offset. */
static const wh_inbox_stmt st_page = {
    WH_EV_FROM " WHERE" WH_EV_WINDOW " ORDER BY o.seq LIMIT %d", NULL, NULL };
/* Filtered: the (filter, seq) index range from the window's start. A
 * status matches whatever its case (the index is on lower(status);
 * MySQL's on status_ci, the same words: wh_inbox_sql.h). */
#define WH_EV_PAYMENT " o.payment_id = %s AND"
#define WH_EV_STATUS(st) " " st " AND"
#define ST_PAGE(filter)                                                       \
    WH_EV_FROM " WHERE" filter WH_EV_WINDOW " ORDER BY o.seq LIMIT %d OFFSET %lld"
#define ST_DESC(filter) WH_EV_FROM " WHERE" filter WH_EV_WINDOW " ORDER BY o.seq DESC LIMIT %d"
static const wh_inbox_stmt st_page_payment = { ST_PAGE(WH_EV_PAYMENT), NULL, NULL };
static const wh_inbox_stmt st_page_status = {
    ST_PAGE(WH_EV_STATUS(WH_SQL_STATUS_IS("o."))), NULL,
    ST_PAGE(WH_EV_STATUS(WH_MY_STATUS_IS("o."))) };
static const wh_inbox_stmt st_page_both = {
    ST_PAGE(WH_EV_PAYMENT WH_EV_STATUS(WH_SQL_STATUS_IS("o."))), NULL,
    ST_PAGE(WH_EV_PAYMENT WH_EV_STATUS(WH_MY_STATUS_IS("o."))) };
/* Newest first: the same index ranges from the window's end. */
static const wh_inbox_stmt st_desc = { ST_DESC(""), NULL, NULL };
static const wh_inbox_stmt st_desc_payment = { ST_DESC(WH_EV_PAYMENT), NULL, NULL };
static const wh_inbox_stmt st_desc_status = {
    ST_DESC(WH_EV_STATUS(WH_SQL_STATUS_IS("o."))), NULL,
    ST_DESC(WH_EV_STATUS(WH_MY_STATUS_IS("o."))) };
static const wh_inbox_stmt st_desc_both = {
    ST_DESC(WH_EV_PAYMENT WH_EV_STATUS(WH_SQL_STATUS_IS("o."))), NULL,
    ST_DESC(WH_EV_PAYMENT WH_EV_STATUS(WH_MY_STATUS_IS("o."))) };
/* An event that is stored but not listed yet (PostgreSQL's sequencer has
 * not numbered it) is still shown, at position 0. */
static const wh_inbox_stmt st_event = {
    "SELECT coalesce(o.seq, 0), e.id, e.notification_id, e.event_type,"
    " e.event_time, e.payment_id, e.status, e.received_at, e.body"
    " FROM wh_events e LEFT JOIN wh_order o ON o.event_id = e.id"
    " WHERE e.id = %lld"
    " AND " WH_SQL_NOT_TOMBSTONE("e.id"), NULL, NULL };
static const wh_inbox_stmt st_event_nid = {
    "SELECT coalesce(o.seq, 0), e.id, e.notification_id, e.event_type,"
    " e.event_time, e.payment_id, e.status, e.received_at, e.body"
    " FROM wh_events e LEFT JOIN wh_order o ON o.event_id = e.id"
    " WHERE e.notification_id = %s"
    " AND " WH_SQL_NOT_TOMBSTONE("e.id"), NULL, NULL };
static const wh_inbox_stmt st_listed = {
    "SELECT coalesce(max(seq), 0) FROM wh_order", NULL, NULL };
/* The arrival time at each position of a JSON array of positions: from
 * the listing's own narrow rows. */
static const wh_inbox_stmt st_probe = {
    "SELECT seq, received_at FROM wh_order WHERE seq IN (" WH_SQL_IDS ")",
    "SELECT seq, received_at FROM wh_order WHERE seq IN (" WH_SQL_IDS_PG ")",
    "SELECT seq, received_at FROM wh_order WHERE seq IN (" WH_SQL_IDS_MY ")" };
/* Held: neither released nor dealt with otherwise (discarded,
 * acknowledged). */
static const wh_inbox_stmt st_held = {
    "SELECT count(*) FROM wh_quarantine WHERE released_at IS NULL"
    " AND resolved_at IS NULL", NULL, NULL };

void wh_event_row_read(const wh_inbox_rows *r, int i, wh_event_row *e)
{
    memset(e, 0, sizeof(*e));
    e->seq = wh_cell_num(WH_ROW_CELL(r, i, 0));
    e->id = wh_cell_num(WH_ROW_CELL(r, i, 1));
    e->notification_id = WH_ROW_CELL(r, i, 2) ? WH_ROW_CELL(r, i, 2) : "";
    e->event_type = wh_cell_opt(WH_ROW_CELL(r, i, 3));
    e->event_time = wh_cell_opt(WH_ROW_CELL(r, i, 4));
    e->payment_id = wh_cell_opt(WH_ROW_CELL(r, i, 5));
    e->status = wh_cell_opt(WH_ROW_CELL(r, i, 6));
    e->received_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(r, i, 7));
    if (r->ncols > 8)
        e->body = WH_ROW_CELL(r, i, 8) ? WH_ROW_CELL(r, i, 8) : "";
}

/* PostgreSQL: every committed event gets its position first, so what was
 * acknowledged is shown. */
static int read_view(wh_inbox *ib, apr_pool_t *p, const char *what,
                     const wh_inbox_stmt *st, const void **args, int max,
                     wh_inbox_rows *rows)
{
    memset(rows, 0, sizeof(*rows));
    if (!ib || wh_inbox_sequence(ib, p) != 0)
        return -1;
    return wh_inbox_db_query(ib, p, what, st, args, max, rows);
}

int wh_inbox_events(wh_inbox *ib, apr_pool_t *p, const wh_events_query *q,
                    apr_array_header_t **rows, int *more)
{
    static const wh_inbox_stmt *const asc[4] = { &st_page, &st_page_payment,
                                                 &st_page_status, &st_page_both };
    static const wh_inbox_stmt *const desc[4] = { &st_desc, &st_desc_payment,
                                                  &st_desc_status, &st_desc_both };
    const wh_inbox_stmt *st;
    const void *args[7] = { NULL };
    wh_inbox_rows found;
    apr_int64_t lower, upper, offset;
    int fetch, a = 0, filters;

    *rows = apr_array_make(p, 1, sizeof(wh_event_row));
    *more = 0;
    if (!q || q->limit < 1 || q->offset < 0 || q->lo < 0 || q->hi < 0
        || (q->newest_first && q->offset))
        return -1;
    fetch = q->limit + 1;                /* one more: are there more? */
    upper = q->hi > 0 ? q->hi : APR_INT64_MAX;
    lower = q->lo;
    offset = q->offset;
    filters = (q->payment_id ? 1 : 0) + (q->status ? 2 : 0);
    if (!filters && !q->newest_first) {
        /* positions have no gaps: skipping offset rows is adding it */
        lower = offset > APR_INT64_MAX - lower ? APR_INT64_MAX : lower + offset;
        offset = 0;
    } else if (q->after > lower) {
        lower = q->after;
        offset = 0;
    }
    st = q->newest_first ? desc[filters] : asc[filters];
    if (q->payment_id)
        args[a++] = q->payment_id;
    if (q->status)
        args[a++] = q->status;
    args[a++] = &lower;
    args[a++] = &upper;
    args[a++] = &fetch;
    if (filters && !q->newest_first)
        args[a++] = &offset;
    if (read_view(ib, p, "events page", st, args, fetch, &found) != 0)
        return -1;
    *more = found.nrows > q->limit;
    *rows = apr_array_make(p, q->limit, sizeof(wh_event_row));
    for (int i = 0; i < found.nrows && i < q->limit; i++)
        wh_event_row_read(&found, i, apr_array_push(*rows));
    return 0;
}

int wh_inbox_event(wh_inbox *ib, apr_pool_t *p, apr_int64_t id, wh_event_row *out)
{
    const void *args[1] = { &id };
    wh_inbox_rows rows;

    if (read_view(ib, p, "one event", &st_event, args, 1, &rows) != 0)
        return -1;
    if (!rows.nrows)
        return 0;
    wh_event_row_read(&rows, 0, out);
    return 1;
}

int wh_inbox_event_by_nid(wh_inbox *ib, apr_pool_t *p, const char *nid, wh_event_row *out)
{
    const void *args[1] = { nid };
    wh_inbox_rows rows;

    if (read_view(ib, p, "one event", &st_event_nid, args, 1, &rows) != 0)
        return -1;
    if (!rows.nrows)
        return 0;
    wh_event_row_read(&rows, 0, out);
    return 1;
}

int wh_inbox_listed(wh_inbox *ib, apr_pool_t *p, apr_int64_t *n)
{
    wh_inbox_rows rows;

    *n = 0;
    if (read_view(ib, p, "listing size", &st_listed, NULL, 1, &rows) != 0)
        return -1;
    *n = rows.nrows ? wh_cell_num(WH_ROW_CELL(&rows, 0, 0)) : 0;
    return 0;
}

/* ---- arrivals -------------------------------------------------------- */

typedef struct {
    const apr_time_t *times;
    int n;
    apr_int64_t *lo, *hi;        /* per instant: f(lo) < t <= f(hi) */
} bisect;

/* The positions still to probe, as a JSON array, or NULL when every
 * instant is resolved. */
static const char *probes(apr_pool_t *p, const bisect *b)
{
    apr_int64_t *mid = apr_palloc(p, sizeof(*mid) * (apr_size_t)(b->n > 0 ? b->n : 1));
    int k = 0;

    for (int i = 0; i < b->n; i++)
        if (b->hi[i] - b->lo[i] > 1)
            mid[k++] = b->lo[i] + (b->hi[i] - b->lo[i]) / 2;
    return k ? wh_cell_ids(p, mid, k) : NULL;
}

/* A probed position and its arrival time. */
typedef struct {
    apr_int64_t seq, at;
} probed;

static int by_seq(const void *a, const void *b)
{
    const probed *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int arrivals(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    bisect *b = baton;
    apr_pool_t *tmp;
    const char *ids;
    int rv = 0;

    if (apr_pool_create(&tmp, p) != APR_SUCCESS)
        return -1;
    /* each round halves every open interval: at most 64 rounds */
    for (int round = 0; round < 64 && (ids = probes(tmp, b)) != NULL; round++) {
        const void *args[1] = { ids };
        wh_inbox_rows r;
        probed *got;
        if ((rv = wh_inbox_db_select(ib, tmp, &st_probe, args, b->n, &r)) != 0)
            break;
        /* the rows parsed once and sorted, each instant's position
         * looked up in them: not every row parsed for every instant */
        got = apr_palloc(tmp, sizeof(*got) * (apr_size_t)(r.nrows + 1));
        for (int k = 0; k < r.nrows; k++) {
            got[k].seq = wh_cell_num(WH_ROW_CELL(&r, k, 0));
            got[k].at = wh_cell_num(WH_ROW_CELL(&r, k, 1));
        }
        qsort(got, (size_t)r.nrows, sizeof(*got), by_seq);
        for (int i = 0; i < b->n; i++) {
            apr_int64_t mid, at = APR_INT64_MAX;
            probed key = { 0, 0 };
            const probed *hit;
            if (b->hi[i] - b->lo[i] <= 1)
                continue;
            mid = b->lo[i] + (b->hi[i] - b->lo[i]) / 2;
            key.seq = mid;
            /* a position that is not there (the listing has no gaps, so
             * only past its end) counts as later than everything */
            hit = r.nrows ? bsearch(&key, got, (size_t)r.nrows, sizeof(*got), by_seq) : NULL;
            if (hit)
                at = hit->at;
            if (at < b->times[i])
                b->lo[i] = mid;
            else
                b->hi[i] = mid;
        }
        apr_pool_clear(tmp);
    }
    apr_pool_destroy(tmp);
    return rv;
}

int wh_inbox_arrivals(wh_inbox *ib, apr_pool_t *p, const apr_time_t *times, int n,
                      apr_int64_t *positions)
{
    apr_int64_t last;
    bisect b;

    if (n < 0 || n > WH_ARRIVALS_MAX || wh_inbox_listed(ib, p, &last) != 0)
        return -1;
    b.times = times;
    b.n = n;
    b.lo = apr_pcalloc(p, sizeof(apr_int64_t) * (apr_size_t)(n + 1));
    b.hi = apr_palloc(p, sizeof(apr_int64_t) * (apr_size_t)(n + 1));
    for (int i = 0; i < n; i++)
        b.hi[i] = last + 1;
    if (n && wh_inbox_db_read(ib, p, "arrivals", arrivals, &b) != WH_DB_OK)
        return -1;
    for (int i = 0; i < n; i++)
        positions[i] = b.lo[i];
    return 0;
}

int wh_inbox_quarantine_held(wh_inbox *ib, apr_pool_t *p, apr_int64_t *n)
{
    wh_inbox_rows rows;

    *n = 0;
    if (!ib || wh_inbox_db_query(ib, p, "quarantine size", &st_held, NULL, 1, &rows) != 0)
        return -1;
    *n = rows.nrows ? wh_cell_num(WH_ROW_CELL(&rows, 0, 0)) : 0;
    return 0;
}
