#ifndef WH_REPLAY_LMDB_STORE_H
#define WH_REPLAY_LMDB_STORE_H
/* ReplayCache lmdb behind the store interface (wh_replay_store.h): one
 * machine's store, whose claims hold while their process runs (no lease,
 * no renewal) and whose claim is one LMDB write transaction. */
#include "wh_replay_lmdb.h"
#include "wh_replay_store.h"

/* A store over db, opened in this process, whose memory began at since
 * (0: known new), claiming as owner (wh_replay_owner_self, taken once per
 * process). In p. */
wh_replay_store *wh_replay_lmdb_store(apr_pool_t *p, wh_replay_lmdb *db,
                                      apr_time_t since,
                                      const wh_replay_owner *owner);

#endif
