/* The inbox's connection: opening it, the per-engine session set-up
 * (PRAGMAs, SET; MySQL's in wh_inbox_mysql.c), renewing it after a failure, and running units of
 * work on it under the inbox's mutex (wh_inbox_db_txn / _read).
 *
 * One wh_inbox owns at most one connection and serializes every use of it
 * with a mutex: the module may share an inbox between threads, and a
 * webhook receiver's write rate is far below what one connection does. */
#include "wh_inbox_conn.h"
#include "wh_db_conn.h"
#include "wh_inbox_dbfile.h"
#include "wh_inbox_files.h"
#include "wh_inbox_mysql.h"
#include "wh_inbox_sql.h"
#include "wh_inbox_walsync.h"
#include "wh_inbox_writers.h"
#include "wh_sqlite_api.h"
#include "wh_sqlite_wal.h"
#include "verify/wh_log.h"
#include "verify/wh_sock_watch.h"
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* apr_dbd's SQLite driver retries a busy statement itself, 16 times with
 * a 100 ms sleep in between, whatever SQLite's own busy handling did in
 * each try. The inbox's busy handler (below) gives up at a deadline set
 * that much before the bounded wait ends, so the whole wait stays about
 * lock_wait_ms however long the sleeps of a loaded machine last. Without
 * the handler: busy_timeout per try, 16 * (busy_timeout + 100 ms). */
#define WH_SQLITE_DRIVER_TRIES 16
#define WH_SQLITE_DRIVER_SLEEP_MS 100
/* The busy handler's longest nap: who holds the database lock here is
 * not a wirehook writer (they queue on the writer lock, which wakes them
 * when it frees) but another program, or SQLite recovering the WAL index;
 * short naps keep the answer prompt once it lets go. */
#define WH_BUSY_NAP_MAX_MS 20

/* Liveness probe before each operation: a PostgreSQL connection that died
 * while idle is only noticed on use, and the request after a database
 * restart should succeed, not fail once. */
#define WH_SQL_PING "SELECT 1"

/* The inbox: its settings, its parts, and its one connection. Only this
 * file sees inside; the parts' own files see their part. */
struct wh_inbox {
    wh_inbox_settings set;       /* readonly and lock_wait_ms change under
                                    the mutex */
    apr_thread_mutex_t *mutex;   /* held for every use of the connection */
    apr_pool_t *root;            /* private allocator; parent of the
                                    connection's pool */
    wh_inbox_schema_fn ensure_schema;
    struct wh_batcher *batcher;  /* group commit, or NULL */
    int sequencer_off;           /* tests: no sequencer after stores */
    wh_writer_queue writers;     /* SQLite */
    wh_walsync sync;             /* SQLite */

    wh_db_conn *conn;            /* the current connection, or NULL */
    int broken;                  /* last use failed: reconnect first */
    apr_time_t retry_at;         /* no new connection before this */
    apr_time_t busy_deadline;    /* SQLite: the busy handler gives up then */
    /* PostgreSQL: the watch on a silent server (wh_inbox_db_awaiting) */
    wh_sock_watch *watch;
    int watch_slot;              /* -1: nothing watched */
    int watch_fd;
    int unwatched;               /* this use's statements wait unbounded */
    int silent;                  /* this use's socket was shut down */
    apr_interval_time_t silence; /* the wait that makes a server silent */
    /* The failure a unit of work recorded (wh_inbox_db_fail). */
    const char *fail_what;
    const char *fail_msg;
};

static apr_status_t conn_cleanup(void *data)
{
    wh_db_conn *c = data;
    /* After fork() the child must not close its parent's connection: for
     * PostgreSQL that would end the parent's session on the shared socket. */
    if (c->handle && c->pid == getpid())
        apr_dbd_close(c->driver, c->handle);
    c->handle = NULL;
    if (c->handle_pool)
        apr_pool_destroy(c->handle_pool);
    c->handle_pool = NULL;
    return APR_SUCCESS;
}

/* The watch ends (before its socket is closed, and with every use);
 * a socket shut down meanwhile makes the use silent. */
static void watch_end(wh_inbox *ib)
{
    if (ib->watch_slot >= 0 && wh_sock_watch_end(ib->watch, ib->watch_slot))
        ib->silent = 1;
    ib->watch_slot = -1;
}

/* A use of the connection begins, or ends: what was watched is let go. */
static void use_begin(wh_inbox *ib)
{
    ib->silent = 0;
}

static void use_end(wh_inbox *ib)
{
    watch_end(ib);
    ib->unwatched = 0;
}

/* A use that found its server silent: the connection is gone, and for the
 * retry interval every use fails at once rather than wait in turn (a new
 * connection to a silent server waits out connect_timeout). 1 when so. */
static int after_silence(wh_inbox *ib)
{
    if (!ib->silent)
        return 0;
    ib->broken = 1;
    ib->retry_at = apr_time_now() + ib->set.retry_interval;
    return 1;
}

static void disconnect(wh_inbox *ib)
{
    watch_end(ib);
    if (ib->conn)
        apr_pool_destroy(ib->conn->pool);   /* runs conn_cleanup */
    ib->conn = NULL;
}

static const char *begin_sql(const wh_inbox *ib)
{
    /* SQLite: take the write lock now, waiting at most the busy timeout,
     * rather than failing at the first write with a lock upgrade that can
     * deadlock against another writer. */
    return ib->set.engine == WH_INBOX_SQLITE3 ? "BEGIN IMMEDIATE" : "BEGIN";
}

static void rollback(wh_inbox *ib)
{
    /* Failure is fine here: SQLite may have rolled back already (full
     * disk), and a dead PostgreSQL connection has no transaction left. */
    (void)wh_inbox_db_sql(ib, "ROLLBACK");
}

static int busy_until_deadline(void *arg, int count)
{
    wh_inbox *ib = arg;
    apr_time_t left = ib->busy_deadline - apr_time_now();
    apr_interval_time_t nap = apr_time_from_msec(count < 5 ? 1 << count : WH_BUSY_NAP_MAX_MS);

    if (left <= 0)
        return 0;
    apr_sleep(nap < left ? nap : left);
    return 1;
}

/* 1 when the inbox's own busy handler is installed on the connection. */
static int install_busy_handler(wh_inbox *ib)
{
    const wh_sqlite_api *api = wh_sqlite_api_get();
    sqlite3 *db = api->busy_handler
                      ? apr_dbd_native_handle(ib->conn->driver, ib->conn->handle)
                      : NULL;

    return db && api->busy_handler(db, busy_until_deadline, ib) == SQLITE_OK;
}

/* The deadline of the busy handler for the use starting now (mutex held). */
static void start_busy_clock(wh_inbox *ib)
{
    apr_interval_time_t wait = apr_time_from_msec(ib->set.lock_wait_ms)
                               - apr_time_from_msec(WH_SQLITE_DRIVER_TRIES
                                                    * WH_SQLITE_DRIVER_SLEEP_MS);
    ib->busy_deadline = apr_time_now() + (wait > 0 ? wait : 0);
}

/* 1 for a database file that holds nothing yet (wh_inbox_dbfile.c has
 * just made it, or an earlier process made it and stopped there). */
static int empty_file(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

static wh_conn_status session_setup(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    int rv;
    const char *mode = NULL;

    if (ib->set.engine == WH_INBOX_MYSQL) {
        /* the server gives up first (its statement and lock waits), so a
         * server that runs always answers before the watch ends the wait */
        int stmt_ms = ib->set.lock_wait_ms > WH_INBOX_STATEMENT_TIMEOUT_MS
                      ? ib->set.lock_wait_ms : WH_INBOX_STATEMENT_TIMEOUT_MS;
        ib->silence = apr_time_from_msec(stmt_ms + WH_INBOX_SILENCE_MARGIN_MS);
        return wh_mysql_session(&ib->set, p, ib->conn->handle, &ib->conn->grant, why);
    }

    if (ib->set.engine == WH_INBOX_SQLITE3) {
        int per_try = ib->set.lock_wait_ms / WH_SQLITE_DRIVER_TRIES
                      - WH_SQLITE_DRIVER_SLEEP_MS;
        if (per_try < 0)
            per_try = 0;
        /* The busy handling first: changing the journal mode needs a lock
         * too. */
        start_busy_clock(ib);
        if (!install_busy_handler(ib)
            && (rv = wh_inbox_db_sql_value(ib, p, apr_psprintf(p, "PRAGMA busy_timeout = %d",
                                                                per_try), NULL)) != 0) {
            *why = apr_psprintf(p, "busy_timeout: %s", wh_inbox_db_error(ib, p, rv));
            return WH_CONN_DOWN;
        }
        /* WAL: readers (listing) never wait for the writer. It is a
         * property of the file; a read-only file keeps its mode, which
         * still serves listings, so a refusal is only worth a warning. A
         * read-only connection leaves the file as it is. */
        if (ib->set.readonly)
            return WH_CONN_OK;
        /* A new, empty file: incremental auto-vacuum, so that a purge can
         * give back the space of what it deletes (wh_inbox_purge.c).
         * SQLite takes it only before the first page is written, which
         * the journal mode does; an older inbox gets it from `wirehook
         * inbox vacuum` (docs/inbox.md). */
        if (empty_file(ib->set.db_file)
            && (rv = wh_inbox_db_sql_value(ib, p, "PRAGMA auto_vacuum = INCREMENTAL",
                                           NULL)) != 0) {
            *why = apr_psprintf(p, "auto_vacuum: %s", wh_inbox_db_error(ib, p, rv));
            return WH_CONN_DOWN;
        }
        rv = wh_inbox_db_sql_value(ib, p, "PRAGMA journal_mode = WAL", &mode);
        if (rv != 0 || !mode || strcasecmp(mode, "wal") != 0)
            wh_logf(&ib->set.log, WH_LOG_WARN,
                    "inbox: sqlite3 database not in WAL mode (%s)",
                    rv ? wh_inbox_db_error(ib, p, rv) : mode ? mode : "?");
        /* FULL: in WAL mode NORMAL may lose the last commits on power
         * failure, and a commit here is a promise made to the sender.
         * Once the connection is set up it goes NORMAL with a sync of its
         * own after each commit (wh_inbox_walsync.c), where it can. */
        if ((rv = wh_inbox_db_sql_value(ib, p, "PRAGMA synchronous = FULL", NULL)) != 0) {
            *why = apr_psprintf(p, "synchronous: %s", wh_inbox_db_error(ib, p, rv));
            return WH_CONN_DOWN;
        }
        return WH_CONN_OK;
    }

    {
        /* The server's defaults are not ours to trust: durability before
         * the 200, bounded lock waits, and row locks that behave as the
         * store sequence expects (not SERIALIZABLE, which would abort). */
        int stmt_ms = ib->set.lock_wait_ms > WH_INBOX_STATEMENT_TIMEOUT_MS
                      ? ib->set.lock_wait_ms : WH_INBOX_STATEMENT_TIMEOUT_MS;
        const char *set[] = {
            apr_psprintf(p, "SET lock_timeout = %d", ib->set.lock_wait_ms > 0
                                                     ? ib->set.lock_wait_ms : 1),
            apr_psprintf(p, "SET statement_timeout = %d", stmt_ms),
            "SET synchronous_commit = on",
            "SET default_transaction_isolation = 'read committed'",
            "SET client_encoding = 'UTF8'",
            ib->set.readonly ? "SET default_transaction_read_only = on" : "SELECT 1",
        };
        /* a server that runs ends a statement before wirehook stops
         * waiting for its answer */
        ib->silence = apr_time_from_msec(stmt_ms + WH_INBOX_SILENCE_MARGIN_MS);
        for (apr_size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
            if ((rv = wh_inbox_db_sql(ib, set[i])) != 0) {
                *why = apr_psprintf(p, "session setup: %s", wh_inbox_db_error(ib, p, rv));
                return WH_CONN_DOWN;
            }
    }
    return WH_CONN_OK;
}

int wh_inbox_db_writer_lock(wh_inbox *ib, apr_pool_t *p)
{
    (void)p;
    return wh_writer_queue_enter(&ib->writers, &ib->set);
}

void wh_inbox_db_writer_unlock(wh_inbox *ib)
{
    wh_writer_queue_leave(&ib->writers);
}

/* A fresh connection's pool and record, no handle yet. NULL when out of
 * memory. */
static wh_db_conn *new_conn(wh_inbox *ib)
{
    apr_pool_t *pool;
    wh_db_conn *c;

    if (apr_pool_create(&pool, ib->root) != APR_SUCCESS)
        return NULL;
    c = apr_pcalloc(pool, sizeof(*c));
    c->driver = ib->set.driver;
    c->engine = ib->set.engine;
    c->pool = pool;
    c->prepared = apr_hash_make(pool);
    apr_pool_cleanup_register(pool, c, conn_cleanup, apr_pool_cleanup_null);
    return c;
}

/* Statements are prepared on first use (wh_inbox_stmt.c), not here. */
static wh_conn_status connect_once(wh_inbox *ib, apr_pool_t *p, const char **why_out)
{
    const char *err = NULL, *why = NULL, *params = ib->set.params;
    apr_dbd_t *handle = NULL;
    wh_db_conn *old = ib->conn;
    apr_status_t st;
    wh_conn_status cs;
    int gathered = 0;

    if (old && old->pid != getpid())
        old->handle = NULL;   /* inherited over fork: abandon, never close */
    /* The previous connection is closed only once the new one is set up:
     * an SQLite connection still open keeps the WAL index in shared
     * memory valid, so the new one need not rebuild it from the WAL (a
     * CGI request going from its read-only connection to a writing one). */
    ib->broken = 1;
    ib->sync.deferred = 0;
    watch_end(ib);               /* the old socket is not watched any more */
    if (!(ib->conn = new_conn(ib))) {
        cs = WH_CONN_DOWN;
        goto out;
    }
    if ((cs = wh_inbox_dbfile_prepare(&ib->set, p, &params, &why)) != WH_CONN_OK) {
        if (why_out)
            *why_out = why;
        disconnect(ib);
        goto out;
    }
    if (ib->set.engine == WH_INBOX_SQLITE3)
        st = wh_sqlite_wal_open(ib->set.driver, ib->conn->pool, params, &handle, &err,
                                &gathered);
    else if (ib->set.engine == WH_INBOX_MYSQL)
        st = wh_mysql_open(ib->set.driver, params, ib->set.connect_timeout_s, p, &handle,
                           &ib->conn->handle_pool, &err);
    else
        st = apr_dbd_open_ex(ib->set.driver, ib->conn->pool, params, &handle, &err);
    if (st != APR_SUCCESS || !handle) {
        /* A reader finding nothing usable is a cache miss, not an error. */
        wh_logf(&ib->set.log, ib->set.readonly ? WH_LOG_DEBUG : WH_LOG_ERROR,
                "inbox: cannot open the %s database: %s",
                ib->set.driver_name, err ? wh_log_one_line(p, err) : "connection failed");
        disconnect(ib);
        cs = WH_CONN_DOWN;
        goto out;
    }
    if (ib->set.engine == WH_INBOX_SQLITE3)
        wh_logf(&ib->set.log, WH_LOG_DEBUG, "inbox: sqlite3 connection opened%s",
                gathered ? "; WAL writes gathered per commit"
                         : "; WAL writes as SQLite makes them (InboxParams names a"
                           " VFS, or the library lacks sqlite3_database_file_object)");
    ib->conn->handle = handle;
    ib->conn->pid = getpid();

    if ((cs = session_setup(ib, p, &why)) != WH_CONN_OK)
        goto fail;
    wh_writer_queue_open(&ib->writers, &ib->set, ib->root, p);
    if ((cs = ib->ensure_schema(ib, p, ib->set.readonly, &why)) != WH_CONN_OK)
        goto fail;
    if (ib->set.db_file && !ib->set.readonly)
        wh_inbox_file_regroup(p, ib->set.db_file, ib->set.gid);
    wh_inbox_walsync_attach(ib, p);
    ib->broken = 0;
    goto out;

fail:
    if (!why)
        why = "setup failed";
    wh_logf(&ib->set.log, ib->set.readonly ? WH_LOG_DEBUG : WH_LOG_ERROR,
            "inbox: %s database unusable: %s", ib->set.driver_name, why);
    if (why_out)
        *why_out = why;
    disconnect(ib);
out:
    /* the set-up's watch ends; a migration's unbounded wait too */
    watch_end(ib);
    ib->unwatched = 0;
    if (old)
        apr_pool_destroy(old->pool);   /* runs conn_cleanup */
    return cs;
}

wh_conn_status wh_inbox_db_connect(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    wh_conn_status cs = connect_once(ib, p, why);

    /* After a failed attempt, requests answer 503 at once until the retry
     * interval has passed: a database that is down (or newer than this
     * wirehook, or unwritable) costs one attempt per interval, not one per
     * request (PostgreSQL's connect_timeout, with every thread queued
     * behind the mutex). */
    ib->retry_at = cs == WH_CONN_OK ? 0 : apr_time_now() + ib->set.retry_interval;
    return cs;
}

/* Called with the mutex held before every operation. */
static int ensure_conn(wh_inbox *ib, apr_pool_t *p)
{
    if (ib->conn && ib->conn->handle && !ib->broken &&
        ib->conn->pid == getpid()) {
        /* An SQLite "connection" is a file handle that cannot drop, and
         * SELECT 1 never touches the file: probing it would only parse. */
        if (ib->set.engine == WH_INBOX_SQLITE3 ||
            wh_inbox_db_sql_value(ib, p, WH_SQL_PING, NULL) == 0)
            return 0;
        watch_end(ib);
        if (after_silence(ib)) {
            wh_logf(&ib->set.log, WH_LOG_ERROR, "inbox: the %s database gave no answer "
                    "within %" APR_TIME_T_FMT " s; the connection is closed, a new one "
                    "tried in %" APR_TIME_T_FMT " ms", ib->set.driver_name,
                    apr_time_sec(ib->silence), apr_time_as_msec(ib->set.retry_interval));
            return -1;
        }
        wh_logf(&ib->set.log, WH_LOG_WARN, "inbox: %s connection lost, reconnecting",
                ib->set.driver_name);
    }
    if (ib->retry_at && apr_time_now() < ib->retry_at)
        return -1;
    return wh_inbox_db_connect(ib, p, NULL) == WH_CONN_OK ? 0 : -1;
}

/* ------------------------------------------------ a silent server --- */

/* libpq and the MySQL client wait for an answer as long as the server is
 * silent, and neither their own settings nor the server's end that wait
 * when the server's process is stopped or its machine frozen
 * (verify/wh_sock_watch.h; apr_dbd's mysql driver sets no read timeout): a
 * statement whose answer has not come within ib->silence has its socket
 * shut down, and fails as on a broken connection. The statement timeout
 * is shorter, so a server that runs always answers first. */
void wh_inbox_db_awaiting(wh_inbox *ib)
{
    int fd;

    if (!ib->watch || ib->unwatched || !ib->conn || !ib->conn->handle)
        return;
    fd = wh_sock_watch_dbd_socket(ib->set.driver, ib->conn->handle);
    if (ib->watch_slot >= 0 && fd == ib->watch_fd) {
        if (wh_sock_watch_renew(ib->watch, ib->watch_slot, ib->silence))
            ib->silent = 1;
        return;
    }
    watch_end(ib);               /* a connection opened since */
    ib->watch_slot = wh_sock_watch_begin(ib->watch, fd, ib->silence);
    ib->watch_fd = fd;
}

void wh_inbox_db_unwatched(wh_inbox *ib)
{
    watch_end(ib);
    ib->unwatched = 1;
}

/* ------------------------------------------------------ units of work --- */

int wh_inbox_db_fail(wh_inbox *ib, apr_pool_t *p, const char *what, int rv)
{
    if (!ib->fail_what) {
        ib->fail_what = what;
        ib->fail_msg = wh_inbox_db_error(ib, p, rv);
    }
    return rv == 0 || rv == WH_TXN_ROLLBACK ? -1 : rv;
}

static wh_db_outcome failed(wh_inbox *ib, apr_pool_t *p, const char *what, int rv,
                            int in_txn)
{
    /* Read the message before ROLLBACK replaces it. */
    const char *msg = ib->fail_msg ? ib->fail_msg : wh_inbox_db_error(ib, p, rv);
    if (ib->fail_what)
        what = ib->fail_what;
    watch_end(ib);
    if (after_silence(ib)) {
        /* nothing to roll back on a socket shut down: the server ends the
         * transaction when it finds the connection gone */
        wh_logf(&ib->set.log, WH_LOG_ERROR, "inbox: %s failed on the %s database: no "
                "answer within %" APR_TIME_T_FMT " s (stopped, frozen or cut off?); "
                "the connection is closed, a new one tried in %" APR_TIME_T_FMT " ms",
                what, ib->set.driver_name, apr_time_sec(ib->silence),
                apr_time_as_msec(ib->set.retry_interval));
        return WH_DB_UNAVAILABLE;
    }
    if (in_txn)
        rollback(ib);
    ib->broken = 1;
    wh_logf(&ib->set.log, WH_LOG_ERROR, "inbox: %s failed on the %s database: %s",
            what, ib->set.driver_name, msg);
    return WH_DB_UNAVAILABLE;
}

/* SQLite: statements are prepared with the legacy interface (apr_dbd),
 * which does not recompile a statement whose tables another connection
 * changed (a tool adding its table): the statement fails once with
 * "database schema has changed". Such a failure is retried once on a
 * fresh connection instead of costing a request its 200. */
static int schema_changed(wh_inbox *ib, apr_pool_t *p, int rv)
{
    const char *m;

    if (ib->set.engine != WH_INBOX_SQLITE3 || rv == 0 || rv == WH_TXN_ROLLBACK)
        return 0;
    m = ib->fail_msg ? ib->fail_msg : wh_inbox_db_error(ib, p, rv);
    return m && strstr(m, "schema has changed") != NULL;
}

/* One attempt; *retry set when it failed for a schema change (rolled
 * back, nothing logged). Mutex held. */
static wh_db_outcome txn_once(wh_inbox *ib, apr_pool_t *p, const char *what,
                              wh_inbox_fn fn, void *baton, int may_retry, int *retry,
                              int *must_sync)
{
    wh_db_outcome out;
    int rv;

    *retry = 0;
    ib->fail_what = ib->fail_msg = NULL;
    use_begin(ib);
    if (ib->set.readonly || wh_inbox_db_sync_failed(ib) || ensure_conn(ib, p) != 0) {
        use_end(ib);
        return WH_DB_UNAVAILABLE;
    }
    start_busy_clock(ib);
    if (wh_inbox_db_writer_lock(ib, p) != 0) {
        use_end(ib);
        return WH_DB_UNAVAILABLE;   /* logged; the connection is fine */
    }
    if ((rv = wh_inbox_db_sql(ib, begin_sql(ib))) != 0) {
        out = failed(ib, p, apr_pstrcat(p, "BEGIN (", what, ")", NULL), rv, 0);
    } else if ((rv = fn(ib, p, baton)) == WH_TXN_ROLLBACK) {
        rollback(ib);
        out = WH_DB_ROLLED_BACK;
    } else if (rv != WH_TXN_COMMIT && may_retry && schema_changed(ib, p, rv)) {
        rollback(ib);
        ib->broken = 1;
        *retry = 1;
        out = WH_DB_UNAVAILABLE;
    } else if (rv != WH_TXN_COMMIT) {
        out = failed(ib, p, what, rv, 1);
    } else if ((rv = wh_inbox_db_sql(ib, "COMMIT")) != 0) {
        out = failed(ib, p, apr_pstrcat(p, "COMMIT (", what, ")", NULL), rv, 1);
    } else {
        out = WH_DB_OK;
    }
    /* answered just as the socket was shut down: done, on a connection
     * that is gone (a failure was the silence's: failed()) */
    use_end(ib);
    if (ib->silent)
        ib->broken = 1;
    /* A quiet rollback too: what fn read (the stored copy of a duplicate)
     * may be another writer's commit still waiting for its sync. */
    if ((out == WH_DB_OK || out == WH_DB_ROLLED_BACK) && wh_walsync_due(&ib->sync))
        *must_sync = 1;
    wh_inbox_db_writer_unlock(ib);
    return out;
}

wh_db_outcome wh_inbox_db_txn(wh_inbox *ib, apr_pool_t *p, const char *what,
                              wh_inbox_fn fn, void *baton)
{
    wh_db_outcome out;
    int retry, must_sync = 0;

    apr_thread_mutex_lock(ib->mutex);
    out = txn_once(ib, p, what, fn, baton, 1, &retry, &must_sync);
    if (retry) {
        wh_logf(&ib->set.log, WH_LOG_DEBUG, "inbox: the schema changed under %s; "
                "again on a fresh connection", what);
        out = txn_once(ib, p, what, fn, baton, 0, &retry, &must_sync);
    }
    apr_thread_mutex_unlock(ib->mutex);
    /* the locks are free: the next writer commits during this sync */
    if (must_sync && wh_inbox_db_sync(ib) != 0)
        return WH_DB_UNAVAILABLE;
    return out;
}

wh_db_outcome wh_inbox_db_read(wh_inbox *ib, apr_pool_t *p, const char *what,
                               wh_inbox_fn fn, void *baton)
{
    wh_db_outcome out = WH_DB_OK;
    int rv = 0;

    apr_thread_mutex_lock(ib->mutex);
    for (int attempt = 0; attempt < 2; attempt++) {
        ib->fail_what = ib->fail_msg = NULL;
        out = WH_DB_OK;
        use_begin(ib);
        if (ensure_conn(ib, p) != 0) {
            out = WH_DB_UNAVAILABLE;
            break;
        }
        start_busy_clock(ib);
        if ((rv = fn(ib, p, baton)) == 0)
            break;
        if (attempt == 0 && schema_changed(ib, p, rv)) {
            ib->broken = 1;   /* reconnect: the statements are made afresh */
            continue;
        }
        out = failed(ib, p, what, rv, 0);
        break;
    }
    use_end(ib);
    if (ib->silent)
        ib->broken = 1;
    apr_thread_mutex_unlock(ib->mutex);
    return out;
}

/* ------------------------------------------------------- the inbox --- */

const char *wh_inbox_db_create(apr_pool_t *p, const wh_inbox_settings *s,
                               wh_inbox_schema_fn ensure_schema, wh_inbox **out)
{
    wh_inbox *ib = apr_pcalloc(p, sizeof(*ib));
    apr_allocator_t *alloc = NULL;
    apr_status_t rv;
    const char *err;
    char buf[120];

    *out = NULL;
    ib->set = *s;
    ib->ensure_schema = ensure_schema;
    ib->watch_slot = -1;
    ib->silence = apr_time_from_msec(WH_INBOX_STATEMENT_TIMEOUT_MS + WH_INBOX_SILENCE_MARGIN_MS);
    if ((rv = apr_thread_mutex_create(&ib->mutex, APR_THREAD_MUTEX_DEFAULT, p))
        != APR_SUCCESS)
        return apr_psprintf(p, "inbox mutex: %s", apr_strerror(rv, buf, sizeof(buf)));
    /* Connections come and go (reconnects) for the life of p; their pools
     * hang off a root with its own allocator, touched only under the
     * mutex, so p itself is never allocated from concurrently. */
    if ((rv = apr_allocator_create(&alloc)) != APR_SUCCESS)
        return "inbox: out of memory";
    if ((rv = apr_pool_create_ex(&ib->root, p, NULL, alloc)) != APR_SUCCESS) {
        apr_allocator_destroy(alloc);
        return "inbox: out of memory";
    }
    apr_allocator_owner_set(alloc, ib->root);
    apr_allocator_max_free_set(alloc, 1024 * 1024);
    if ((err = wh_walsync_init(&ib->sync, ib->root)) != NULL)
        return err;
    /* one connection, one socket at a time */
    if (s->engine != WH_INBOX_SQLITE3
        && (err = wh_sock_watch_create(ib->root, 1, &ib->watch)) != NULL)
        return apr_pstrcat(p, "inbox: ", err, NULL);
    *out = ib;
    return NULL;
}

void wh_inbox_db_set_batcher(wh_inbox *ib, struct wh_batcher *b)
{
    ib->batcher = b;
}

void wh_inbox_allow_writes(wh_inbox *ib, apr_pool_t *p)
{
    const char *why = NULL;

    if (!ib)
        return;
    apr_thread_mutex_lock(ib->mutex);
    if (ib->set.readonly) {
        ib->set.readonly = 0;
        ib->retry_at = 0;
        if (ib->set.engine == WH_INBOX_SQLITE3 || !wh_inbox_db_connected(ib) || ib->broken) {
            /* SQLite: a read-only file handle cannot write; the next use
             * opens the file for writing (creating it if need be) */
            ib->broken = 1;
        } else if (wh_inbox_db_sql(ib, ib->set.engine == WH_INBOX_MYSQL
                                           ? WH_MYSQL_SQL_READ_WRITE
                                           : "SET default_transaction_read_only = off") != 0
                   || ib->ensure_schema(ib, p, 0, &why) != WH_CONN_OK) {
            /* PostgreSQL, MySQL: the same session goes on (no second login) */
            ib->broken = 1;
        }
        use_end(ib);
    }
    apr_thread_mutex_unlock(ib->mutex);
}

/* --------------------------------------------------------- accessors --- */

wh_db_conn *wh_inbox_db_conn(wh_inbox *ib)
{
    return ib->conn;
}

wh_walsync *wh_inbox_db_walsync(wh_inbox *ib)
{
    return &ib->sync;
}

wh_inbox_driver wh_inbox_db_engine(const wh_inbox *ib)
{
    return ib->set.engine;
}

int wh_inbox_db_concurrent(const wh_inbox *ib)
{
    return ib->set.engine != WH_INBOX_SQLITE3;
}

const char *wh_inbox_db_driver_name(const wh_inbox *ib)
{
    return ib->set.driver_name;
}

int wh_inbox_db_readonly(const wh_inbox *ib)
{
    return ib->set.readonly;
}

const wh_logger *wh_inbox_db_log(const wh_inbox *ib)
{
    return &ib->set.log;
}

void wh_inbox_db_lock(wh_inbox *ib)
{
    apr_thread_mutex_lock(ib->mutex);
}

void wh_inbox_db_unlock(wh_inbox *ib)
{
    apr_thread_mutex_unlock(ib->mutex);
}

int wh_inbox_db_connected(const wh_inbox *ib)
{
    return ib->conn && ib->conn->handle && ib->conn->pid == getpid();
}

void wh_inbox_db_close(wh_inbox *ib)
{
    disconnect(ib);
}

void wh_inbox_db_abandon(wh_inbox *ib)
{
    /* conn_cleanup then has nothing to close. */
    if (ib->conn)
        ib->conn->handle = NULL;
}

apr_pool_t *wh_inbox_db_scratch(wh_inbox *ib)
{
    apr_pool_t *p = NULL;
    return apr_pool_create(&p, ib->root) == APR_SUCCESS ? p : NULL;
}

struct wh_batcher *wh_inbox_db_batcher(const wh_inbox *ib)
{
    return ib->batcher;
}

int wh_inbox_db_sequencer_on(const wh_inbox *ib)
{
    return !ib->sequencer_off;
}

void wh_inbox_set_sequencer(wh_inbox *ib, int on)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->sequencer_off = !on;
    apr_thread_mutex_unlock(ib->mutex);
}

void wh_inbox_set_retry_interval(wh_inbox *ib, apr_interval_time_t t)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->set.retry_interval = t;
    ib->retry_at = 0;
    apr_thread_mutex_unlock(ib->mutex);
}

void wh_inbox_set_lock_wait_ms(wh_inbox *ib, int ms)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->set.lock_wait_ms = ms < 0 ? 0 : ms;
    ib->broken = 1;               /* the next use reconnects with it */
    apr_thread_mutex_unlock(ib->mutex);
}
