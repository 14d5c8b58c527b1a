/* The self-contained CGI reads /etc/group and /etc/passwd itself: NSS
 * would need, at run time, shared objects of the glibc it was built with.
 * These replace libwirehook.a's wh_account_nss.c and wh_account_name.c
 * (verify/wh_account.h). A group or user only NSS knows (LDAP, sssd) is
 * not found: InboxGroup's group must be in /etc/group, and the account in
 * /etc/passwd for the configuration in its home directory to be found. */
#include "verify/wh_account.h"

#define WH_GROUP_FILE "/etc/group"
#define WH_PASSWD_FILE "/etc/passwd"

int wh_group_gid(const char *name, gid_t *gid)
{
    return wh_group_gid_in(WH_GROUP_FILE, name, gid);
}

const char *wh_user_home(apr_pool_t *p, uid_t uid, const char **home)
{
    return wh_user_home_in(p, WH_PASSWD_FILE, uid, home);
}

const char *wh_user_name(char *buf, apr_size_t size, uid_t uid)
{
    return wh_user_name_in(WH_PASSWD_FILE, buf, size, uid);
}
