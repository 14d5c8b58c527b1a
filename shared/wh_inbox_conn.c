/* The inbox's connection: opening it, the per-engine session set-up
 * (PRAGMAs vs SET), renewing it after a failure, and running units of
 * work on it under the inbox's mutex (wh_inbox_db_txn / _read).
 *
 * One wh_inbox owns at most one connection and serializes every use of it
 * with a mutex: the module may share an inbox between threads, and a
 * webhook receiver's write rate is far below what one connection does. */
#include "wh_inbox_conn.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>
#include <string.h>
#include <unistd.h>

/* apr_dbd's SQLite driver retries a busy statement itself, 16 times with
 * a 100 ms sleep in between; SQLite's busy_timeout applies to each try.
 * Whole wait = 16 * (busy_timeout + 100 ms). */
#define WH_SQLITE_DRIVER_TRIES 16
#define WH_SQLITE_DRIVER_SLEEP_MS 100

/* Liveness probe before each operation: a PostgreSQL connection that died
 * while idle is only noticed on use, and the request after a database
 * restart should succeed, not fail once. */
#define WH_SQL_PING "SELECT 1"

static apr_status_t conn_cleanup(void *data)
{
    wh_conn_owner *c = data;
    /* After fork() the child must not close its parent's connection: for
     * PostgreSQL that would end the parent's session on the shared socket. */
    if (c->handle && c->pid == getpid())
        apr_dbd_close(c->driver, c->handle);
    c->handle = NULL;
    return APR_SUCCESS;
}

static void disconnect(wh_inbox *ib)
{
    if (ib->cpool)
        apr_pool_destroy(ib->cpool);   /* runs conn_cleanup */
    ib->cpool = NULL;
    ib->conn = NULL;
    ib->prepared = NULL;
}

static const char *begin_sql(const wh_inbox *ib)
{
    /* SQLite: take the write lock now, waiting at most the busy timeout,
     * rather than failing at the first write with a lock upgrade that can
     * deadlock against another writer. */
    return ib->engine == WH_INBOX_SQLITE3 ? "BEGIN IMMEDIATE" : "BEGIN";
}

static void rollback(wh_inbox *ib)
{
    /* Failure is fine here: SQLite may have rolled back already (full
     * disk), and a dead PostgreSQL connection has no transaction left. */
    (void)wh_inbox_db_sql(ib, "ROLLBACK");
}

static int session_setup(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    int rv;
    const char *mode = NULL;

    if (ib->engine == WH_INBOX_SQLITE3) {
        int per_try = ib->lock_wait_ms / WH_SQLITE_DRIVER_TRIES
                      - WH_SQLITE_DRIVER_SLEEP_MS;
        if (per_try < 0)
            per_try = 0;
        /* busy_timeout first: changing the journal mode needs a lock too. */
        if ((rv = wh_inbox_db_sql_value(ib, p, apr_psprintf(p, "PRAGMA busy_timeout = %d",
                                                             per_try), NULL)) != 0) {
            *why = apr_psprintf(p, "busy_timeout: %s", wh_inbox_db_error(ib, p, rv));
            return rv;
        }
        /* WAL: readers (listing) never wait for the writer. It is a
         * property of the file; a read-only file keeps its mode, which
         * still serves listings, so a refusal is only worth a warning. */
        rv = wh_inbox_db_sql_value(ib, p, "PRAGMA journal_mode = WAL", &mode);
        if (rv != 0 || !mode || strcasecmp(mode, "wal") != 0)
            wh_logf(&ib->log, WH_LOG_WARN,
                    "inbox: sqlite3 database not in WAL mode (%s)",
                    rv ? wh_inbox_db_error(ib, p, rv) : mode ? mode : "?");
        /* FULL: in WAL mode NORMAL may lose the last commits on power
         * failure, and a commit here is a promise made to the sender. */
        if ((rv = wh_inbox_db_sql_value(ib, p, "PRAGMA synchronous = FULL", NULL)) != 0) {
            *why = apr_psprintf(p, "synchronous: %s", wh_inbox_db_error(ib, p, rv));
            return rv;
        }
        return 0;
    }

    {
        /* The server's defaults are not ours to trust: durability before
         * the 200, bounded lock waits, and row locks that behave as the
         * store sequence expects (not SERIALIZABLE, which would abort). */
        const char *set[] = {
            apr_psprintf(p, "SET lock_timeout = %d", ib->lock_wait_ms > 0
                                                     ? ib->lock_wait_ms : 1),
            apr_psprintf(p, "SET statement_timeout = %d",
                         WH_INBOX_STATEMENT_TIMEOUT_MS),
            "SET synchronous_commit = on",
            "SET default_transaction_isolation = 'read committed'",
            "SET client_encoding = 'UTF8'",
        };
        for (apr_size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
            if ((rv = wh_inbox_db_sql(ib, set[i])) != 0) {
                *why = apr_psprintf(p, "session setup: %s", wh_inbox_db_error(ib, p, rv));
                return rv;
            }
    }
    return 0;
}

/* Opens a fresh connection, sets it up and makes sure of the schema
 * (statements are prepared on first use, see wh_inbox_stmt.c). The
 * previous connection, if any, is closed.
 * why_out (may be NULL) gets the reason of a failure, in p. */
static wh_conn_status connect_db(wh_inbox *ib, apr_pool_t *p, const char **why_out)
{
    const char *err = NULL, *why = NULL;
    apr_dbd_t *handle = NULL;
    apr_status_t st;
    wh_conn_status cs;

    if (ib->conn && ib->conn->pid != getpid())
        ib->conn->handle = NULL;   /* inherited over fork: abandon, never close */
    disconnect(ib);
    ib->broken = 1;
    if (apr_pool_create(&ib->cpool, ib->root) != APR_SUCCESS) {
        ib->cpool = NULL;
        return WH_CONN_DOWN;
    }
    st = apr_dbd_open_ex(ib->driver, ib->cpool, ib->params, &handle, &err);
    if (st != APR_SUCCESS || !handle) {
        wh_logf(&ib->log, WH_LOG_ERROR, "inbox: cannot open the %s database: %s",
                ib->driver_name, err ? wh_inbox_one_line(p, err) : "connection failed");
        disconnect(ib);
        return WH_CONN_DOWN;
    }
    ib->conn = apr_pcalloc(ib->cpool, sizeof(*ib->conn));
    ib->conn->driver = ib->driver;
    ib->conn->handle = handle;
    ib->conn->pid = getpid();
    ib->prepared = apr_hash_make(ib->cpool);
    apr_pool_cleanup_register(ib->cpool, ib->conn, conn_cleanup,
                              apr_pool_cleanup_null);

    if (session_setup(ib, p, &why) != 0) {
        cs = WH_CONN_DOWN;
        goto fail;
    }
    if ((cs = wh_inbox_schema_ensure(ib, p, 0, &why)) != WH_CONN_OK)
        goto fail;
    ib->broken = 0;
    return WH_CONN_OK;

fail:
    if (!why)
        why = "setup failed";
    wh_logf(&ib->log, WH_LOG_ERROR, "inbox: %s database unusable: %s",
            ib->driver_name, why);
    if (why_out)
        *why_out = why;
    disconnect(ib);
    return cs;
}

/* Called with the mutex held before every operation. */
static int ensure_conn(wh_inbox *ib, apr_pool_t *p)
{
    if (ib->conn && ib->conn->handle && !ib->broken &&
        ib->conn->pid == getpid()) {
        /* An SQLite "connection" is a file handle that cannot drop, and
         * SELECT 1 never touches the file: probing it would only parse. */
        if (ib->engine == WH_INBOX_SQLITE3 ||
            wh_inbox_db_sql_value(ib, p, WH_SQL_PING, NULL) == 0)
            return 0;
        wh_logf(&ib->log, WH_LOG_WARN, "inbox: %s connection lost, reconnecting",
                ib->driver_name);
    }
    return connect_db(ib, p, NULL) == WH_CONN_OK ? 0 : -1;
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
    if (in_txn)
        rollback(ib);
    ib->broken = 1;
    wh_logf(&ib->log, WH_LOG_ERROR, "inbox: %s failed on the %s database: %s",
            what, ib->driver_name, msg);
    return WH_DB_UNAVAILABLE;
}

wh_db_outcome wh_inbox_db_txn(wh_inbox *ib, apr_pool_t *p, const char *what,
                              wh_inbox_fn fn, void *baton)
{
    wh_db_outcome out;
    int rv;

    apr_thread_mutex_lock(ib->mutex);
    ib->fail_what = ib->fail_msg = NULL;
    if (ensure_conn(ib, p) != 0) {
        out = WH_DB_UNAVAILABLE;
    } else if ((rv = wh_inbox_db_sql(ib, begin_sql(ib))) != 0) {
        out = failed(ib, p, apr_pstrcat(p, "BEGIN (", what, ")", NULL), rv, 0);
    } else if ((rv = fn(ib, p, baton)) == WH_TXN_ROLLBACK) {
        rollback(ib);
        out = WH_DB_ROLLED_BACK;
    } else if (rv != WH_TXN_COMMIT) {
        out = failed(ib, p, what, rv, 1);
    } else if ((rv = wh_inbox_db_sql(ib, "COMMIT")) != 0) {
        out = failed(ib, p, apr_pstrcat(p, "COMMIT (", what, ")", NULL), rv, 1);
    } else {
        out = WH_DB_OK;
    }
    apr_thread_mutex_unlock(ib->mutex);
    return out;
}

wh_db_outcome wh_inbox_db_read(wh_inbox *ib, apr_pool_t *p, const char *what,
                               wh_inbox_fn fn, void *baton)
{
    wh_db_outcome out = WH_DB_OK;
    int rv;

    apr_thread_mutex_lock(ib->mutex);
    ib->fail_what = ib->fail_msg = NULL;
    if (ensure_conn(ib, p) != 0)
        out = WH_DB_UNAVAILABLE;
    else if ((rv = fn(ib, p, baton)) != 0)
        out = failed(ib, p, what, rv, 0);
    apr_thread_mutex_unlock(ib->mutex);
    return out;
}

/* --------------------------------------------------------- accessors --- */

wh_inbox_driver wh_inbox_db_engine(const wh_inbox *ib)
{
    return ib->engine;
}

const char *wh_inbox_db_driver_name(const wh_inbox *ib)
{
    return ib->driver_name;
}

const wh_logger *wh_inbox_db_log(const wh_inbox *ib)
{
    return &ib->log;
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

void wh_inbox_set_lock_wait_ms(wh_inbox *ib, int ms)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->lock_wait_ms = ms < 0 ? 0 : ms;
    ib->broken = 1;               /* the next use reconnects with it */
    apr_thread_mutex_unlock(ib->mutex);
}

/* ------------------------------------------------------------- open --- */

const char *wh_inbox_open(apr_pool_t *p, const wh_config *cfg,
                          const wh_logger *log, wh_inbox **out)
{
    wh_inbox *ib;
    apr_allocator_t *alloc = NULL;
    apr_status_t rv;
    char buf[120];

    *out = NULL;
    if (!cfg || !cfg->inbox_params || !*cfg->inbox_params)
        return "no inbox is configured (InboxParams is not set)";
    ib = apr_pcalloc(p, sizeof(*ib));
    if (log)
        ib->log = *log;
    ib->params = cfg->inbox_params;
    ib->engine = cfg->inbox_driver == WH_INBOX_PGSQL ? WH_INBOX_PGSQL : WH_INBOX_SQLITE3;
    ib->driver_name = cfg->inbox_driver_name ? cfg->inbox_driver_name
                      : ib->engine == WH_INBOX_SQLITE3 ? "sqlite3" : "pgsql";
    ib->lock_wait_ms = WH_INBOX_LOCK_WAIT_MS;

    /* apr_dbd_init guards itself against repeated calls (mod_dbd makes
     * one too) and keeps its state in the process-wide pool. */
    if ((rv = apr_dbd_init(p)) != APR_SUCCESS)
        return apr_psprintf(p, "apr_dbd_init: %s", apr_strerror(rv, buf, sizeof(buf)));
    rv = apr_dbd_get_driver(p, ib->driver_name, &ib->driver);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "the apr_dbd driver '%s' is not available "
                            "(Debian: libaprutil1-dbd-%s): %s", ib->driver_name,
                            ib->driver_name, apr_strerror(rv, buf, sizeof(buf)));
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

    /* Try now so that problems show at start-up, but a database that is
     * down now (PostgreSQL restarting) is not a configuration error: each
     * request reconnects and answers 503 until it is back. */
    {
        apr_pool_t *tmp;
        wh_conn_status cs;
        const char *why = NULL;
        apr_pool_create(&tmp, ib->root);
        cs = connect_db(ib, tmp, &why);
        if (cs == WH_CONN_FATAL)
            why = apr_psprintf(p, "the %s inbox cannot be used: %s", ib->driver_name,
                               why ? why : "setup failed");
        apr_pool_destroy(tmp);
        if (cs == WH_CONN_FATAL)
            return why;
        if (cs != WH_CONN_OK)
            wh_logf(&ib->log, WH_LOG_WARN, "inbox: %s database not available "
                    "yet; every request will try again", ib->driver_name);
    }
    *out = ib;
    return NULL;
}
