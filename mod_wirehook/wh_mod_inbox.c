/* `SetHandler wirehook`: the module is the application. POST was verified
 * by the fixups hook (which leaves the answer to this handler, so authentic
 * bodies that fail JSON/schema checks are quarantined); GET/HEAD list the
 * inbox and serve the payment views (wh_endpoint_handle checks Basic auth
 * itself). The replay store is not used here: the inbox's unique
 * constraint decides duplicates.
 *
 * The inbox is opened lazily, once per child per configuration file, under
 * a per-child thread mutex; the wh_inbox itself serialises its use of the
 * connection (wh_inbox.c), so requests share it without further locking.
 * When it cannot be opened the endpoint functions get NULL: failed
 * verdicts are still answered as such, stores and lists answer 503
 * inbox_unavailable, and the child tries to open it again after
 * WH_MOD_INBOX_RETRY. Concurrent stores of one child share transactions
 * (group commit, shared/inbox/wh_batch.h). */
#include "wh_mod_inbox.h"
#include "wh_mod_config_inbox.h"
#include "wh_mod_status.h"
#include "wh_mod_request.h"
#include "wh_mod_body.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include "inbox/wh_endpoint.h"
#include <apr_strings.h>

int wh_mod_is_inbox(const request_rec *r)
{
    return r->handler && strcmp(r->handler, WH_MOD_HANDLER) == 0;
}

/* The resource under the inbox (wh_endpoint.h): the rest of the URL path
 * after the <Location> that configures it ("" for the inbox itself), or,
 * for an inbox configured elsewhere, the PATH_INFO httpd found. A path
 * outside the base (an Alias, a rewrite into it) has no sub-path. */
static const char *inbox_sub_path(const request_rec *r,
                                  const wh_mod_dir_conf *dconf)
{
    if (dconf->base) {
        apr_size_t n = strlen(dconf->base);
        while (n > 0 && dconf->base[n - 1] == '/')
            n--;
        if (strncmp(r->uri, dconf->base, n) == 0
            && (r->uri[n] == '\0' || r->uri[n] == '/'))
            return r->uri + n;
        return NULL;
    }
    return r->path_info;
}

typedef struct {
    request_rec *r;
    wh_mod_config *config;
} inbox_ctx;

static wh_inbox *inbox_when_needed(void *baton)
{
    inbox_ctx *c = baton;
    return wh_mod_inbox_get(c->r, c->config);
}

int wh_mod_inbox_run(request_rec *r)
{
    const wh_mod_dir_conf *dconf =
        ap_get_module_config(r->per_dir_config, &wirehook_module);
    wh_mod_config *config = dconf ? dconf->config : NULL;
    if (config == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00951)
                      "SetHandler wirehook needs WirehookConfig in the same "
                      "context");
        return wh_mod_respond_error(r, HTTP_INTERNAL_SERVER_ERROR,
                                    WH_CODE_INTERNAL,
                                    "the endpoint is not configured");
    }

    /* (ErrorDocument ... /inbox is answered by the guard, before this) */
    wh_response resp;
    /* A POST carries its verdict under this configuration: the inbox's own
     * (good or bad, to store or quarantine), or an accepted one from earlier
     * in the chain (a rewrite or an Action from a protected resource into the
     * inbox), which is stored like any other. */
    wh_mod_state *st = wh_mod_chain_state(r);
    if (r->method_number == M_POST
        && (st == NULL || st->config != config
            || (st->phase != WH_ST_INBOX && st->phase != WH_ST_VERIFIED))) {
        /* the guard verifies every POST before this handler: refuse
         * rather than store anything unverified */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00952)
                      "POST reached the wirehook handler unverified");
        wh_mod_stats_verdict(config, WH_CODE_INTERNAL);
        wh_mod_stats_latency(config, r);
        return wh_mod_respond_error(r, HTTP_INTERNAL_SERVER_ERROR,
                                    WH_CODE_INTERNAL,
                                    "the request was not verified");
    }

    wh_request req;
    wh_logger log = { wh_mod_log_sink, r };
    if (st && r->method_number == M_POST)
        req = st->req;
    else
        wh_mod_request_init(r, config->cfg, &req);
    req.log = &log;

    wh_route route;
    const char *sub_path = inbox_sub_path(r, dconf);
    wh_endpoint_route(r->pool, sub_path, &route);
    int store = r->method_number == M_POST && route.kind == WH_ROUTE_INBOX;
    if (store) {
        wh_endpoint_store(wh_mod_inbox_get(r, config), &req, &st->verdict,
                          r->pool, &resp);
        wh_mod_stats_endpoint(config, &st->verdict, &resp);
        wh_mod_stats_latency(config, r);
    } else {
        /* the listing and the payment views (GET/HEAD; the inbox asked for
         * once Basic auth and the query have passed), 404 for a resource
         * the inbox does not have, 405 for a method the resource does not
         * take: a POST under the inbox is verified, never stored */
        inbox_ctx ctx = { r, config };
        /* a body these answers never read (a PUT's) is drained first, or
         * an h2 stream can be reset under the answer */
        wh_mod_drain_before_answer(r, config->cfg->max_body_size);
        wh_endpoint_handle_lazy(config->vf, inbox_when_needed, &ctx, &req, sub_path,
                                r->args ? r->args : "", r->pool, &resp);
    }

    if (store && st->verdict.ok)
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00953)
                      "inbox: notificationId=%s answered %d",
                      st->verdict.facts.notification_id
                          ? st->verdict.facts.notification_id : "-",
                      resp.status);
    wh_mod_respond(r, &resp);
    return OK;
}

/* Reached only for SetHandler wirehook without a WirehookConfig: with
 * one, the guard runs the inbox itself (wh_mod_verify.c). */
static int inbox_handler(request_rec *r)
{
    return wh_mod_is_inbox(r) ? wh_mod_inbox_run(r) : DECLINED;
}

void wh_mod_inbox_register(void)
{
    ap_hook_handler(inbox_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
