/* A group's id and a user's home directory from /etc/group and
 * /etc/passwd alone, without NSS (wh_account.h). */
#include "wh_account.h"
#include <apr_strings.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

/* One entry's buffer. A longer line (a group with thousands of members)
 * is skipped whole: it cannot be the entry asked for without being read,
 * but the entries after it still count. */
#define WH_ACCOUNT_LINE 16384

/* After ERANGE the *ent_r functions leave the stream at the start of the
 * line that did not fit: step over it. */
static void skip_line(FILE *f)
{
    int c;
    while ((c = getc(f)) != EOF && c != '\n')
        ;
}

static int compat_entry(const char *name)
{
    return name[0] == '+' || name[0] == '-';
}

int wh_group_gid_in(const char *group_file, const char *name, gid_t *gid)
{
    char buf[WH_ACCOUNT_LINE];
    struct group gr, *ent;
    FILE *f;
    int rv, found = -1;

    *gid = (gid_t)-1;
    if (!name)
        return 0;
    if (!*name || !(f = fopen(group_file, "re")))
        return -1;
    while ((rv = fgetgrent_r(f, &gr, buf, sizeof(buf), &ent)) == 0
           || rv == ERANGE) {
        if (rv == ERANGE) {
            skip_line(f);
            continue;
        }
        if (!compat_entry(ent->gr_name) && strcmp(ent->gr_name, name) == 0) {
            *gid = ent->gr_gid;
            found = 0;
            break;
        }
    }
    fclose(f);
    return found;
}

/* The first entry of uid in a passwd file, or NULL (errno says why when
 * the file cannot be read). */
static const struct passwd *find_uid(FILE *f, uid_t uid, struct passwd *pw,
                                     char *buf, apr_size_t size)
{
    struct passwd *ent;
    int rv;

    while ((rv = fgetpwent_r(f, pw, buf, size, &ent)) == 0 || rv == ERANGE) {
        if (rv == ERANGE) {
            skip_line(f);
            continue;
        }
        if (!compat_entry(ent->pw_name) && ent->pw_uid == uid)
            return ent;
    }
    return NULL;
}

const char *wh_user_home_in(apr_pool_t *p, const char *passwd_file, uid_t uid,
                            const char **home)
{
    char buf[WH_ACCOUNT_LINE];
    struct passwd pw;
    const struct passwd *ent;
    const char *err = NULL;
    FILE *f;

    *home = NULL;
    if (!(f = fopen(passwd_file, "re")))
        return apr_psprintf(p, "%s: %s", passwd_file, strerror(errno));
    ent = find_uid(f, uid, &pw, buf, sizeof(buf));
    if (!ent)
        err = apr_psprintf(p, "%s: no account has uid %lu", passwd_file,
                           (unsigned long)uid);
    else if (ent->pw_dir && ent->pw_dir[0] == '/')
        *home = apr_pstrdup(p, ent->pw_dir);
    else
        err = apr_psprintf(p,
                           "%s: the account of uid %lu has no home "
                           "directory",
                           passwd_file, (unsigned long)uid);
    fclose(f);
    return err;
}

const char *wh_user_name_in(const char *passwd_file, char *buf,
                            apr_size_t size, uid_t uid)
{
    char line[WH_ACCOUNT_LINE];
    struct passwd pw;
    const struct passwd *ent = NULL;
    FILE *f = fopen(passwd_file, "re");

    if (f) {
        ent = find_uid(f, uid, &pw, line, sizeof(line));
        if (ent && ent->pw_name && *ent->pw_name)
            apr_cpystrn(buf, ent->pw_name, size);
        fclose(f);
    }
    if (!ent || !ent->pw_name || !*ent->pw_name)
        apr_snprintf(buf, size, "uid %lu", (unsigned long)uid);
    return buf;
}
