#ifndef WH_INBOX_H
#define WH_INBOX_H
#include <apr_pools.h>
#include <apr_time.h>
#include "verify/wh_config.h"
#include "verify/wh_verdict.h"
#include "verify/wh_log.h"

/* The durable inbox: accepted notifications in SQLite (default) or
 * PostgreSQL through apr_dbd, same schema and SQL on both. */
typedef struct wh_inbox wh_inbox;

/* After a failed connection attempt, a long-lived inbox (the module's)
 * tries again at most this often; requests meanwhile answer 503 at once,
 * saying so (Retry-After). */
#define WH_INBOX_RETRY_MS 2000

typedef enum {
    WH_INBOX_STORED = 0,
    WH_INBOX_DUPLICATE,
    WH_INBOX_UNAVAILABLE         /* locked past the wait, full, read-only,
                                    unreachable: answer 503 */
} wh_inbox_result;

/* Opens the database named by cfg (InboxDriver/InboxParams), creating or
 * upgrading the versioned schema (a new SQLite file mode 0600, or 0640 and
 * InboxGroup's group). The inbox lives as long as p. Returns NULL or an
 * error message: a database that is down now is no error (the inbox
 * reconnects, at most every WH_INBOX_RETRY_MS, answering
 * WH_INBOX_UNAVAILABLE meanwhile); one newer than this wirehook, or a
 * missing driver, is. */
const char *wh_inbox_open(apr_pool_t *p, const wh_config *cfg,
                          const wh_logger *log, wh_inbox **out);

/* wh_inbox_open with flags:
 * WH_INBOX_GROUP_COMMIT: stores from several threads share transactions
 *   (InboxBatchMax, InboxBatchWait); for a long-lived, threaded host.
 * WH_INBOX_READ_ONLY: an existing database, for reading only: nothing is
 *   created, upgraded or written, and an SQLite file is opened read-only
 *   (SQLite may still need to create its -shm index beside it, with the
 *   database's mode). Fails (NULL inbox) when there is no usable database,
 *   which a reader treats as "nothing there". */
#define WH_INBOX_GROUP_COMMIT 1
#define WH_INBOX_READ_ONLY 2
const char *wh_inbox_open_ex(apr_pool_t *p, const wh_config *cfg,
                             const wh_logger *log, int flags, wh_inbox **out);

/* Turns a WH_INBOX_READ_ONLY inbox into an ordinary one, once its caller
 * may write (the request has passed Basic auth): SQLite opens the file
 * for writing (creating it if need be) at the next use; PostgreSQL goes
 * on in the same session, creating or upgrading the schema now. */
void wh_inbox_allow_writes(wh_inbox *ib, apr_pool_t *p);

/* Commits the notification durably before returning (with group commit,
 * in a transaction it may share with other threads' stores). seq_out (may
 * be NULL) receives its listing position (1, 2, 3 ... without gaps); on
 * PostgreSQL asking for it waits for the sequencer. */
wh_inbox_result wh_inbox_store(wh_inbox *ib, apr_pool_t *p,
                               const wh_facts *facts, const char *body,
                               apr_size_t body_len, apr_time_t now,
                               apr_int64_t *seq_out);

/* Keeps an authentic body that failed JSON/schema checks, with the
 * verdict's code and problems, out of the listed events. */
wh_inbox_result wh_inbox_quarantine(wh_inbox *ib, apr_pool_t *p,
                                    const wh_verdict *v, const char *body,
                                    apr_size_t body_len, apr_time_t now);

typedef struct {
    apr_int64_t offset;          /* records to skip, default 0 */
    int limit;                   /* 1..ListMaxLimit, default ListDefaultLimit */
    const char *payment_id;      /* filter or NULL */
    const char *status;          /* filter or NULL, whatever its case */
    const char *notification_id; /* filter or NULL: the one event */
} wh_page_query;

/* Parses a raw query string ("offset=0&limit=25&paymentId=..", and
 * status, notificationId).
 * Returns NULL or the problem (answer 400 invalid_pagination). */
const char *wh_pagination_parse(apr_pool_t *p, const char *query,
                                 const wh_config *cfg, wh_page_query *out);

/* Builds {"events":[...],"pagination":{"offset":"N","moreRecords":b}}
 * with each event's body exactly as received. */
wh_inbox_result wh_inbox_list(wh_inbox *ib, apr_pool_t *p,
                              const wh_page_query *q, const char **json_out);

/* For a process about to exit (wirehook.cgi): with SQLite, lets the
 * connection go with the process instead of closing it, so the close-time
 * WAL checkpoint (two more fsyncs, and deleting and recreating the WAL file
 * with a directory fsync, every request) is skipped. Durability is
 * unchanged: every commit was already synced to the WAL before its
 * answer (wh_inbox_walsync.c), and the next connection recovers the WAL
 * exactly as after a crash. That recovery reads the whole WAL, so once the WAL has
 * grown past WH_INBOX_EXIT_WAL_MAX the connection is closed normally
 * instead: as the last connection, SQLite checkpoints the WAL into the
 * database and removes it; with others open (the module sharing the file),
 * it just closes and they keep the WAL in check. Other drivers close
 * normally. The inbox must not be used afterwards. */
void wh_inbox_release_for_exit(wh_inbox *ib);

/* The cache of successful Basic-auth checks (wh_auth_store over the
 * inbox database; wirehook.cgi uses it for an inbox with no file beside
 * it, PostgreSQL or an SQLite file: URI, and wh_auth_file.h for the
 * others). key is the store key of
 * wh_auth.h, never a credential. lookup only reads (WAL readers never wait
 * for a writer): 1 with *user (in p) and *expires for an entry with
 * expires > now; 0 on a miss or any failure. store records key -> user
 * until expires (a new entry, or the sliding expiry of one in use) and
 * drops entries expired at now, in one durable commit; 0 or -1. A caller
 * should write only after its own request has been answered by the
 * database: the write waits for the lock like any other. */
int wh_inbox_auth_lookup(wh_inbox *ib, apr_pool_t *p, const char *key,
                         apr_time_t now, const char **user, apr_time_t *expires);
int wh_inbox_auth_store(wh_inbox *ib, apr_pool_t *p, const char *key,
                        const char *user, apr_time_t now, apr_time_t expires);

#endif
