/* Opening an inbox: its settings from the configuration, the apr_dbd
 * driver, the group commit, and the first connection, whose set-up runs
 * the schema check (wh_inbox_schema.c) through the hook this file sets on
 * the connection layer (wh_inbox_conn.c), which stays below the schema. */
#include "wh_inbox_conn.h"
#include "wh_inbox_files.h"
#include "verify/wh_account.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>

const char *wh_inbox_open(apr_pool_t *p, const wh_config *cfg,
                          const wh_logger *log, wh_inbox **out)
{
    return wh_inbox_open_ex(p, cfg, log, 0, out);
}

const char *wh_inbox_open_ex(apr_pool_t *p, const wh_config *cfg,
                             const wh_logger *log, int flags, wh_inbox **out)
{
    wh_inbox *ib;
    apr_allocator_t *alloc = NULL;
    apr_status_t rv;
    char buf[120];

    *out = NULL;
    if (!cfg || !cfg->inbox_params || !*cfg->inbox_params)
        return "no inbox is configured (InboxParams is not set)";
    ib = apr_pcalloc(p, sizeof(*ib));
    ib->wal_fd = -1;
    ib->ensure_schema = wh_inbox_schema_ensure;
    if (log)
        ib->log = *log;
    ib->params = cfg->inbox_params;
    ib->engine = cfg->inbox_driver == WH_INBOX_PGSQL ? WH_INBOX_PGSQL : WH_INBOX_SQLITE3;
    ib->driver_name = cfg->inbox_driver_name ? cfg->inbox_driver_name
                      : ib->engine == WH_INBOX_SQLITE3 ? "sqlite3" : "pgsql";
    ib->lock_wait_ms = WH_INBOX_LOCK_WAIT_MS;
    ib->retry_interval = apr_time_from_msec(WH_INBOX_RETRY_MS);
    ib->readonly = (flags & WH_INBOX_READ_ONLY) != 0;
    ib->db_file = wh_inbox_sqlite_file(cfg);
    ib->where = wh_config_where(p, cfg, "InboxParams");
    ib->file_mode = wh_inbox_file_mode(cfg->inbox_group);
    ib->gid = (gid_t)-1;
    if (cfg->inbox_group && wh_group_gid(cfg->inbox_group, &ib->gid) != 0)
        return apr_psprintf(p, "InboxGroup %s: no such group", cfg->inbox_group);

    /* apr_dbd_init guards itself against repeated calls (mod_dbd makes
     * one too) and keeps its state in the process-wide pool. */
    if ((rv = apr_dbd_init(p)) != APR_SUCCESS)
        return apr_psprintf(p, "apr_dbd_init: %s", apr_strerror(rv, buf, sizeof(buf)));
    rv = apr_dbd_get_driver(p, ib->driver_name, &ib->driver);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "the apr_dbd driver '%s' is not available "
                            "(Debian: libaprutil1-dbd-%s): %s", ib->driver_name,
                            ib->driver_name, apr_strerror(rv, buf, sizeof(buf)));
    if ((rv = apr_thread_mutex_create(&ib->mutex, APR_THREAD_MUTEX_DEFAULT, p))
        != APR_SUCCESS
        || (rv = apr_thread_mutex_create(&ib->sync_mutex, APR_THREAD_MUTEX_DEFAULT, p))
           != APR_SUCCESS)
        return apr_psprintf(p, "inbox mutex: %s", apr_strerror(rv, buf, sizeof(buf)));
    /* Connections come and go (reconnects) for the life of p; their pools
     * hang off a root with its own allocator, touched only under the
     * mutex, so p itself is never allocated from concurrently. */
    if ((rv = apr_allocator_create(&alloc)) != APR_SUCCESS)
        return "inbox: out of memory";
    if ((rv = apr_pool_create_ex(&ib->root, p, NULL, alloc)) != APR_SUCCESS) {
        apr_allocator_destroy(alloc);
        return "inbox: out of memory";
    }
    apr_allocator_owner_set(alloc, ib->root);
    apr_allocator_max_free_set(alloc, 1024 * 1024);
    if ((flags & WH_INBOX_GROUP_COMMIT) && !ib->readonly && cfg->inbox_batch_max > 1) {
        ib->batcher = wh_inbox_store_batcher(ib, p, cfg->inbox_batch_max,
                                             (apr_interval_time_t)cfg->inbox_batch_wait);
        if (!ib->batcher)
            return "inbox: cannot set up the group commit (out of memory)";
    }

    /* Try now so that problems show at start-up, but a database that is
     * down now (PostgreSQL restarting) is not a configuration error: each
     * request reconnects and answers 503 until it is back. */
    {
        apr_pool_t *tmp;
        wh_conn_status cs;
        const char *why = NULL;
        apr_pool_create(&tmp, ib->root);
        cs = wh_inbox_db_connect(ib, tmp, &why);
        if (cs != WH_CONN_OK)
            ib->retry_at = apr_time_now() + ib->retry_interval;
        if (ib->readonly && cs != WH_CONN_OK) {
            why = apr_pstrdup(p, why ? why : "cannot be opened");
            apr_pool_destroy(tmp);
            return why;   /* a reader has nothing to wait for */
        }
        if (cs == WH_CONN_FATAL)
            why = apr_psprintf(p, "the %s inbox cannot be used: %s", ib->driver_name,
                               why ? why : "setup failed");
        apr_pool_destroy(tmp);
        if (cs == WH_CONN_FATAL)
            return why;
        if (cs != WH_CONN_OK)
            wh_logf(&ib->log, WH_LOG_WARN, "inbox: %s database not available "
                    "yet; trying again every %d ms", ib->driver_name, WH_INBOX_RETRY_MS);
    }
    *out = ib;
    return NULL;
}

void wh_inbox_allow_writes(wh_inbox *ib, apr_pool_t *p)
{
    const char *why = NULL;

    if (!ib)
        return;
    apr_thread_mutex_lock(ib->mutex);
    if (ib->readonly) {
        ib->readonly = 0;
        ib->retry_at = 0;
        if (ib->engine == WH_INBOX_SQLITE3 || !wh_inbox_db_connected(ib) || ib->broken) {
            /* SQLite: a read-only file handle cannot write; the next use
             * opens the file for writing (creating it if need be) */
            ib->broken = 1;
        } else if (wh_inbox_db_sql(ib, "SET default_transaction_read_only = off") != 0
                   || wh_inbox_schema_ensure(ib, p, 0, &why) != WH_CONN_OK) {
            /* PostgreSQL: the same session goes on (no second login) */
            ib->broken = 1;
        }
    }
    apr_thread_mutex_unlock(ib->mutex);
}
