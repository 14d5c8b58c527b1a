#ifndef WH_INBOX_PURGE_H
#define WH_INBOX_PURGE_H
/* Retention (docs/inbox.md, "Retention"): what is older than the
 * configuration keeps (InboxRetention, InboxQuarantineRetention,
 * InboxDeadLetterRetention) is deleted in small transactions, so that
 * stores go on meanwhile; SQLite's space is given back; the last purge is
 * recorded in the inbox (wh_purge).
 *
 * What goes, each part in its own transactions:
 *   events     received before now - InboxRetention, oldest first, and
 *              never the newest (arrival keys and listing positions
 *              continue from it); with their listing position and, through
 *              the guard below, their rows in the forward queue. Each
 *              payment's current state (wh_payments) stays: it is kept by
 *              the store transaction and needs none of its events.
 *   quarantine received before now - InboxQuarantineRetention.
 *   auth cache entries that have expired (the table, and the -auth file
 *   beside an SQLite inbox), at every purge. */
#include "wh_inbox.h"

/* Events per transaction: small enough that a store waiting for the write
 * lock waits one transaction (bench/method.md, "Purge"). */
#define WH_PURGE_BATCH 500
/* SQLite pages given back per transaction (4 KiB each). */
#define WH_PURGE_VACUUM_PAGES 512

/* What the forward queue, which lives above the inbox, says about events:
 * it fills this in, the purge calls it inside each transaction (mutex
 * held, statements through wh_inbox_db.h), so the queue is never left
 * pointing at an event that is gone. */
typedef enum {
    WH_PURGE_KEEP = 0,           /* not forwarded yet, or a dead letter kept */
    WH_PURGE_GO,                 /* forwarded, or never queued */
    WH_PURGE_GO_DEAD             /* a dead letter past its retention */
} wh_purge_verdict;

typedef struct {
    void *ctx;
    /* First in each transaction (on PostgreSQL it takes the lock that
     * orders every change of the queue): the highest listing position the
     * queue has taken in; *upto -1: no limit. 0 or a failure code. */
    int (*limit)(void *ctx, wh_inbox *ib, apr_pool_t *p, apr_int64_t *upto);
    /* verdict[i] for each of the n events idv[] (ids: the same as a JSON
     * array). A dead letter that died before dead_before goes; 0: none
     * does. 0 or a failure code. */
    int (*judge)(void *ctx, wh_inbox *ib, apr_pool_t *p, const char *ids,
                 const apr_int64_t *idv, int n, apr_time_t dead_before,
                 unsigned char *verdict);
    /* Deletes its rows of the events ids (a JSON array) that go. */
    int (*forget)(void *ctx, wh_inbox *ib, apr_pool_t *p, const char *ids);
} wh_purge_guard;

typedef struct {
    apr_int64_t events;          /* events purged, dead letters included */
    apr_int64_t dead_letters;    /* of them, dead letters */
    apr_int64_t quarantine;      /* quarantined bodies purged */
    apr_int64_t auth_cache;      /* expired auth-cache entries */
    apr_int64_t kept;            /* old enough, kept for the forwarder: not
                                    forwarded yet, or a dead letter inside
                                    InboxDeadLetterRetention */
    int behind;                  /* older events are kept because the
                                    forwarder has not taken them in yet */
    apr_int64_t pages_freed;     /* SQLite: pages given back to the file
                                    system */
    apr_int64_t pages_free;      /* SQLite: free pages left in the file,
                                    which new events reuse (an inbox made
                                    before auto_vacuum: `wirehook inbox
                                    vacuum` gives them back) */
    int auto_vacuum;             /* SQLite: PRAGMA auto_vacuum (0, 1, 2) */
    apr_int64_t transactions;
} wh_purge_counts;

typedef struct {
    apr_time_t now;              /* what "older" is measured from */
    int dry_run;                 /* every transaction is rolled back */
    int batch;                   /* events per transaction; 0: WH_PURGE_BATCH */
    const wh_purge_guard *guard; /* NULL: no forward queue to ask */
} wh_purge_opts;

typedef struct wh_purge wh_purge;

/* A purge of ib by cfg's retention (finalized: the quarantine's and the
 * dead letters' follow InboxRetention when unset), living in p. Nothing
 * runs until the first step. */
wh_purge *wh_purge_begin(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                         const wh_purge_opts *o);
/* One transaction of it: 1 when there is more to do, 0 when it is done
 * (and recorded, unless a dry run), -1 when the database is unavailable
 * (logged; the next step starts that part again where it was). */
int wh_purge_step(wh_purge *pg, apr_pool_t *scratch);
const wh_purge_counts *wh_purge_result(const wh_purge *pg);

/* A whole purge: every step, each followed by a pause as long as it took
 * (at least 1 ms, at most 50 ms), so a store waits at most one
 * transaction. 0, or -1 when the database failed (out: what was done). */
int wh_inbox_purge(wh_inbox *ib, apr_pool_t *p, const wh_config *cfg,
                   const wh_purge_opts *o, wh_purge_counts *out);

/* 1 when cfg purges events or quarantined bodies (a retention is set);
 * expired auth-cache entries go at any purge. */
int wh_purge_configured(const wh_config *cfg);

/* A line for `wirehook configtest`: what the retention keeps. NULL
 * without an inbox. */
const char *wh_inbox_retention_note(apr_pool_t *p, const wh_config *cfg);

/* The last purge recorded in the inbox (a dry run records nothing). */
typedef struct {
    apr_time_t started_at;
    apr_time_t finished_at;
    apr_int64_t events;          /* dead letters included */
    apr_int64_t dead_letters;
    apr_int64_t quarantine;
    apr_int64_t auth_cache;
} wh_inbox_purge_record;

/* 1 with *out, 0 when no purge has run on this inbox, -1 when the
 * database is unavailable. A read: any process, any thread. */
int wh_inbox_last_purge(wh_inbox *ib, apr_pool_t *p, wh_inbox_purge_record *out);

#endif
