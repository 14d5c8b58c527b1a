#ifndef WH_INBOX_FILES_H
#define WH_INBOX_FILES_H
/* The SQLite inbox's files on disk: modes, group, warnings. */
#include <apr_pools.h>
#include <sys/types.h>
#include "verify/wh_config.h"

/* 0600, or 0640 when a group is named. */
mode_t wh_inbox_file_mode(const char *group);

/* The database file of a sqlite3 inbox given as a plain path; NULL for
 * pgsql, ":memory:" and file: URIs. */
const char *wh_inbox_sqlite_file(const wh_config *cfg);

/* An SQLite inbox on a network file system (NFS, SMB/CIFS, ... as
 * verify/wh_fs.h judges it, the test the lmdb replay store's file gets) is
 * refused: the message, naming the alternatives, or NULL. */
const char *wh_inbox_network_fs(apr_pool_t *p, const wh_config *cfg);
/* The message for db_file on the network file system fs. */
const char *wh_inbox_network_refusal(apr_pool_t *p, const char *db_file, const char *fs);

/* The directory path is in ("." for a bare name, "/" at the root): where
 * SQLite and wirehook create the files beside the database. */
const char *wh_inbox_file_dir(apr_pool_t *p, const char *path);

/* Creates path (O_EXCL, never through a symlink) with exactly mode and
 * that group ((gid_t)-1: the process's); an existing file is left alone.
 * 0 or errno; *created says whether this call made it. */
int wh_inbox_file_create(const char *path, mode_t mode, gid_t gid, int *created);

/* Puts path's -wal, -shm, -lock and -auth files, when this process owns them,
 * in group gid. */
void wh_inbox_file_regroup(apr_pool_t *p, const char *path, gid_t gid);

/* One line per existing inbox file (database, -wal, -shm, -lock, -auth) others
 * can read or write, or NULL. */
const char *wh_inbox_file_warnings(apr_pool_t *p, const wh_config *cfg);

#endif
