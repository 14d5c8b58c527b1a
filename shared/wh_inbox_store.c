/* Storing an accepted notification: one durable transaction that numbers
 * it and inserts it, or finds its notificationId already there. */
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>
#include <string.h>

static const wh_inbox_stmt st_insert = {
    "INSERT INTO wh_events (seq, notification_id, event_type, event_time,"
    " payment_id, status, received_at, body)"
    " VALUES (%lld, %s, %s, %s, %s, %s, %lld, %s)"
    " ON CONFLICT (notification_id) DO NOTHING", NULL };

typedef struct {
    const wh_facts *facts;
    const char *text;
    apr_int64_t received;
    apr_int64_t seq;
} store_job;

static int store_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    store_job *j = baton;
    const void *args[8];
    int nrows = 0, rv;

    /* The counter UPDATE comes first: on PostgreSQL it row-locks the
     * counter, which serializes writers exactly as SQLite's BEGIN
     * IMMEDIATE does, so numbers commit in order and a reader that sees N
     * has seen every number below N. */
    if ((rv = wh_inbox_counter_next(ib, p, WH_COUNTER_EVENTS, &j->seq)) != 0)
        return wh_inbox_db_fail(ib, p, "allocating the arrival sequence", rv);
    args[0] = &j->seq;
    args[1] = j->facts->notification_id;
    args[2] = j->facts->event_type;
    args[3] = j->facts->event_time;
    args[4] = j->facts->payment_id;
    args[5] = j->facts->status;
    args[6] = &j->received;
    args[7] = j->text;
    if ((rv = wh_inbox_db_exec(ib, p, &st_insert, &nrows, args)) != 0)
        return wh_inbox_db_fail(ib, p, "INSERT", rv);
    /* ON CONFLICT DO NOTHING: the notificationId is already stored.
     * Rolling back returns the sequence number, so no gap. */
    return nrows == 0 ? WH_TXN_ROLLBACK : WH_TXN_COMMIT;
}

wh_inbox_result wh_inbox_store(wh_inbox *ib, apr_pool_t *p,
                               const wh_facts *facts, const char *body,
                               apr_size_t body_len, apr_time_t now,
                               apr_int64_t *seq_out)
{
    store_job j;

    if (seq_out)
        *seq_out = 0;
    if (!ib || !facts || !facts->notification_id || !body)
        return WH_INBOX_UNAVAILABLE;
    /* Text columns end at a NUL; the verifier rejects such bodies as not
     * JSON, so one reaching here is a caller bug, and storing it cut short
     * would not be "exactly as received". */
    if (memchr(body, '\0', body_len)) {
        wh_logf(wh_inbox_db_log(ib), WH_LOG_ERROR,
                "inbox: refusing to store a body with a NUL byte");
        return WH_INBOX_UNAVAILABLE;
    }
    memset(&j, 0, sizeof(j));
    j.facts = facts;
    j.text = apr_pstrmemdup(p, body, body_len);
    j.received = (apr_int64_t)now;
    switch (wh_inbox_db_txn(ib, p, "store", store_txn, &j)) {
    case WH_DB_OK:
        if (seq_out)
            *seq_out = j.seq;
        return WH_INBOX_STORED;
    case WH_DB_ROLLED_BACK:
        return WH_INBOX_DUPLICATE;
    default:
        return WH_INBOX_UNAVAILABLE;
    }
}
