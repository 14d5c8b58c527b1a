/* Group names in configuration files. Checked when the file is read, not
 * at the first store: a group that does not exist would otherwise pass
 * start-up and cost every notification a 503. */
#include "wh_account.h"
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* Longest group name accepted (useradd's limit). */
#define WH_GROUP_NAME_MAX 32

const char *wh_parse_group(apr_pool_t *p, const char *arg, const char **out)
{
    apr_size_t n = arg ? strlen(arg) : 0;
    gid_t gid;

    if (n == 0 || n > WH_GROUP_NAME_MAX)
        return apr_psprintf(p, "must be a group name of 1 to %d characters",
                            WH_GROUP_NAME_MAX);
    for (apr_size_t i = 0; i < n; i++)
        if (!apr_isalnum(arg[i]) && arg[i] != '_' && arg[i] != '-' && arg[i] != '.')
            return "must be a group name (letters, digits, '_', '-', '.')";
    if (arg[0] == '-')
        return "must not begin with '-'";
    if (wh_group_gid(arg, &gid) != 0)
        return "no such group on this system";
    *out = apr_pstrdup(p, arg);
    return NULL;
}
