/* The durable inbox over apr_dbd: SQLite by default, PostgreSQL with the
 * same schema and statements (wh_inbox_sql.h). Only the session set-up
 * differs per engine (PRAGMAs vs SET) and the word that opens a write
 * transaction (SQLite needs BEGIN IMMEDIATE to take the write lock up
 * front; PostgreSQL gets the same effect from the counter UPDATE).
 *
 * One wh_inbox owns at most one connection and serializes every use of it
 * with a mutex: the module may share an inbox between threads, and a
 * webhook receiver's write rate is far below what one connection does. */
#include "wh_inbox.h"
#include "wh_inbox_sql.h"
#include <apr_dbd.h>
#include <apr_file_info.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <json-c/json.h>
#include <string.h>
#include <unistd.h>

/* Schema creation can race another process doing the same (PostgreSQL
 * reports a duplicate catalog row to the loser); the loser re-reads the
 * version and finds the winner's tables. */
#define WH_SCHEMA_ATTEMPTS 5

/* apr_dbd's SQLite driver retries a busy statement itself, 16 times with
 * a 100 ms sleep in between; SQLite's busy_timeout applies to each try.
 * Whole wait = 16 * (busy_timeout + 100 ms). */
#define WH_SQLITE_DRIVER_TRIES 16
#define WH_SQLITE_DRIVER_SLEEP_MS 100

/* Longest driver message kept for the log. */
#define WH_DB_MSG_MAX 300

static const char *const stmt_sql[WH_STMT_COUNT_] = { WH_SQL_STATEMENTS };
static const char *const schema_v1[] = { WH_SQL_SCHEMA_V1 };
static const char *const upgrade_v2[] = { WH_SQL_UPGRADE_V2 };

typedef struct {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    pid_t pid;
} wh_conn_owner;

struct wh_inbox {
    apr_thread_mutex_t *mutex;
    apr_pool_t *root;            /* private allocator; parent of cpool */
    wh_logger log;
    const apr_dbd_driver_t *driver;
    const char *driver_name;
    const char *params;          /* may hold a password: never logged */
    int is_sqlite;
    int lock_wait_ms;

    /* The current connection, all of it in cpool. */
    apr_pool_t *cpool;
    wh_conn_owner *conn;
    apr_dbd_prepared_t *stmt[WH_STMT_COUNT_];
    int broken;                  /* last use failed: reconnect first */
};

typedef enum { WH_CONN_OK = 0, WH_CONN_DOWN, WH_CONN_FATAL } wh_conn_status;

/* ------------------------------------------------------------ helpers --- */

/* A driver message on one bounded line (PostgreSQL's span lines). */
static const char *one_line(apr_pool_t *p, const char *m)
{
    apr_size_t i, n = strlen(m);
    char *s;

    if (n > WH_DB_MSG_MAX)
        n = WH_DB_MSG_MAX;
    s = apr_pstrmemdup(p, m, n);
    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20)
            s[i] = ' ';
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
    return s;
}

static const char *db_error(wh_inbox *ib, apr_pool_t *p, int rv)
{
    const char *m = NULL;

    if (ib->conn && ib->conn->handle)
        m = apr_dbd_error(ib->driver, ib->conn->handle, rv);
    if (!m || !*m)
        return apr_psprintf(p, "error %d", rv);
    return one_line(p, m);
}

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
    memset(ib->stmt, 0, sizeof(ib->stmt));
}

static int exec_sql(wh_inbox *ib, const char *sql)
{
    int nrows = 0;
    return apr_dbd_query(ib->driver, ib->conn->handle, &nrows, sql);
}

/* Runs a statement that may return rows (PRAGMAs answer with one) and
 * gives the first column of the first row, or NULL. */
static int select_first(wh_inbox *ib, apr_pool_t *p, const char *sql,
                        const char **first)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv = apr_dbd_select(ib->driver, p, ib->conn->handle, &res, sql, 1);

    if (first)
        *first = NULL;
    if (rv != 0)
        return rv;
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0)
        if (first && !*first) {
            const char *v = apr_dbd_get_entry(ib->driver, row, 0);
            *first = v ? apr_pstrdup(p, v) : "";
        }
    return 0;
}

static const char *begin_sql(const wh_inbox *ib)
{
    /* SQLite: take the write lock now, waiting at most the busy timeout,
     * rather than failing at the first write with a lock upgrade that can
     * deadlock against another writer. */
    return ib->is_sqlite ? "BEGIN IMMEDIATE" : "BEGIN";
}

static void rollback(wh_inbox *ib)
{
    /* Failure is fine here: SQLite may have rolled back already (full
     * disk), and a dead PostgreSQL connection has no transaction left. */
    (void)exec_sql(ib, "ROLLBACK");
}

/* ------------------------------------------------------- connection --- */

static int session_setup(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    int rv;
    const char *mode = NULL;

    if (ib->is_sqlite) {
        int per_try = ib->lock_wait_ms / WH_SQLITE_DRIVER_TRIES
                      - WH_SQLITE_DRIVER_SLEEP_MS;
        if (per_try < 0)
            per_try = 0;
        /* busy_timeout first: changing the journal mode needs a lock too. */
        if ((rv = select_first(ib, p, apr_psprintf(p, "PRAGMA busy_timeout = %d",
                                                   per_try), NULL)) != 0) {
            *why = apr_psprintf(p, "busy_timeout: %s", db_error(ib, p, rv));
            return rv;
        }
        /* WAL: readers (listing) never wait for the writer. It is a
         * property of the file; a read-only file keeps its mode, which
         * still serves listings, so a refusal is only worth a warning. */
        rv = select_first(ib, p, "PRAGMA journal_mode = WAL", &mode);
        if (rv != 0 || !mode || strcasecmp(mode, "wal") != 0)
            wh_logf(&ib->log, WH_LOG_WARN,
                    "inbox: sqlite3 database not in WAL mode (%s)",
                    rv ? db_error(ib, p, rv) : mode ? mode : "?");
        /* FULL: in WAL mode NORMAL may lose the last commits on power
         * failure, and a commit here is a promise made to the sender. */
        if ((rv = select_first(ib, p, "PRAGMA synchronous = FULL", NULL)) != 0) {
            *why = apr_psprintf(p, "synchronous: %s", db_error(ib, p, rv));
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
            if ((rv = exec_sql(ib, set[i])) != 0) {
                *why = apr_psprintf(p, "session setup: %s", db_error(ib, p, rv));
                return rv;
            }
    }
    return 0;
}

static int read_version(wh_inbox *ib, apr_pool_t *p, apr_int64_t *version)
{
    const char *v = NULL;
    int rv = select_first(ib, p, WH_SQL_SCHEMA_VERSION, &v);
    if (rv != 0)
        return rv;
    *version = v ? apr_atoi64(v) : 0;
    return 0;
}

static wh_conn_status ensure_schema(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    int rv = 0;

    for (int attempt = 0; attempt < WH_SCHEMA_ATTEMPTS; attempt++) {
        apr_int64_t version = 0;
        apr_size_t i;

        if (read_version(ib, p, &version) == 0) {
            if (version == WH_INBOX_SCHEMA_VERSION)
                return WH_CONN_OK;
            if (version > WH_INBOX_SCHEMA_VERSION) {
                *why = apr_psprintf(p, "the database has schema version %"
                                    APR_INT64_T_FMT ", newer than this "
                                    "wirehook (%d)", version,
                                    WH_INBOX_SCHEMA_VERSION);
                return WH_CONN_FATAL;
            }
        }
        if (attempt == WH_SCHEMA_ATTEMPTS - 1)
            break;
        /* Missing (or, one day, older): create/upgrade in one transaction
         * so a half-made schema is never seen, then loop to re-read the
         * version. */
        if (attempt > 0)
            apr_sleep(apr_time_from_msec(50 * attempt));
        if ((rv = exec_sql(ib, begin_sql(ib))) != 0)
            continue;
        /* A database without version 1 gets it first; every upgrade
         * after it is idempotent (IF NOT EXISTS, a version-guarded
         * UPDATE), so a racing process that upgraded first is harmless. */
        if (version < 1)
            for (i = 0; i < sizeof(schema_v1) / sizeof(schema_v1[0]); i++)
                if ((rv = exec_sql(ib, schema_v1[i])) != 0)
                    break;
        for (i = 0; rv == 0 && i < sizeof(upgrade_v2) / sizeof(upgrade_v2[0]); i++)
            rv = exec_sql(ib, upgrade_v2[i]);
        if (rv == 0 && (rv = exec_sql(ib, "COMMIT")) == 0)
            continue;
        *why = apr_psprintf(p, "creating the schema: %s", db_error(ib, p, rv));
        rollback(ib);
    }
    if (!*why)
        *why = apr_psprintf(p, "creating the schema: %s", db_error(ib, p, rv));
    return WH_CONN_DOWN;
}

/* Opens a fresh connection, sets it up and makes sure of the schema
 * (statements are prepared on first use, see prepared()). The previous
 * connection, if any, is closed.
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
                ib->driver_name, err ? one_line(p, err) : "connection failed");
        disconnect(ib);
        return WH_CONN_DOWN;
    }
    ib->conn = apr_pcalloc(ib->cpool, sizeof(*ib->conn));
    ib->conn->driver = ib->driver;
    ib->conn->handle = handle;
    ib->conn->pid = getpid();
    apr_pool_cleanup_register(ib->cpool, ib->conn, conn_cleanup,
                              apr_pool_cleanup_null);

    if (session_setup(ib, p, &why) != 0) {
        cs = WH_CONN_DOWN;
        goto fail;
    }
    if ((cs = ensure_schema(ib, p, &why)) != WH_CONN_OK)
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
        if (ib->is_sqlite || select_first(ib, p, WH_SQL_PING, NULL) == 0)
            return 0;
        wh_logf(&ib->log, WH_LOG_WARN, "inbox: %s connection lost, reconnecting",
                ib->driver_name);
    }
    return connect_db(ib, p, NULL) == WH_CONN_OK ? 0 : -1;
}

/* Statement `which` of the current connection, prepared on its first use
 * there: one CGI process (one connection) runs three or four of the
 * statements, and each prepare is a parse. In the connection's pool, so a
 * reconnect starts afresh. 0 or the driver's error. */
static int prepared(wh_inbox *ib, int which, apr_dbd_prepared_t **out)
{
    int rv = 0;

    if (!ib->stmt[which])
        /* No label: PostgreSQL then sends each statement with its values
         * (unnamed statement), so nothing server-side survives a reconnect
         * that could go stale. */
        rv = apr_dbd_prepare(ib->driver, ib->cpool, ib->conn->handle,
                             stmt_sql[which], NULL, &ib->stmt[which]);
    *out = rv == 0 ? ib->stmt[which] : NULL;
    return rv;
}

/* apr_dbd_pbquery / apr_dbd_pbselect (random access) on statement
 * `which`, preparing it first if needed. */
static int run_stmt(wh_inbox *ib, apr_pool_t *p, int which, int *nrows,
                    const void **args)
{
    apr_dbd_prepared_t *st;
    int rv = prepared(ib, which, &st);
    return rv ? rv : apr_dbd_pbquery(ib->driver, p, ib->conn->handle, nrows, st, args);
}

static int select_stmt(wh_inbox *ib, apr_pool_t *p, int which,
                       apr_dbd_results_t **res, const void **args)
{
    apr_dbd_prepared_t *st;
    int rv = prepared(ib, which, &st);
    return rv ? rv : apr_dbd_pbselect(ib->driver, p, ib->conn->handle, res, st, 1, args);
}

/* ------------------------------------------------------------- public --- */

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
    ib->is_sqlite = cfg->inbox_driver == WH_INBOX_SQLITE3;
    ib->driver_name = cfg->inbox_driver_name ? cfg->inbox_driver_name
                      : ib->is_sqlite ? "sqlite3" : "pgsql";
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

/* The size of the open SQLite database's WAL file, or -1. */
static apr_off_t wal_size(wh_inbox *ib, apr_pool_t *p)
{
    const char *file = NULL;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    apr_finfo_t fi;

    /* The main database's real path: InboxParams may be a file: URI. */
    if (apr_dbd_select(ib->driver, p, ib->conn->handle, &res,
                       "PRAGMA database_list", 1) != 0)
        return -1;
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0)
        if (!file) {
            const char *name = apr_dbd_get_entry(ib->driver, row, 1);
            const char *path = apr_dbd_get_entry(ib->driver, row, 2);
            if (name && path && strcmp(name, "main") == 0)
                file = apr_pstrdup(p, path);
        }
    if (!file || !*file ||
        apr_stat(&fi, apr_pstrcat(p, file, "-wal", NULL), APR_FINFO_SIZE, p)
            != APR_SUCCESS)
        return -1;
    return fi.size;
}

void wh_inbox_release_for_exit(wh_inbox *ib)
{
    if (!ib)
        return;
    apr_thread_mutex_lock(ib->mutex);
    if (ib->is_sqlite && ib->conn && ib->conn->handle &&
        ib->conn->pid == getpid()) {
        /* The last connection to leave takes with it SQLite's shared
         * memory, which says how much of the WAL is already in the
         * database: the next process then re-reads the whole WAL
         * (recovery), and its automatic checkpoint copies all of it again,
         * so the WAL would only grow. Past WH_INBOX_EXIT_WAL_MAX the
         * connection is closed normally: if it is the last one, SQLite
         * checkpoints and removes the WAL; if others are open, closing
         * costs nothing and their shared memory lives on. */
        apr_pool_t *tmp;
        int close_it = 0;
        if (!ib->broken && apr_pool_create(&tmp, ib->root) == APR_SUCCESS) {
            close_it = wal_size(ib, tmp) > WH_INBOX_EXIT_WAL_MAX;
            apr_pool_destroy(tmp);
        }
        if (close_it)
            disconnect(ib);
        else
            /* conn_cleanup then has nothing to close: the process exit
             * releases the file locks and descriptors. See wh_inbox.h for
             * why this is still durable. */
            ib->conn->handle = NULL;
    }
    apr_thread_mutex_unlock(ib->mutex);
}

void wh_inbox_set_lock_wait_ms(wh_inbox *ib, int ms)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->lock_wait_ms = ms < 0 ? 0 : ms;
    ib->broken = 1;               /* the next use reconnects with it */
    apr_thread_mutex_unlock(ib->mutex);
}

/* Allocates the next number of counter `which` inside the open
 * transaction. The UPDATE takes the lock that orders writers. */
static int next_number(wh_inbox *ib, apr_pool_t *p, int which,
                       apr_int64_t *out)
{
    const void *args[1] = { &which };
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *v = NULL;
    int nrows = 0, rv;

    rv = run_stmt(ib, p, WH_STMT_BUMP, &nrows, args);
    if (rv != 0)
        return rv;
    if (nrows != 1)
        return -1;   /* counter row missing: schema damaged */
    rv = select_stmt(ib, p, WH_STMT_COUNTER, &res, args);
    if (rv != 0)
        return rv;
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0)
        if (!v)
            v = apr_pstrdup(p, apr_dbd_get_entry(ib->driver, row, 0));
    if (!v || !*v)
        return -1;
    *out = apr_atoi64(v);
    return *out > 0 ? 0 : -1;
}

static wh_inbox_result fail_op(wh_inbox *ib, apr_pool_t *p, const char *what,
                               int rv, int in_txn)
{
    /* Read the message before ROLLBACK replaces it. */
    const char *msg = rv == -1 ? "unexpected row count" : db_error(ib, p, rv);
    if (in_txn)
        rollback(ib);
    ib->broken = 1;
    wh_logf(&ib->log, WH_LOG_ERROR, "inbox: %s failed on the %s database: %s",
            what, ib->driver_name, msg);
    return WH_INBOX_UNAVAILABLE;
}

wh_inbox_result wh_inbox_store(wh_inbox *ib, apr_pool_t *p,
                               const wh_facts *facts, const char *body,
                               apr_size_t body_len, apr_time_t now,
                               apr_int64_t *seq_out)
{
    apr_int64_t seq = 0, received = (apr_int64_t)now;
    const char *text;
    const void *args[8];
    int nrows = 0, rv;
    wh_inbox_result r;

    if (seq_out)
        *seq_out = 0;
    if (!ib || !facts || !facts->notification_id || !body)
        return WH_INBOX_UNAVAILABLE;
    /* Text columns end at a NUL; the verifier rejects such bodies as not
     * JSON, so one reaching here is a caller bug, and storing it cut short
     * would not be "exactly as received". */
    if (memchr(body, '\0', body_len)) {
        wh_logf(&ib->log, WH_LOG_ERROR, "inbox: refusing to store a body with a NUL byte");
        return WH_INBOX_UNAVAILABLE;
    }
    text = apr_pstrmemdup(p, body, body_len);

    apr_thread_mutex_lock(ib->mutex);
    if (ensure_conn(ib, p) != 0) {
        apr_thread_mutex_unlock(ib->mutex);
        return WH_INBOX_UNAVAILABLE;
    }
    if ((rv = exec_sql(ib, begin_sql(ib))) != 0) {
        r = fail_op(ib, p, "BEGIN (store)", rv, 0);
        goto out;
    }
    if ((rv = next_number(ib, p, WH_COUNTER_EVENTS, &seq)) != 0) {
        r = fail_op(ib, p, "allocating the arrival sequence", rv, 1);
        goto out;
    }
    args[0] = &seq;
    args[1] = facts->notification_id;
    args[2] = facts->event_type;
    args[3] = facts->event_time;
    args[4] = facts->payment_id;
    args[5] = facts->status;
    args[6] = &received;
    args[7] = text;
    rv = run_stmt(ib, p, WH_STMT_INSERT, &nrows, args);
    if (rv != 0) {
        r = fail_op(ib, p, "INSERT", rv, 1);
        goto out;
    }
    if (nrows == 0) {
        /* ON CONFLICT DO NOTHING: the notificationId is already stored.
         * Rolling back returns the sequence number, so no gap. */
        rollback(ib);
        r = WH_INBOX_DUPLICATE;
        goto out;
    }
    if ((rv = exec_sql(ib, "COMMIT")) != 0) {
        r = fail_op(ib, p, "COMMIT", rv, 1);
        goto out;
    }
    if (seq_out)
        *seq_out = seq;
    r = WH_INBOX_STORED;
out:
    apr_thread_mutex_unlock(ib->mutex);
    return r;
}

static const char *details_json(apr_pool_t *p, const wh_verdict *v)
{
    json_object *arr = json_object_new_array();
    const char *s;

    if (!arr)
        return "[]";
    if (v->details)
        for (int i = 0; i < v->details->nelts; i++) {
            const wh_problem *pr = &APR_ARRAY_IDX(v->details, i, wh_problem);
            json_object *o = json_object_new_object();
            if (!o)
                break;
            json_object_object_add(o, "field", json_object_new_string(pr->field ? pr->field : ""));
            json_object_object_add(o, "problem", json_object_new_string(pr->problem ? pr->problem : ""));
            json_object_array_add(arr, o);
        }
    s = apr_pstrdup(p, json_object_to_json_string_ext(
                           arr, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(arr);
    return s;
}

wh_inbox_result wh_inbox_quarantine(wh_inbox *ib, apr_pool_t *p,
                                    const wh_verdict *v, const char *body,
                                    apr_size_t body_len, apr_time_t now)
{
    apr_int64_t id = 0, received = (apr_int64_t)now;
    apr_size_t len = body_len;
    const void *args[10];
    int nrows = 0, rv;
    wh_inbox_result r;

    if (!ib || !v)
        return WH_INBOX_UNAVAILABLE;
    args[1] = &received;
    args[2] = v->code ? v->code : "";
    args[3] = v->message;
    args[4] = details_json(p, v);
    args[5] = v->facts.notification_id;
    /* Kept as a blob: a body that failed JSON checks may hold any bytes,
     * NULs and invalid UTF-8 included, which a TEXT column would refuse. */
    args[6] = body ? body : "";
    args[7] = &len;
    args[8] = "wh_quarantine";
    args[9] = "body";

    apr_thread_mutex_lock(ib->mutex);
    if (ensure_conn(ib, p) != 0) {
        apr_thread_mutex_unlock(ib->mutex);
        return WH_INBOX_UNAVAILABLE;
    }
    if ((rv = exec_sql(ib, begin_sql(ib))) != 0) {
        r = fail_op(ib, p, "BEGIN (quarantine)", rv, 0);
        goto out;
    }
    if ((rv = next_number(ib, p, WH_COUNTER_QUARANTINE, &id)) != 0) {
        r = fail_op(ib, p, "allocating a quarantine id", rv, 1);
        goto out;
    }
    args[0] = &id;
    rv = run_stmt(ib, p, WH_STMT_QUARANTINE, &nrows, args);
    if (rv != 0 || nrows != 1) {
        r = fail_op(ib, p, "quarantine INSERT", rv ? rv : -1, 1);
        goto out;
    }
    if ((rv = exec_sql(ib, "COMMIT")) != 0) {
        r = fail_op(ib, p, "COMMIT (quarantine)", rv, 1);
        goto out;
    }
    r = WH_INBOX_STORED;
out:
    apr_thread_mutex_unlock(ib->mutex);
    return r;
}

typedef struct {
    const char *body;
    apr_size_t len;
} wh_row;

wh_inbox_result wh_inbox_list(wh_inbox *ib, apr_pool_t *p,
                              const wh_page_query *q, const char **json_out)
{
    /* One row more than asked tells whether more records remain. */
    int fetch, stmt, rv, n = 0;
    apr_int64_t offset;
    const void *args[4];
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    apr_array_header_t *rows;
    const char *tail;
    char *json, *w;
    apr_size_t total;
    int more;

    *json_out = NULL;
    if (!ib || !q || q->limit < 1 || q->offset < 0)
        return WH_INBOX_UNAVAILABLE;
    fetch = q->limit + 1;
    offset = q->offset;
    if (q->payment_id && q->status) {
        stmt = WH_STMT_LIST_BOTH;
        args[0] = q->payment_id;
        args[1] = q->status;
        args[2] = &fetch;
        args[3] = &offset;
    } else if (q->payment_id || q->status) {
        stmt = q->payment_id ? WH_STMT_LIST_PAYMENT : WH_STMT_LIST_STATUS;
        args[0] = q->payment_id ? q->payment_id : q->status;
        args[1] = &fetch;
        args[2] = &offset;
    } else {
        stmt = WH_STMT_LIST;
        args[0] = &offset;
        args[1] = &fetch;
    }

    rows = apr_array_make(p, fetch, sizeof(wh_row));
    apr_thread_mutex_lock(ib->mutex);
    if (ensure_conn(ib, p) != 0) {
        apr_thread_mutex_unlock(ib->mutex);
        return WH_INBOX_UNAVAILABLE;
    }
    rv = select_stmt(ib, p, stmt, &res, args);
    if (rv != 0) {
        wh_inbox_result r = fail_op(ib, p, "listing", rv, 0);
        apr_thread_mutex_unlock(ib->mutex);
        return r;
    }
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0) {
        const char *b = apr_dbd_get_entry(ib->driver, row, 1);
        wh_row *r;
        if (n++ >= q->limit || !b)
            continue;   /* read to the end: the driver frees as it goes */
        r = apr_array_push(rows);
        r->len = strlen(b);
        r->body = apr_pstrmemdup(p, b, r->len);
    }
    apr_thread_mutex_unlock(ib->mutex);

    more = n > q->limit;
    tail = apr_psprintf(p, "],\"pagination\":{\"offset\":\"%" APR_INT64_T_FMT
                        "\",\"moreRecords\":%s}}",
                        q->offset + rows->nelts, more ? "true" : "false");
    /* Bodies are spliced in exactly as received, never re-serialized. */
    total = strlen("{\"events\":[") + strlen(tail) + 1;
    for (int i = 0; i < rows->nelts; i++)
        total += APR_ARRAY_IDX(rows, i, wh_row).len + 1;
    json = w = apr_palloc(p, total);
    memcpy(w, "{\"events\":[", 11);
    w += 11;
    for (int i = 0; i < rows->nelts; i++) {
        const wh_row *r = &APR_ARRAY_IDX(rows, i, wh_row);
        if (i > 0)
            *w++ = ',';
        memcpy(w, r->body, r->len);
        w += r->len;
    }
    strcpy(w, tail);
    *json_out = json;
    return WH_INBOX_STORED;       /* the enum's "ok" */
}

/* ------------------------------------------------------ auth cache --- */

int wh_inbox_auth_lookup(wh_inbox *ib, apr_pool_t *p, const char *key,
                         apr_time_t now, const char **user, apr_time_t *expires)
{
    apr_int64_t until = 0;
    const void *args[1];
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *name = NULL;
    int rv;

    if (!ib || !key || !user || !expires)
        return 0;
    *user = NULL;
    *expires = 0;
    args[0] = key;
    apr_thread_mutex_lock(ib->mutex);
    if (ensure_conn(ib, p) != 0) {
        apr_thread_mutex_unlock(ib->mutex);
        return 0;
    }
    rv = select_stmt(ib, p, WH_STMT_AUTH_GET, &res, args);
    if (rv != 0) {
        (void)fail_op(ib, p, "auth cache lookup", rv, 0);
        apr_thread_mutex_unlock(ib->mutex);
        return 0;
    }
    while (apr_dbd_get_row(ib->driver, p, res, &row, -1) == 0)
        if (!name) {
            const char *u = apr_dbd_get_entry(ib->driver, row, 0);
            const char *e = apr_dbd_get_entry(ib->driver, row, 1);
            name = u ? apr_pstrdup(p, u) : NULL;
            until = e ? apr_atoi64(e) : 0;
        }
    apr_thread_mutex_unlock(ib->mutex);
    if (!name || until <= (apr_int64_t)now)
        return 0;
    *user = name;
    *expires = (apr_time_t)until;
    return 1;
}

int wh_inbox_auth_store(wh_inbox *ib, apr_pool_t *p, const char *key,
                        const char *user, apr_time_t now, apr_time_t expires)
{
    apr_int64_t at = (apr_int64_t)now, until = (apr_int64_t)expires;
    const void *args[3];
    int nrows = 0, rv;

    if (!ib || !key || !user)
        return -1;
    apr_thread_mutex_lock(ib->mutex);
    if (ensure_conn(ib, p) != 0) {
        apr_thread_mutex_unlock(ib->mutex);
        return -1;
    }
    /* One transaction, one durable commit: expired entries go as the new
     * one comes (stores are rare: once per credential per TTL). */
    if ((rv = exec_sql(ib, begin_sql(ib))) != 0) {
        (void)fail_op(ib, p, "BEGIN (auth cache)", rv, 0);
        goto fail;
    }
    args[0] = &at;
    if ((rv = run_stmt(ib, p, WH_STMT_AUTH_PURGE, &nrows, args)) != 0) {
        (void)fail_op(ib, p, "auth cache purge", rv, 1);
        goto fail;
    }
    args[0] = key;
    args[1] = user;
    args[2] = &until;
    if ((rv = run_stmt(ib, p, WH_STMT_AUTH_PUT, &nrows, args)) != 0) {
        (void)fail_op(ib, p, "auth cache store", rv, 1);
        goto fail;
    }
    if ((rv = exec_sql(ib, "COMMIT")) != 0) {
        (void)fail_op(ib, p, "COMMIT (auth cache)", rv, 1);
        goto fail;
    }
    apr_thread_mutex_unlock(ib->mutex);
    return 0;
fail:
    apr_thread_mutex_unlock(ib->mutex);
    return -1;
}
