/* An SQLite inbox's database file made ready before the driver opens
 * it (wh_inbox_dbfile.h). */
#include "wh_inbox_dbfile.h"
#include "wh_inbox_files.h"
#include "verify/wh_account.h"
#include "verify/wh_fs.h"
#include <apr_escape.h>
#include <apr_strings.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

/* An SQLite inbox's file is a path, never a secret: the message names
 * it, the configuration line that set it, the user the process runs as
 * and, for a permission, what that user needs (the module's children,
 * the CGI and the forwarder run as the web server's user, not as the
 * root who made the directory or ran a first command). */
static const char *file_problem(const wh_inbox_settings *s, apr_pool_t *p,
                                const char *what, int err)
{
    char buf[120], who[64];
    const char *msg, *dir = wh_inbox_file_dir(p, s->db_file);

    msg = apr_psprintf(p, "%sInboxParams %s: %s as user %s: %s",
                       s->where ? s->where : "", s->db_file, what,
                       wh_user_name(who, sizeof(who), geteuid()),
                       apr_strerror(APR_FROM_OS_ERROR(err), buf, sizeof(buf)));
    if (err == EACCES || err == EPERM)
        msg = apr_psprintf(p, "%s (that user must be able to read and write the "
                           "database and create files beside it in %s: its "
                           "-wal, -shm, -lock and -auth files)", msg, dir);
    return msg;
}

/* After the file exists: what SQLite would otherwise report as "unable to
 * open database file" without a name. */
static int writable(const wh_inbox_settings *s, apr_pool_t *p, const char **why)
{
    const char *dir = wh_inbox_file_dir(p, s->db_file);

    if (access(s->db_file, R_OK | W_OK) != 0) {
        *why = file_problem(s, p, "cannot write the file", errno);
        return 0;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        *why = file_problem(s, p, "cannot create files in its directory", errno);
        return 0;
    }
    return 1;
}

wh_conn_status wh_inbox_dbfile_prepare(const wh_inbox_settings *s, apr_pool_t *p,
                                       const char **params, const char **why)
{
    struct stat st;
    const char *fs;
    int created = 0, rv;

    if (s->engine != WH_INBOX_SQLITE3)
        return WH_CONN_OK;
    if (s->db_file && (fs = wh_fs_network(s->db_file)) != NULL) {
        *why = apr_pstrcat(p, s->where ? s->where : "",
                           wh_inbox_network_refusal(p, s->db_file, fs), NULL);
        wh_logf(&s->log, WH_LOG_ERROR, "inbox: cannot open the sqlite3 database: %s", *why);
        return WH_CONN_FATAL;
    }
    if (s->readonly) {
        if (!s->db_file) {
            *why = "a read-only open needs InboxParams to be a file path";
            return WH_CONN_DOWN;
        }
        if (stat(s->db_file, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            *why = "no inbox database yet";
            return WH_CONN_DOWN;
        }
        *params = apr_pstrcat(p, "file:", apr_pescape_path(p, s->db_file, 1),
                              "?mode=ro", NULL);
        return WH_CONN_OK;
    }
    if (!s->db_file)
        return WH_CONN_OK;
    if ((rv = wh_inbox_file_create(s->db_file, s->file_mode, s->gid, &created)) != 0) {
        *why = file_problem(s, p, "cannot create the file", rv);
        wh_logf(&s->log, WH_LOG_ERROR, "inbox: cannot open the sqlite3 database: %s",
                *why);
        return WH_CONN_DOWN;
    }
    if (created)
        wh_logf(&s->log, WH_LOG_INFO, "inbox: created the sqlite3 database file "
                "(mode %04o)", (unsigned)s->file_mode);
    else if (!writable(s, p, why)) {
        wh_logf(&s->log, WH_LOG_ERROR, "inbox: cannot open the sqlite3 database: %s",
                *why);
        return WH_CONN_DOWN;
    }
    return WH_CONN_OK;
}
