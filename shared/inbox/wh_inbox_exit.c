/* wh_inbox_release_for_exit: how a one-request process (wirehook.cgi)
 * lets go of its SQLite connection. See wh_inbox.h for why leaving it to
 * the process exit is still durable. */
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include <apr_file_info.h>
#include <apr_strings.h>

/* The size of the open SQLite database's WAL file, or -1. */
static apr_off_t wal_size(wh_inbox *ib, apr_pool_t *p)
{
    const char *wal = wh_inbox_db_wal_path(ib, p);
    apr_finfo_t fi;

    if (!wal || apr_stat(&fi, wal, APR_FINFO_SIZE, p) != APR_SUCCESS)
        return -1;
    return fi.size;
}

void wh_inbox_release_for_exit(wh_inbox *ib)
{
    if (!ib)
        return;
    wh_inbox_db_lock(ib);
    if (wh_inbox_db_readonly(ib) && wh_inbox_db_connected(ib)) {
        /* Closed, not left: a reader's close writes nothing, and a
         * reader still open would keep the writer's close below from
         * being the last one, the one that checkpoints the WAL. */
        wh_inbox_db_close(ib);
    } else if (wh_inbox_db_engine(ib) == WH_INBOX_SQLITE3 && wh_inbox_db_connected(ib)) {
        /* The last connection to leave takes with it SQLite's shared
         * memory, which says how much of the WAL is already in the
         * database: the next process then re-reads the whole WAL
         * (recovery), and its automatic checkpoint copies all of it again,
         * so the WAL would only grow. Past WH_INBOX_EXIT_WAL_MAX the
         * connection is closed normally: if it is the last one, SQLite
         * checkpoints and removes the WAL; if others are open, closing
         * costs nothing and their shared memory lives on. */
        apr_pool_t *tmp = wh_inbox_db_scratch(ib);
        int close_it = 0;
        if (tmp) {
            close_it = wal_size(ib, tmp) > WH_INBOX_EXIT_WAL_MAX;
            apr_pool_destroy(tmp);
        }
        if (close_it) {
            /* The close-time checkpoint writes the database: a writer like
             * any other, queued with them rather than making them poll. */
            apr_pool_t *q = wh_inbox_db_scratch(ib);
            int held = q && wh_inbox_db_writer_lock(ib, q) == 0;
            wh_inbox_db_close(ib);
            if (held)
                wh_inbox_db_writer_unlock(ib);
            if (q)
                apr_pool_destroy(q);
        } else
            /* The process exit releases the file locks and descriptors. */
            wh_inbox_db_abandon(ib);
    }
    wh_inbox_db_unlock(ib);
}
