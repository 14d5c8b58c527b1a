#ifndef WH_INBOX_WRITERS_H
#define WH_INBOX_WRITERS_H
/* An SQLite inbox's place in the writers' queue beside its database
 * (the DATABASE-lock file of wh_inbox_lock.h), opened once per inbox.
 * Without it (a file system without shared mappings, a lock file this
 * user cannot open) writers still exclude each other through SQLite's
 * lock, only waiting for it by polling. */
#include "wh_inbox_lock.h"
#include "wh_inbox_settings.h"

typedef struct {
    wh_inbox_lock *lock;         /* NULL: no queue (yet, or any more) */
    int tried;
} wh_writer_queue;

/* Opens the queue for an SQLite writer, in pool, once: a failure is
 * logged and tried again on the next call. */
void wh_writer_queue_open(wh_writer_queue *q, const wh_inbox_settings *s,
                          apr_pool_t *pool, apr_pool_t *p);

/* Waits for the queue at most s->lock_wait_ms: 0 when held (or there is
 * none), -1 after the wait (logged). A broken queue is dropped (logged):
 * SQLite's lock still holds. */
int wh_writer_queue_enter(wh_writer_queue *q, const wh_inbox_settings *s);
void wh_writer_queue_leave(wh_writer_queue *q);

#endif
