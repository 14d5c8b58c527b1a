#ifndef WH_REPLAY_MEMCACHE_H
#define WH_REPLAY_MEMCACHE_H
/* ReplayCache memcache:HOST:PORT through libmemcached: a replay store
 * several servers share. A claim is memcached's add (stored only if the
 * key is absent, atomically in the server), after one multi-get of the id
 * and the epoch marker; renewing and forgetting a claim are gets and a
 * cas (the claim is changed only if it is still the one read, so only
 * while it is still this holder's); confirming is a set for the window.
 * A forgotten claim leaves "0" for a second (memcached deletes without a
 * compare), which holds nothing. Expiries are memcached's own clock, in
 * whole seconds.
 *
 * One memcached server: with several, the keys are spread over them and
 * one restarted server would lose its ids while the epoch marker lives
 * on another, unnoticed. Connections as wh_replay_redis.h. */
#include "wh_replay_store.h"

const char *wh_replay_memcache_open(apr_pool_t *p, const char *host, int port,
                                    int max_conns, apr_interval_time_t timeout,
                                    wh_replay_store **out);

#endif
