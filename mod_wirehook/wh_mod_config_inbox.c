/* Each configuration's inbox in this child: opened on first use, and after a
 * failure tried again only after a pause. */
#include "wh_mod_config_inbox.h"
#include "wh_mod_request.h"
#include "inbox/wh_endpoint.h"

/* How often a child tries again to open an inbox that could not be
 * opened (a schema newer than this build, a missing dbd driver): the
 * core's WH_ENDPOINT_OPEN_RETRY, which its 503s meanwhile give as their
 * Retry-After. Requests answer 503 at once, and a failed attempt leaves
 * nothing behind in the child (its sub-pool is destroyed). */
#define WH_MOD_INBOX_RETRY WH_ENDPOINT_OPEN_RETRY

wh_inbox *wh_mod_inbox_get(request_rec *r, wh_mod_config *config)
{
    if (config->inbox_mutex == NULL
        || apr_thread_mutex_lock(config->inbox_mutex) != APR_SUCCESS)
        return NULL;
    if (config->inbox == NULL && apr_time_now() >= config->inbox_retry_at) {
        wh_inbox *ib = NULL;
        apr_pool_t *parent = config->inbox_pool ? config->inbox_pool
                                              : r->server->process->pool;
        apr_pool_t *p = NULL;
        const char *err = "out of memory";
        /* stores of this child's threads share commits (InboxBatchMax) */
        if (apr_pool_create(&p, parent) == APR_SUCCESS)
            err = wh_inbox_open_ex(p, config->cfg, &wh_mod_server_logger, WH_INBOX_GROUP_COMMIT, &ib);
        if (err || ib == NULL) {
            ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00950)
                          "WirehookConfig %s: cannot open the inbox: %s (trying "
                          "again in %d s)", config->path, err ? err : "unknown error",
                          (int)apr_time_sec(WH_MOD_INBOX_RETRY));
            if (p)
                apr_pool_destroy(p);
            config->inbox_retry_at = apr_time_now() + WH_MOD_INBOX_RETRY;
        } else {
            config->inbox = ib;
        }
    }
    wh_inbox *ib = config->inbox;
    apr_thread_mutex_unlock(config->inbox_mutex);
    return ib;
}
