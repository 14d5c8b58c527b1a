/* The SQLite inbox's files: created 0600 (0640 with InboxGroup) before
 * SQLite opens them, since they hold account numbers, names and amounts
 * and SQLite would create them with the process umask (0644 under
 * suEXEC's 022); their group; the start-up warning about files others
 * can read. SQLite gives its -wal and -shm files the mode of the database
 * file, so creating that one right is enough for them. */
#include "wh_inbox_files.h"
#include "verify/wh_fs.h"
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const suffixes[] = { "", "-wal", "-shm", "-lock", "-auth", NULL };

const char *wh_inbox_file_dir(apr_pool_t *p, const char *path)
{
    const char *slash = strrchr(path, '/');
    return !slash ? "." : slash == path ? "/"
           : apr_pstrmemdup(p, path, (apr_size_t)(slash - path));
}

mode_t wh_inbox_file_mode(const char *group)
{
    return group ? 0640 : 0600;
}

const char *wh_inbox_network_refusal(apr_pool_t *p, const char *db_file, const char *fs)
{
    return apr_psprintf(p, "InboxParams %s is on a network file system (%s): "
                        "SQLite's locks and the shared memory of its WAL hold "
                        "only among the processes of one machine, so commits "
                        "there can be lost or torn; keep the database in a "
                        "local directory, or use a database server: "
                        "InboxDriver mysql (MariaDB, MySQL) or pgsql", db_file, fs);
}

const char *wh_inbox_network_fs(apr_pool_t *p, const wh_config *cfg)
{
    const char *db = wh_inbox_sqlite_file(cfg), *fs;

    return db && (fs = wh_fs_network(db)) != NULL ? wh_inbox_network_refusal(p, db, fs)
                                                  : NULL;
}

const char *wh_inbox_sqlite_file(const wh_config *cfg)
{
    const char *s = cfg ? cfg->inbox_params : NULL;

    /* ":memory:" and file: URIs (whose options SQLite reads) are left to
     * SQLite as written. */
    if (!cfg || cfg->inbox_driver != WH_INBOX_SQLITE3 || !s || !*s
        || strcmp(s, ":memory:") == 0 || strncmp(s, "file:", 5) == 0)
        return NULL;
    return s;
}

int wh_inbox_file_create(const char *path, mode_t mode, gid_t gid, int *created)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);

    *created = 0;
    if (fd < 0)
        return errno == EEXIST ? 0 : errno;
    *created = 1;
    /* the exact mode, whatever the umask; the group before a byte is in it */
    if (fchmod(fd, mode) != 0 || (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) != 0)) {
        int err = errno;
        close(fd);
        unlink(path);
        return err;
    }
    close(fd);
    return 0;
}

void wh_inbox_file_regroup(apr_pool_t *p, const char *path, gid_t gid)
{
    struct stat st;

    if (gid == (gid_t)-1)
        return;
    /* SQLite recreates -wal and -shm with the database's mode but the
     * process's group; put them back in InboxGroup when they are ours. */
    for (int i = 1; suffixes[i]; i++) {
        const char *f = apr_pstrcat(p, path, suffixes[i], NULL);
        if (lstat(f, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()
            && st.st_gid != gid && lchown(f, (uid_t)-1, gid) != 0)
            /* not a member of the group: the file stays 0640 in the
             * process's own group, never wider (docs: set-group-ID dir) */
            continue;
    }
}

const char *wh_inbox_file_warnings(apr_pool_t *p, const wh_config *cfg)
{
    const char *path = wh_inbox_sqlite_file(cfg), *out = NULL;
    struct stat st;

    if (!path)
        return NULL;
    for (int i = 0; suffixes[i]; i++) {
        const char *f = apr_pstrcat(p, path, suffixes[i], NULL);
        const char *w;
        if (stat(f, &st) != 0 || !(st.st_mode & (S_IROTH | S_IWOTH)))
            continue;
        w = apr_psprintf(p, "InboxParams %s is %s by others (chmod o-rw; new inbox "
                         "files are created 0600, or 0640 with InboxGroup)", f,
                         (st.st_mode & S_IROTH) && (st.st_mode & S_IWOTH)
                             ? "readable and writable"
                             : (st.st_mode & S_IROTH) ? "readable" : "writable");
        out = out ? apr_pstrcat(p, out, "\n", w, NULL) : w;
    }
    return out;
}
