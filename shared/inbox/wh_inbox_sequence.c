/* The sequencer of PostgreSQL and MySQL: gives committed events their
 * listing positions.
 *
 * A store on PostgreSQL commits its event with a row in wh_pending and
 * touches no row another store writes, so concurrent stores commit (and
 * sync) together. This then moves every pending event into wh_order, in
 * one short transaction under a transaction-scoped advisory lock:
 *   base = max(seq); seq = base + 1, base + 2, ... by event id.
 * The lock serialises sequencer runs, and each run commits its whole
 * range at once: a reader sees either none of a run's numbers or all of
 * them, always above every number it saw before, so pages have no gap and
 * no repeat. Numbers are given only to committed events (the DELETE sees
 * committed wh_pending rows only), so seq follows commit order, never
 * changes, and is never reused. An event committed but not numbered yet
 * (a store that lost the try-lock, a batch with more queued behind it,
 * or a crash between its commit and the sequencer) is durable and gets
 * its number at the next run: after a later store, or before the next
 * listing. The tables: README.md here.
 *
 * MySQL has no advisory lock that ends with a transaction: the lock is
 * the row WH_COUNTER_SEQUENCER of wh_counter, taken FOR UPDATE (SKIP
 * LOCKED for the try), and released by the run's commit like PostgreSQL's.
 * Its statements read the latest commit each (READ COMMITTED), so max(seq)
 * read after the lock includes the previous run. The move is two
 * statements there: the INSERT ... SELECT reads wh_pending as committed
 * when it starts, and the DELETE then removes exactly the rows that now
 * have a position.
 *
 * SQLite needs none of this: its writers are serialised by the database
 * lock, and each store numbers its event in its own transaction. */
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include <string.h>

/* Both answer "t" when the lock is taken. */
static const wh_inbox_stmt st_try = {
    "SELECT pg_try_advisory_xact_lock(" WH_PG_LOCK_SEQUENCER ")", NULL,
    "SELECT 't' FROM wh_counter WHERE id = " WH_COUNTER_SEQUENCER
    " FOR UPDATE SKIP LOCKED" };
static const wh_inbox_stmt st_lock = {
    "SELECT pg_advisory_xact_lock(" WH_PG_LOCK_SEQUENCER ")", NULL,
    "SELECT 't' FROM wh_counter WHERE id = " WH_COUNTER_SEQUENCER " FOR UPDATE" };
/* LEFT JOIN: a pending row always has its event (same transaction), and
 * if it ever had not, it would still get a position rather than vanish. */
static const wh_inbox_stmt st_move = {
    "WITH moved AS (DELETE FROM wh_pending RETURNING event_id),"
    " base AS (SELECT coalesce(max(seq), 0) AS b FROM wh_order)"
    " INSERT INTO wh_order (seq, event_id, payment_id, status, received_at)"
    " SELECT base.b + row_number() OVER (ORDER BY m.event_id), m.event_id,"
    " e.payment_id, e.status, e.received_at FROM moved m CROSS JOIN base"
    " LEFT JOIN wh_events e ON e.id = m.event_id", NULL,
    "INSERT INTO wh_order (seq, event_id, payment_id, status, received_at)"
    " SELECT b.b + row_number() OVER (ORDER BY m.event_id), m.event_id,"
    " e.payment_id, e.status, e.received_at FROM wh_pending m"
    " CROSS JOIN (SELECT coalesce(max(seq), 0) AS b FROM wh_order) b"
    " LEFT JOIN wh_events e ON e.id = m.event_id" };
static const wh_inbox_stmt st_unpend_my = {
    "DELETE m FROM wh_pending m JOIN wh_order o ON o.event_id = m.event_id",
    NULL, NULL };
static const wh_inbox_stmt st_any = {
    "SELECT count(*) FROM (SELECT 1 FROM wh_pending LIMIT 1) AS x", NULL, NULL };

typedef struct {
    int wait;                       /* take the lock even if it is held */
    int numbered;
} seq_job;

static int sequence_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    seq_job *j = baton;
    const char *got = NULL;
    int rv;

    /* The lock first, then the statement: its snapshot is taken after the
     * previous holder committed, so max(seq) includes that run. */
    rv = wh_inbox_db_value(ib, p, j->wait ? &st_lock : &st_try, NULL, &got);
    if (rv != 0)
        return wh_inbox_db_fail(ib, p, "sequencer lock", rv);
    if (!j->wait && (!got || strcmp(got, "t") != 0))
        return WH_TXN_ROLLBACK;   /* another run holds it: it, or the next, numbers ours */
    if ((rv = wh_inbox_db_exec(ib, p, &st_move, &j->numbered, NULL)) != 0)
        return wh_inbox_db_fail(ib, p, "numbering pending events", rv);
    if (wh_inbox_db_engine(ib) == WH_INBOX_MYSQL && j->numbered > 0) {
        int gone = 0;
        if ((rv = wh_inbox_db_exec(ib, p, &st_unpend_my, &gone, NULL)) != 0)
            return wh_inbox_db_fail(ib, p, "numbering pending events", rv);
        if (gone != j->numbered)
            return wh_inbox_db_fail(ib, p, "numbering pending events", -1);
    }
    return WH_TXN_COMMIT;
}

static int run(wh_inbox *ib, apr_pool_t *p, int wait)
{
    seq_job j = { wait, 0 };
    wh_db_outcome out;

    if (!wh_inbox_db_concurrent(ib))
        return 0;
    out = wh_inbox_db_txn(ib, p, "sequencer", sequence_txn, &j);
    return out == WH_DB_UNAVAILABLE ? -1 : 0;
}

int wh_inbox_sequence_try(wh_inbox *ib, apr_pool_t *p)
{
    return wh_inbox_db_sequencer_on(ib) ? run(ib, p, 0) : 0;
}

int wh_inbox_sequence(wh_inbox *ib, apr_pool_t *p)
{
    wh_inbox_rows any;
    const char *v;

    if (!wh_inbox_db_concurrent(ib))
        return 0;
    /* The common case, nothing pending, costs one indexed read. */
    if (wh_inbox_db_query(ib, p, "looking for pending events", &st_any, NULL, 1, &any) != 0)
        return -1;
    v = any.nrows && any.ncols ? WH_ROW_CELL(&any, 0, 0) : NULL;
    if (!v || strcmp(v, "0") == 0)
        return 0;
    return run(ib, p, 1);
}
