#ifndef WH_INBOX_DBFILE_H
#define WH_INBOX_DBFILE_H
/* SQLite, before the driver opens the database. A writer creates the file
 * itself, with the inbox's mode and group, so that SQLite (which copies
 * that mode to -wal and -shm) never creates it with the umask's. A reader
 * (WH_INBOX_READ_ONLY) opens an existing file only, through a read-only
 * URI: nothing is created for it, and the database is never opened for
 * writing. */
#include "wh_inbox_db.h"
#include "wh_inbox_settings.h"

/* OK, with *params the driver's parameters (a reader's URI replaces
 * s->params); DOWN with *why in p (logged for a writer); FATAL (logged)
 * for a file on a network file system (wh_inbox_network_fs). Nothing to
 * do for other engines. */
wh_conn_status wh_inbox_dbfile_prepare(const wh_inbox_settings *s, apr_pool_t *p,
                                       const char **params, const char **why);

#endif
