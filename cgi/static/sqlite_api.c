/* The self-contained CGI carries SQLite (libsqlite3.a, apr_dbd's driver
 * built in): the core's SQLite functions are the linked ones, where
 * libwirehook.a's wh_sqlite_api.c would look them up with dlsym, which
 * a static program cannot do. */
#include "inbox/wh_sqlite_api.h"

static const wh_sqlite_api linked = {
    sqlite3_busy_handler,         sqlite3_vfs_find,     sqlite3_vfs_register,
    sqlite3_database_file_object, sqlite3_file_control, sqlite3_libversion,
};

const wh_sqlite_api *wh_sqlite_api_get(void)
{
    return &linked;
}
