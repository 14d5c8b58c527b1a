#ifndef WH_ACCOUNT_H
#define WH_ACCOUNT_H
/* The system's groups, as configuration keys name them (InboxGroup). */
#include <apr_pools.h>
#include <sys/types.h>

/* A group name that exists on this system. NULL or the broken rule. */
const char *wh_parse_group(apr_pool_t *p, const char *arg, const char **out);
/* The group's id: 0, or -1 when it does not exist (*gid is then
 * (gid_t)-1). A NULL name is no group: 0 with (gid_t)-1. */
int wh_group_gid(const char *name, gid_t *gid);

#endif
