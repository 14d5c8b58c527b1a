#ifndef WH_REPLAY_SETTLE_H
#define WH_REPLAY_SETTLE_H
/* Claims nobody holds, settled with their store once it answers again.
 *
 * A claim in a store several servers share holds its id for a lease
 * (ReplayLease): every copy meanwhile is answered 503
 * delivery_in_progress. That is right while a delivery runs under it, and
 * wrong when none does:
 *
 *   release  a claim whose answer never came (wh_claim_info.lost: the
 *            store stalled or the connection broke after the claim was
 *            sent; the request was answered 503 and nothing is delivered
 *            under it, but the store may have made the claim, or make it
 *            when it runs again), and a claim whose delivery failed (5xx)
 *            when the store could not be told: removed with the store's
 *            forget, which compares the holder token, so a claim any other
 *            delivery holds stays (a token is unique to one claim);
 *   confirm  a delivery that succeeded when the store could not be told:
 *            the id is made a duplicate for its window, so its claim does
 *            not lapse into a second delivery.
 *
 * Each process remembers what it owes in a bounded list and settles it on
 * the renewal thread (wh_replay_renew.h), or at once on the request path
 * when a copy finds its id held (wh_replay_settle_id). The rules:
 *
 *   - a release that removed the claim, and a confirm the store took, are
 *     done;
 *   - a release that found nothing of its holder's is done when a second
 *     one, sent at least WH_REPLAY_SETTLE_QUIET later, finds nothing
 *     either: a claim a stalled store had yet to run runs as soon as the
 *     store runs again, so by then it has been made (and the second
 *     release removes it) or never will be;
 *   - a pass asks each store whether it answers (its health) before it
 *     sends the store anything owed: a release sent into a stalled
 *     store's queue could run after the lost claim it is for, remove it,
 *     and have its answer lost, and the claim's release would never be
 *     said (settle_id needs no such question: the store has just
 *     answered the copy's claim);
 *   - a store that cannot be reached: the entry is tried again after
 *     WH_REPLAY_SETTLE_RETRY (sooner when the store answers a request
 *     meanwhile: wh_replay_settle_answered), the rest of that store's
 *     entries wait with it (a pass never waits out a timeout per entry),
 *     and a release counts its "nothing there" answers anew;
 *   - at most max entries: one more is refused and said (its claim lapses
 *     after its lease, as it would without this list).
 *
 * Passes and settle_id may run on several threads: an entry being tried
 * is marked busy, and only whoever marked it changes or removes it. */
#include "wh_replay_store.h"
#include "verify/wh_log.h"
#include <apr_pools.h>
#include <apr_time.h>

/* Entries a process keeps at most. */
#define WH_REPLAY_SETTLE_MAX 1024
/* How long after a release found nothing a second one is sent: as long as
 * a shared store's reply may take. */
#define WH_REPLAY_SETTLE_QUIET WH_REPLAY_NET_TIMEOUT
/* How soon an entry whose store could not be reached is tried again. */
#define WH_REPLAY_SETTLE_RETRY apr_time_from_sec(1)

typedef enum { WH_SETTLE_RELEASE, WH_SETTLE_CONFIRM } wh_settle_kind;

typedef struct wh_replay_settle wh_replay_settle;

/* An empty list of at most max entries (0: WH_REPLAY_SETTLE_MAX); log
 * (may be NULL) hears what is settled or refused. Lives until p is
 * cleared. NULL or the error. */
const char *wh_replay_settle_create(apr_pool_t *p, unsigned max,
                                    const wh_logger *log,
                                    wh_replay_settle **out);

/* Owes st the outcome kind for holder's claim on id (window_sec: the
 * confirm's ReplayWindow), first tried at now + WH_REPLAY_SETTLE_RETRY.
 * 0 remembered (or already), -1 refused: full (logged), an id or holder
 * too long, no holder, no memory. */
int wh_replay_settle_add(wh_replay_settle *s, wh_replay_store *st,
                         wh_settle_kind kind, const char *id,
                         const char *holder, apr_int64_t window_sec,
                         apr_time_t now);

typedef struct {
    int released;      /* releases that removed a claim */
    int confirmed;     /* confirms the store took */
    int nothing;       /* releases done: nothing was there, twice */
    int failed;        /* tries the store did not answer */
} wh_settle_counts;

/* One pass at now on the calling thread: every entry due is tried, each
 * store's once it answered its health (after a failure, the store's other
 * entries wait). Entries done; *c (may be NULL) says how each try went
 * (a health unanswered counts as a failed try). */
int wh_replay_settle_pass(wh_replay_settle *s, apr_time_t now,
                          wh_settle_counts *c);

/* A copy of id found it held in st: the releases owed for id in st are
 * tried now, on the calling thread, whether due or not. 1 when one
 * removed a claim (claim again: it was nobody's), else 0. */
int wh_replay_settle_id(wh_replay_settle *s, wh_replay_store *st,
                        const char *id, apr_time_t now);

/* Claims c in st for a delivery, through s (NULL: a plain claim): a claim
 * whose answer was lost is owed a release; a claim finding the id held by
 * one this process owes a release settles that at once and claims again,
 * under a new holder from h (the old token's release, whenever it runs,
 * then touches no claim of this delivery): c->holder is the one to
 * deliver under. *wake: an entry was owed, or the store answered while
 * entries waited; whoever runs the passes should look now. */
wh_claim_result wh_replay_settle_claim(wh_replay_settle *s, wh_replay_store *st,
                                       apr_pool_t *p, wh_replay_holders *h,
                                       wh_claim *c, wh_claim_info *info,
                                       int *wake);

/* st answered a request: its entries waiting after a failure are due now.
 * 1 when any are (wake whoever runs the passes), else 0. */
int wh_replay_settle_answered(wh_replay_settle *s, wh_replay_store *st);

/* When the earliest entry is due (0: none is owed). */
apr_time_t wh_replay_settle_due(wh_replay_settle *s);

/* Entries owed now (read without the lock: a hint). */
unsigned wh_replay_settle_pending(const wh_replay_settle *s);

#endif
