/* SQLite: durability after the lock, not under it.
 *
 * With synchronous = FULL, SQLite fdatasyncs the WAL inside COMMIT, while
 * it holds the database's write lock (and the inbox its writers' queue):
 * every other writer, in this process or another, waits out the sync
 * too, so writers commit one sync after another. A writer connection of
 * the inbox therefore commits with synchronous = NORMAL -- its frames
 * are written (the WAL layer sends them in the commit frame's write),
 * the commit is published, the lock is free -- and only then syncs the
 * WAL itself, with the lock released, before anyone is told "stored".
 * The next writer's statements run during this sync, and one sync covers
 * every commit written before it began, other processes' too.
 *
 * Why this is as durable as FULL for what is acknowledged:
 *  - the sync is fdatasync on a descriptor of the WAL file itself (its
 *    own open file, so no thread touches the connection's), and syncing
 *    a file flushes what any descriptor wrote to it;
 *  - SQLite never moves frames into the database file or reuses the WAL
 *    without syncing first, with NORMAL as with FULL (it syncs the WAL
 *    before a checkpoint, the database after it, and a restarted WAL's
 *    header): frames checkpointed before this sync are in a synced
 *    database file;
 *  - a power failure keeps a prefix of the commits (SQLite checks each
 *    frame's checksum on recovery), and every commit acknowledged was
 *    inside a completed sync.
 * What changes: a reader (the listing, the forwarder) may see a commit a
 * few hundred microseconds before it is synced. A power failure in that
 * window loses an event nobody acknowledged; the bank sends it again.
 * A duplicate is answered only after a sync too, since the stored copy
 * it matched may still be in flight.
 *
 * A failed sync cannot be undone: the commit is already visible. So the
 * inbox refuses every write from then on (503, logged) until the process
 * is restarted; the store's callers answer 503 for what the sync covered.
 * Without a descriptor for the WAL (no WAL mode, the file cannot be
 * opened) the connection stays FULL. */
#include "wh_inbox_walsync.h"
#include "wh_db_conn.h"
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const wh_inbox_stmt st_files = { "PRAGMA database_list", NULL, NULL };

const char *wh_walsync_init(wh_walsync *ws, apr_pool_t *pool)
{
    apr_status_t rv;
    char buf[120];

    memset(ws, 0, sizeof(*ws));
    ws->fd = -1;
    ws->pool = pool;
    if ((rv = apr_thread_mutex_create(&ws->mutex, APR_THREAD_MUTEX_DEFAULT, pool))
        != APR_SUCCESS)
        return apr_psprintf(pool, "inbox mutex: %s", apr_strerror(rv, buf, sizeof(buf)));
    return NULL;
}

int wh_walsync_due(const wh_walsync *ws)
{
    return ws->deferred && !ws->relaxed;
}

const char *wh_inbox_db_wal_path(wh_inbox *ib, apr_pool_t *p)
{
    const wh_walsync *ws = wh_inbox_db_walsync(ib);
    wh_inbox_rows rows;
    const char *file = NULL;

    /* The main database's real path: InboxParams may be a file: URI.
     * Known once a writer connection was set up: the file never changes. */
    if (ws->wal_path)
        return ws->wal_path;
    if (wh_inbox_db_engine(ib) != WH_INBOX_SQLITE3
        || wh_inbox_db_select(ib, p, &st_files, NULL, 16, &rows) != 0 || rows.ncols < 3)
        return NULL;
    for (int i = 0; i < rows.nrows && !file; i++) {
        const char *name = WH_ROW_CELL(&rows, i, 1);
        if (name && strcmp(name, "main") == 0)
            file = WH_ROW_CELL(&rows, i, 2);
    }
    return file && *file ? apr_pstrcat(p, file, "-wal", NULL) : NULL;
}

typedef struct {
    wh_walsync *ws;
    int fd;
} wal_fd_owner;

/* With the connection's pool. The pool of a replaced connection goes
 * after the new one is set up: only its own descriptor is closed. */
static apr_status_t close_wal_fd(void *data)
{
    wal_fd_owner *o = data;

    apr_thread_mutex_lock(o->ws->mutex);
    if (o->ws->fd == o->fd)
        o->ws->fd = -1;
    close(o->fd);
    apr_thread_mutex_unlock(o->ws->mutex);
    return APR_SUCCESS;
}

void wh_inbox_walsync_attach(wh_inbox *ib, apr_pool_t *p)
{
    wh_walsync *ws = wh_inbox_db_walsync(ib);
    wh_db_conn *c = wh_inbox_db_conn(ib);
    const char *path, *mode = NULL;
    wal_fd_owner *owner;
    int fd;

    ws->deferred = 0;
    if (wh_inbox_db_engine(ib) != WH_INBOX_SQLITE3 || wh_inbox_db_readonly(ib) || !c)
        return;
    if (wh_inbox_db_sql_value(ib, p, "PRAGMA journal_mode", &mode) != 0
        || !mode || strcmp(mode, "wal") != 0
        || !(path = wh_inbox_db_wal_path(ib, p)))
        return;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        char buf[120];
        wh_logf(wh_inbox_db_log(ib), WH_LOG_DEBUG, "inbox: the WAL cannot be opened for "
                "syncing (%s); commits sync inside SQLite",
                apr_strerror(APR_FROM_OS_ERROR(errno), buf, sizeof(buf)));
        return;
    }
    if (wh_inbox_db_sql(ib, "PRAGMA synchronous = NORMAL") != 0) {
        close(fd);
        return;
    }
    owner = apr_palloc(c->pool, sizeof(*owner));
    owner->ws = ws;
    owner->fd = fd;
    apr_thread_mutex_lock(ws->mutex);
    if (!ws->wal_path)
        ws->wal_path = apr_pstrdup(ws->pool, path);
    ws->fd = fd;
    apr_thread_mutex_unlock(ws->mutex);
    apr_pool_cleanup_register(c->pool, owner, close_wal_fd, apr_pool_cleanup_null);
    ws->deferred = 1;
}

void wh_inbox_db_set_relaxed(wh_inbox *ib)
{
    wh_inbox_db_lock(ib);
    wh_inbox_db_walsync(ib)->relaxed = 1;
    wh_inbox_db_unlock(ib);
}

int wh_inbox_db_sync_failed(wh_inbox *ib)
{
    wh_walsync *ws = wh_inbox_db_walsync(ib);
    int failed;

    apr_thread_mutex_lock(ws->mutex);
    failed = ws->failed;
    apr_thread_mutex_unlock(ws->mutex);
    return failed;
}

int wh_inbox_db_sync(wh_inbox *ib)
{
    wh_walsync *ws = wh_inbox_db_walsync(ib);
    int fd = -1, err = 0;
    char buf[120];

    apr_thread_mutex_lock(ws->mutex);
    if (ws->failed) {
        apr_thread_mutex_unlock(ws->mutex);
        return -1;
    }
    /* A copy of the descriptor: a reconnect may close the original while
     * this thread syncs. After a reconnect that left FULL on, commits
     * made before it may still be in the WAL unsynced: the path opens it
     * (gone means the last close checkpointed it into a synced file). */
    if (ws->fd >= 0) {
        if ((fd = fcntl(ws->fd, F_DUPFD_CLOEXEC, 0)) < 0)
            err = errno;
    } else if (ws->wal_path) {
        if ((fd = open(ws->wal_path, O_RDONLY | O_CLOEXEC)) < 0 && errno != ENOENT)
            err = errno;
    }
    apr_thread_mutex_unlock(ws->mutex);
    if (fd >= 0) {
        if (fdatasync(fd) != 0)
            err = errno;
        close(fd);
    }
    if (!err)
        return 0;
    apr_strerror(APR_FROM_OS_ERROR(err), buf, sizeof(buf));
    apr_thread_mutex_lock(ws->mutex);
    ws->failed = 1;
    apr_thread_mutex_unlock(ws->mutex);
    wh_logf(wh_inbox_db_log(ib), WH_LOG_ERROR, "inbox: syncing the sqlite3 WAL failed "
            "(%s): what it covered is answered 503, and this process stores nothing "
            "more until it is restarted", buf);
    return -1;
}
