/* A group's id and a user's home directory through NSS. Nothing else
 * lives here (wh_account.h says why; the user's name is
 * wh_account_name.c's). */
#include "wh_account.h"
#include <apr_strings.h>
#include <grp.h>
#include <pwd.h>

/* getgrnam_r's and getpwuid_r's buffer: an entry that needs more (a group
 * with very many members) is refused rather than truncated. */
#define WH_ACCOUNT_BUF 16384

int wh_group_gid(const char *name, gid_t *gid)
{
    struct group gr, *found = NULL;
    char buf[WH_ACCOUNT_BUF];

    *gid = (gid_t)-1;
    if (!name)
        return 0;
    if (getgrnam_r(name, &gr, buf, sizeof(buf), &found) != 0 || !found)
        return -1;
    *gid = found->gr_gid;
    return 0;
}

const char *wh_user_home(apr_pool_t *p, uid_t uid, const char **home)
{
    struct passwd pw, *found = NULL;
    char buf[WH_ACCOUNT_BUF];

    *home = NULL;
    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) != 0 || !found)
        return apr_psprintf(p, "no account has uid %lu", (unsigned long)uid);
    if (!found->pw_dir || found->pw_dir[0] != '/')
        return apr_psprintf(p, "the account of uid %lu has no home directory",
                            (unsigned long)uid);
    *home = apr_pstrdup(p, found->pw_dir);
    return NULL;
}
