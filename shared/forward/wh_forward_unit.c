/* Where the packaged forwarder's unit may write (wh_forward.h). The unit
 * runs with ProtectSystem=strict: the whole file system is read-only to
 * it but for ReadWritePaths=, and an SQLite inbox is written beside its
 * database file (the WAL, the shared memory, the writers' lock), so an
 * inbox anywhere else would fail only once the forwarder runs. */
#include "wh_forward.h"
#include "inbox/wh_inbox_files.h"

#include <apr_file_info.h>
#include <apr_strings.h>
#include <string.h>

static int under(const char *dir, const char *top)
{
    apr_size_t n = strlen(top);
    return strncmp(dir, top, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* The NAME of wirehook-forward@NAME that runs the configuration at path
 * (/etc/wirehook/NAME.conf), or NULL: the unit runs no other file. */
static const char *instance_of(apr_pool_t *p, const char *path)
{
    apr_size_t d = strlen(WH_FORWARD_UNIT_CONFIG_DIR), n;
    const char *name;
    char *abs = NULL;

    /* `cd /etc/wirehook && wirehook configtest NAME.conf` too */
    if (path && path[0] != '/'
        && apr_filepath_merge(&abs, NULL, path, APR_FILEPATH_NOTRELATIVE, p) == APR_SUCCESS)
        path = abs;
    if (!path || strncmp(path, WH_FORWARD_UNIT_CONFIG_DIR "/", d + 1) != 0)
        return NULL;
    name = path + d + 1;
    n = strlen(name);
    if (strchr(name, '/') || n <= 5 || strcmp(name + n - 5, ".conf") != 0)
        return NULL;
    return apr_pstrmemdup(p, name, n - 5);
}

const char *wh_forward_unit_warning(apr_pool_t *p, const wh_config *cfg)
{
    const char *db = wh_inbox_sqlite_file(cfg), *dir, *name;

    if (!cfg || !cfg->forward_url || !db || db[0] != '/'
        || !(name = instance_of(p, cfg->source)))
        return NULL;
    dir = wh_inbox_file_dir(p, db);
    if (under(dir, WH_FORWARD_UNIT_WRITABLE))
        return NULL;
    return apr_psprintf(p, "InboxParams %s: the packaged unit wirehook-forward@%s "
                        "may write only under " WH_FORWARD_UNIT_WRITABLE
                        " (ReadWritePaths=), and the forwarder writes in the "
                        "inbox's directory: allow %s with a drop-in "
                        "(systemctl edit wirehook-forward@%s: [Service] "
                        "ReadWritePaths=%s), or keep the inbox under "
                        WH_FORWARD_UNIT_WRITABLE, db, name, dir, name, dir);
}
