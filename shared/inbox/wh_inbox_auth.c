/* The cache of successful Basic-auth checks kept in the inbox database
 * (wh_auth_cache, schema version 2), wirehook.cgi's second level for an
 * inbox with no file beside it (an SQLite file's is wh_auth_file.c). */
#include "wh_inbox_db.h"
#include <apr_strings.h>

static const wh_inbox_stmt st_get = {
    "SELECT user_name, expires FROM wh_auth_cache WHERE cache_key = %s", NULL, NULL };
static const wh_inbox_stmt st_purge = {
    "DELETE FROM wh_auth_cache WHERE expires <= %lld", NULL, NULL };
static const wh_inbox_stmt st_put = {
    "INSERT INTO wh_auth_cache (cache_key, user_name, expires)"
    " VALUES (%s, %s, %lld) ON CONFLICT (cache_key) DO UPDATE"
    " SET user_name = excluded.user_name, expires = excluded.expires", NULL,
    "INSERT INTO wh_auth_cache (cache_key, user_name, expires)"
    " VALUES (%s, %s, %lld) ON DUPLICATE KEY UPDATE"
    " user_name = VALUES(user_name), expires = VALUES(expires)" };

typedef struct {
    const char *key, *user;
    apr_int64_t at, until;
} auth_job;

int wh_inbox_auth_lookup(wh_inbox *ib, apr_pool_t *p, const char *key,
                         apr_time_t now, const char **user, apr_time_t *expires)
{
    const void *args[1] = { key };
    wh_inbox_rows rows;
    const char *e;
    apr_int64_t until;

    if (!ib || !key || !user || !expires)
        return 0;
    *user = NULL;
    *expires = 0;
    if (wh_inbox_db_query(ib, p, "auth cache lookup", &st_get, args, 1, &rows) != 0
        || rows.nrows != 1 || rows.ncols != 2 || !WH_ROW_CELL(&rows, 0, 0))
        return 0;
    e = WH_ROW_CELL(&rows, 0, 1);
    until = e ? apr_atoi64(e) : 0;
    if (until <= (apr_int64_t)now)
        return 0;
    *user = WH_ROW_CELL(&rows, 0, 0);
    *expires = (apr_time_t)until;
    return 1;
}

/* One transaction, one durable commit: expired entries go as the new one
 * comes (stores are rare: once per credential per TTL). */
static int store_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    auth_job *j = baton;
    const void *args[3];
    int nrows = 0, rv;

    args[0] = &j->at;
    if ((rv = wh_inbox_db_exec(ib, p, &st_purge, &nrows, args)) != 0)
        return wh_inbox_db_fail(ib, p, "auth cache purge", rv);
    args[0] = j->key;
    args[1] = j->user;
    args[2] = &j->until;
    if ((rv = wh_inbox_db_exec(ib, p, &st_put, &nrows, args)) != 0)
        return wh_inbox_db_fail(ib, p, "auth cache store", rv);
    return WH_TXN_COMMIT;
}

int wh_inbox_auth_store(wh_inbox *ib, apr_pool_t *p, const char *key,
                        const char *user, apr_time_t now, apr_time_t expires)
{
    auth_job j = { key, user, (apr_int64_t)now, (apr_int64_t)expires };

    if (!ib || !key || !user)
        return -1;
    return wh_inbox_db_txn(ib, p, "auth cache", store_txn, &j) == WH_DB_OK ? 0 : -1;
}
