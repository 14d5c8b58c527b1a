/* The writers' queue of an SQLite inbox (wh_inbox_writers.h): opened
 * beside the database, waited for around each write. */
#include "wh_inbox_writers.h"
#include <apr_strings.h>

void wh_writer_queue_open(wh_writer_queue *q, const wh_inbox_settings *s,
                          apr_pool_t *pool, apr_pool_t *p)
{
    const char *err;

    if (q->tried || s->readonly || s->engine != WH_INBOX_SQLITE3)
        return;
    q->tried = 1;
    if (!s->db_file)
        return;
    err = wh_inbox_lock_open(pool, apr_pstrcat(p, s->db_file, "-lock", NULL),
                             s->file_mode, s->gid, &q->lock);
    if (err) {
        wh_logf(&s->log, WH_LOG_WARN, "inbox: no writer queue (the database's "
                "-lock file: %s); writers will poll the database lock", err);
        q->tried = 0;    /* a full disk passes: the next connection tries again */
    }
}

int wh_writer_queue_enter(wh_writer_queue *q, const wh_inbox_settings *s)
{
    int took_over = 0;
    apr_status_t rv;

    if (!q->lock)
        return 0;
    rv = wh_inbox_lock_acquire(q->lock, apr_time_from_msec(s->lock_wait_ms), &took_over);
    if (took_over)
        wh_logf(&s->log, WH_LOG_WARN, "inbox: a writer died holding the writer "
                "queue (the database's -lock file); taken over");
    if (rv == APR_SUCCESS)
        return 0;
    if (rv == APR_TIMEUP) {
        wh_logf(&s->log, WH_LOG_ERROR, "inbox: the sqlite3 database is locked: "
                "other writers held it for %d ms", s->lock_wait_ms);
        return -1;
    }
    /* A broken queue must not stop the inbox: SQLite's lock still holds. */
    {
        char buf[120];
        wh_logf(&s->log, WH_LOG_WARN, "inbox: writer queue unusable (%s); "
                "polling the database lock instead", apr_strerror(rv, buf, sizeof(buf)));
    }
    q->lock = NULL;
    return 0;
}

void wh_writer_queue_leave(wh_writer_queue *q)
{
    if (q->lock)
        wh_inbox_lock_release(q->lock);
}
