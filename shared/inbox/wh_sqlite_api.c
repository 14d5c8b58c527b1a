/* SQLite's functions from the library apr_dbd's driver loaded
 * (wh_sqlite_api.h). */
#include "wh_sqlite_api.h"
#include <dlfcn.h>
#include <pthread.h>

static wh_sqlite_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define WH_SQLITE_SYM(member, name) \
    (api.member = (__typeof__(api.member))dlsym(RTLD_DEFAULT, name))

static void lookup(void)
{
    WH_SQLITE_SYM(busy_handler, "sqlite3_busy_handler");
    WH_SQLITE_SYM(vfs_find, "sqlite3_vfs_find");
    WH_SQLITE_SYM(vfs_register, "sqlite3_vfs_register");
    WH_SQLITE_SYM(database_file_object, "sqlite3_database_file_object");
    WH_SQLITE_SYM(file_control, "sqlite3_file_control");
    WH_SQLITE_SYM(libversion, "sqlite3_libversion");
    WH_SQLITE_SYM(open_v2, "sqlite3_open_v2");
    WH_SQLITE_SYM(close, "sqlite3_close");
    WH_SQLITE_SYM(exec, "sqlite3_exec");
    WH_SQLITE_SYM(free, "sqlite3_free");
    WH_SQLITE_SYM(errmsg, "sqlite3_errmsg");
    WH_SQLITE_SYM(backup_init, "sqlite3_backup_init");
    WH_SQLITE_SYM(backup_step, "sqlite3_backup_step");
    WH_SQLITE_SYM(backup_finish, "sqlite3_backup_finish");
}

const wh_sqlite_api *wh_sqlite_api_get(void)
{
    pthread_once(&once, lookup);
    return &api;
}
