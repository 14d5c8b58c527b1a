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

/* The name of the account uid, for messages that say which user lacked a
 * permission: written into buf (size bytes), "uid N" when the system does
 * not know it; returns buf. Alone in wh_account_name.c (it asks NSS). */
const char *wh_user_name(char *buf, apr_size_t size, uid_t uid);

#endif
