/* The forward queue's views for people (wh_forward_views.h). */
#include "wh_forward_views.h"
#include "wh_forward_queue_int.h"
#include "wh_forward_queue_sql.h"
#include "inbox/wh_db_cells.h"
#include "inbox/wh_event_rows.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

/* ---- events by forwarding state ---------------------------------------
 * A rare state (dead, waiting, queued, retrying) is read from the
 * (state, seq) index, newest or oldest first; the common one
 * (forwarded), and any page of one payment, from the listing's own
 * indexes, each row's state looked up by its key: in SQLite "+d.state"
 * keeps the planner off the state index there. Bases: 0 none, 1 a
 * payment, 2 a status, 3 both. */
#define EV_SEL "SELECT " WH_EVENT_ROW_COLS
#define BY_D " FROM wh_delivery d JOIN wh_order o ON o.seq = d.seq"              \
    " JOIN wh_events e ON e.id = d.event_id WHERE "
#define BY_O " FROM wh_order o JOIN wh_delivery d ON d.event_id = o.event_id"    \
    " JOIN wh_events e ON e.id = o.event_id WHERE "
#define PAY " AND o.payment_id = %s"
/* The filters a page's base adds, in a dialect's words for the status
 * (WH_SQL_STATUS_IS, WH_MY_STATUS_IS). */
#define B_NONE(st) ""
#define B_PAY(st) PAY
#define B_STA(st) " AND " st
#define B_BOTH(st) PAY " AND " st
#define WIN_D " AND d.seq > %lld AND d.seq <= %lld ORDER BY d.seq "
#define WIN_O " AND o.seq > %lld AND o.seq <= %lld ORDER BY o.seq "
#define DESC "DESC LIMIT %d"
#define ASC "LIMIT %d"
#define D(c, base, dir)                                                       \
    { EV_SEL BY_D c base(WH_SQL_STATUS_IS("o.")) WIN_D dir, NULL,               \
      EV_SEL BY_D c base(WH_MY_STATUS_IS("o.")) WIN_D dir }
#define O(c, base, dir)                                                       \
    { EV_SEL BY_O c base(WH_SQL_STATUS_IS("o.")) WIN_O dir, NULL,               \
      EV_SEL BY_O c base(WH_MY_STATUS_IS("o.")) WIN_O dir }
#define RARE(c, pc)                                                           \
    { { D(c, B_NONE, DESC), D(c, B_NONE, ASC) },                              \
      { O(pc, B_PAY, DESC), O(pc, B_PAY, ASC) },                              \
      { D(c, B_STA, DESC), D(c, B_STA, ASC) },                                \
      { O(pc, B_BOTH, DESC), O(pc, B_BOTH, ASC) } }
#define COMMON(pc)                                                            \
    { { O(pc, B_NONE, DESC), O(pc, B_NONE, ASC) },                            \
      { O(pc, B_PAY, DESC), O(pc, B_PAY, ASC) },                              \
      { O(pc, B_STA, DESC), O(pc, B_STA, ASC) },                              \
      { O(pc, B_BOTH, DESC), O(pc, B_BOTH, ASC) } }
/* "Retrying": ready after at least one failed attempt (a leased one's
 * attempts count the attempt in flight). */
#define RETRYING " AND d.attempts > CASE WHEN d.lease_owner IS NULL THEN 0 ELSE 1 END"

enum { S_FORWARDED, S_DEAD, S_WAITING, S_READY, S_RETRYING, S_N };
static const wh_inbox_stmt st_state[S_N][4][2] = {
    COMMON("+d.state = 3"),
    RARE("d.state = 4", "+d.state = 4"),
    RARE("d.state = 0", "+d.state = 0"),
    RARE("d.state = 1", "+d.state = 1"),
    RARE("d.state = 1" RETRYING, "+d.state = 1" RETRYING),
};
static const wh_inbox_stmt st_cursor_seq = {
    "SELECT last_seq FROM wh_forward_cursor WHERE id = 1", NULL, NULL };

static const struct {
    wh_fq_show show;
    const char *name;
} shows[] = {
    { WH_FQ_SHOW_FORWARDED, "forwarded" },
    { WH_FQ_SHOW_RETRYING, "retrying" },
    { WH_FQ_SHOW_DEAD, "dead" },
    { WH_FQ_SHOW_NOT_YET, "notyet" },
};

const char *wh_fq_show_name(wh_fq_show s)
{
    for (size_t i = 0; i < sizeof(shows) / sizeof(shows[0]); i++)
        if (shows[i].show == s)
            return shows[i].name;
    return NULL;
}

wh_fq_show wh_fq_show_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof(shows) / sizeof(shows[0]); i++)
        if (strcmp(shows[i].name, name) == 0)
            return shows[i].show;
    return 0;
}

/* One state's page: rows into out (appended). */
static int state_page(wh_fq *q, apr_pool_t *p, const wh_events_query *eq, int state,
                      apr_int64_t lo, apr_int64_t hi, apr_array_header_t *out)
{
    int base = (eq->payment_id ? 1 : 0) + (eq->status ? 2 : 0), fetch = eq->limit + 1, a = 0;
    const void *args[5];
    wh_inbox_rows found;

    if (hi <= lo)
        return 0;
    if (eq->payment_id)
        args[a++] = eq->payment_id;
    if (eq->status)
        args[a++] = eq->status;
    args[a++] = &lo;
    args[a++] = &hi;
    args[a++] = &fetch;
    if (wh_inbox_db_query(q->ib, p, "events by forwarding state",
                          &st_state[state][base][eq->newest_first ? 0 : 1], args, fetch,
                          &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++)
        wh_event_row_read(&found, i, apr_array_push(out));
    return 0;
}

static int newest(const void *a, const void *b)
{
    const wh_event_row *x = a, *y = b;
    return (y->seq > x->seq) - (y->seq < x->seq);
}

static int oldest(const void *a, const void *b)
{
    return newest(b, a);
}

int wh_fq_events(wh_fq *q, apr_pool_t *p, const wh_events_query *eq, wh_fq_show show,
                 apr_array_header_t **rows, int *more)
{
    apr_int64_t lo, hi, last = 0;
    apr_array_header_t *all;
    const char *v = NULL;
    int rv = 0;

    *rows = apr_array_make(p, 1, sizeof(wh_event_row));
    *more = 0;
    if (!eq || eq->limit < 1 || eq->lo < 0 || eq->hi < 0)
        return -1;
    lo = eq->lo;
    hi = eq->hi > 0 ? eq->hi : APR_INT64_MAX;
    all = apr_array_make(p, eq->limit * 3 + 3, sizeof(wh_event_row));
    switch (show) {
    case WH_FQ_SHOW_FORWARDED:
        rv = state_page(q, p, eq, S_FORWARDED, lo, hi, all);
        break;
    case WH_FQ_SHOW_DEAD:
        rv = state_page(q, p, eq, S_DEAD, lo, hi, all);
        break;
    case WH_FQ_SHOW_RETRYING:
        rv = state_page(q, p, eq, S_RETRYING, lo, hi, all);
        break;
    case WH_FQ_SHOW_NOT_YET: {
        /* waiting and queued, and past the cursor what no forwarder took
         * in yet (every event up to it has a queue row, none after it) */
        wh_events_query un = *eq;
        apr_array_header_t *fresh;
        int fresh_more = 0;
        if (wh_inbox_db_value(q->ib, p, &st_cursor_seq, NULL, &v) != 0) {
            rv = -1;
            break;
        }
        last = wh_cell_num(v);
        un.lo = lo > last ? lo : last;
        un.offset = un.after = 0;
        if ((rv = state_page(q, p, eq, S_WAITING, lo, hi < last ? hi : last, all)) == 0 &&
            (rv = state_page(q, p, eq, S_READY, lo, hi < last ? hi : last, all)) == 0 &&
            (rv = wh_inbox_events(q->ib, p, &un, &fresh, &fresh_more)) == 0) {
            for (int i = 0; i < fresh->nelts; i++)
                *(wh_event_row *)apr_array_push(all) = APR_ARRAY_IDX(fresh, i, wh_event_row);
            *more = fresh_more;
        }
        break;
    }
    default:
        return -1;
    }
    if (rv != 0)
        return -1;
    qsort(all->elts, (size_t)all->nelts, sizeof(wh_event_row),
          eq->newest_first ? newest : oldest);
    *more = *more || all->nelts > eq->limit;
    *rows = apr_array_make(p, eq->limit, sizeof(wh_event_row));
    for (int i = 0; i < all->nelts && i < eq->limit; i++)
        *(wh_event_row *)apr_array_push(*rows) = APR_ARRAY_IDX(all, i, wh_event_row);
    return 0;
}

/* ---- dead letters by filter ------------------------------------------ */

/* Every condition is always there, its value saying "any" ('' or 0), so
 * one statement serves every filter; the dead letters' own index
 * (state = 4) is the range read. No answer (a transport error) is a
 * status of 0 or none: -1 here. */
#define DEAD_WHERE                                                            \
    " WHERE d.state = 4 AND (%s = '' OR d.reason = %s)"                       \
    " AND (%d = 0 OR coalesce(nullif(d.http_status, 0), -1) = %d)"            \
    " AND (%s = '' OR d.payment_id = %s)"                                     \
    " AND d.done_at >= %lld AND d.done_at < %lld"
/* Read from wh_delivery_dead_filter alone (it holds every column a filter
 * looks at): SQLite is told so, PostgreSQL sees it. A page's ids first,
 * then their rows. */
#define DEAD_FROM_SQ " FROM wh_delivery d INDEXED BY wh_delivery_dead_filter"
#define DEAD_FROM_PG " FROM wh_delivery d"
#define DEAD_PAGE(from)                                                       \
    WH_FQ_DEAD_COLS " FROM wh_delivery d JOIN wh_events e ON e.id = d.event_id" \
    " WHERE d.event_id IN (SELECT d.event_id" from DEAD_WHERE                 \
    " AND d.event_id < %lld ORDER BY d.event_id DESC LIMIT %d)"               \
    " ORDER BY d.event_id DESC"
/* MySQL takes no LIMIT in an IN subquery: the page's ids as a table. */
#define DEAD_PAGE_MY                                                          \
    WH_FQ_DEAD_COLS " FROM (SELECT d.event_id" DEAD_FROM_PG DEAD_WHERE          \
    " AND d.event_id < %lld ORDER BY d.event_id DESC LIMIT %d) AS x"          \
    " JOIN wh_delivery d ON d.event_id = x.event_id"                          \
    " JOIN wh_events e ON e.id = d.event_id ORDER BY d.event_id DESC"
static const wh_inbox_stmt st_dead_page = {
    DEAD_PAGE(DEAD_FROM_SQ), DEAD_PAGE(DEAD_FROM_PG), DEAD_PAGE_MY };
static const wh_inbox_stmt st_dead_count = {
    "SELECT count(*)" DEAD_FROM_SQ DEAD_WHERE, "SELECT count(*)" DEAD_FROM_PG DEAD_WHERE,
    "SELECT count(*)" DEAD_FROM_PG DEAD_WHERE };
static const wh_inbox_stmt st_dead_ids = {
    "SELECT d.event_id FROM wh_delivery d" DEAD_WHERE " ORDER BY d.seq LIMIT %d", NULL,
    NULL };
#define REASONS(from)                                                         \
    "SELECT d.reason, coalesce(nullif(d.http_status, 0), -1), count(*)" from  \
    " WHERE d.state = 4 GROUP BY d.reason, coalesce(nullif(d.http_status, 0), -1)" \
    " ORDER BY 3 DESC LIMIT %d"
static const wh_inbox_stmt st_reasons = {
    REASONS(DEAD_FROM_SQ), REASONS(DEAD_FROM_PG), REASONS(DEAD_FROM_PG) };
/* a JSON array of paymentIds; each payment's range of the dead letters'
 * own index (SQLite would read every dead letter by state otherwise) */
static const wh_inbox_stmt st_dead_by_payment = {
    "SELECT payment_id, count(*) FROM wh_delivery INDEXED BY wh_delivery_dead_payment"
    " WHERE state = 4 AND payment_id IN"
    " (SELECT value FROM json_each(%s)) GROUP BY payment_id",
    "SELECT payment_id, count(*) FROM wh_delivery WHERE state = 4 AND payment_id IN"
    " (SELECT json_array_elements_text(%s::json)) GROUP BY payment_id",
    "SELECT payment_id, count(*) FROM wh_delivery WHERE state = 4 AND payment_id IN"
    " (SELECT j.v" WH_FQ_MY_JSON("v VARCHAR(1024) PATH '$'") ") GROUP BY payment_id" };
#define WH_FQ_DEAD_RETRY_BATCH 1000

typedef struct {
    const char *reason, *payment;
    int status;
    apr_int64_t from, to;
} dead_args;

static void filter_args(const wh_fq_dead_filter *f, dead_args *d, const void **args)
{
    d->reason = f && f->reason ? f->reason : "";
    d->payment = f && f->payment_id ? f->payment_id : "";
    d->status = f ? f->http_status : 0;
    d->from = f && f->from > 0 ? f->from : 0;
    d->to = f && f->to > 0 ? f->to : APR_INT64_MAX;
    args[0] = d->reason;
    args[1] = d->reason;
    args[2] = &d->status;
    args[3] = &d->status;
    args[4] = d->payment;
    args[5] = d->payment;
    args[6] = &d->from;
    args[7] = &d->to;
}

const char *wh_fq_dead_filter_key(apr_pool_t *p, const wh_fq_dead_filter *f)
{
    /* lengths first: no value can be read as another's */
    const char *r = f->reason ? f->reason : "", *pay = f->payment_id ? f->payment_id : "";
    return apr_psprintf(p, "%" APR_SIZE_T_FMT ":%s|%d|%" APR_SIZE_T_FMT ":%s|%" APR_TIME_T_FMT
                        "|%" APR_TIME_T_FMT, strlen(r), r, f->http_status, strlen(pay), pay,
                        f->from, f->to);
}

int wh_fq_dead_page(wh_fq *q, apr_pool_t *p, const wh_fq_dead_filter *f,
                    apr_int64_t before_id, int limit, apr_array_header_t **rows)
{
    const void *args[10];
    apr_int64_t before = before_id > 0 ? before_id : APR_INT64_MAX;
    dead_args d;
    wh_inbox_rows found;

    *rows = apr_array_make(p, 8, sizeof(wh_fq_dead));
    filter_args(f, &d, args);
    args[8] = &before;
    args[9] = &limit;
    if (wh_inbox_db_query(q->ib, p, "dead letters", &st_dead_page, args, limit, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++)
        wh_fq_dead_row_read(&found, i, apr_array_push(*rows));
    return 0;
}

int wh_fq_dead_count(wh_fq *q, apr_pool_t *p, const wh_fq_dead_filter *f, apr_int64_t *n)
{
    const void *args[8];
    dead_args d;
    wh_inbox_rows found;

    *n = 0;
    filter_args(f, &d, args);
    if (wh_inbox_db_query(q->ib, p, "dead letters counted", &st_dead_count, args, 1,
                          &found) != 0)
        return -1;
    *n = found.nrows ? wh_cell_num(WH_ROW_CELL(&found, 0, 0)) : 0;
    return 0;
}

typedef struct {
    const wh_fq_dead_filter *f;
    apr_int64_t now;
    int n, more;
} matching_ctx;

static int revive_matching(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    matching_ctx *m = baton;
    apr_array_header_t *ids = apr_array_make(p, 64, sizeof(apr_int64_t));
    int limit = WH_FQ_DEAD_RETRY_BATCH, rv;
    const void *args[9];
    dead_args d;
    wh_inbox_rows rows;

    m->n = 0;
    if ((rv = wh_fq_lock_cursor(ib, p)) != 0)
        return rv;
    filter_args(m->f, &d, args);
    args[8] = &limit;
    if ((rv = wh_inbox_db_select(ib, p, &st_dead_ids, args, limit, &rows)) != 0)
        return wh_inbox_db_fail(ib, p, "choosing dead letters", rv);
    for (int i = 0; i < rows.nrows; i++)
        APR_ARRAY_PUSH(ids, apr_int64_t) = wh_cell_num(WH_ROW_CELL(&rows, i, 0));
    m->more = rows.nrows == limit;
    if ((rv = wh_fq_revive_ids(ib, p, ids, m->now, &m->n)) != 0)
        return rv;
    return WH_TXN_COMMIT;
}

int wh_fq_dead_retry_matching(wh_fq *q, apr_pool_t *p, const wh_fq_dead_filter *f,
                              apr_time_t now, int *n)
{
    matching_ctx m = { f, (apr_int64_t)now, 0, 0 };

    *n = 0;
    /* a batch per transaction; each one's revived letters are no longer
     * dead, so the next batch is the rest */
    do {
        if (wh_inbox_db_txn(q->ib, p, "dead retry", revive_matching, &m) != WH_DB_OK)
            return -1;
        *n += m.n;
    } while (m.more && m.n > 0);
    return 0;
}

int wh_fq_dead_reasons(wh_fq *q, apr_pool_t *p, apr_array_header_t **rows)
{
    int limit = WH_FQ_REASONS_MAX;
    const void *args[1] = { &limit };
    wh_inbox_rows found;

    *rows = apr_array_make(p, 8, sizeof(wh_fq_reason));
    if (wh_inbox_db_query(q->ib, p, "dead letters' reasons", &st_reasons, args, limit,
                          &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++) {
        wh_fq_reason *r = apr_array_push(*rows);
        r->reason = wh_cell_opt(WH_ROW_CELL(&found, i, 0));
        r->http_status = (int)wh_cell_num(WH_ROW_CELL(&found, i, 1));
        r->n = wh_cell_num(WH_ROW_CELL(&found, i, 2));
    }
    return 0;
}

int wh_fq_dead_by_payment(wh_fq *q, apr_pool_t *p, const char *const *payment_ids,
                          int n, apr_hash_t **out)
{
    json_object *arr;
    const char *json;
    const void *args[1];
    wh_inbox_rows found;

    *out = apr_hash_make(p);
    if (n <= 0)
        return 0;
    if (n > WH_FQ_INGEST_BATCH || !(arr = json_object_new_array()))
        return -1;
    for (int i = 0; i < n; i++)
        json_object_array_add(arr, json_object_new_string(payment_ids[i]));
    json = apr_pstrdup(p, json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN));
    json_object_put(arr);
    args[0] = json;
    if (wh_inbox_db_query(q->ib, p, "dead letters by payment", &st_dead_by_payment, args, n,
                          &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++) {
        apr_int64_t *k = apr_palloc(p, sizeof(*k));
        *k = wh_cell_num(WH_ROW_CELL(&found, i, 1));
        apr_hash_set(*out, WH_ROW_CELL(&found, i, 0), APR_HASH_KEY_STRING, k);
    }
    return 0;
}

/* ---- over time -------------------------------------------------------- */

static const wh_inbox_stmt st_has_table = {
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = %s",
    "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = %s"
    " AND schemaname = current_schema()",
    "SELECT count(*) FROM information_schema.tables WHERE table_name = %s"
    " AND table_schema = DATABASE()" };
/* Summed into the chart's bins by the database: a day's chart is 432
 * rows copied out, not the 4320 minutes it sums. */
static const wh_inbox_stmt st_minutes = {
    "SELECT (minute - %lld) / %lld, outcome, sum(n) FROM wh_attempt_minutes"
    " WHERE minute >= %lld AND minute < %lld GROUP BY 1, 2", NULL,
    "SELECT (minute - %lld) DIV %lld, outcome, sum(n) FROM wh_attempt_minutes"
    " WHERE minute >= %lld AND minute < %lld GROUP BY 1, 2" };
static const wh_inbox_stmt st_forwarders = {
    "SELECT owner, started_at, seen_at, stopped_at FROM wh_forwarders"
    " ORDER BY seen_at DESC LIMIT %d", NULL, NULL };

/* 1 when table exists (a reader never makes it), 0, -1. */
static int has_table(wh_fq *q, apr_pool_t *p, const char *table)
{
    const void *args[1] = { table };
    wh_inbox_rows found;

    if (wh_inbox_db_query(q->ib, p, "forward tables", &st_has_table, args, 1, &found) != 0)
        return -1;
    return found.nrows && wh_cell_num(WH_ROW_CELL(&found, 0, 0)) > 0;
}

int wh_fq_outcomes(wh_fq *q, apr_pool_t *p, apr_time_t from, apr_interval_time_t step,
                   int nbins, apr_int64_t *forwarded, apr_int64_t *retried,
                   apr_int64_t *dead, int *known)
{
    apr_int64_t first = apr_time_sec(from) / 60, per = apr_time_sec(step) / 60, last;
    const void *args[4] = { &first, &per, &first, &last };
    wh_inbox_rows found;
    int has;

    *known = 0;
    for (int i = 0; i < nbins; i++)
        forwarded[i] = retried[i] = dead[i] = 0;
    if (per < 1 || nbins < 1)
        return -1;
    last = first + per * nbins;
    if ((has = has_table(q, p, "wh_attempt_minutes")) <= 0)
        return has;
    *known = 1;
    if (wh_inbox_db_query(q->ib, p, "attempts by the minute", &st_minutes, args,
                          nbins * 3, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++) {
        apr_int64_t bin = wh_cell_num(WH_ROW_CELL(&found, i, 0));
        apr_int64_t n = wh_cell_num(WH_ROW_CELL(&found, i, 2));
        if (bin < 0 || bin >= nbins)
            continue;
        switch (wh_cell_num(WH_ROW_CELL(&found, i, 1))) {
        case WH_FQ_FORWARDED: forwarded[bin] += n; break;
        case WH_FQ_READY: retried[bin] += n; break;
        case WH_FQ_DEAD: dead[bin] += n; break;
        default: break;
        }
    }
    return 0;
}

int wh_fq_forwarders(wh_fq *q, apr_pool_t *p, apr_array_header_t **rows, int *known)
{
    int limit = WH_FQ_FORWARDERS_SHOWN, has;
    const void *args[1] = { &limit };
    wh_inbox_rows found;

    *rows = apr_array_make(p, 2, sizeof(wh_fq_forwarder));
    *known = 0;
    if ((has = has_table(q, p, "wh_forwarders")) <= 0)
        return has;
    *known = 1;
    if (wh_inbox_db_query(q->ib, p, "forwarders", &st_forwarders, args, limit, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++) {
        wh_fq_forwarder *f = apr_array_push(*rows);
        f->owner = WH_ROW_CELL(&found, i, 0);
        f->started_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&found, i, 1));
        f->seen_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&found, i, 2));
        f->stopped_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&found, i, 3));
    }
    return 0;
}
