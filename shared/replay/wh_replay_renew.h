#ifndef WH_REPLAY_RENEW_H
#define WH_REPLAY_RENEW_H
/* Keeping the claims of deliveries still running: a claim in a store
 * several servers share holds for a lease (ReplayLease, wh_claim.lease),
 * so that the claim of a server that died lapses and the bank's retry is
 * delivered. A delivery may run longer than the lease (an application
 * taking minutes): while it runs, its process renews the claim. One
 * renewer per process (per httpd child) holds the claims its deliveries
 * have open and, on a thread of its own, renews each of them every period
 * (a third of the shortest lease) for its own lease, with the store's own
 * compare-and-extend, which extends a claim only while it is still this
 * holder's. A holder that dies stops renewing: its claims lapse one lease
 * after their last renewal, and only then.
 *
 * The same thread settles what the process owes a store for claims
 * nobody holds (wh_replay_settle.h), as it falls due.
 *
 * The claims are renewed outside the renewer's lock (a store's round trip
 * never holds up a delivery registering or leaving); a claim that left
 * meanwhile is renewed at most once more, and the compare makes that a
 * no-op once it is confirmed or forgotten. */
#include "wh_replay_store.h"
#include "verify/wh_log.h"
#include <apr_pools.h>
#include <apr_time.h>

typedef struct wh_replay_renewer wh_replay_renewer;
typedef struct wh_replay_open wh_replay_open;
typedef struct wh_replay_settle wh_replay_settle;

/* A renewer without a thread (passes are run by wh_replay_renewer_pass):
 * log (may be NULL) hears of a claim that could not be renewed. Lives
 * until p is cleared. NULL or the error. */
const char *wh_replay_renewer_create(apr_pool_t *p, const wh_logger *log,
                                     wh_replay_renewer **out);

/* Starts the thread: a pass every period, until p is cleared (which
 * stops and joins it). NULL or the error. */
const char *wh_replay_renewer_start(wh_replay_renewer *rn,
                                    apr_interval_time_t period);

/* A claim of holder on id in st, made for lease and renewed for it,
 * open until removed. NULL when out of memory or the id or holder is too
 * long (the claim then lapses after its lease if the delivery outlives
 * it). */
wh_replay_open *wh_replay_renewer_add(wh_replay_renewer *rn,
                                      wh_replay_store *st, const char *id,
                                      const char *holder,
                                      apr_interval_time_t lease);
/* The delivery ended (confirmed, forgotten, or its request gone). */
void wh_replay_renewer_remove(wh_replay_renewer *rn, wh_replay_open *o);

/* One pass now, on the calling thread: every open claim is renewed.
 * Returns how many were; *lost (may be NULL): how many were no longer
 * their holder's; *failed: how many the store could not renew. */
int wh_replay_renewer_pass(wh_replay_renewer *rn, int *lost, int *failed);

/* The thread also settles s's entries (wh_replay_settle.h) as they fall
 * due, between its passes. Before wh_replay_renewer_start. */
void wh_replay_renewer_settle(wh_replay_renewer *rn, wh_replay_settle *s);
/* Wakes the thread: it settles what is due now and sleeps until the next
 * entry falls due (call it after adding one, or after a store answered
 * again: wh_replay_settle_answered). */
void wh_replay_renewer_poke(wh_replay_renewer *rn);

/* Claims open now; renewal passes completed by the thread. */
unsigned wh_replay_renewer_open_count(wh_replay_renewer *rn);
unsigned wh_replay_renewer_passes(wh_replay_renewer *rn);

#endif
