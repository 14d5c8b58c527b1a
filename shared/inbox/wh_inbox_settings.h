#ifndef WH_INBOX_SETTINGS_H
#define WH_INBOX_SETTINGS_H
/* What an inbox is made with: its engine and driver, where its database
 * is, how long a writer waits, and how its SQLite files are made. Read
 * from the configuration by wh_inbox_open.c; the connection
 * (wh_inbox_conn.c) and the writers' queue (wh_inbox_writers.c) work from
 * it. */
#include "wh_inbox.h"
#include <apr_dbd.h>
#include <sys/types.h>

typedef struct {
    wh_logger log;
    const apr_dbd_driver_t *driver;
    const char *driver_name;
    wh_inbox_driver engine;
    const char *params;          /* may hold a password: never logged;
                                    MySQL: as the driver is given them */
    int connect_timeout_s;       /* MySQL: how long an open may take */
    int readonly;                /* WH_INBOX_READ_ONLY, until allowed to write */
    int lock_wait_ms;            /* the bounded wait for the write lock */
    apr_interval_time_t retry_interval;  /* between failed connections */
    const char *db_file;         /* SQLite: the database file, or NULL */
    const char *where;           /* "config:line: " of InboxParams, for
                                    messages about the file */
    mode_t file_mode;            /* of the files it creates */
    gid_t gid;                   /* InboxGroup, or (gid_t)-1 */
} wh_inbox_settings;

#endif
