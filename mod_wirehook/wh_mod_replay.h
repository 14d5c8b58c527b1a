#ifndef WH_MOD_REPLAY_H
#define WH_MOD_REPLAY_H
/* Replay protection in httpd (ReplayCache): one store per distinct spec. */
#include "wh_mod_site.h"

typedef enum {
    WH_REPLAY_FIRST = 0,                /* claimed now: deliver */
    WH_REPLAY_DUPLICATE,
    WH_REPLAY_UNAVAILABLE,              /* cannot promise: answer 503 */
    WH_REPLAY_IN_PROGRESS               /* another copy's delivery is under
                                           way: 503, retry later */
} wh_replay_result;
#define WH_MOD_MUTEX_TYPE   "wirehook-replay"
void wh_mod_replay_register(void);
wh_replay_result wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                                     const wh_config *cfg,
                                     const wh_facts *facts);
void wh_mod_replay_forget(request_rec *r, wh_mod_replay *rp, const char *id);
/* The delivery of id succeeded (final status below 500): from now on a
 * copy is a duplicate for the rest of ReplayWindow. */
void wh_mod_replay_settle(request_rec *r, wh_mod_replay *rp, const char *id,
                          const wh_config *cfg);
/* For server-status: the provider's name ("dbm", "shmcb", ...). */
const char *wh_mod_replay_provider(const wh_mod_replay *rp);
/* For server-status: live ids against capacity (0: no fixed capacity);
 * -1 when unknown. Live ids are those this server stored within the
 * window (a shared memcached or redis holds the other servers' too). */
int wh_mod_replay_fill(const wh_mod_replay *rp, apr_uint64_t *live,
                       apr_uint64_t *capacity);

#endif
