/* The inbox's connection: opening it, the per-engine session set-up
 * (PRAGMAs vs SET), renewing it after a failure, and running units of
 * work on it under the inbox's mutex (wh_inbox_db_txn / _read).
 *
 * One wh_inbox owns at most one connection and serializes every use of it
 * with a mutex: the module may share an inbox between threads, and a
 * webhook receiver's write rate is far below what one connection does. */
#include "wh_inbox_conn.h"
#include "wh_inbox_files.h"
#include "wh_inbox_sql.h"
#include "wh_sqlite_api.h"
#include "wh_sqlite_wal.h"
#include "verify/wh_account.h"
#include <apr_escape.h>
#include <errno.h>
#include <apr_strings.h>
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
                      ? apr_dbd_native_handle(ib->driver, ib->conn->handle)
                      : NULL;

    return db && api->busy_handler(db, busy_until_deadline, ib) == SQLITE_OK;
}

/* The deadline of the busy handler for the use starting now (mutex held). */
static void start_busy_clock(wh_inbox *ib)
{
    apr_interval_time_t wait = apr_time_from_msec(ib->lock_wait_ms)
                               - apr_time_from_msec(WH_SQLITE_DRIVER_TRIES
                                                    * WH_SQLITE_DRIVER_SLEEP_MS);
    ib->busy_deadline = apr_time_now() + (wait > 0 ? wait : 0);
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
        /* The busy handling first: changing the journal mode needs a lock
         * too. */
        start_busy_clock(ib);
        if (!install_busy_handler(ib)
            && (rv = wh_inbox_db_sql_value(ib, p, apr_psprintf(p, "PRAGMA busy_timeout = %d",
                                                                per_try), NULL)) != 0) {
            *why = apr_psprintf(p, "busy_timeout: %s", wh_inbox_db_error(ib, p, rv));
            return rv;
        }
        /* WAL: readers (listing) never wait for the writer. It is a
         * property of the file; a read-only file keeps its mode, which
         * still serves listings, so a refusal is only worth a warning. A
         * read-only connection leaves the file as it is. */
        if (ib->readonly)
            return 0;
        rv = wh_inbox_db_sql_value(ib, p, "PRAGMA journal_mode = WAL", &mode);
        if (rv != 0 || !mode || strcasecmp(mode, "wal") != 0)
            wh_logf(&ib->log, WH_LOG_WARN,
                    "inbox: sqlite3 database not in WAL mode (%s)",
                    rv ? wh_inbox_db_error(ib, p, rv) : mode ? mode : "?");
        /* FULL: in WAL mode NORMAL may lose the last commits on power
         * failure, and a commit here is a promise made to the sender.
         * Once the connection is set up it goes NORMAL with a sync of its
         * own after each commit (wh_inbox_walsync.c), where it can. */
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
            ib->readonly ? "SET default_transaction_read_only = on" : "SELECT 1",
        };
        for (apr_size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
            if ((rv = wh_inbox_db_sql(ib, set[i])) != 0) {
                *why = apr_psprintf(p, "session setup: %s", wh_inbox_db_error(ib, p, rv));
                return rv;
            }
    }
    return 0;
}

/* SQLite, before the driver opens the database. A writer creates the file
 * itself, with the inbox's mode and group, so that SQLite (which copies
 * that mode to -wal and -shm) never creates it with the umask's. A reader
 * (WH_INBOX_READ_ONLY) opens an existing file only, through a read-only
 * URI: nothing is created for it, and the database is never opened for
 * writing. */
/* An SQLite inbox's file is a path, never a secret: the message names
 * it, the configuration line that set it, the user the process runs as
 * and, for a permission, what that user needs (the module's children,
 * the CGI and the forwarder run as the web server's user, not as the
 * root who made the directory or ran a first command). */
static const char *file_problem(wh_inbox *ib, apr_pool_t *p, const char *what,
                                int err)
{
    char buf[120], who[64];
    const char *msg, *dir = wh_inbox_file_dir(p, ib->db_file);

    msg = apr_psprintf(p, "%sInboxParams %s: %s as user %s: %s",
                       ib->where ? ib->where : "", ib->db_file, what,
                       wh_user_name(who, sizeof(who), geteuid()),
                       apr_strerror(APR_FROM_OS_ERROR(err), buf, sizeof(buf)));
    if (err == EACCES || err == EPERM)
        msg = apr_psprintf(p, "%s (that user must be able to read and write the "
                           "database and create files beside it in %s: its "
                           "-wal, -shm, -lock and -auth files)", msg, dir);
    return msg;
}

/* After the file exists: what SQLite would otherwise report as "unable to
 * open database file" without a name. */
static int writable(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    const char *dir = wh_inbox_file_dir(p, ib->db_file);

    if (access(ib->db_file, R_OK | W_OK) != 0) {
        *why = file_problem(ib, p, "cannot write the file", errno);
        return 0;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        *why = file_problem(ib, p, "cannot create files in its directory", errno);
        return 0;
    }
    return 1;
}

static wh_conn_status prepare_file(wh_inbox *ib, apr_pool_t *p, const char **params,
                                   const char **why)
{
    struct stat st;
    int created = 0, rv;

    if (ib->engine != WH_INBOX_SQLITE3)
        return WH_CONN_OK;
    if (ib->readonly) {
        if (!ib->db_file) {
            *why = "a read-only open needs InboxParams to be a file path";
            return WH_CONN_DOWN;
        }
        if (stat(ib->db_file, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            *why = "no inbox database yet";
            return WH_CONN_DOWN;
        }
        *params = apr_pstrcat(p, "file:", apr_pescape_path(p, ib->db_file, 1),
                              "?mode=ro", NULL);
        return WH_CONN_OK;
    }
    if (!ib->db_file)
        return WH_CONN_OK;
    if ((rv = wh_inbox_file_create(ib->db_file, ib->file_mode, ib->gid, &created)) != 0) {
        *why = file_problem(ib, p, "cannot create the file", rv);
        wh_logf(&ib->log, WH_LOG_ERROR, "inbox: cannot open the sqlite3 database: %s",
                *why);
        return WH_CONN_DOWN;
    }
    if (created)
        wh_logf(&ib->log, WH_LOG_INFO, "inbox: created the sqlite3 database file "
                "(mode %04o)", (unsigned)ib->file_mode);
    else if (!writable(ib, p, why)) {
        wh_logf(&ib->log, WH_LOG_ERROR, "inbox: cannot open the sqlite3 database: %s",
                *why);
        return WH_CONN_DOWN;
    }
    return WH_CONN_OK;
}

/* The writers' queue next to an SQLite database (wh_inbox_lock.h), opened
 * once per inbox. Without it (a file system without shared mappings, a
 * lock file this user cannot open) writers still exclude each other
 * through SQLite's lock, only waiting for it by polling. */
static void open_writer_lock(wh_inbox *ib, apr_pool_t *p)
{
    const char *err;

    if (ib->wlock_tried || ib->readonly || ib->engine != WH_INBOX_SQLITE3)
        return;
    ib->wlock_tried = 1;
    if (!ib->db_file)
        return;
    err = wh_inbox_lock_open(ib->root, apr_pstrcat(p, ib->db_file, "-lock", NULL),
                             ib->file_mode, ib->gid, &ib->wlock);
    if (err) {
        wh_logf(&ib->log, WH_LOG_WARN, "inbox: no writer queue (the database's "
                "-lock file: %s); writers will poll the database lock", err);
        ib->wlock_tried = 0;    /* a full disk passes: the next connection tries again */
    }
}

int wh_inbox_db_writer_lock(wh_inbox *ib, apr_pool_t *p)
{
    int took_over = 0;
    apr_status_t rv;

    if (!ib->wlock)
        return 0;
    rv = wh_inbox_lock_acquire(ib->wlock, apr_time_from_msec(ib->lock_wait_ms), &took_over);
    if (took_over)
        wh_logf(&ib->log, WH_LOG_WARN, "inbox: a writer died holding the writer "
                "queue (the database's -lock file); taken over");
    if (rv == APR_SUCCESS)
        return 0;
    if (rv == APR_TIMEUP) {
        wh_logf(&ib->log, WH_LOG_ERROR, "inbox: the sqlite3 database is locked: "
                "other writers held it for %d ms", ib->lock_wait_ms);
        return -1;
    }
    /* A broken queue must not stop the inbox: SQLite's lock still holds. */
    {
        char buf[120];
        wh_logf(&ib->log, WH_LOG_WARN, "inbox: writer queue unusable (%s); "
                "polling the database lock instead", apr_strerror(rv, buf, sizeof(buf)));
    }
    (void)p;
    ib->wlock = NULL;
    return 0;
}

void wh_inbox_db_writer_unlock(wh_inbox *ib)
{
    if (ib->wlock)
        wh_inbox_lock_release(ib->wlock);
}

/* Statements are prepared on first use (wh_inbox_stmt.c), not here. */
wh_conn_status wh_inbox_db_connect(wh_inbox *ib, apr_pool_t *p, const char **why_out)
{
    const char *err = NULL, *why = NULL, *params = ib->params;
    apr_dbd_t *handle = NULL;
    apr_pool_t *old = ib->cpool;
    apr_status_t st;
    wh_conn_status cs;
    int gathered = 0;

    if (ib->conn && ib->conn->pid != getpid())
        ib->conn->handle = NULL;   /* inherited over fork: abandon, never close */
    /* The previous connection is closed only once the new one is set up:
     * an SQLite connection still open keeps the WAL index in shared
     * memory valid, so the new one need not rebuild it from the WAL (a
     * CGI request going from its read-only connection to a writing one). */
    ib->cpool = NULL;
    ib->conn = NULL;
    ib->prepared = NULL;
    ib->broken = 1;
    ib->deferred = 0;
    if (apr_pool_create(&ib->cpool, ib->root) != APR_SUCCESS) {
        ib->cpool = NULL;
        cs = WH_CONN_DOWN;
        goto out;
    }
    if ((cs = prepare_file(ib, p, &params, &why)) != WH_CONN_OK) {
        if (why_out)
            *why_out = why;
        disconnect(ib);
        goto out;
    }
    st = ib->engine == WH_INBOX_SQLITE3
         ? wh_sqlite_wal_open(ib->driver, ib->cpool, params, &handle, &err, &gathered)
         : apr_dbd_open_ex(ib->driver, ib->cpool, params, &handle, &err);
    if (st != APR_SUCCESS || !handle) {
        /* A reader finding nothing usable is a cache miss, not an error. */
        wh_logf(&ib->log, ib->readonly ? WH_LOG_DEBUG : WH_LOG_ERROR,
                "inbox: cannot open the %s database: %s",
                ib->driver_name, err ? wh_inbox_one_line(p, err) : "connection failed");
        disconnect(ib);
        cs = WH_CONN_DOWN;
        goto out;
    }
    if (ib->engine == WH_INBOX_SQLITE3)
        wh_logf(&ib->log, WH_LOG_DEBUG, "inbox: sqlite3 connection opened%s",
                gathered ? "; WAL writes gathered per commit"
                         : "; WAL writes as SQLite makes them (InboxParams names a"
                           " VFS, or the library lacks sqlite3_database_file_object)");
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
    open_writer_lock(ib, p);
    if ((cs = ib->ensure_schema(ib, p, ib->readonly, &why)) != WH_CONN_OK)
        goto fail;
    if (ib->db_file && !ib->readonly)
        wh_inbox_file_regroup(p, ib->db_file, ib->gid);
    wh_inbox_walsync_attach(ib, p);
    ib->broken = 0;
    goto out;

fail:
    if (!why)
        why = "setup failed";
    wh_logf(&ib->log, ib->readonly ? WH_LOG_DEBUG : WH_LOG_ERROR,
            "inbox: %s database unusable: %s", ib->driver_name, why);
    if (why_out)
        *why_out = why;
    disconnect(ib);
out:
    if (old)
        apr_pool_destroy(old);   /* runs conn_cleanup */
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
    /* After a failed attempt, requests answer 503 at once until the retry
     * interval has passed: a database that is down (or newer than this
     * wirehook, or unwritable) costs one attempt per interval, not one per
     * request (PostgreSQL's connect_timeout, with every thread queued
     * behind the mutex). */
    if (ib->retry_at && apr_time_now() < ib->retry_at)
        return -1;
    if (wh_inbox_db_connect(ib, p, NULL) == WH_CONN_OK) {
        ib->retry_at = 0;
        return 0;
    }
    ib->retry_at = apr_time_now() + ib->retry_interval;
    return -1;
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

/* SQLite: statements are prepared with the legacy interface (apr_dbd),
 * which does not recompile a statement whose tables another connection
 * changed (a tool adding its table): the statement fails once with
 * "database schema has changed". Such a failure is retried once on a
 * fresh connection instead of costing a request its 200. */
static int schema_changed(wh_inbox *ib, apr_pool_t *p, int rv)
{
    const char *m;

    if (ib->engine != WH_INBOX_SQLITE3 || rv == 0 || rv == WH_TXN_ROLLBACK)
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
    if (ib->readonly || wh_inbox_db_sync_failed(ib) || ensure_conn(ib, p) != 0)
        return WH_DB_UNAVAILABLE;
    start_busy_clock(ib);
    if (wh_inbox_db_writer_lock(ib, p) != 0)
        return WH_DB_UNAVAILABLE;   /* logged; the connection is fine */
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
    /* A quiet rollback too: what fn read (the stored copy of a duplicate)
     * may be another writer's commit still waiting for its sync. */
    if ((out == WH_DB_OK || out == WH_DB_ROLLED_BACK) && ib->deferred && !ib->relaxed)
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
        wh_logf(&ib->log, WH_LOG_DEBUG, "inbox: the schema changed under %s; "
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

int wh_inbox_db_readonly(const wh_inbox *ib)
{
    return ib->readonly;
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
    ib->retry_interval = t;
    ib->retry_at = 0;
    apr_thread_mutex_unlock(ib->mutex);
}

void wh_inbox_set_lock_wait_ms(wh_inbox *ib, int ms)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->lock_wait_ms = ms < 0 ? 0 : ms;
    ib->broken = 1;               /* the next use reconnects with it */
    apr_thread_mutex_unlock(ib->mutex);
}
