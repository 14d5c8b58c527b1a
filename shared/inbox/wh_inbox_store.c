/* Storing accepted notifications. Each one, in one durable transaction:
 *   1. INSERT into wh_events ... ON CONFLICT (notification_id) DO NOTHING;
 *      no row inserted: a duplicate.
 *   2. its listing position: SQLite numbers it in the same transaction
 *      (writers are serialised by the database lock anyway); PostgreSQL
 *      and MySQL queue it in wh_pending for the sequencer
 *      (wh_inbox_sequence.c), so concurrent writers share no row and
 *      commit in parallel.
 *   3. wh_payments: the payment's current state, and the wire's
 *      references of the payment (wh_payment_refs).
 * A batch (group commit, wh_batch.h) runs the same steps for each of its
 * rows inside one transaction. A row whose statement fails undoes the
 * batch, and each row is then stored on its own, so one bad row never
 * costs its neighbours their 200.
 *
 * PostgreSQL and MySQL run batches of several servers (and several
 * children) at once, and a batch waits for another wherever both write the same key:
 * an event's notification_id (a copy sent to two servers at once: the
 * second insert waits for the first transaction's outcome) and a
 * payment's row. Taken in arrival order, two batches holding the same
 * two copies in opposite orders waited for each other until PostgreSQL
 * broke the cycle ("deadlock detected", a second lost each time). So
 * every batch takes its keys in one global order: all its events by
 * notification_id first, then all its payments by paymentId, then all
 * its references by (reference, kind, paymentId). A batch
 * waits only for a key above every key it holds, and so no wait closes
 * a cycle. (wh_pending rows and event ids are new keys nobody else
 * writes; the sequencer runs in its own transaction after the commit.)
 * SQLite has one writer at a time and keeps arrival order. */
#include "wh_inbox_db.h"
#include "wh_inbox_refs.h"
#include "wh_inbox_sql.h"
#include "wh_batch.h"
#include "wh_db_cells.h"
#include "verify/wh_datetime.h"
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* SQLite: the arrival key is max(id) + 1 in the transaction that holds
 * the write lock; PostgreSQL: from a sequence (gaps after rollbacks are
 * fine for it), RETURNING telling whether the row went in; MySQL:
 * AUTO_INCREMENT, the row count telling (an update of nothing to itself
 * counts 0: the session never asks for CLIENT_FOUND_ROWS), then the key
 * the client read from the server's answer (SELECT LAST_INSERT_ID() only
 * when the client's function cannot be found). */
static const wh_inbox_stmt st_event = {
    "INSERT INTO wh_events (id, notification_id, event_type, event_time,"
    " payment_id, status, event_instant, received_at, body)"
    " VALUES (%lld, %s, %s, %s, %s, %s, %lld, %lld, %s)"
    " ON CONFLICT (notification_id) DO NOTHING",
    "INSERT INTO wh_events (id, notification_id, event_type, event_time,"
    " payment_id, status, event_instant, received_at, body)"
    " VALUES (nextval('wh_event_ids'), %s, %s, %s, %s, %s, %lld, %lld, %s)"
    " ON CONFLICT (notification_id) DO NOTHING RETURNING id",
    "INSERT INTO wh_events (notification_id, event_type, event_time,"
    " payment_id, status, event_instant, received_at, body)"
    " VALUES (%s, %s, %s, %s, %s, %lld, %lld, %s)"
    " ON DUPLICATE KEY UPDATE notification_id = notification_id" };
static const wh_inbox_stmt st_last_id = { "SELECT LAST_INSERT_ID()", NULL, NULL };
static const wh_inbox_stmt st_last = {
    "SELECT (SELECT coalesce(max(id), 0) FROM wh_events),"
    " (SELECT coalesce(max(seq), 0) FROM wh_order)", NULL, NULL };
static const wh_inbox_stmt st_order = {
    "INSERT INTO wh_order (seq, event_id, payment_id, status, received_at)"
    " VALUES (%lld, %lld, %s, %s, %lld)", NULL, NULL };
/* PostgreSQL, MySQL: a batch's new events queued for the sequencer in
 * one statement, from a JSON array of their ids (one round trip, not one
 * per event). */
static const wh_inbox_stmt st_pending = {
    "INSERT INTO wh_pending (event_id) " WH_SQL_IDS,
    "INSERT INTO wh_pending (event_id) " WH_SQL_IDS_PG,
    "INSERT INTO wh_pending (event_id) " WH_SQL_IDS_MY };

/* The new event is later than the payment's current one when its
 * (event_instant, id) is greater, unknown instants sorting first (as the
 * smallest instant): arrival breaks ties, and a late arrival of an older
 * event never moves a payment backwards. The event count always grows.
 * Instants are microseconds of years 0000-9999, far above the stand-in. */
#define WH_NO_INSTANT "-9223372036854775807"

/* SQLite: two statements, because SQLite compiles an upsert whose SET
 * repeats the ordering per column at several times the cost of both of
 * these together, paid once per connection, which for wirehook.cgi is
 * once per request. First the usual case, a
 * later event of a known payment; when that changes no row, the payment
 * is new (inserted) or the event is older (counted only). Writers hold
 * the database's write lock, so nothing runs between the two. */
static const wh_inbox_stmt st_payment_later = {
    "UPDATE wh_payments SET status = %s, event_instant = %lld, event_time = %s,"
    " event_id = %lld, notification_id = %s, events = events + 1, updated_at = %lld"
    " WHERE payment_id = %s AND (coalesce(%lld, " WH_NO_INSTANT "), %lld)"
    " > (coalesce(event_instant, " WH_NO_INSTANT "), event_id)", NULL, NULL };
static const wh_inbox_stmt st_payment_other = {
    "INSERT INTO wh_payments (payment_id, status, event_instant, event_time,"
    " event_id, notification_id, events, updated_at)"
    " VALUES (%s, %s, %lld, %s, %lld, %s, 1, %lld)"
    " ON CONFLICT (payment_id) DO UPDATE SET"
    " events = wh_payments.events + 1, updated_at = excluded.updated_at", NULL, NULL };

/* PostgreSQL and MySQL: one statement for many rows (a batch's payments
 * in key order), atomic under concurrent writers (who commit in parallel
 * there). PostgreSQL's ON CONFLICT DO UPDATE may not touch a row twice
 * in one statement, so a payment's second event of a batch starts the
 * next statement; MySQL applies the rows one after another, each seeing
 * the ones before it. PostgreSQL's parser makes light work of the
 * repeated ordering. */
#define WH_LATER                                                              \
    "(coalesce(excluded.event_instant, " WH_NO_INSTANT "), excluded.event_id)" \
    " > (coalesce(wh_payments.event_instant, " WH_NO_INSTANT "),"            \
    " wh_payments.event_id)"
#define WH_IF_LATER(col)                                                      \
    " " col " = CASE WHEN " WH_LATER " THEN excluded." col                    \
    " ELSE wh_payments." col " END"
/* MySQL: ON DUPLICATE KEY UPDATE assigns left to right, each assignment
 * seeing the ones before it (the session's sql_mode leaves out MariaDB's
 * SIMULTANEOUS_ASSIGNMENT). So the columns the order is not made of go
 * first, each compared with the row as it was; then event_id, compared
 * the same way; then event_instant, which follows event_id: event_id
 * equals the new event's only when the new event won (two events never
 * share an id). */
#define WH_MY_LATER                                                           \
    "(coalesce(VALUES(event_instant), " WH_NO_INSTANT "), VALUES(event_id))"  \
    " > (coalesce(event_instant, " WH_NO_INSTANT "), event_id)"
#define WH_MY_IF_LATER(col) " " col " = IF(" WH_MY_LATER ", VALUES(" col "), " col ")"
static const wh_inbox_rows_stmt st_payments = {
    { "INSERT INTO wh_payments (payment_id, status, event_instant, event_time,"
      " event_id, notification_id, events, updated_at) VALUES ", NULL, NULL },
    "(%s, %s, %lld, %s, %lld, %s, 1, %lld)",
    { " ON CONFLICT (payment_id) DO UPDATE SET"
      WH_IF_LATER("status") "," WH_IF_LATER("event_instant") ","
      WH_IF_LATER("event_time") "," WH_IF_LATER("event_id") ","
      WH_IF_LATER("notification_id") ","
      " events = wh_payments.events + 1, updated_at = excluded.updated_at", NULL,
      " ON DUPLICATE KEY UPDATE"
      WH_MY_IF_LATER("status") "," WH_MY_IF_LATER("event_time") ","
      WH_MY_IF_LATER("notification_id") "," WH_MY_IF_LATER("event_id") ","
      " event_instant = IF(event_id = VALUES(event_id), VALUES(event_instant),"
      " event_instant),"
      " events = events + 1, updated_at = VALUES(updated_at)" } };
static const wh_inbox_stmt st_seq_of = {
    "SELECT seq FROM wh_order WHERE event_id = %lld", NULL, NULL };

/* One notification, alone or in a batch. */
typedef struct {
    const wh_facts *facts;
    const char *text;               /* the body, NUL-terminated */
    apr_int64_t received;
    apr_int64_t instant;
    int has_instant;
    apr_int64_t id;                 /* arrival key, once inserted */
    apr_int64_t seq;                /* SQLite: listing position */
    wh_inbox_result result;
} store_row;

typedef struct {
    store_row **rows;
    int n;
    int stored;
    int bad;                        /* the row whose statement failed, or -1 */
} store_job;

/* Step 1 for one row; *inserted 0 for a duplicate. */
static int insert_event(wh_inbox *ib, apr_pool_t *p, store_row *r, int *inserted)
{
    const wh_facts *f = r->facts;
    const void *instant = r->has_instant ? (const void *)&r->instant : NULL;
    int rv;

    if (wh_inbox_db_engine(ib) == WH_INBOX_SQLITE3) {
        const void *args[9] = { &r->id, f->notification_id, f->event_type,
                                f->event_time, f->payment_id, f->status,
                                instant, &r->received, r->text };
        return wh_inbox_db_exec(ib, p, &st_event, inserted, args);
    } else if (wh_inbox_db_engine(ib) == WH_INBOX_MYSQL) {
        const void *args[8] = { f->notification_id, f->event_type, f->event_time,
                                f->payment_id, f->status, instant,
                                &r->received, r->text };
        const char *id = NULL;
        int n = 0;
        *inserted = 0;
        if ((rv = wh_inbox_db_exec(ib, p, &st_event, &n, args)) != 0 || n != 1)
            return rv;
        r->id = wh_inbox_db_insert_id(ib);
        if (r->id <= 0) {
            if ((rv = wh_inbox_db_value(ib, p, &st_last_id, NULL, &id)) != 0)
                return rv;
            if ((r->id = wh_cell_num(id)) <= 0)
                return -1;
        }
        *inserted = 1;
        return 0;
    } else {
        const void *args[8] = { f->notification_id, f->event_type, f->event_time,
                                f->payment_id, f->status, instant,
                                &r->received, r->text };
        wh_inbox_rows out;
        rv = wh_inbox_db_select(ib, p, &st_event, args, 1, &out);
        *inserted = rv == 0 && out.nrows == 1;
        if (*inserted)
            r->id = apr_atoi64(WH_ROW_CELL(&out, 0, 0));
        return rv;
    }
}

/* The payment's columns of a row, as the payment statements bind them. */
static void payment_args(const store_row *r, const void **args)
{
    const wh_facts *f = r->facts;

    args[0] = f->payment_id;
    args[1] = f->status;
    args[2] = r->has_instant ? (const void *)&r->instant : NULL;
    args[3] = f->event_time;
    args[4] = &r->id;
    args[5] = f->notification_id;
    args[6] = &r->received;
}

/* SQLite, step 3: the payment's state, with the two statements above. */
static int set_payment(wh_inbox *ib, apr_pool_t *p, const store_row *r)
{
    const wh_facts *f = r->facts;
    const void *instant = r->has_instant ? (const void *)&r->instant : NULL;
    const void *row[7];
    const void *later[9] = { f->status, instant, f->event_time, &r->id,
                             f->notification_id, &r->received, f->payment_id,
                             instant, &r->id };
    int n = 0, rv;

    payment_args(r, row);
    if ((rv = wh_inbox_db_exec(ib, p, &st_payment_later, &n, later)) == 0 && n != 1)
        rv = wh_inbox_db_exec(ib, p, &st_payment_other, &n, row);
    return rv;
}

/* Only status events of a payment make its state. */
static int has_payment(const store_row *r)
{
    return r->facts->payment_id && r->facts->status;
}

/* SQLite: steps 2 and 3 for a row that went in. */
static int place_event(wh_inbox *ib, apr_pool_t *p, store_row *r, apr_int64_t *next_seq)
{
    const wh_facts *f = r->facts;
    const void *args[5] = { next_seq, &r->id, f->payment_id, f->status, &r->received };
    int n = 0, rv;

    r->seq = ++*next_seq;
    if ((rv = wh_inbox_db_exec(ib, p, &st_order, &n, args)) != 0 || n != 1)
        return rv ? rv : -1;
    return has_payment(r) ? set_payment(ib, p, r) : 0;
}

/* PostgreSQL, MySQL: step 2 for the batch's stored rows at once. */
static int pend_stored(wh_inbox *ib, apr_pool_t *p, const store_job *j)
{
    apr_int64_t *ids = apr_palloc(p, sizeof(*ids) * (apr_size_t)j->n);
    const void *args[1];
    int k = 0, n = 0, rv;

    for (int i = 0; i < j->n; i++)
        if (j->rows[i]->result == WH_INBOX_STORED)
            ids[k++] = j->rows[i]->id;
    args[0] = wh_cell_ids(p, ids, k);
    if ((rv = wh_inbox_db_exec(ib, p, &st_pending, &n, args)) != 0 || n != k)
        return rv ? rv : -1;
    return 0;
}

/* A row's place in the global order of keys (see the top of this file):
 * the key, then a tie-break, so that every batch sorts alike. */
typedef struct {
    const char *key;
    apr_int64_t tie;
    int row;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    if (x->tie != y->tie)
        return x->tie < y->tie ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* PostgreSQL, MySQL: keys in order. SQLite keeps arrival order (one
 * writer at a time: nobody to wait for, and a batch's listing order stays
 * arrival). */
static void key_order(wh_inbox *ib, keyed *k, int n)
{
    if (wh_inbox_db_concurrent(ib) && n > 1)
        qsort(k, (size_t)n, sizeof(*k), by_key);
}

/* PostgreSQL, MySQL: step 3 for the batch's payments, order[0..m) in key
 * order, in as few statements as st_payments allows. */
static int set_payments(wh_inbox *ib, apr_pool_t *p, store_job *j, const keyed *order,
                        int m)
{
    const void **args = apr_palloc(p, sizeof(*args) * 7 * WH_INBOX_ROWS_MAX);
    int pg = wh_inbox_db_engine(ib) == WH_INBOX_PGSQL;

    for (int k = 0; k < m;) {
        int first = k, rv;
        do {
            payment_args(j->rows[order[k].row], args + 7 * (k - first));
            k++;
        } while (k < m && k - first < WH_INBOX_ROWS_MAX
                 && !(pg && strcmp(order[k].key, order[k - 1].key) == 0));
        if ((rv = wh_inbox_db_exec_rows(ib, p, &st_payments, k - first, NULL, args)) != 0) {
            j->bad = order[first].row;
            return rv;
        }
    }
    return 0;
}

static int add_refs(wh_inbox *ib, apr_pool_t *p, store_job *j, const keyed *order, int m)
{
    const wh_facts **facts = apr_palloc(p, sizeof(*facts) * (apr_size_t)m);
    int rv;

    for (int k = 0; k < m; k++)
        facts[k] = j->rows[order[k].row]->facts;
    if ((rv = wh_inbox_refs_add(ib, p, facts, m)) != 0)
        j->bad = order[0].row;
    return rv;
}

static int store_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    store_job *j = baton;
    apr_int64_t next_id = 0, next_seq = 0;
    keyed *order = apr_palloc(p, sizeof(*order) * (apr_size_t)(j->n > 0 ? j->n : 1));
    int rv, m = 0;

    j->stored = 0;
    j->bad = -1;
    if (wh_inbox_db_engine(ib) == WH_INBOX_SQLITE3) {
        wh_inbox_rows last;
        if ((rv = wh_inbox_db_select(ib, p, &st_last, NULL, 1, &last)) != 0)
            return wh_inbox_db_fail(ib, p, "reading the last numbers", rv);
        if (last.nrows != 1 || last.ncols != 2)
            return wh_inbox_db_fail(ib, p, "reading the last numbers", -1);
        next_id = apr_atoi64(WH_ROW_CELL(&last, 0, 0));
        next_seq = apr_atoi64(WH_ROW_CELL(&last, 0, 1));
    }
    for (int i = 0; i < j->n; i++)
        order[i] = (keyed){ j->rows[i]->facts->notification_id, i, i };
    key_order(ib, order, j->n);
    for (int k = 0; k < j->n; k++) {
        int i = order[k].row;
        store_row *r = j->rows[i];
        int inserted = 0;

        r->id = next_id + 1;
        r->seq = 0;
        if ((rv = insert_event(ib, p, r, &inserted)) != 0) {
            j->bad = i;
            return wh_inbox_db_fail(ib, p, "INSERT", rv);
        }
        if (!inserted) {
            /* a copy of a stored event, or of one earlier in this batch */
            r->result = WH_INBOX_DUPLICATE;
            continue;
        }
        next_id = r->id > next_id ? r->id : next_id;
        if (wh_inbox_db_engine(ib) == WH_INBOX_SQLITE3
            && (rv = place_event(ib, p, r, &next_seq)) != 0) {
            j->bad = i;
            return wh_inbox_db_fail(ib, p, "numbering and payment state", rv);
        }
        r->result = WH_INBOX_STORED;
        j->stored++;
    }
    /* PostgreSQL, MySQL: the new events queued for numbering, then the
     * payments after every event, by paymentId */
    if (wh_inbox_db_concurrent(ib) && j->stored
        && (rv = pend_stored(ib, p, j)) != 0)
        return wh_inbox_db_fail(ib, p, "queueing for numbering", rv);
    for (int i = 0; i < j->n; i++)
        if (j->rows[i]->result == WH_INBOX_STORED && has_payment(j->rows[i]))
            order[m++] = (keyed){ j->rows[i]->facts->payment_id, j->rows[i]->id, i };
    if (wh_inbox_db_concurrent(ib)) {
        key_order(ib, order, m);
        if ((rv = set_payments(ib, p, j, order, m)) != 0)
            return wh_inbox_db_fail(ib, p, "payment state", rv);
    }
    /* the references last, in their own order (wh_inbox_refs.c) */
    if (m && (rv = add_refs(ib, p, j, order, m)) != 0)
        return wh_inbox_db_fail(ib, p, "payment references", rv);
    /* Only duplicates: nothing to commit, no sync to wait for. */
    return j->stored ? WH_TXN_COMMIT : WH_TXN_ROLLBACK;
}

/* Stores rows[0..n) in one transaction, or each on its own after a row
 * failed. Sets every row's result; returns how many were stored. */
static int store_rows(wh_inbox *ib, apr_pool_t *p, store_row **rows, int n)
{
    store_job j = { rows, n, 0, -1 };
    wh_db_outcome out = wh_inbox_db_txn(ib, p, "store", store_txn, &j);
    int stored = 0;

    if (out == WH_DB_OK)
        return j.stored;
    if (out == WH_DB_ROLLED_BACK)
        return 0;
    for (int i = 0; i < n; i++)
        rows[i]->result = WH_INBOX_UNAVAILABLE;
    if (j.bad < 0 || n == 1)
        return 0;   /* BEGIN, COMMIT or the connection: every row alike */
    for (int i = 0; i < n; i++)
        stored += store_rows(ib, p, &rows[i], 1);
    return stored;
}

/* ------------------------------------------------------- group commit --- */

/* A request's row, from the fields a caller fills. 0, or -1 for a body
 * that must not be stored. */
static int make_row(wh_inbox *ib, apr_pool_t *p, const wh_facts *facts, const char *body,
                    apr_size_t body_len, apr_time_t now, store_row *row)
{
    memset(row, 0, sizeof(*row));
    row->result = WH_INBOX_UNAVAILABLE;
    if (!facts || !facts->notification_id || !body)
        return -1;
    /* Text columns end at a NUL; the verifier rejects such bodies as not
     * JSON, so one reaching here is a caller bug, and storing it cut short
     * would not be "exactly as received". */
    if (memchr(body, '\0', body_len)) {
        wh_logf(wh_inbox_db_log(ib), WH_LOG_ERROR,
                "inbox: refusing to store a body with a NUL byte");
        return -1;
    }
    row->facts = facts;
    row->text = apr_pstrmemdup(p, body, body_len);
    row->received = (apr_int64_t)now;
    row->has_instant = facts->event_time
                       && wh_datetime_parse(facts->event_time, strlen(facts->event_time),
                                            &row->instant) == 0;
    return 0;
}

int wh_inbox_store_many(wh_inbox *ib, apr_pool_t *p, wh_inbox_store_req *reqs, int n)
{
    store_row **rows = apr_palloc(p, sizeof(*rows) * (apr_size_t)(n > 0 ? n : 1));
    int *from = apr_palloc(p, sizeof(*from) * (apr_size_t)(n > 0 ? n : 1));
    int m = 0, stored;

    for (int i = 0; i < n; i++) {
        store_row *r = apr_palloc(p, sizeof(*r));
        reqs[i].result = WH_INBOX_UNAVAILABLE;
        reqs[i].seq = 0;
        /* a refused body stays unavailable; the others go on */
        if (make_row(ib, p, reqs[i].facts, reqs[i].body, reqs[i].body_len, reqs[i].now, r) == 0) {
            from[m] = i;
            rows[m++] = r;
        }
    }
    stored = m ? store_rows(ib, p, rows, m) : 0;
    for (int k = 0; k < m; k++) {
        reqs[from[k]].result = rows[k]->result;
        reqs[from[k]].seq = rows[k]->seq;
    }
    if (stored && wh_inbox_db_concurrent(ib))
        (void)wh_inbox_sequence_try(ib, p);
    return stored;
}

static void commit_batch(void *ctx, apr_pool_t *p, wh_batch_item **items, int n)
{
    wh_inbox *ib = ctx;
    store_row **rows = apr_palloc(p, sizeof(*rows) * (apr_size_t)n);

    for (int i = 0; i < n; i++)
        rows[i] = items[i]->data;
    (void)store_rows(ib, p, rows, n);
    for (int i = 0; i < n; i++)
        items[i]->result = (int)rows[i]->result;
    if (n > 1)
        wh_logf(wh_inbox_db_log(ib), WH_LOG_DEBUG,
                "inbox: group commit: %d stores in one transaction", n);
}

/* After the followers have their answer: numbering on PostgreSQL and
 * MySQL. */
static void after_batch(void *ctx, apr_pool_t *p)
{
    (void)wh_inbox_sequence_try(ctx, p);
}

wh_batcher *wh_inbox_store_batcher(wh_inbox *ib, apr_pool_t *p, int max,
                                   apr_interval_time_t wait)
{
    return wh_batcher_create(p, max, wait, commit_batch,
                             wh_inbox_db_concurrent(ib) ? after_batch : NULL,
                             ib);
}

int wh_inbox_group_stats(wh_inbox *ib, wh_batch_stats *out)
{
    wh_batcher *b = ib ? wh_inbox_db_batcher(ib) : NULL;

    memset(out, 0, sizeof(*out));
    if (!b)
        return -1;
    wh_batcher_stats(b, out);
    return 0;
}

/* ------------------------------------------------------------- public --- */

wh_inbox_result wh_inbox_store(wh_inbox *ib, apr_pool_t *p,
                               const wh_facts *facts, const char *body,
                               apr_size_t body_len, apr_time_t now,
                               apr_int64_t *seq_out)
{
    store_row row, *rowp = &row;
    wh_batcher *batcher;

    if (seq_out)
        *seq_out = 0;
    if (!ib || make_row(ib, p, facts, body, body_len, now, &row) != 0)
        return WH_INBOX_UNAVAILABLE;
    if ((batcher = wh_inbox_db_batcher(ib)) != NULL) {
        wh_batch_item item;
        memset(&item, 0, sizeof(item));
        item.data = &row;
        item.result = WH_INBOX_UNAVAILABLE;
        (void)wh_batcher_submit(batcher, &item);
    } else if (store_rows(ib, p, &rowp, 1) == 1 && wh_inbox_db_concurrent(ib)
               && !seq_out) {
        (void)wh_inbox_sequence_try(ib, p);
    }
    if (row.result == WH_INBOX_STORED && seq_out) {
        if (wh_inbox_db_engine(ib) == WH_INBOX_SQLITE3) {
            *seq_out = row.seq;
        } else if (wh_inbox_sequence(ib, p) == 0) {
            /* The caller wants the position: wait for the numbering. */
            const void *args[1] = { &row.id };
            wh_inbox_rows found;
            if (wh_inbox_db_query(ib, p, "reading the position", &st_seq_of, args, 1,
                                  &found) == 0 && found.nrows && WH_ROW_CELL(&found, 0, 0))
                *seq_out = apr_atoi64(WH_ROW_CELL(&found, 0, 0));
        }
    }
    return row.result;
}
