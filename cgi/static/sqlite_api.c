/* The self-contained CGI carries SQLite (libsqlite3.a, apr_dbd's driver
 * built in): the core's SQLite functions are the linked ones, where
 * libwirehook.a's wh_sqlite_api.c would look them up with dlsym, which
 * a static program cannot do. */
#include "inbox/wh_sqlite_api.h"

static const wh_sqlite_api linked = {
    .busy_handler = sqlite3_busy_handler,
    .vfs_find = sqlite3_vfs_find,
    .vfs_register = sqlite3_vfs_register,
    .database_file_object = sqlite3_database_file_object,
    .file_control = sqlite3_file_control,
    .libversion = sqlite3_libversion,
    .open_v2 = sqlite3_open_v2,
    .close = sqlite3_close,
    .exec = sqlite3_exec,
    .free = sqlite3_free,
    .errmsg = sqlite3_errmsg,
    .backup_init = sqlite3_backup_init,
    .backup_step = sqlite3_backup_step,
    .backup_finish = sqlite3_backup_finish,
};

const wh_sqlite_api *wh_sqlite_api_get(void)
{
    return &linked;
}
