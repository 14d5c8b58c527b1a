/* wirehook configtest as the server's user (configtest_as.h). The check is
 * the real one: a child process takes on the user's ids and groups and
 * asks access(2), so ACLs, every directory on the way and supplementary
 * groups count as they will for the server. */
#include "configtest_as.h"
#include "inbox/wh_inbox_files.h"

#include <apr_strings.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define WH_PW_BUF 16384
/* One report line's limit, and the most the child reports. */
#define WH_LINE_MAX 2048
#define WH_REPORT_MAX (64 * 1024)

const char *wh_configtest_default_user(void)
{
    const char *env = getenv("APACHE_RUN_USER");

    if (geteuid() != 0)
        return NULL;
    if (env && *env && getpwnam(env))
        return env;
    return getpwnam("www-data") ? "www-data" : NULL;
}

typedef struct {
    FILE *out;
    const wh_config *cfg;
    const char *user;
    const char *group;      /* the user's primary group, for the advice */
    apr_pool_t *p;
} ctx;

static void report(ctx *c, char kind, const char *line)
{
    fprintf(c->out, "%c%s\n", kind, line);
}

/* A file the module reads as root at start: unreadable by the user, it
 * still works there, but the re-reads after a change, the CGI and the
 * forwarder fail: a warning that says so and how to fix it. */
static void readable(ctx *c, const char *key, const char *path,
                     const char *who_reads)
{
    if (!path || access(path, R_OK) == 0)
        return;
    report(c, 'W', apr_psprintf(c->p, "%s%s %s: user %s cannot read it (%s): "
                                "%s; chgrp %s %s && chmod 640 %s",
                                key ? wh_config_where(c->p, c->cfg, key) : "",
                                key ? key : "configuration file", path, c->user,
                                strerror(errno), who_reads, c->group, path, path));
}

/* The SQLite inbox: every writer (module children, CGI, forwarder) opens
 * it as the user, creating the database and its -wal, -shm, -lock and
 * -auth files beside it: an error. */
static void inbox_writable(ctx *c)
{
    const char *db = wh_inbox_sqlite_file(c->cfg);
    const char *where = wh_config_where(c->p, c->cfg, "InboxParams");
    const char *dir;

    if (!db)
        return;
    dir = wh_inbox_file_dir(c->p, db);
    if (access(db, F_OK) == 0 && access(db, R_OK | W_OK) != 0)
        report(c, 'E', apr_psprintf(c->p, "%sInboxParams %s: user %s cannot "
                                    "write it (%s)", where, db, c->user,
                                    strerror(errno)));
    else if (access(dir, W_OK | X_OK) != 0)
        report(c, 'E', apr_psprintf(c->p, "%sInboxParams %s: user %s cannot "
                                    "create files in %s (%s): the database and "
                                    "its -wal, -shm, -lock and -auth files go "
                                    "there; install -d -o %s -g %s -m 750 %s", where,
                                    db, c->user, dir, strerror(errno), c->user,
                                    c->group, dir));
}

static void checks(ctx *c, const char *config_path)
{
    readable(c, NULL, config_path,
             "the CGI and wirehook forward read it as that user");
    readable(c, "SigningSecretFile", c->cfg->signing_secret_file,
             "the CGI reads it as that user, and the module after a change");
    readable(c, "BasicAuthFile", c->cfg->basic_auth_file,
             "the CGI reads it as that user, and the module after a change");
    readable(c, "ConsoleReaders", c->cfg->console_readers_file,
             "the CGI's console reads it as that user");
    readable(c, "ConsoleOperators", c->cfg->console_operators_file,
             "the CGI's console reads it as that user");
    readable(c, "ForwardSecretFile", c->cfg->forward_secret_file,
             "wirehook forward reads it as that user");
    readable(c, "ForwardCAFile", c->cfg->forward_ca_file,
             "wirehook forward reads it as that user");
    inbox_writable(c);
}

static int become(const char *user, const char **group, char *buf,
                  apr_size_t size)
{
    struct passwd pw, *found = NULL;
    struct group gr, *g = NULL;
    static char grbuf[WH_PW_BUF];

    if (getpwnam_r(user, &pw, buf, size, &found) != 0 || !found)
        return -1;
    if (getgrgid_r(found->pw_gid, &gr, grbuf, sizeof(grbuf), &g) == 0 && g)
        *group = g->gr_name;
    if (geteuid() == found->pw_uid)
        return 0;
    if (initgroups(found->pw_name, found->pw_gid) != 0
        || setgid(found->pw_gid) != 0 || setuid(found->pw_uid) != 0)
        return -1;
    return 0;
}

static void child(int fd, apr_pool_t *p, const wh_config *cfg,
                  const char *config_path, const char *user)
{
    char buf[WH_PW_BUF];
    ctx c;

    c.out = fdopen(fd, "w");
    c.cfg = cfg;
    c.user = user;
    c.group = user;
    c.p = p;
    if (!c.out)
        _exit(3);
    if (become(user, &c.group, buf, sizeof(buf)) != 0) {
        fprintf(c.out, "Xcannot switch to user %s: %s\n", user, strerror(errno));
        fclose(c.out);
        _exit(3);
    }
    checks(&c, config_path);
    fclose(c.out);
    _exit(0);
}

int wh_configtest_as(apr_pool_t *p, const wh_config *cfg, const char *config_path,
                     const char *user, apr_array_header_t *warnings,
                     apr_array_header_t *errors, const char **why)
{
    int fds[2], status = 0;
    char line[WH_LINE_MAX];
    apr_size_t total = 0;
    pid_t pid;
    FILE *in;

    if (!user) {
        struct passwd *me = getpwuid(geteuid());
        if (!me) {
            *why = "this process's user has no name";
            return -1;
        }
        user = apr_pstrdup(p, me->pw_name);
    }
    if (pipe(fds) != 0) {
        *why = apr_psprintf(p, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        *why = apr_psprintf(p, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], p, cfg, config_path, user);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    *why = NULL;
    while (in && fgets(line, sizeof(line), in) && total < WH_REPORT_MAX) {
        apr_size_t n = strlen(line);
        total += n;
        if (n && line[n - 1] == '\n')
            line[--n] = '\0';
        if (line[0] == 'W')
            APR_ARRAY_PUSH(warnings, const char *) = apr_pstrdup(p, line + 1);
        else if (line[0] == 'E')
            APR_ARRAY_PUSH(errors, const char *) = apr_pstrdup(p, line + 1);
        else if (line[0] == 'X')
            *why = apr_pstrdup(p, line + 1);
    }
    if (in)
        fclose(in);
    else
        close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!*why && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
        *why = apr_psprintf(p, "the check as user %s did not finish", user);
    return *why ? -1 : 0;
}
