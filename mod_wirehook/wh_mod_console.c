/* `SetHandler wirehook-console`: the console of the WirehookConfig in
 * the same <Location>, rendered by the core (shared/console/).
 *
 * Who may read and who may act is httpd's own authn/authz, as for every
 * handler: the console's <Location> names the readers (AuthType, any
 * provider, Require user|group|...), and a stricter <Location> on its
 * /actions sub-path names the operators. A page shows the actions when
 * the user already authenticated for the page would pass the access
 * checks and the authz of POST <console>/actions/retry's <Location>
 * sections: evaluated on a request of our own that carries that user,
 * so no password is checked a second time (a subrequest would run authn
 * again, bcrypt and all) and a reader's refusal is no authz failure in
 * the error log (fail2ban's apache-auth filter would ban the reader).
 * Only a button depends on it: the action itself runs under httpd's
 * whole authz, <Directory> and <If> included.
 *
 * The Host of every request must be one of the server's names
 * (ServerName, ServerAlias: httpd's own rules), its own address, or the
 * public origin's (ConsoleOrigin): a page on a domain that rebinds its
 * name to this server gets 403.
 *
 * No console is open to anyone by accident: check_config walks every
 * <Location> whose handler is the console and evaluates its access with
 * a request that carries no user, the way httpd's core does (access
 * checkers, then the access_checker_ex of mod_authz_core); one that lets
 * it in fails `apachectl configtest` unless `WirehookConsole public`
 * says so. At request time a request without an authenticated user is
 * refused all the same (fail closed: the walk cannot see <Directory>,
 * <If> or .htaccess rules, nor every client address). */
#include "wh_mod_console.h"
#include "wh_mod_config_inbox.h"
#include "wh_mod_status.h"
#include "wh_mod_replay.h"
#include "wh_mod_request.h"
#include "wh_mod_sections.h"
#include "console/wh_console.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include <apr_strings.h>

/* The largest action form read (the core refuses anything larger). */
#define WH_CONSOLE_FORM_READ 8192

int wh_mod_is_console(const request_rec *r)
{
    return r->handler && strcmp(r->handler, WH_MOD_CONSOLE) == 0;
}

static int refuse(request_rec *r, int status, const char *code, const char *msg)
{
    return wh_mod_respond_error(r, status, code, msg);
}

/* The sub-path after the console's <Location>, or NULL outside it. */
static const char *sub_path(const request_rec *r, const wh_mod_dir_conf *dc)
{
    apr_size_t n;

    if (!dc->base)
        return NULL;
    n = strlen(dc->base);
    while (n > 0 && dc->base[n - 1] == '/')
        n--;
    if (strncmp(r->uri, dc->base, n) == 0 && (r->uri[n] == '\0' || r->uri[n] == '/'))
        return r->uri + n;
    return NULL;
}

/* Nothing a may_act() evaluation does is logged: its refusal says who
 * sees a button, not who was refused anything. */
static struct ap_logconf quiet_log = { NULL, -1 };

/* Whether r's user would pass httpd's access checks and authz for the
 * console's actions (the order of ap_process_request_internal, without
 * authentication: the user is the one the page authenticated). */
static int may_act(request_rec *r, const char *base, const char *sub)
{
    const char *uri;
    ap_conf_vector_t *conf;
    request_rec *fake;
    int access;

    /* the actions themselves already passed it to get here */
    if (wh_console_is_action(sub))
        return 1;
    if (!r->user)
        return 0;
    uri = apr_pstrcat(r->pool, base, WH_CONSOLE_ACTIONS "/retry", NULL);
    conf = wh_mod_location_config(r->pool, r->server, uri);
    fake = wh_mod_anonymous_request(r->pool, r->server, conf, uri, r->useragent_ip);
    if (!fake)
        return 0;
    fake->method = "POST";
    fake->method_number = M_POST;
    fake->user = r->user;
    fake->ap_auth_type = r->ap_auth_type;
    fake->headers_in = r->headers_in;
    fake->hostname = r->hostname;
    fake->log = &quiet_log;
    access = ap_run_access_checker(fake);
    if (ap_satisfies(fake) == SATISFY_ANY && access == OK)
        return 1;
    if (ap_satisfies(fake) != SATISFY_ANY && access != OK)
        return 0;
    if (ap_run_access_checker_ex(fake) == OK)
        return 1;
    return ap_run_auth_checker(fake) == OK;
}

/* Whether Host names this server: ServerName, a ServerAlias (wildcards
 * as httpd matches them), or the address the request came in on; no Host
 * at all (HTTP/1.0) names nothing another site could rebind. */
static int host_known(const request_rec *r)
{
    const server_rec *s = r->server;
    const char *h = r->hostname, *ip = r->connection->local_ip;

    if (!apr_table_get(r->headers_in, "Host") || !h)
        return !apr_table_get(r->headers_in, "Host");
    if (s->server_hostname && strcasecmp(h, s->server_hostname) == 0)
        return 1;
    for (int i = 0; s->names && i < s->names->nelts; i++)
        if (strcasecmp(h, APR_ARRAY_IDX(s->names, i, const char *)) == 0)
            return 1;
    for (int i = 0; s->wild_names && i < s->wild_names->nelts; i++)
        if (ap_strcasecmp_match(h, APR_ARRAY_IDX(s->wild_names, i, const char *)) == 0)
            return 1;
    if (ip && (strcmp(h, ip) == 0
               || (h[0] == '[' && strlen(h) == strlen(ip) + 2 && strncmp(h + 1, ip, strlen(ip)) == 0)))
        return 1;
    return 0;
}

/* An action's form, at most WH_CONSOLE_FORM_READ + 1 bytes (more is
 * refused by the core as too large). */
static void read_form(request_rec *r, const char **body, apr_size_t *len)
{
    char *buf = apr_palloc(r->pool, WH_CONSOLE_FORM_READ + 2);
    apr_size_t got = 0;

    *body = NULL;
    *len = 0;
    if (ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK) != OK)
        return;
    if (ap_should_client_block(r)) {
        long n;
        while (got <= WH_CONSOLE_FORM_READ
               && (n = ap_get_client_block(r, buf + got, WH_CONSOLE_FORM_READ + 1 - got)) > 0)
            got += (apr_size_t)n;
    }
    buf[got] = '\0';
    *body = buf;
    *len = got;
}

typedef struct {
    request_rec *r;
    wh_mod_config *config;
} console_ctx;

static wh_inbox *inbox_of(void *baton)
{
    console_ctx *c = baton;
    return wh_mod_inbox_get(c->r, c->config);
}

int wh_mod_console_run(request_rec *r)
{
    const wh_mod_dir_conf *dc = ap_get_module_config(r->per_dir_config, &wirehook_module);
    wh_mod_config *config = dc ? dc->config : NULL;
    const char *sub = dc ? sub_path(r, dc) : NULL, *base;
    wh_console_request req;
    wh_console_response out;
    wh_console_host host;
    console_ctx ctx = { r, config };
    apr_uint64_t live = 0, cap = 0;

    if (!config || !config->console || !sub) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00990)
                      "SetHandler " WH_MOD_CONSOLE " needs WirehookConfig in the same "
                      "<Location PATH> (a plain URL path), and %s is not under one",
                      r->uri);
        return refuse(r, HTTP_INTERNAL_SERVER_ERROR, WH_CODE_INTERNAL,
                      "the console is not configured");
    }
    /* fail closed: only WirehookConsole public lets a request without a
     * user in, whatever the authz in force said */
    if (!r->user && !dc->console_public) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00985)
                      "console %s reached without an authenticated user: refused "
                      "(require a login on its <Location>, or mark it "
                      "'WirehookConsole public')", dc->base);
        ap_discard_request_body(r);
        return refuse(r, HTTP_FORBIDDEN, WH_CODE_FORBIDDEN,
                      "the console needs an authenticated user");
    }
    base = apr_pstrmemdup(r->pool, r->uri, (apr_size_t)(sub - r->uri));
    memset(&req, 0, sizeof(req));
    req.method = r->method;
    req.base = base;
    req.sub_path = sub;
    req.query = r->args;
    req.user = r->user;
    req.may_act = may_act(r, base, sub);
    req.scheme = ap_http_scheme(r);
    req.host_header = apr_table_get(r->headers_in, "Host");
    req.host_known = host_known(r);
    req.origin = apr_table_get(r->headers_in, "Origin");
    req.fetch_site = apr_table_get(r->headers_in, "Sec-Fetch-Site");
    req.cookie = apr_table_get(r->headers_in, "Cookie");
    req.if_none_match = apr_table_get(r->headers_in, "If-None-Match");
    req.content_type = apr_table_get(r->headers_in, "Content-Type");
    req.now = r->request_time ? r->request_time : apr_time_now();
    if (r->method_number == M_POST)
        read_form(r, &req.body, &req.body_len);
    else
        ap_discard_request_body(r);

    memset(&host, 0, sizeof(host));
    host.host = "mod_wirehook";
    if (wh_mod_stats_counts(config, r->pool, (apr_array_header_t **)&host.counts,
                            &host.counters_since) != 0) {
        host.counts = NULL;
        host.no_counters = "No counters for this configuration (see the error log at "
                           "startup).";
    }
    if (config->replay) {
        host.replay_provider = wh_mod_replay_provider(config->replay);
        host.replay_fill_known = wh_mod_replay_fill(config->replay, &live, &cap) == 0;
        host.replay_live = live;
        host.replay_capacity = cap;
    }
    host.ring = wh_mod_stats_ring(config);
    req.host = &host;
    wh_console_handle(config->console, inbox_of, &ctx, &req, r->pool, &out);

    if (out.audit) {
        if (out.audit_level == WH_LOG_INFO)
            ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r, WHLOGNO(00983) "%s", out.audit);
        else if (out.foreign_host)
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(01003) "%s", out.audit);
        else
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00984) "%s", out.audit);
    }
    r->status = out.status;
    r->status_line = NULL;
    for (int i = 0; i < out.headers->nelts; i++) {
        const wh_console_header *h = &APR_ARRAY_IDX(out.headers, i, wh_console_header);
        apr_table_addn(r->err_headers_out, h->name, h->value);
    }
    if (out.status == HTTP_NOT_MODIFIED)
        return DONE;
    ap_set_content_type(r, out.content_type);
    ap_set_content_length(r, (apr_off_t)out.body_len);
    if (!r->header_only && out.body_len)
        ap_rwrite(out.body, (int)out.body_len, r);
    return DONE;
}

/* Reached only for SetHandler wirehook-console where no WirehookConfig
 * is in force: with one, the guard runs the console (wh_mod_verify.c). */
static int console_handler(request_rec *r)
{
    return wh_mod_is_console(r) ? wh_mod_console_run(r) : DECLINED;
}

/* ---- configuration time ------------------------------------------------ */

/* 1 when the request gets past httpd's access control without a user:
 * the order of ap_process_request_internal (access_checker, then
 * access_checker_ex, force_authn; with "Satisfy Any" either one). */
static int let_in_without_user(request_rec *r)
{
    int access = ap_run_access_checker(r);

    if (ap_satisfies(r) == SATISFY_ANY && access == OK)
        return 1;
    if (ap_satisfies(r) != SATISFY_ANY && access != OK)
        return 0;
    return ap_run_access_checker_ex(r) == OK && ap_run_force_authn(r) != OK;
}

/* Whether some <Location> applies to uri (an action) and not to the
 * console's own base: the actions have access rules of their own. */
static int actions_protected_apart(server_rec *s, const char *base)
{
    core_server_config *sc = ap_get_core_module_config(s->module_config);
    ap_conf_vector_t **sec = (ap_conf_vector_t **)sc->sec_url->elts;
    const char *action = apr_pstrcat(s->process->pconf, base, WH_CONSOLE_ACTIONS "/retry", NULL);

    for (int i = 0; i < sc->sec_url->nelts; i++) {
        core_dir_config *cd = ap_get_core_module_config(sec[i]);
        if (wh_mod_section_matches(cd, action) && !wh_mod_section_matches(cd, base))
            return 1;
    }
    return 0;
}

static int console_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                                apr_pool_t *ptemp, server_rec *s0)
{
    static const char *const clients[] = { "192.0.2.1", "127.0.0.1", "::1" };
    apr_hash_t *seen = apr_hash_make(ptemp);
    int bad = 0;
    (void)plog;

    for (server_rec *s = s0; s; s = s->next) {
        core_server_config *sc = ap_get_core_module_config(s->module_config);
        ap_conf_vector_t **sec = (ap_conf_vector_t **)sc->sec_url->elts;
        for (int i = 0; i < sc->sec_url->nelts; i++) {
            core_dir_config *cd = ap_get_core_module_config(sec[i]);
            const char *path = cd->d, *h;
            ap_conf_vector_t *conf;
            const wh_mod_dir_conf *dc;
            request_rec *fake;

            if (cd->r || !path || cd->d_is_fnmatch
                || apr_hash_get(seen, apr_psprintf(ptemp, "%pp%s", (void *)s, path),
                                APR_HASH_KEY_STRING))
                continue;
            apr_hash_set(seen, apr_psprintf(ptemp, "%pp%s", (void *)s, path),
                         APR_HASH_KEY_STRING, "");
            conf = wh_mod_location_config(ptemp, s, path);
            if (!(fake = wh_mod_anonymous_request(ptemp, s, conf, path, clients[0]))
                || !(h = wh_mod_handler_of(ptemp, fake)) || strcmp(h, WH_MOD_CONSOLE) != 0)
                continue;
            dc = ap_get_module_config(conf, &wirehook_module);
            if (!dc || !dc->config || !dc->base) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00987)
                             "<Location %s>: SetHandler " WH_MOD_CONSOLE " needs "
                             "WirehookConfig in the console's own <Location PATH>", path);
                bad = 1;
                continue;
            }
            if (!dc->config->console_base) {
                dc->config->console_base = apr_pstrdup(pconf, dc->base);
                dc->config->cfg->readers_at = apr_pstrcat(pconf, dc->base, "/api/events", NULL);
            }
            if (!dc->console_public) {
                for (size_t k = 0; k < sizeof(clients) / sizeof(clients[0]); k++) {
                    fake = wh_mod_anonymous_request(ptemp, s, conf, path, clients[k]);
                    if (fake && let_in_without_user(fake)) {
                        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00986)
                                     "<Location %s>: the console can be reached without "
                                     "authentication (tried as a client at %s): require "
                                     "a user (AuthType and Require valid-user, user or "
                                     "group), or say 'WirehookConsole public'",
                                     path, clients[k]);
                        bad = 1;
                        break;
                    }
                }
            }
            if (!bad && strcmp(path, dc->base) == 0 && dc->config->cfg->console_actions
                && !actions_protected_apart(s, dc->base))
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00988)
                             "<Location %s>: every reader of the console may also act: "
                             "protect <Location %s" WH_CONSOLE_ACTIONS "> with a "
                             "stricter Require (the operators), or set ConsoleActions "
                             "off in %s", path, path, dc->config->path);
        }
    }
    return bad ? HTTP_INTERNAL_SERVER_ERROR : OK;
}

/* Where no console shows a configuration that keeps an inbox, its readers are
 * the bank's users (today's behaviour): said once at startup. */
static int console_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    apr_hash_t *configs;
    (void)plog;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    configs = wh_mod_configs(pconf);
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, configs); hi; hi = apr_hash_next(hi)) {
        const wh_mod_config *config = apr_hash_this_val(hi);
        if (config->cfg->inbox_params && !config->cfg->readers_at)
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00989)
                         "WirehookConfig %s: the bank's credentials (BasicAuthFile) "
                         "also read the inbox (GET): to give readers their own logins, "
                         "add a console (<Location> with SetHandler " WH_MOD_CONSOLE
                         " and Require lines: docs/console.md); the bank then reads "
                         "nothing", config->path);
    }
    return OK;
}

void wh_mod_console_register(void)
{
    static const char *const after_authz[] = { "mod_authz_core.c", NULL };
    ap_hook_check_config(console_check_config, after_authz, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(console_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(console_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
