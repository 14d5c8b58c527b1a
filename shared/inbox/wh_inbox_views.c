/* The inbox's read-only views for people (wh_inbox_views.h): pages of
 * facts, one event, arrivals as listing positions, the quarantine's size. */
#include "wh_inbox_views.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"

#include <apr_strings.h>
#include <string.h>

#define WH_EV_COLS                                                            \
    "SELECT o.seq, e.id, e.notification_id, e.event_type, e.event_time,"      \
    " e.payment_id, e.status, e.received_at"
#define WH_EV_FROM WH_EV_COLS " FROM wh_order o JOIN wh_events e ON e.id = o.event_id"
#define WH_EV_WINDOW " o.seq > %lld AND o.seq <= %lld"

/* Unfiltered: a range of positions, whatever the offset. */
static const wh_inbox_stmt st_page = {
    WH_EV_FROM " WHERE" WH_EV_WINDOW " ORDER BY o.seq LIMIT %d", NULL, NULL };
/* Filtered: the (filter, seq) index range from the window's start. */
static const wh_inbox_stmt st_page_payment = {
    WH_EV_FROM " WHERE o.payment_id = %s AND" WH_EV_WINDOW
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL, NULL };
static const wh_inbox_stmt st_page_status = {
    WH_EV_FROM " WHERE o.status = %s AND" WH_EV_WINDOW
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL, NULL };
static const wh_inbox_stmt st_page_both = {
    WH_EV_FROM " WHERE o.payment_id = %s AND o.status = %s AND" WH_EV_WINDOW
    " ORDER BY o.seq LIMIT %d OFFSET %lld", NULL, NULL };
/* An event that is stored but not listed yet (PostgreSQL's sequencer has
 * not numbered it) is still shown, at position 0. */
static const wh_inbox_stmt st_event = {
    "SELECT coalesce(o.seq, 0), e.id, e.notification_id, e.event_type,"
    " e.event_time, e.payment_id, e.status, e.received_at, e.body"
    " FROM wh_events e LEFT JOIN wh_order o ON o.event_id = e.id"
    " WHERE e.id = %lld", NULL, NULL };
static const wh_inbox_stmt st_listed = {
    "SELECT coalesce(max(seq), 0) FROM wh_order", NULL, NULL };
/* The arrival time at each position of a JSON array of positions. */
static const wh_inbox_stmt st_probe = {
    "SELECT o.seq, e.received_at FROM wh_order o JOIN wh_events e"
    " ON e.id = o.event_id WHERE o.seq IN (SELECT value FROM json_each(%s))",
    "SELECT o.seq, e.received_at FROM wh_order o JOIN wh_events e"
    " ON e.id = o.event_id WHERE o.seq IN"
    " (SELECT json_array_elements_text(%s::json)::bigint)",
    "SELECT o.seq, e.received_at FROM wh_order o JOIN wh_events e"
    " ON e.id = o.event_id WHERE o.seq IN (SELECT j.v FROM"
    " JSON_TABLE(%s, '$[*]' COLUMNS (v BIGINT PATH '$')) AS j)" };
static const wh_inbox_stmt st_held = {
    "SELECT count(*) FROM wh_quarantine WHERE released_at IS NULL", NULL, NULL };

static void event_row(const wh_inbox_rows *r, int i, wh_event_row *e)
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
    const wh_inbox_stmt *st;
    const void *args[7] = { NULL };
    wh_inbox_rows found;
    apr_int64_t lower, upper, offset;
    int fetch, a = 0;

    *rows = apr_array_make(p, 1, sizeof(wh_event_row));
    *more = 0;
    if (!q || q->limit < 1 || q->offset < 0 || q->lo < 0 || q->hi < 0)
        return -1;
    fetch = q->limit + 1;                /* one more: are there more? */
    upper = q->hi > 0 ? q->hi : APR_INT64_MAX;
    lower = q->lo;
    offset = q->offset;
    if (!q->payment_id && !q->status) {
        /* positions have no gaps: skipping offset rows is adding it */
        lower = offset > APR_INT64_MAX - lower ? APR_INT64_MAX : lower + offset;
        offset = 0;
        st = &st_page;
    } else {
        if (q->after > lower) {
            lower = q->after;
            offset = 0;
        }
        st = q->payment_id && q->status ? &st_page_both
             : q->payment_id ? &st_page_payment : &st_page_status;
        if (q->payment_id)
            args[a++] = q->payment_id;
        if (q->status)
            args[a++] = q->status;
    }
    args[a++] = &lower;
    args[a++] = &upper;
    args[a++] = &fetch;
    if (st != &st_page)
        args[a++] = &offset;
    if (read_view(ib, p, "events page", st, args, fetch, &found) != 0)
        return -1;
    *more = found.nrows > q->limit;
    *rows = apr_array_make(p, q->limit, sizeof(wh_event_row));
    for (int i = 0; i < found.nrows && i < q->limit; i++)
        event_row(&found, i, apr_array_push(*rows));
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
    event_row(&rows, 0, out);
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
    char *s = apr_palloc(p, (apr_size_t)b->n * 21 + 3), *w = s;
    int k = 0;

    *w++ = '[';
    for (int i = 0; i < b->n; i++) {
        apr_int64_t mid;
        if (b->hi[i] - b->lo[i] <= 1)
            continue;
        mid = b->lo[i] + (b->hi[i] - b->lo[i]) / 2;
        w += apr_snprintf(w, 22, "%s%" APR_INT64_T_FMT, k++ ? "," : "", mid);
    }
    *w++ = ']';
    *w = '\0';
    return k ? s : NULL;
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
        if ((rv = wh_inbox_db_select(ib, tmp, &st_probe, args, b->n, &r)) != 0)
            break;
        for (int i = 0; i < b->n; i++) {
            apr_int64_t mid, at = APR_INT64_MAX;
            if (b->hi[i] - b->lo[i] <= 1)
                continue;
            mid = b->lo[i] + (b->hi[i] - b->lo[i]) / 2;
            /* a position that is not there (the listing has no gaps, so
             * only past its end) counts as later than everything */
            for (int k = 0; k < r.nrows; k++)
                if (wh_cell_num(WH_ROW_CELL(&r, k, 0)) == mid) {
                    at = wh_cell_num(WH_ROW_CELL(&r, k, 1));
                    break;
                }
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
