/* mod_wirehook: verifies a bank's wire-payment-status webhooks in front of
 * any handler (CGI, PHP, mod_proxy, static files) or as the inbox itself
 * (SetHandler wirehook).
 *
 *   LoadModule wirehook_module modules/mod_wirehook.so
 *   <Location /v1/wires>
 *       WirehookConfig /etc/wirehook/bank.conf
 *   </Location>
 *
 * Where verification happens: in the fixups hook (APR_HOOK_REALLY_FIRST,
 * after core's SetHandler evaluation). Fixups run for every main request
 * whatever Satisfy/Require say and before any handler, unlike an input
 * filter, which only runs when the handler reads the body. The hook reads
 * the whole body (bounded by MaxBodySize) through the input filters,
 * verifies it, and on success hands the exact bytes to the handler through
 * the WIREHOOK_REPLAY input filter. On failure it answers the JSON error
 * itself and returns DONE, so no handler runs.
 *
 * What the signature covers: the body bytes as sent on the wire (after
 * HTTP/1.1 de-chunking, before any Content-Encoding decoding). A request
 * with a Content-Encoding other than identity is refused 415
 * unsupported_media_type: the bank sends plain JSON, and a compressed body
 * could be neither schema-checked nor handed to the application as
 * verified without inflating it first.
 *
 * Headers: every Wirehook-* request header sent by a client is removed in
 * post_read_request (all requests, not only verified locations) and again
 * before verification; after acceptance the module sets Wirehook-Verified,
 * -Notification-Id, -Event-Type, -Event-Time, -Payment-Id, -Status and
 * -Status-Known for proxied backends, and WIREHOOK_* variables in
 * r->subprocess_env for CGI/SSI/PHP. A client cannot inject WIREHOOK_*
 * variables through headers: CGI exposes request headers only as HTTP_*.
 */
#define WH_MOD_MAIN
#include "mod_wirehook.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_mpm.h"
#include <apr_strings.h>
#include <apr_hash.h>

#define WH_SITES_KEY "wirehook-sites"

/* A number listed twice in the log-tag registry is a duplicate enumerator:
 * the module does not compile. */
#define WH_LOGTAG_ENUM(n, what) WH_LOGTAG_N##n,
enum wh_logtag_registry { WH_LOGTAGS(WH_LOGTAG_ENUM) WH_LOGTAG_COUNT_ };

/* ------------------------------------------------------------ config --- */

/* A hash kept as userdata of pool p under key, created on first use. */
apr_hash_t *wh_mod_pool_hash(apr_pool_t *p, const char *key)
{
    void *data = NULL;
    apr_pool_userdata_get(&data, key, p);
    if (data == NULL) {
        data = apr_hash_make(p);
        apr_pool_userdata_set(data, key, apr_pool_cleanup_null, p);
    }
    return data;
}

/* Loaded configuration files of this configuration generation, keyed by
 * absolute path. Lives in pconf, so a restart re-reads every file. */
apr_hash_t *wh_mod_sites(apr_pool_t *pconf)
{
    return wh_mod_pool_hash(pconf, WH_SITES_KEY);
}

static void *create_dir_conf(apr_pool_t *p, char *dir)
{
    (void)dir;
    return apr_pcalloc(p, sizeof(wh_mod_dir_conf));
}

static void *merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const wh_mod_dir_conf *base = basev, *add = addv;
    wh_mod_dir_conf *conf = apr_palloc(p, sizeof(*conf));
    /* the innermost WirehookConfig wins */
    *conf = add->set ? *add : *base;
    return conf;
}

/* Fails closed with every problem of the file on a line of its own in the
 * startup log (the core collects them all, joined by '\n', each as
 * "file:line: Key: rule"), and a one-line summary that httpd prints with
 * the httpd.conf line of the directive. */
static const char *config_errors(cmd_parms *cmd, const char *path,
                                 const char *err)
{
    char *lines = apr_pstrdup(cmd->temp_pool, err), *state = NULL;
    int n = 0;
    for (char *l = apr_strtok(lines, "\n", &state); l;
         l = apr_strtok(NULL, "\n", &state), n++)
        ap_log_error(APLOG_MARK, APLOG_STARTUP | APLOG_ERR, 0, cmd->server,
                     WHLOGNO(00954) "WirehookConfig %s: %s", path, l);
    return apr_psprintf(cmd->pool, "WirehookConfig %s: %d error%s in the "
                        "configuration file (each logged above)", path, n,
                        n == 1 ? "" : "s");
}

static const char *set_wirehook_config(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    wh_mod_dir_conf *conf = dconf;
    const char *err = ap_check_cmd_context(cmd, NOT_IN_LIMIT);
    if (err)
        return err;
    conf->set = 1;
    if (strcasecmp(arg, "off") == 0) {
        conf->site = NULL;
        return NULL;
    }
    const char *path = ap_server_root_relative(cmd->pool, arg);
    if (path == NULL)
        return apr_pstrcat(cmd->pool, "WirehookConfig: invalid path ", arg,
                           NULL);

    apr_hash_t *sites = wh_mod_sites(cmd->pool);
    wh_mod_site *site = apr_hash_get(sites, path, APR_HASH_KEY_STRING);
    if (site == NULL) {
        wh_config *cfg = NULL;
        err = wh_config_load(cmd->pool, path, &cfg);
        if (err)
            return config_errors(cmd, path, err);
        site = apr_pcalloc(cmd->pool, sizeof(*site));
        site->path = path;
        site->cfg = cfg;
        site->vf = wh_verifier_create(cmd->pool, cfg, &wh_mod_logger);
        if (site->vf == NULL)
            return apr_pstrcat(cmd->pool, "WirehookConfig ", path,
                               ": cannot create the verifier", NULL);
        apr_hash_set(sites, path, APR_HASH_KEY_STRING, site);
    }
    conf->site = site;
    return NULL;
}

static const command_rec wirehook_cmds[] = {
    AP_INIT_TAKE1("WirehookConfig", set_wirehook_config, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Path of a wirehook configuration file (verifies webhooks "
                  "here), or 'off'"),
    {NULL}
};

/* ---------------------------------------------------------- lifecycle --- */

static int wh_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    (void)ptemp;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    apr_hash_t *sites = wh_mod_sites(pconf);
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, sites); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_site *site = apr_hash_this_val(hi);
        const char *warn = wh_config_permission_warnings(ptemp, site->cfg);
        char *lines = warn ? apr_pstrdup(ptemp, warn) : NULL, *state = NULL;
        /* one log line per file: the core joins its warnings with '\n' */
        for (char *l = lines ? apr_strtok(lines, "\n", &state) : NULL; l;
             l = apr_strtok(NULL, "\n", &state))
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00901)
                         "WirehookConfig %s: %s", site->path, l);
    }
    return OK;
}

static void wh_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_hash_t *sites = wh_mod_sites(s->process->pconf);
    for (apr_hash_index_t *hi = apr_hash_first(pchild, sites); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_site *site = apr_hash_this_val(hi);
        site->inbox_pool = pchild;
        site->inbox = NULL;
        if (apr_thread_mutex_create(&site->inbox_mutex,
                                    APR_THREAD_MUTEX_DEFAULT, pchild)
            != APR_SUCCESS) {
            site->inbox_mutex = NULL;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, WHLOGNO(00902)
                         "WirehookConfig %s: cannot create the inbox mutex",
                         site->path);
        }
    }
}

/* ------------------------------------------------------ early hook --- */

static int wh_post_read_request(request_rec *r)
{
    wh_mod_strip_client_headers(r);
    return DECLINED;
}

/* The state of the request (or an earlier one in its internal-redirect
 * chain) that this module already verified. */
static wh_mod_state *find_prior_state(const request_rec *r)
{
    for (const request_rec *p = r->prev; p; p = p->prev) {
        wh_mod_state *st = ap_get_module_config(p->request_config,
                                                &wirehook_module);
        if (st)
            return st;
    }
    return NULL;
}

/* A body that may still be on the wire while we answer early: httpd would
 * discard (read) it after the response; don't read an unbounded one. */
static void close_if_body_large(request_rec *r, apr_int64_t max)
{
    const char *te = apr_table_get(r->headers_in, "Transfer-Encoding");
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    if (te != NULL
        || (cl != NULL && apr_atoi64(cl) > max)
        || r->expecting_100)
        r->connection->keepalive = AP_CONN_CLOSE;
}

static int wh_fixups(request_rec *r)
{
    if (r->main)                      /* subrequests carry no body */
        return DECLINED;

    wh_mod_state *prior = find_prior_state(r);
    if (prior) {
        /* internal redirect of a request this module already handled: the
         * body was consumed; if it was accepted, the redirected request
         * gets the replay filter back and the same facts */
        if (prior->verified) {
            ap_set_module_config(r->request_config, &wirehook_module, prior);
            wh_mod_replay_resume(r, prior->replay_ctx);
            wh_mod_publish_facts(r, &prior->verdict.facts);
        }
        return DECLINED;
    }

    const wh_mod_dir_conf *dconf =
        ap_get_module_config(r->per_dir_config, &wirehook_module);
    if (dconf == NULL || dconf->site == NULL)
        return DECLINED;
    wh_mod_site *site = dconf->site;
    const wh_config *cfg = site->cfg;

    wh_mod_strip_client_headers(r);

    int inbox = wh_mod_is_inbox(r);
    if (inbox && r->method_number != M_POST)
        return DECLINED;              /* GET/HEAD/...: the handler decides */

    wh_mod_state *st = apr_pcalloc(r->pool, sizeof(*st));
    st->site = site;
    ap_set_module_config(r->request_config, &wirehook_module, st);
    wh_mod_request_init(r, cfg, &st->req);
    wh_verdict_init(&st->verdict, r->pool);
    wh_mod_log_bind(r);

    wh_verify_envelope(site->vf, &st->req, &st->verdict, r->pool);
    if (!st->verdict.ok) {
        wh_mod_log_bind(NULL);
        wh_mod_log_verdict(r, &st->verdict);
        wh_mod_stats_verdict(site, st->verdict.code);
        close_if_body_large(r, cfg->max_body_size);
        wh_response resp;
        wh_response_from_verdict(r->pool, &st->verdict, &resp);
        return wh_mod_respond(r, &resp);
    }
    int status = OK;
    switch (wh_mod_read_body(r, cfg->max_body_size, &st->req.body,
                             &st->req.body_len, &status)) {
    case WH_BODY_ERROR:
        /* timeouts, aborted clients, bad chunking, LimitRequestBody:
         * httpd's own answer, unchanged */
        wh_mod_log_bind(NULL);
        ap_set_module_config(r->request_config, &wirehook_module, NULL);
        return status;
    case WH_BODY_OVERFLOW:
        /* the rest stays unread: never drain it, close after the 413 */
        st->req.body_overflow = 1;
        r->connection->keepalive = AP_CONN_CLOSE;
        break;
    case WH_BODY_OK:
        break;
    }

    wh_verify_payload(site->vf, &st->req, &st->verdict, r->pool);
    wh_mod_log_bind(NULL);

    if (inbox && !st->req.body_overflow) {
        wh_mod_log_verdict(r, &st->verdict);
        return OK;      /* wh_endpoint_store answers (and quarantines) */
    }

    if (!st->verdict.ok) {
        wh_mod_log_verdict(r, &st->verdict);
        wh_mod_stats_verdict(site, st->verdict.code);
        wh_response resp;
        wh_response_from_verdict(r->pool, &st->verdict, &resp);
        return wh_mod_respond(r, &resp);
    }

    const char *id = st->verdict.facts.notification_id;
    switch (wh_mod_replay_check(r, site->replay, cfg, id)) {
    case WH_REPLAY_DUPLICATE: {
        wh_mod_stats_verdict(site, WH_MOD_STATS_DUPLICATE);
        wh_response resp;
        wh_response_ack(r->pool, "duplicate", id, &resp);
        return wh_mod_respond(r, &resp);
    }
    case WH_REPLAY_UNAVAILABLE:
        wh_mod_stats_verdict(site, WH_CODE_REPLAY_UNAVAILABLE);
        return wh_mod_respond_error(
            r, HTTP_SERVICE_UNAVAILABLE, WH_CODE_REPLAY_UNAVAILABLE,
            "replay protection is unavailable; retry later");
    case WH_REPLAY_FIRST:
        st->replay_recorded = site->replay != NULL;
        break;
    }
    wh_mod_log_verdict(r, &st->verdict);
    wh_mod_stats_verdict(site, WH_CODE_ACCEPTED);

    st->verified = 1;
    st->replay_ctx = wh_mod_replay_body(r, st->req.body, st->req.body_len);
    wh_mod_publish_facts(r, &st->verdict.facts);
    return OK;
}

/* The application failed (final status 5xx): forget the notification id so
 * the bank's retry is delivered instead of being answered "duplicate". */
static int wh_log_transaction(request_rec *r)
{
    const request_rec *first = r, *last = r;
    while (first->prev)
        first = first->prev;
    while (last->next)
        last = last->next;
    const wh_mod_state *st = ap_get_module_config(first->request_config,
                                                  &wirehook_module);
    if (st == NULL || !st->replay_recorded || !st->verified)
        return DECLINED;
    if (last->status >= 500 && last->status <= 599) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00904)
                      "application answered %d for notificationId=%s: "
                      "removed from the replay cache so a retry is delivered",
                      last->status, st->verdict.facts.notification_id);
        wh_mod_replay_forget(r, st->site->replay,
                             st->verdict.facts.notification_id);
    }
    return DECLINED;
}

static void register_hooks(apr_pool_t *p)
{
    (void)p;
    static const char *const after_core[] = {"core.c", NULL};
    ap_hook_post_read_request(wh_post_read_request, NULL, NULL,
                              APR_HOOK_REALLY_FIRST);
    /* after core's fixup (SetHandler), before mod_rewrite's per-dir rules */
    ap_hook_fixups(wh_fixups, after_core, NULL, APR_HOOK_REALLY_FIRST);
    ap_hook_post_config(wh_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(wh_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_log_transaction(wh_log_transaction, NULL, NULL, APR_HOOK_MIDDLE);
    wh_mod_body_register();
    wh_mod_replay_register();
    wh_mod_inbox_register();
    wh_mod_status_register();
}

AP_DECLARE_MODULE(wirehook) = {
    STANDARD20_MODULE_STUFF,
    create_dir_conf,
    merge_dir_conf,
    NULL,
    NULL,
    wirehook_cmds,
    register_hooks
#if defined(AP_MODULE_FLAG_ALWAYS_MERGE)
    , AP_MODULE_FLAG_NONE
#endif
};
