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
#include "wh_inbox_conn.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const wh_inbox_stmt st_files = { "PRAGMA database_list", NULL };

const char *wh_inbox_db_wal_path(wh_inbox *ib, apr_pool_t *p)
{
    wh_inbox_rows rows;
    const char *file = NULL;

    /* The main database's real path: InboxParams may be a file: URI.
     * Known once a writer connection was set up: the file never changes. */
    if (ib->wal_path)
        return ib->wal_path;
    if (ib->engine != WH_INBOX_SQLITE3
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
    wh_inbox *ib;
    int fd;
} wal_fd_owner;

/* With the connection's pool. The pool of a replaced connection goes
 * after the new one is set up: only its own descriptor is closed. */
static apr_status_t close_wal_fd(void *data)
{
    wal_fd_owner *o = data;

    apr_thread_mutex_lock(o->ib->sync_mutex);
    if (o->ib->wal_fd == o->fd)
        o->ib->wal_fd = -1;
    close(o->fd);
    apr_thread_mutex_unlock(o->ib->sync_mutex);
    return APR_SUCCESS;
}

void wh_inbox_walsync_attach(wh_inbox *ib, apr_pool_t *p)
{
    const char *path, *mode = NULL;
    wal_fd_owner *owner;
    int fd;

    ib->deferred = 0;
    if (ib->engine != WH_INBOX_SQLITE3 || ib->readonly || !ib->sync_mutex)
        return;
    if (wh_inbox_db_sql_value(ib, p, "PRAGMA journal_mode", &mode) != 0
        || !mode || strcmp(mode, "wal") != 0
        || !(path = wh_inbox_db_wal_path(ib, p)))
        return;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        char buf[120];
        wh_logf(&ib->log, WH_LOG_DEBUG, "inbox: the WAL cannot be opened for syncing "
                "(%s); commits sync inside SQLite",
                apr_strerror(APR_FROM_OS_ERROR(errno), buf, sizeof(buf)));
        return;
    }
    if (wh_inbox_db_sql(ib, "PRAGMA synchronous = NORMAL") != 0) {
        close(fd);
        return;
    }
    owner = apr_palloc(ib->cpool, sizeof(*owner));
    owner->ib = ib;
    owner->fd = fd;
    apr_thread_mutex_lock(ib->sync_mutex);
    if (!ib->wal_path)
        ib->wal_path = apr_pstrdup(ib->root, path);
    ib->wal_fd = fd;
    apr_thread_mutex_unlock(ib->sync_mutex);
    apr_pool_cleanup_register(ib->cpool, owner, close_wal_fd, apr_pool_cleanup_null);
    ib->deferred = 1;
}

void wh_inbox_db_set_relaxed(wh_inbox *ib)
{
    apr_thread_mutex_lock(ib->mutex);
    ib->relaxed = 1;
    apr_thread_mutex_unlock(ib->mutex);
}

int wh_inbox_db_sync_failed(wh_inbox *ib)
{
    int failed;

    if (!ib->sync_mutex)
        return 0;
    apr_thread_mutex_lock(ib->sync_mutex);
    failed = ib->sync_failed;
    apr_thread_mutex_unlock(ib->sync_mutex);
    return failed;
}

int wh_inbox_db_sync(wh_inbox *ib)
{
    int fd = -1, err = 0;
    char buf[120];

    if (!ib->sync_mutex)
        return 0;
    apr_thread_mutex_lock(ib->sync_mutex);
    if (ib->sync_failed) {
        apr_thread_mutex_unlock(ib->sync_mutex);
        return -1;
    }
    /* A copy of the descriptor: a reconnect may close the original while
     * this thread syncs. After a reconnect that left FULL on, commits
     * made before it may still be in the WAL unsynced: the path opens it
     * (gone means the last close checkpointed it into a synced file). */
    if (ib->wal_fd >= 0) {
        if ((fd = fcntl(ib->wal_fd, F_DUPFD_CLOEXEC, 0)) < 0)
            err = errno;
    } else if (ib->wal_path) {
        if ((fd = open(ib->wal_path, O_RDONLY | O_CLOEXEC)) < 0 && errno != ENOENT)
            err = errno;
    }
    apr_thread_mutex_unlock(ib->sync_mutex);
    if (fd >= 0) {
        if (fdatasync(fd) != 0)
            err = errno;
        close(fd);
    }
    if (!err)
        return 0;
    apr_strerror(APR_FROM_OS_ERROR(err), buf, sizeof(buf));
    apr_thread_mutex_lock(ib->sync_mutex);
    ib->sync_failed = 1;
    apr_thread_mutex_unlock(ib->sync_mutex);
    wh_logf(&ib->log, WH_LOG_ERROR, "inbox: syncing the sqlite3 WAL failed (%s): what "
            "it covered is answered 503, and this process stores nothing more until "
            "it is restarted", buf);
    return -1;
}
