#ifndef WH_MOD_REPLAY_H
#define WH_MOD_REPLAY_H
/* Replay protection in httpd (ReplayCache): one store per distinct spec. */
#include "wh_mod_config.h"

#define WH_MOD_MUTEX_TYPE   "wirehook-replay"
void wh_mod_replay_register(void);
/* Looks the id of v's facts up in rp and, unless it is held, claims it
 * for this delivery (*claim, to confirm or forget); logs what the store
 * said, and v becomes the core's verdict on it (wh_replay_verdict.h):
 * still accepted, or to be answered. */
void wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                         const wh_config *cfg, wh_verdict *v,
                         wh_mod_claim **claim);
/* The delivery failed (final status 5xx): the claim goes, the bank's
 * retry is delivered. */
void wh_mod_replay_forget(request_rec *r, wh_mod_claim *claim);
/* The delivery succeeded (final status below 500): from now on a copy is
 * a duplicate for ReplayWindow. */
void wh_mod_replay_confirm(request_rec *r, wh_mod_claim *claim,
                           const wh_config *cfg);
/* The store a claim was made in. */
wh_mod_replay *wh_mod_replay_of_claim(const wh_mod_claim *claim);
/* For server-status: the provider's name ("lmdb", "redis", ...). */
const char *wh_mod_replay_provider(const wh_mod_replay *rp);
/* For server-status: ids held against capacity (0: no fixed capacity);
 * -1 when the store cannot tell (the shared ones). */
int wh_mod_replay_fill(const wh_mod_replay *rp, apr_uint64_t *live,
                       apr_uint64_t *capacity);
/* For server-status: 0 when the store answers (one round trip to a shared
 * store; nothing to ask of a file), -1 when it does not. */
int wh_mod_replay_health(const wh_mod_replay *rp, apr_pool_t *p);

#endif
