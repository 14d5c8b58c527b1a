/* A MariaDB or MySQL connection for the inbox (wh_inbox_mysql.h).
 *
 * What the other engines give by a setting, MySQL gives otherwise:
 *   - durability: InnoDB syncs its log at each commit only with the
 *     server-wide innodb_flush_log_at_trx_commit = 1 (the default), which a
 *     session cannot set: it is checked, and another value is warned of;
 *   - an exact key: identifiers are VARBINARY in the schema (byte for byte,
 *     no case folding, no trailing-space padding), bodies and messages
 *     utf8mb4 text, and the session speaks utf8mb4, so that characters
 *     outside the BMP round trip;
 *   - strict SQL mode, so that a value too long for its column is an
 *     error (a 503) rather than a row cut short;
 *   - READ COMMITTED, as on PostgreSQL: InnoDB's REPEATABLE READ would
 *     take gap locks where concurrent stores insert;
 *   - bounded waits: innodb_lock_wait_timeout and lock_wait_timeout (whole
 *     seconds), and the statement's own limit, named differently by
 *     MariaDB (max_statement_time, seconds) and MySQL (max_execution_time,
 *     milliseconds, SELECT only). */
#include "wh_inbox_mysql.h"
#include "wh_inbox_sql.h"

#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* MySQL's server error codes for a missing right (mysqld_error.h):
 * ER_DBACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR,
 * ER_COLUMNACCESS_DENIED_ERROR. */
#define WH_ER_DBACCESS_DENIED 1044
#define WH_ER_TABLEACCESS_DENIED 1142
#define WH_ER_COLUMNACCESS_DENIED 1143

#define WH_MYSQL_SQL_MODE                                                     \
    "STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,"              \
    "NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION"

const char *wh_mysql_driver_params(apr_pool_t *p, const char *params)
{
    return apr_psprintf(p, "%s reconnect=0 fldsz=%lu", params ? params : "",
                        (unsigned long)WH_MYSQL_FIELD_MAX);
}

/* ---- an open bounded in time ------------------------------------------ */

typedef struct {
    apr_pool_t *pool;            /* unmanaged: the handle's; freed by whoever
                                    is last (the thread when abandoned) */
    apr_thread_mutex_t *mutex;
    apr_thread_cond_t *cond;
    const apr_dbd_driver_t *driver;
    const char *params;
    apr_dbd_t *handle;
    const char *err;
    apr_status_t rv;
    int done;                    /* the open has returned */
    int abandoned;               /* the caller stopped waiting */
} opening;

static void *APR_THREAD_FUNC open_thread(apr_thread_t *t, void *data)
{
    opening *o = data;
    apr_dbd_t *h = NULL;
    const char *err = NULL;
    apr_status_t rv = apr_dbd_open_ex(o->driver, o->pool, o->params, &h, &err);
    int abandoned;

    (void)t;
    apr_thread_mutex_lock(o->mutex);
    o->handle = h;
    o->err = err;
    o->rv = rv;
    o->done = 1;
    abandoned = o->abandoned;
    apr_thread_cond_signal(o->cond);
    apr_thread_mutex_unlock(o->mutex);
    /* Not abandoned: o and its pool are the caller's from here on. */
    if (abandoned) {
        if (rv == APR_SUCCESS && h)
            apr_dbd_close(o->driver, h);
        apr_pool_destroy(o->pool);   /* o, the mutex and this thread's record */
    }
    return NULL;
}

apr_status_t wh_mysql_open(const apr_dbd_driver_t *driver, const char *params,
                           int timeout_s, apr_pool_t *p, apr_dbd_t **handle,
                           apr_pool_t **handle_pool, const char **err)
{
    apr_pool_t *pool = NULL;
    apr_threadattr_t *attr = NULL;
    apr_thread_t *thread = NULL;
    apr_time_t deadline;
    opening *o;
    apr_status_t rv;
    int done;

    *handle = NULL;
    *handle_pool = NULL;
    *err = NULL;
    if ((rv = apr_pool_create_unmanaged_ex(&pool, NULL, NULL)) != APR_SUCCESS) {
        *err = "out of memory";
        return rv;
    }
    o = apr_pcalloc(pool, sizeof(*o));
    o->pool = pool;
    o->driver = driver;
    o->params = apr_pstrdup(pool, params);
    if ((rv = apr_thread_mutex_create(&o->mutex, APR_THREAD_MUTEX_DEFAULT, pool)) != APR_SUCCESS
        || (rv = apr_thread_cond_create(&o->cond, pool)) != APR_SUCCESS
        || (rv = apr_threadattr_create(&attr, pool)) != APR_SUCCESS
        || (rv = apr_threadattr_detach_set(attr, 1)) != APR_SUCCESS
        || (rv = apr_thread_create(&thread, attr, open_thread, o, pool)) != APR_SUCCESS) {
        apr_pool_destroy(pool);
        *err = "cannot start the connecting thread";
        return rv;
    }
    deadline = apr_time_now() + apr_time_from_sec(timeout_s > 0 ? timeout_s : 1);
    apr_thread_mutex_lock(o->mutex);
    while (!o->done) {
        apr_interval_time_t left = deadline - apr_time_now();
        if (left <= 0)
            break;
        apr_thread_cond_timedwait(o->cond, o->mutex, left);
    }
    done = o->done;
    if (!done)
        o->abandoned = 1;
    apr_thread_mutex_unlock(o->mutex);
    if (!done) {
        *err = apr_psprintf(p, "no connection within %d s (connecttimeout)", timeout_s);
        return APR_TIMEUP;
    }
    if (o->rv != APR_SUCCESS || !o->handle) {
        *err = o->err ? apr_pstrdup(p, o->err) : "connection failed";
        rv = o->rv != APR_SUCCESS ? o->rv : APR_EGENERAL;
        apr_pool_destroy(pool);
        return rv;
    }
    *handle = o->handle;
    *handle_pool = pool;
    return APR_SUCCESS;
}

/* ---- the server ------------------------------------------------------- */

const char *wh_mysql_version_check(apr_pool_t *p, const char *version, int *mariadb)
{
    int major = 0, minor = 0, need_major, need_minor;
    const char *name;

    *mariadb = version && strstr(version, "MariaDB") != NULL;
    name = *mariadb ? "MariaDB" : "MySQL";
    need_major = *mariadb ? WH_MARIADB_MIN_MAJOR : WH_MYSQL_MIN_MAJOR;
    need_minor = *mariadb ? WH_MARIADB_MIN_MINOR : WH_MYSQL_MIN_MINOR;
    if (!version || sscanf(version, "%d.%d", &major, &minor) != 2)
        return "the server did not say its version";
    if (major > need_major || (major == need_major && minor >= need_minor))
        return NULL;
    return apr_psprintf(p, "the server is %s %d.%d: the inbox needs MariaDB %d.%d or "
                        "later, or MySQL %d.%d or later (SELECT ... FOR UPDATE "
                        "SKIP LOCKED, JSON_TABLE)", name, major, minor,
                        WH_MARIADB_MIN_MAJOR, WH_MARIADB_MIN_MINOR,
                        WH_MYSQL_MIN_MAJOR, WH_MYSQL_MIN_MINOR);
}

const char *wh_mysql_grant(apr_pool_t *p, const char *database, const char *current_user)
{
    const char *at = current_user ? strrchr(current_user, '@') : NULL;
    const char *who = at ? apr_psprintf(p, "'%.*s'@'%s'", (int)(at - current_user),
                                        current_user, at + 1)
                         : "the inbox's user";

    return apr_psprintf(p, "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE ON `%s`.* TO %s",
                        database ? database : "DATABASE", who);
}

int wh_mysql_denied(int code)
{
    return code == WH_ER_DBACCESS_DENIED || code == WH_ER_TABLEACCESS_DENIED
           || code == WH_ER_COLUMNACCESS_DENIED;
}

/* The first row's cells of a query without parameters, or why not. */
static const char *first_row(const wh_inbox_settings *s, apr_pool_t *p, apr_dbd_t *h,
                             const char *sql, int n, const char **cell)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    int rv, got = 0;

    memset(cell, 0, sizeof(*cell) * (apr_size_t)n);
    /* sequential: the driver's random access wants row numbers */
    if ((rv = apr_dbd_select(s->driver, p, h, &res, sql, 0)) != 0)
        return apr_dbd_error(s->driver, h, rv);
    while (apr_dbd_get_row(s->driver, p, res, &row, -1) == 0)
        if (!got++)
            for (int i = 0; i < n; i++) {
                const char *v = apr_dbd_get_entry(s->driver, row, i);
                cell[i] = v ? apr_pstrdup(p, v) : NULL;
            }
    return got ? NULL : "no row";
}

static int set_session(const wh_inbox_settings *s, apr_pool_t *p, apr_dbd_t *h,
                       int mariadb, const char **why)
{
    int lock_s = (s->lock_wait_ms + 999) / 1000, n = 0, rv;
    const char *set[2];

    if (lock_s < 1)
        lock_s = 1;
    set[0] = apr_psprintf(p, "SET NAMES utf8mb4, SESSION sql_mode = '" WH_MYSQL_SQL_MODE "',"
                          " SESSION autocommit = 1, SESSION innodb_lock_wait_timeout = %d,"
                          " SESSION lock_wait_timeout = %d, %s", lock_s, lock_s,
                          mariadb ? apr_psprintf(p, "SESSION max_statement_time = %d",
                                                 WH_INBOX_STATEMENT_TIMEOUT_MS / 1000)
                                  : apr_psprintf(p, "SESSION max_execution_time = %d",
                                                 WH_INBOX_STATEMENT_TIMEOUT_MS));
    set[1] = s->readonly ? "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY"
                         : "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE";
    for (int i = 0; i < 2; i++)
        if ((rv = apr_dbd_query(s->driver, h, &n, set[i])) != 0) {
            *why = apr_psprintf(p, "session setup: %s", apr_dbd_error(s->driver, h, rv));
            return rv;
        }
    return 0;
}

wh_conn_status wh_mysql_session(const wh_inbox_settings *s, apr_pool_t *p,
                                apr_dbd_t *handle, const char **grant,
                                const char **why)
{
    const char *c[4], *err;
    int mariadb = 0;

    *grant = NULL;
    if ((err = first_row(s, p, handle, "SELECT VERSION(), DATABASE(), CURRENT_USER(),"
                         " @@innodb_flush_log_at_trx_commit", 4, c)) != NULL) {
        *why = apr_psprintf(p, "reading the server's version: %s", err);
        return WH_CONN_DOWN;
    }
    if ((err = wh_mysql_version_check(p, c[0], &mariadb)) != NULL) {
        *why = err;
        return WH_CONN_FATAL;
    }
    if (!c[1]) {
        *why = "no database is selected (InboxParams needs dbname=)";
        return WH_CONN_FATAL;
    }
    *grant = wh_mysql_grant(p, c[1], c[2]);
    if (set_session(s, p, handle, mariadb, why) != 0)
        return WH_CONN_DOWN;
    /* also for a reader: the CGI's session starts as one and goes on to
     * store */
    if (!c[3] || strcmp(c[3], "1") != 0)
        wh_logf(&s->log, WH_LOG_WARN, "inbox: the mysql server runs with "
                "innodb_flush_log_at_trx_commit = %s, not 1: a notification "
                "answered 200 may be lost if the server's machine fails",
                c[3] ? c[3] : "?");
    return WH_CONN_OK;
}

/* wirehook links no MySQL client: the one apr_dbd's driver loaded
 * answers, as for wh_sock_watch_dbd_socket. */
typedef unsigned long long (*insert_id_fn)(void *mysql);
static insert_id_fn my_insert_id;
static pthread_once_t insert_id_once = PTHREAD_ONCE_INIT;

static void insert_id_lookup(void)
{
    my_insert_id = (insert_id_fn)dlsym(RTLD_DEFAULT, "mysql_insert_id");
}

apr_int64_t wh_mysql_insert_id(const apr_dbd_driver_t *driver, apr_dbd_t *handle)
{
    void *native;

    pthread_once(&insert_id_once, insert_id_lookup);
    if (!my_insert_id || !(native = apr_dbd_native_handle(driver, handle)))
        return 0;
    return (apr_int64_t)my_insert_id(native);
}
