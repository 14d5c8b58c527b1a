/* Opening an inbox: its settings from the configuration, the apr_dbd
 * driver, the group commit, and the first connection, whose set-up runs
 * the schema check (wh_inbox_schema.c) through the hook this file hands
 * the connection layer (wh_inbox_conn.c), which stays below the schema. */
#include "wh_inbox_conn.h"
#include "wh_inbox_files.h"
#include "verify/wh_account.h"
#include "verify/wh_sock_watch.h"
#include "verify/wh_mysql_params.h"
#include "wh_inbox_mysql.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>
#include <string.h>

const char *wh_inbox_open(apr_pool_t *p, const wh_config *cfg,
                          const wh_logger *log, wh_inbox **out)
{
    return wh_inbox_open_ex(p, cfg, log, 0, out);
}

/* The settings cfg and flags give. NULL or what is wrong. */
static const char *settings(apr_pool_t *p, const wh_config *cfg, const wh_logger *log,
                            int flags, wh_inbox_settings *s)
{
    memset(s, 0, sizeof(*s));
    if (log)
        s->log = *log;
    s->params = cfg->inbox_params;
    /* a new connection to a silent server is bounded too */
    if (cfg->inbox_driver == WH_INBOX_PGSQL)
        s->params = wh_sock_watch_pq_conninfo(p, s->params,
                                              apr_time_from_sec(WH_INBOX_CONNECT_TIMEOUT_S));
    s->engine = cfg->inbox_driver;
    s->driver_name = cfg->inbox_driver_name ? cfg->inbox_driver_name
                     : s->engine == WH_INBOX_PGSQL ? "pgsql"
                     : s->engine == WH_INBOX_MYSQL ? "mysql" : "sqlite3";
    if (s->engine == WH_INBOX_MYSQL) {
        wh_mysql_params mp;
        const char *err = wh_parse_mysql_params(p, cfg->inbox_params, &mp);
        if (err)
            return apr_psprintf(p, "InboxParams: %s", err);
        s->params = wh_mysql_driver_params(p, cfg->inbox_params);
        s->connect_timeout_s = mp.connect_timeout ? mp.connect_timeout
                                                  : WH_MYSQL_CONNECT_TIMEOUT_DEFAULT;
    }
    s->lock_wait_ms = WH_INBOX_LOCK_WAIT_MS;
    s->retry_interval = apr_time_from_msec(WH_INBOX_RETRY_MS);
    s->readonly = (flags & WH_INBOX_READ_ONLY) != 0;
    s->db_file = wh_inbox_sqlite_file(cfg);
    s->where = wh_config_where(p, cfg, "InboxParams");
    s->file_mode = wh_inbox_file_mode(cfg->inbox_group);
    s->gid = (gid_t)-1;
    if (cfg->inbox_group && wh_group_gid(cfg->inbox_group, &s->gid) != 0)
        return apr_psprintf(p, "InboxGroup %s: no such group", cfg->inbox_group);
    return NULL;
}

const char *wh_inbox_open_ex(apr_pool_t *p, const wh_config *cfg,
                             const wh_logger *log, int flags, wh_inbox **out)
{
    wh_inbox_settings s;
    wh_inbox *ib;
    apr_status_t rv;
    const char *err;
    char buf[120];

    *out = NULL;
    if (!cfg || !cfg->inbox_params || !*cfg->inbox_params)
        return "no inbox is configured (InboxParams is not set)";
    if ((err = settings(p, cfg, log, flags, &s)) != NULL)
        return err;

    /* apr_dbd_init guards itself against repeated calls (mod_dbd makes
     * one too) and keeps its state in the process-wide pool. */
    if ((rv = apr_dbd_init(p)) != APR_SUCCESS)
        return apr_psprintf(p, "apr_dbd_init: %s", apr_strerror(rv, buf, sizeof(buf)));
    rv = apr_dbd_get_driver(p, s.driver_name, &s.driver);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "the apr_dbd driver '%s' is not available "
                            "(Debian: libaprutil1-dbd-%s): %s", s.driver_name,
                            s.driver_name, apr_strerror(rv, buf, sizeof(buf)));
    if ((err = wh_inbox_db_create(p, &s, wh_inbox_schema_ensure, &ib)) != NULL)
        return err;
    if ((flags & WH_INBOX_GROUP_COMMIT) && !s.readonly && cfg->inbox_batch_max > 1) {
        struct wh_batcher *b = wh_inbox_store_batcher(ib, p, cfg->inbox_batch_max,
                                                      (apr_interval_time_t)cfg->inbox_batch_wait);
        if (!b)
            return "inbox: cannot set up the group commit (out of memory)";
        wh_inbox_db_set_batcher(ib, b);
    }

    /* Try now so that problems show at start-up, but a database that is
     * down now (PostgreSQL restarting) is not a configuration error: each
     * request reconnects and answers 503 until it is back. */
    {
        apr_pool_t *tmp = wh_inbox_db_scratch(ib);
        wh_conn_status cs;
        const char *why = NULL;
        if (!tmp)
            return "inbox: out of memory";
        cs = wh_inbox_db_connect(ib, tmp, &why);
        if (s.readonly && cs != WH_CONN_OK) {
            why = apr_pstrdup(p, why ? why : "cannot be opened");
            apr_pool_destroy(tmp);
            return why;   /* a reader has nothing to wait for */
        }
        if (cs == WH_CONN_FATAL)
            why = apr_psprintf(p, "the %s inbox cannot be used: %s", s.driver_name,
                               why ? why : "setup failed");
        apr_pool_destroy(tmp);
        if (cs == WH_CONN_FATAL)
            return why;
        if (cs != WH_CONN_OK)
            wh_logf(&s.log, WH_LOG_WARN, "inbox: %s database not available "
                    "yet; trying again every %d ms", s.driver_name, WH_INBOX_RETRY_MS);
    }
    *out = ib;
    return NULL;
}
