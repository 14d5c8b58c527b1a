#ifndef WH_INBOX_LOCK_H
#define WH_INBOX_LOCK_H
/* The SQLite inbox's writer queue: a lock every wirehook writer (module
 * children and CGI processes alike) takes around its write transaction, so
 * that a writer waiting for another sleeps until that one is done instead
 * of polling the database lock (SQLite's busy handler and apr_dbd's
 * driver retry in sleeps of growing length). It is a process-shared,
 * robust pthread mutex in a small file next to the database (DB-lock):
 *   - the wait wakes when the holder unlocks (a futex), and is bounded
 *     (pthread_mutex_clocklock on CLOCK_MONOTONIC);
 *   - a holder killed with the lock (kill -9) hands it to the next waiter
 *     (EOWNERDEAD), whose transaction SQLite's own recovery makes safe.
 * Only a queue: SQLite's lock still decides who writes, so a process that
 * does not take it (the sqlite3 shell) is still excluded, just waited for
 * the slow way. */
#include <apr_pools.h>
#include <apr_time.h>
#include <sys/types.h>

typedef struct wh_inbox_lock wh_inbox_lock;

/* Opens (creating it with mode and, unless gid is (gid_t)-1, that group)
 * the lock file at path, mapped for the life of p. NULL or the reason. */
const char *wh_inbox_lock_open(apr_pool_t *p, const char *path, mode_t mode,
                               gid_t gid, wh_inbox_lock **out);

/* Takes the lock, waiting at most timeout. APR_SUCCESS, APR_TIMEUP, or the
 * error. *took_over (may be NULL) is set to 1 when its last holder had
 * died holding it. */
apr_status_t wh_inbox_lock_acquire(wh_inbox_lock *l, apr_interval_time_t timeout,
                                   int *took_over);
void wh_inbox_lock_release(wh_inbox_lock *l);

#endif
