#ifndef WH_INBOX_DB_H
#define WH_INBOX_DB_H
/* The inbox's internal API, for the core's own files: the inbox's parts
 * (wh_inbox_store.c, wh_inbox_list.c, ...) and the tools built on the
 * same database (the forward queue, payments, quarantine). Not for the hosts: they
 * use wh_inbox.h.
 *
 * One wh_inbox owns at most one connection and runs everything on it with
 * its mutex held. Work is a function run by wh_inbox_db_txn (a write
 * transaction) or wh_inbox_db_read (no transaction); both reconnect first
 * when the last use failed, and both answer "unavailable" (the hosts' 503)
 * when the database cannot be used, after logging why. Inside such a
 * function, statements run through the helpers below: each statement is a
 * static wh_inbox_stmt in the file that uses it, prepared on each
 * connection on its first use there. */
#include "wh_inbox.h"
#include "wh_batch.h"
#include <apr_dbd.h>

/* A statement: its text in each SQL dialect, side by side where it is
 * written. apr_dbd placeholders (%s text, %d int, %lld 64-bit, %pDb
 * blob), rewritten by apr_dbd to "?" (SQLite, MySQL) or "$n"
 * (PostgreSQL); a literal % is %%. A dialect's own text is NULL where the
 * shared one serves; a new dialect is one more field here and one more
 * case where the text is picked (wh_inbox_stmt.c). */
typedef struct {
    const char *sql;         /* every engine, unless its own is set */
    const char *pg_sql;      /* PostgreSQL's text when it differs, else NULL */
    const char *my_sql;      /* MariaDB's and MySQL's, when it differs */
} wh_inbox_stmt;

/* A status filter, whatever the case, on table alias t ("o.", or "" for
 * none): SQLite and PostgreSQL index lower(status); MySQL has no index on
 * an expression (MariaDB) and lower() leaves VARBINARY as it is, so its
 * tables keep status_ci (wh_inbox_sql.h), the status lowered, a stored generated column
 * with the index. */
#define WH_SQL_STATUS_IS(t) "lower(" t "status) = lower(%s)"
#define WH_MY_STATUS_IS(t) t "status_ci = lower(%s)"

/* What wh_inbox_db_txn / wh_inbox_db_read report. */
typedef enum {
    WH_DB_OK = 0,            /* committed (txn) / done (read) */
    WH_DB_ROLLED_BACK,       /* fn asked for a quiet rollback (txn only) */
    WH_DB_UNAVAILABLE        /* logged; the connection is renewed next time */
} wh_db_outcome;

/* What a unit of work returns: WH_TXN_COMMIT, WH_TXN_ROLLBACK (undo, but
 * not a failure: a duplicate), or a failure: the driver's non-zero code,
 * or what wh_inbox_db_fail returns. */
#define WH_TXN_COMMIT 0
#define WH_TXN_ROLLBACK (-1000)
typedef int (*wh_inbox_fn)(wh_inbox *ib, apr_pool_t *p, void *baton);

/* Runs fn inside one write transaction, mutex held: BEGIN (SQLite:
 * IMMEDIATE, so the write lock is taken up front within the bounded wait),
 * fn, COMMIT; durable when it returns (SQLite: the WAL synced once the
 * mutex and the locks are let go, wh_inbox_walsync.c; a quiet rollback
 * waits for a sync too). A failure rolls back, logs "inbox: WHAT failed
 * on the DRIVER database: MESSAGE" and marks the connection for renewal. */
wh_db_outcome wh_inbox_db_txn(wh_inbox *ib, apr_pool_t *p, const char *what,
                              wh_inbox_fn fn, void *baton);

/* Runs fn with the mutex held on a live connection, no transaction (each
 * statement is its own): for readers. */
wh_db_outcome wh_inbox_db_read(wh_inbox *ib, apr_pool_t *p, const char *what,
                               wh_inbox_fn fn, void *baton);

/* Makes every commit written to the inbox's WAL so far durable (no lock
 * of the inbox held, any thread). 0; -1 when the sync failed (logged;
 * from then on the inbox refuses writes). Nothing to do but return 0
 * where SQLite syncs itself. */
int wh_inbox_db_sync(wh_inbox *ib);
/* 1 once a sync failed. */
int wh_inbox_db_sync_failed(wh_inbox *ib);
/* A writer that wants no sync per commit (the forwarder's bookkeeping,
 * which sets synchronous = NORMAL itself): its transactions return
 * without one. */
void wh_inbox_db_set_relaxed(wh_inbox *ib);
/* SQLite: the path of the main database's WAL file, or NULL (mutex held). */
const char *wh_inbox_db_wal_path(wh_inbox *ib, apr_pool_t *p);

/* Inside fn: records why fn fails (the driver's message is read now,
 * before ROLLBACK replaces it) and returns the failure code to return.
 * rv -1 means "unexpected row count" rather than a driver error. */
int wh_inbox_db_fail(wh_inbox *ib, apr_pool_t *p, const char *what, int rv);

/* ---- statements, inside fn (the mutex is held) ---------------------- */

/* Runs a statement that returns no rows; *nrows gets the rows changed. */
int wh_inbox_db_exec(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                     int *nrows, const void **args);

/* An INSERT of several rows of one shape: head, then k copies of row
 * joined by ", ", then tail (each a statement in its dialects). On
 * PostgreSQL and MySQL a store's transaction waits on every round trip, so
 * a batch's rows of one table go in as few statements as this allows. */
typedef struct {
    wh_inbox_stmt head;
    const char *row;
    wh_inbox_stmt tail;
} wh_inbox_rows_stmt;
/* Most rows in one statement (their values are bound parameters). */
#define WH_INBOX_ROWS_MAX 32

/* Runs rs with k rows (1 .. WH_INBOX_ROWS_MAX), their values in args row
 * after row; its text for k is made and prepared on first use on this
 * connection. As wh_inbox_db_exec. */
int wh_inbox_db_exec_rows(wh_inbox *ib, apr_pool_t *p, const wh_inbox_rows_stmt *rs,
                          int k, int *nrows, const void **args);

/* MySQL: the arrival key the last wh_inbox_db_exec's INSERT made, or 0
 * when only SELECT LAST_INSERT_ID() can tell (wh_mysql_insert_id). */
apr_int64_t wh_inbox_db_insert_id(wh_inbox *ib);

/* Rows of a query, every cell copied into the caller's pool. */
typedef struct {
    int nrows;               /* rows kept: at most the max asked for */
    int total;               /* rows the query returned */
    int ncols;
    const char **cell;       /* nrows * ncols; NULL for SQL NULL */
} wh_inbox_rows;
#define WH_ROW_CELL(r, i, j) ((r)->cell[(apr_size_t)(i) * (apr_size_t)(r)->ncols + (apr_size_t)(j)])

/* Runs a query and keeps at most max_rows rows (reads the rest, which
 * the driver frees as it goes). */
int wh_inbox_db_select(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                       const void **args, int max_rows, wh_inbox_rows *out);

/* Every row of st, a chunk of rows per round trip, so memory stays
 * bounded whatever the size of the inbox (the upgrades' walks over
 * wh_events). st takes (%lld after, %d limit) and answers rows ordered
 * by the key in its first column; fn gets each row, in a pool cleared
 * per chunk, and stops the walk by returning non-zero. 0 or the failure. */
typedef int (*wh_inbox_row_fn)(wh_inbox *ib, apr_pool_t *p, const wh_inbox_rows *rows,
                               int i, void *baton);
int wh_inbox_db_walk(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                     wh_inbox_row_fn fn, void *baton);

/* A query on its own (wh_inbox_query.c), not inside fn: runs st through
 * wh_inbox_db_read (so "what" names it in the log of a failure) and keeps
 * at most max_rows rows in out. 0, or -1 when the database is unavailable;
 * out is empty then. */
int wh_inbox_db_query(wh_inbox *ib, apr_pool_t *p, const char *what,
                      const wh_inbox_stmt *st, const void **args, int max_rows,
                      wh_inbox_rows *out);

/* The first cell of the first row of a query, or NULL. 0 or the error. */
int wh_inbox_db_value(wh_inbox *ib, apr_pool_t *p, const wh_inbox_stmt *st,
                      const void **args, const char **value);

/* One statement without parameters (schema, session set-up). */
int wh_inbox_db_sql(wh_inbox *ib, const char *sql);
/* The same for statements answering rows (PRAGMAs): the first cell. */
int wh_inbox_db_sql_value(wh_inbox *ib, apr_pool_t *p, const char *sql,
                          const char **value);

/* ---- the inbox itself ----------------------------------------------- */

/* Which engine: WH_INBOX_SQLITE3, WH_INBOX_PGSQL or WH_INBOX_MYSQL. */
wh_inbox_driver wh_inbox_db_engine(const wh_inbox *ib);
/* 1 for a database server (PostgreSQL, MySQL), whose writers commit in
 * parallel: their events get listing positions from the sequencer
 * (wh_inbox_sequence.c), and a batch takes its keys in one global order
 * (wh_inbox_store.c). 0 for SQLite, whose writers take turns. */
int wh_inbox_db_concurrent(const wh_inbox *ib);
const char *wh_inbox_db_driver_name(const wh_inbox *ib);
/* 1 for an inbox opened WH_INBOX_READ_ONLY. */
int wh_inbox_db_readonly(const wh_inbox *ib);
const wh_logger *wh_inbox_db_log(const wh_inbox *ib);
/* The driver's message for rv on the current connection, on one line. */
const char *wh_inbox_db_error(wh_inbox *ib, apr_pool_t *p, int rv);

/* ---- the listing order (wh_inbox_sequence.c) ------------------------ */

/* PostgreSQL and MySQL: numbers every committed event still waiting in
 * wh_pending, waiting for a sequencer run under way to finish; for
 * readers that need the whole order (the listing, a forwarder's ingest). 0, or -1 when the
 * database is unavailable. Nothing to do on SQLite. */
int wh_inbox_sequence(wh_inbox *ib, apr_pool_t *p);
/* The same after a store, without waiting: when another run holds the
 * sequencer, that run or the next numbers the new events. */
int wh_inbox_sequence_try(wh_inbox *ib, apr_pool_t *p);

/* ---- storing (wh_inbox_store.c) ------------------------------------- */

/* One store of a batch. */
typedef struct {
    const wh_facts *facts;
    const char *body;
    apr_size_t body_len;
    apr_time_t now;
    wh_inbox_result result;         /* out */
    apr_int64_t seq;                /* out: SQLite's position, else 0 */
} wh_inbox_store_req;

/* Stores reqs[0..n) in one transaction, in order: a copy of an earlier
 * one (in the database or in reqs) is a duplicate; when a row's statement
 * fails, the transaction is undone and each row is stored on its own, so
 * only that row is unavailable. Returns how many were stored. What the
 * group commit runs; for tools importing many events, and tests. */
int wh_inbox_store_many(wh_inbox *ib, apr_pool_t *p, wh_inbox_store_req *reqs, int n);

struct wh_batcher;
/* The group commit of this inbox's stores (wh_batch.h), for
 * wh_inbox_open_ex's WH_INBOX_GROUP_COMMIT. NULL when out of memory. */
struct wh_batcher *wh_inbox_store_batcher(wh_inbox *ib, apr_pool_t *p, int max,
                                          apr_interval_time_t wait);
/* The inbox's group commit, or NULL: each store commits on its own. */
struct wh_batcher *wh_inbox_db_batcher(const wh_inbox *ib);
/* Its counters (wh_batch.h); -1 when the inbox has no group commit. */
int wh_inbox_group_stats(wh_inbox *ib, wh_batch_stats *out);
/* 0 when a test switched the sequencer off after stores. */
int wh_inbox_db_sequencer_on(const wh_inbox *ib);

/* ---- schema (wh_inbox_schema.c), run by the connection set-up ------- */

typedef enum { WH_CONN_OK = 0, WH_CONN_DOWN, WH_CONN_FATAL } wh_conn_status;

/* Creates or upgrades the schema on a fresh connection (mutex held);
 * readonly: only checks it (DOWN when it is missing or older). FATAL: the
 * database is newer than this wirehook. */
wh_conn_status wh_inbox_schema_ensure(wh_inbox *ib, apr_pool_t *p, int readonly,
                                      const char **why);

/* Counter `which` of wh_counter, bumped inside the open transaction. */
int wh_inbox_counter_next(wh_inbox *ib, apr_pool_t *p, int which, apr_int64_t *out);

/* SQLite writers' queue (wh_inbox_lock.h) around a write outside
 * wh_inbox_db_txn (schema creation, the close-time checkpoint): 0 when
 * held (or there is none), -1 after the bounded wait (logged). */
int wh_inbox_db_writer_lock(wh_inbox *ib, apr_pool_t *p);
void wh_inbox_db_writer_unlock(wh_inbox *ib);

/* PostgreSQL: the statements of this use of the connection, from now on,
 * wait for their answers as long as they take (a schema upgrade, which
 * lifts its statement timeout too); the next use is bounded again. */
void wh_inbox_db_unwatched(wh_inbox *ib);

/* ---- connection lifetime (wh_inbox_conn.c), for wh_inbox_exit.c ------ */

/* Mutex held by the caller through wh_inbox_db_lock/unlock. */
void wh_inbox_db_lock(wh_inbox *ib);
void wh_inbox_db_unlock(wh_inbox *ib);
/* 1 when this process has a connection open (usable or not). */
int wh_inbox_db_connected(const wh_inbox *ib);
/* Closes the connection now. */
void wh_inbox_db_close(wh_inbox *ib);
/* Forgets the connection without closing it (the process exit releases
 * its files and locks). */
void wh_inbox_db_abandon(wh_inbox *ib);
/* A pool for short work under the mutex (a child of the inbox's own
 * allocator); the caller destroys it. NULL when out of memory. */
apr_pool_t *wh_inbox_db_scratch(wh_inbox *ib);

#endif
