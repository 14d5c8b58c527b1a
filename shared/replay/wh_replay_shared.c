/* Opening a shared replay store by provider (see wh_replay_shared.h). */
#include "wh_replay_shared.h"
#include "wh_replay_memcache.h"
#include "wh_replay_mysql.h"
#include "wh_replay_pgsql.h"
#include "wh_replay_redis.h"
#include <string.h>

const char *wh_replay_shared_open(apr_pool_t *p, const wh_replay_model *m,
                                  const char *inbox_params, int conns,
                                  wh_replay_store **st)
{
    if (strcmp(m->provider, "redis") == 0)
        return wh_replay_redis_open(p, m->host, m->port, conns,
                                    WH_REPLAY_NET_TIMEOUT, st);
    if (strcmp(m->provider, "memcache") == 0)
        return wh_replay_memcache_open(p, m->host, m->port, conns,
                                       WH_REPLAY_NET_TIMEOUT, st);
    if (strcmp(m->provider, "pgsql") == 0)
        return wh_replay_pgsql_open(p, m->conninfo ? m->conninfo : inbox_params,
                                    conns, WH_REPLAY_NET_TIMEOUT, st);
    if (strcmp(m->provider, "mysql") == 0)
        return wh_replay_mysql_open(p, m->conninfo ? m->conninfo : inbox_params,
                                    conns, WH_REPLAY_NET_TIMEOUT, st);
    return "unknown provider";
}
