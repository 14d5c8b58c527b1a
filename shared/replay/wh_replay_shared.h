#ifndef WH_REPLAY_SHARED_H
#define WH_REPLAY_SHARED_H
/* Opening the store several servers share that a ReplayCache names
 * (redis, memcache, pgsql, mysql), for the module's children and for
 * `wirehook replay init` alike. A file of its own, so that a program that
 * never opens one (wirehook.cgi) does not link their clients. */
#include "wh_replay.h"
#include "wh_replay_store.h"

/* Opens m's store with at most conns connections, each call bounded by
 * WH_REPLAY_NET_TIMEOUT; a pgsql or mysql store without arguments of its
 * own is the inbox's database (inbox_params). NULL, or why it cannot be
 * opened. */
const char *wh_replay_shared_open(apr_pool_t *p, const wh_replay_model *m,
                                  const char *inbox_params, int conns,
                                  wh_replay_store **st);

#endif
