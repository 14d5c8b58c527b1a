/* A user's name for messages (wh_account.h). Alone in its file: it asks
 * NSS, and a program that must not (a self-contained CGI) can define
 * wh_user_name itself, so that this one is never linked into it. */
#include "wh_account.h"
#include <apr_strings.h>
#include <pwd.h>

#define WH_PASSWD_BUF 16384

const char *wh_user_name(char *buf, apr_size_t size, uid_t uid)
{
    struct passwd pw, *found = NULL;
    char pwbuf[WH_PASSWD_BUF];

    if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &found) == 0 && found
        && found->pw_name && *found->pw_name)
        apr_cpystrn(buf, found->pw_name, size);
    else
        apr_snprintf(buf, size, "uid %lu", (unsigned long)uid);
    return buf;
}
