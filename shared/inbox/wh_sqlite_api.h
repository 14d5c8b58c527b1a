#ifndef WH_SQLITE_API_H
#define WH_SQLITE_API_H
/* The few SQLite functions the inbox calls itself, beside apr_dbd: its
 * busy handler (wh_inbox_conn.c), the WAL-gathering VFS layer
 * (wh_sqlite_wal.c) and the online backup (wh_inbox_backup.c). */
#include <sqlite3.h>

typedef struct {
    int (*busy_handler)(sqlite3 *, int (*)(void *, int), void *);
    sqlite3_vfs *(*vfs_find)(const char *);
    int (*vfs_register)(sqlite3_vfs *, int);
    sqlite3_file *(*database_file_object)(const char *);
    int (*file_control)(sqlite3 *, const char *, int, void *);
    const char *(*libversion)(void);
    /* the online backup, into a file of its own */
    int (*open_v2)(const char *, sqlite3 **, int, const char *);
    int (*close)(sqlite3 *);
    int (*exec)(sqlite3 *, const char *, int (*)(void *, int, char **, char **),
                void *, char **);
    void (*free)(void *);
    const char *(*errmsg)(sqlite3 *);
    sqlite3_backup *(*backup_init)(sqlite3 *, const char *, sqlite3 *, const char *);
    int (*backup_step)(sqlite3_backup *, int);
    int (*backup_finish)(sqlite3_backup *);
} wh_sqlite_api;

/* The functions of the SQLite library apr_dbd's sqlite3 driver brought
 * into the process (the core links no SQLite of its own), looked up once,
 * so only once a driver is loaded (apr_dbd_get_driver). A member is NULL
 * when the library lacks it (SQLite before 3.32 has no
 * sqlite3_database_file_object): its user then does without.
 *
 * This is the only function in wh_sqlite_api.c: a program with SQLite
 * linked in (the self-contained CGI) defines it with the functions
 * themselves, and libwirehook.a's lookup is never linked into it. */
const wh_sqlite_api *wh_sqlite_api_get(void);

#endif
