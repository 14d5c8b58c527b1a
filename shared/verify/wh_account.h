#ifndef WH_ACCOUNT_H
#define WH_ACCOUNT_H
/* The system's accounts, for what wirehook needs of them: a group's id
 * (InboxGroup), a user's home directory (where wirehook.cgi looks for its
 * configuration, wh_config_locate.h) and a user's name (for messages).
 *
 * wh_group_gid(), wh_user_home() and wh_user_name() ask NSS (getgrnam_r,
 * getpwuid_r), so groups and users from LDAP or sssd count. They live
 * apart (wh_account_nss.c, wh_account_name.c): a program that must not
 * use NSS (the self-contained CGI, which has no shared object to load an
 * NSS module from) defines them itself on top of the file readers below,
 * and libwirehook.a's are then never linked into it. */
#include <apr_pools.h>
#include <sys/types.h>

/* A group name that exists on this system. NULL or the broken rule. */
const char *wh_parse_group(apr_pool_t *p, const char *arg, const char **out);
/* The group's id: 0, or -1 when it does not exist (*gid is then
 * (gid_t)-1). A NULL name is no group: 0 with (gid_t)-1. */
int wh_group_gid(const char *name, gid_t *gid);
/* NULL and *home (in p), or why uid's home directory is not known. */
const char *wh_user_home(apr_pool_t *p, uid_t uid, const char **home);
/* The name of the account uid, for messages that say which user lacked a
 * permission: written into buf (size bytes), "uid N" when the system does
 * not know it; returns buf. */
const char *wh_user_name(char *buf, apr_size_t size, uid_t uid);

/* The same from group(5) and passwd(5) files alone (fgetgrent_r,
 * fgetpwent_r: no NSS). The first entry that matches wins, as with NSS's
 * files service; NIS compat entries (+name, -name) are skipped. */
int wh_group_gid_in(const char *group_file, const char *name, gid_t *gid);
const char *wh_user_home_in(apr_pool_t *p, const char *passwd_file, uid_t uid,
                            const char **home);
const char *wh_user_name_in(const char *passwd_file, char *buf,
                            apr_size_t size, uid_t uid);

#endif
