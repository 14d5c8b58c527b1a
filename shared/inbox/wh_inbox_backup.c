/* The SQLite inbox's file as a whole (wh_inbox_backup.h). Both run on the
 * inbox's own connection, under its mutex, with the functions of the
 * SQLite library apr_dbd's driver loaded (wh_sqlite_api.h). */
#include "wh_inbox_backup.h"
#include "wh_db_conn.h"
#include "wh_inbox_files.h"
#include "wh_inbox_sql.h"
#include "wh_sqlite_api.h"
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A backup step that finds the source busy (SQLite recovering its WAL
 * index) tries again this often, this many times. */
#define WH_BACKUP_BUSY_NAP_MS 100
#define WH_BACKUP_BUSY_TRIES 50

/* What the server's own tools are, for an inbox on a database server. */
static const char *not_sqlite(const wh_inbox *ib)
{
    if (ib && wh_inbox_db_engine(ib) == WH_INBOX_MYSQL)
        return "a MariaDB or MySQL inbox is copied by the server's own tools "
               "(mariadb-dump --single-transaction, mysqldump): see docs/inbox.md, "
               "\"Backup and restore\"";
    return "a PostgreSQL inbox is copied by the server's own tools (pg_dump): see "
           "docs/inbox.md, \"Backup and restore\"";
}

static const char *os_error(apr_pool_t *p, int err)
{
    char buf[120];
    return apr_pstrdup(p, apr_strerror(APR_FROM_OS_ERROR(err), buf, sizeof(buf)));
}

static sqlite3 *native(wh_inbox *ib)
{
    wh_db_conn *c = wh_inbox_db_conn(ib);
    return c && c->handle ? apr_dbd_native_handle(c->driver, c->handle) : NULL;
}

/* The first column of the first row of an sqlite3_exec. */
static int first_cell(void *baton, int n, char **v, char **names)
{
    char *out = baton;
    (void)names;
    if (!out[0] && n > 0 && v[0])
        apr_cpystrn(out, v[0], 64);
    return 0;
}

static const char *exec_value(apr_pool_t *p, const wh_sqlite_api *api, sqlite3 *db,
                              const char *sql, char out[64])
{
    char *msg = NULL;

    out[0] = '\0';
    if (api->exec(db, sql, first_cell, out, &msg) != SQLITE_OK) {
        const char *m = apr_pstrdup(p, msg ? msg : api->errmsg(db));
        api->free(msg);
        return m;
    }
    return NULL;
}

/* ------------------------------------------------------------ backup --- */

typedef struct {
    const char *tmp;
    const char *err;
    wh_inbox_backup_info *info;
} backup_job;

/* The copy into job->tmp, checked: on the connection's thread, mutex held.
 * Always 0: the failure is the job's, not the connection's. */
static int copy(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    backup_job *j = baton;
    const wh_sqlite_api *api = wh_sqlite_api_get();
    sqlite3 *src = native(ib), *dst = NULL;
    sqlite3_backup *b;
    char v[64];
    int rc = SQLITE_OK, tries = 0;

    if (!src) {
        j->err = "no connection to the inbox";
        return 0;
    }
    if (api->open_v2(j->tmp, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        j->err = apr_psprintf(p, "opening the copy: %s",
                              dst ? api->errmsg(dst) : "out of memory");
        api->close(dst);
        return 0;
    }
    if (!(b = api->backup_init(dst, "main", src, "main"))) {
        j->err = apr_psprintf(p, "starting the backup: %s", api->errmsg(dst));
        api->close(dst);
        return 0;
    }
    /* Every page in one step: one read transaction, one moment. In steps,
     * a store between two of them would start the copy over. */
    do {
        rc = api->backup_step(b, -1);
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            apr_sleep(apr_time_from_msec(WH_BACKUP_BUSY_NAP_MS));
    } while ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && ++tries < WH_BACKUP_BUSY_TRIES);
    if (api->backup_finish(b) != SQLITE_OK || rc != SQLITE_DONE)
        j->err = apr_psprintf(p, "copying: %s", api->errmsg(dst));
    /* The copy carries the inbox's WAL mode: back to a journal, so it is
     * one file with nothing beside it. */
    if (!j->err && (j->err = exec_value(p, api, dst, "PRAGMA journal_mode = DELETE", v)))
        j->err = apr_psprintf(p, "the copy's journal: %s", j->err);
    if (!j->err && (j->err = exec_value(p, api, dst, "PRAGMA integrity_check", v)))
        j->err = apr_psprintf(p, "checking the copy: %s", j->err);
    if (!j->err && strcmp(v, "ok") != 0)
        j->err = apr_psprintf(p, "the copy fails PRAGMA integrity_check: %s", v);
    if (!j->err && !exec_value(p, api, dst, "SELECT count(*) FROM wh_events WHERE "
                                      WH_SQL_NOT_TOMBSTONE("id"), v))
        j->info->events = apr_atoi64(v);
    if (api->close(dst) != SQLITE_OK && !j->err)
        j->err = "closing the copy failed";
    return 0;
}

/* Synced, 0600, owned like the inbox when root makes it. */
static const char *settle(apr_pool_t *p, const char *tmp, const char *db_file,
                          wh_inbox_backup_info *info)
{
    struct stat st, inbox;
    int fd = open(tmp, O_RDWR | O_NOFOLLOW | O_CLOEXEC), err = 0;

    if (fd < 0)
        return apr_psprintf(p, "opening the copy: %s", os_error(p, errno));
    if (fchmod(fd, 0600) != 0)
        err = errno;
    if (!err && geteuid() == 0 && db_file && stat(db_file, &inbox) == 0
        && fchown(fd, inbox.st_uid, inbox.st_gid) != 0)
        err = errno;
    if (!err && fsync(fd) != 0)
        err = errno;
    if (!err && fstat(fd, &st) == 0)
        info->bytes = (apr_int64_t)st.st_size;
    if (close(fd) != 0 && !err)
        err = errno;
    return err ? apr_psprintf(p, "writing the copy: %s", os_error(p, err)) : NULL;
}

static void sync_dir(apr_pool_t *p, const char *path)
{
    int fd = open(wh_inbox_file_dir(p, path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

static void remove_copy(apr_pool_t *p, const char *tmp)
{
    static const char *const beside[] = { "", "-journal", "-wal", "-shm" };
    for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++)
        (void)unlink(apr_pstrcat(p, tmp, beside[i], NULL));
}

const char *wh_inbox_backup(wh_inbox *ib, apr_pool_t *p, const wh_config *cfg,
                            const char *dest, wh_inbox_backup_info *out)
{
    const wh_sqlite_api *api = wh_sqlite_api_get();
    const char *db_file = wh_inbox_sqlite_file(cfg), *err;
    struct stat ds, is;
    backup_job j;
    char *tmp;
    int fd;

    memset(out, 0, sizeof(*out));
    if (!ib || wh_inbox_db_engine(ib) != WH_INBOX_SQLITE3)
        return not_sqlite(ib);
    if (!api->backup_init || !api->backup_step || !api->backup_finish || !api->open_v2
        || !api->exec)
        return "the SQLite library loaded has no online backup";
    if (lstat(dest, &ds) == 0) {
        if (!S_ISREG(ds.st_mode))
            return apr_psprintf(p, "%s exists and is not a regular file", dest);
        if (db_file && stat(db_file, &is) == 0 && is.st_dev == ds.st_dev
            && is.st_ino == ds.st_ino)
            return apr_psprintf(p, "%s is the inbox itself", dest);
    }
    /* a new file beside dest: created 0600 (mkstemp), so no one else
     * reads the copy while it is written, and SQLite gives its journal
     * the same mode */
    tmp = apr_pstrcat(p, dest, ".tmp-XXXXXX", NULL);
    if ((fd = mkstemp(tmp)) < 0)
        return apr_psprintf(p, "creating a file beside %s: %s", dest, os_error(p, errno));
    close(fd);
    memset(&j, 0, sizeof(j));
    j.tmp = tmp;
    j.info = out;
    if (wh_inbox_db_read(ib, p, "backup", copy, &j) != WH_DB_OK)
        j.err = "the inbox database is unavailable";
    err = j.err ? j.err : settle(p, tmp, db_file, out);
    if (!err && rename(tmp, dest) != 0)
        err = apr_psprintf(p, "renaming the copy to %s: %s", dest, os_error(p, errno));
    if (err) {
        remove_copy(p, tmp);
        return err;
    }
    sync_dir(p, dest);
    return NULL;
}

/* ------------------------------------------------------------ vacuum --- */

typedef struct {
    const char *err;
    wh_inbox_vacuum_info *info;
} vacuum_job;

static int pragma_num(wh_inbox *ib, apr_pool_t *p, const char *sql, apr_int64_t *out)
{
    const char *v = NULL;
    int rv = wh_inbox_db_sql_value(ib, p, sql, &v);
    *out = v ? apr_atoi64(v) : 0;
    return rv;
}

static int rewrite(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    vacuum_job *j = baton;
    apr_int64_t mode = 0;
    int rv;

    if (wh_inbox_db_writer_lock(ib, p) != 0) {
        j->err = "the inbox's writers did not let go of it (try again)";
        return 0;
    }
    if ((rv = pragma_num(ib, p, "PRAGMA page_size", &j->info->page_size)) != 0
        || (rv = pragma_num(ib, p, "PRAGMA page_count", &j->info->pages_before)) != 0
        || (rv = pragma_num(ib, p, "PRAGMA auto_vacuum", &mode)) != 0
        || (rv = wh_inbox_db_sql_value(ib, p, "PRAGMA auto_vacuum = INCREMENTAL",
                                       NULL)) != 0
        || (rv = wh_inbox_db_sql(ib, "VACUUM")) != 0
        || (rv = pragma_num(ib, p, "PRAGMA page_count", &j->info->pages_after)) != 0)
        j->err = apr_psprintf(p, "VACUUM: %s", wh_inbox_db_error(ib, p, rv));
    j->info->auto_vacuum_before = (int)mode;
    /* the rewritten pages are in the WAL: into the file now, and the WAL
     * emptied (a reader still open may keep it from finishing: then the
     * next checkpoint does) */
    if (!j->err)
        (void)wh_inbox_db_sql_value(ib, p, "PRAGMA wal_checkpoint(TRUNCATE)", NULL);
    wh_inbox_db_writer_unlock(ib);
    return 0;
}

const char *wh_inbox_vacuum(wh_inbox *ib, apr_pool_t *p, wh_inbox_vacuum_info *out)
{
    vacuum_job j;

    memset(out, 0, sizeof(*out));
    if (ib && wh_inbox_db_engine(ib) == WH_INBOX_MYSQL)
        return "a MariaDB or MySQL inbox reuses the space InnoDB frees by itself "
               "(OPTIMIZE TABLE gives it back to the file system): see docs/inbox.md, "
               "\"Space\"";
    if (!ib || wh_inbox_db_engine(ib) != WH_INBOX_SQLITE3)
        return "a PostgreSQL inbox is vacuumed by the server (autovacuum): see "
               "docs/inbox.md, \"Space\"";
    memset(&j, 0, sizeof(j));
    j.info = out;
    if (wh_inbox_db_read(ib, p, "vacuum", rewrite, &j) != WH_DB_OK)
        return "the inbox database is unavailable";
    return j.err;
}
