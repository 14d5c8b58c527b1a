/* mod_wirehook: verifies a bank's wire-payment-status webhooks in front of
 * any handler (CGI, PHP, mod_proxy, static files) or as the inbox itself
 * (SetHandler wirehook).
 *
 *   LoadModule wirehook_module modules/mod_wirehook.so
 *   <Location /v1/wires>
 *       WirehookConfig /etc/wirehook/bank.conf
 *   </Location>
 *
 * This file: the WirehookConfig directive (the file is read and checked
 * while httpd reads its configuration, so a broken one stops startup),
 * the per-directory configuration, and the module's lifecycle. The
 * request path is wh_mod_verify.c.
 */
#define WH_MOD_MAIN
#include "wh_mod_config.h"
#include "wh_mod_body.h"
#include "wh_mod_request.h"
#include "wh_mod_replay.h"
#include "wh_mod_status.h"
#include "wh_mod_inbox.h"
#include "wh_mod_verify.h"
#include "wh_mod_check.h"
#include "wh_mod_console.h"
#include "wh_mod_metrics.h"
#include "config/wh_config_load.h"
#include "console/wh_console.h"
#include "wh_mod_replay_lmdb.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_version.h"
#include "replay/wh_replay.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_mpm.h"
#include <apr_strings.h>
#include <apr_hash.h>

/* A number listed twice in the log-tag registry is a duplicate enumerator:
 * the module does not compile. */
#define WH_LOGTAG_ENUM(n, what) WH_LOGTAG_N##n,
enum wh_logtag_registry { WH_LOGTAGS(WH_LOGTAG_ENUM) WH_LOGTAG_COUNT_ };

/* ------------------------------------------------------------ config --- */

static void *create_dir_conf(apr_pool_t *p, char *dir)
{
    (void)dir;
    return apr_pcalloc(p, sizeof(wh_mod_dir_conf));
}

static void *merge_dir_conf(apr_pool_t *p, void *basev, void *addv)
{
    const wh_mod_dir_conf *base = basev, *add = addv;
    wh_mod_dir_conf *conf = apr_palloc(p, sizeof(*conf));
    /* the innermost WirehookConfig wins, and the innermost
     * WirehookConsole */
    *conf = add->set ? *add : *base;
    conf->console_set = add->console_set || base->console_set;
    conf->console_public = add->console_set ? add->console_public : base->console_public;
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

/* The <Location PATH> this directive is in, else NULL: only a plain URL
 * prefix says where the inbox's sub-paths begin (a <LocationMatch>, a
 * <Location ~ re>, a <Directory> or <Files> do not). */
static const char *location_base(const cmd_parms *cmd)
{
    const ap_directive_t *sect = cmd->directive ? cmd->directive->parent : NULL;
    if (!sect || !cmd->path || strcasecmp(sect->directive, "<Location") != 0
        || (sect->args && sect->args[0] == '~') || cmd->path[0] != '/')
        return NULL;
    return cmd->path;
}

/* Is this WirehookConfig in a section of wirehook's own handlers alone:
 * SetHandler wirehook (the inbox) or wirehook-console beside it, and no
 * section inside that could hand a request to another handler? Only then does
 * its configuration need no replay store (the inbox decides duplicates in its
 * database; the console delivers nothing). Anything less certain (the handler
 * set by another section, or in .htaccess) keeps the store; a request that
 * still reaches an application under a configuration judged inbox-only is
 * refused (503), never delivered without one. */
static int inbox_only_section(const cmd_parms *cmd)
{
    const ap_directive_t *sect = cmd->directive ? cmd->directive->parent : NULL;
    int inbox = 0;

    if (!sect)
        return 0;
    for (const ap_directive_t *d = sect->first_child; d; d = d->next) {
        if (d->directive[0] == '<')
            return 0;
        if (strcasecmp(d->directive, "SetHandler") == 0) {
            const char *args = d->args ? d->args : "";
            const char *h = ap_getword_conf(cmd->temp_pool, &args);
            inbox = strcasecmp(h, WH_MOD_HANDLER) == 0
                    || strcasecmp(h, WH_MOD_CONSOLE) == 0;
        }
    }
    return inbox;
}

static const char *set_wirehook_config(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    wh_mod_dir_conf *conf = dconf;
    const char *err = ap_check_cmd_context(cmd, NOT_IN_LIMIT);
    if (err)
        return err;
    conf->set = 1;
    conf->base = location_base(cmd);
    if (strcasecmp(arg, "off") == 0) {
        conf->config = NULL;
        return NULL;
    }
    const char *path = ap_server_root_relative(cmd->pool, arg);
    if (path == NULL)
        return apr_pstrcat(cmd->pool, "WirehookConfig: invalid path ", arg,
                           NULL);

    apr_hash_t *configs = wh_mod_configs(cmd->pool);
    wh_mod_config *config = apr_hash_get(configs, path, APR_HASH_KEY_STRING);
    if (config == NULL) {
        wh_config *cfg = NULL;
        err = wh_config_load(cmd->pool, path, &cfg);
        if (err)
            return config_errors(cmd, path, err);
        /* readers and operators of the module are httpd's to decide */
        if (cfg->console_readers_file || cfg->console_operators_file)
            return apr_pstrcat(cmd->pool, "WirehookConfig ", path, ": ConsoleReaders "
                               "and ConsoleOperators are wirehook.cgi's; under "
                               "mod_wirehook, readers and operators are httpd's own "
                               "AuthType and Require lines on the console's <Location> "
                               "(docs/console.md)", NULL);
        config = apr_pcalloc(cmd->pool, sizeof(*config));
        config->path = path;
        config->cfg = cfg;
        config->console = wh_console_create(cmd->pool, cfg);
        config->vf = wh_verifier_create(cmd->pool, cfg, &wh_mod_server_logger);
        if (config->vf == NULL)
            return apr_pstrcat(cmd->pool, "WirehookConfig ", path,
                               ": cannot create the verifier", NULL);
        apr_hash_set(configs, path, APR_HASH_KEY_STRING, config);
    }
    if (!inbox_only_section(cmd))
        config->app_use = 1;
    conf->config = config;
    return NULL;
}

/* WirehookConsole public|authenticated: whether a console here may be
 * reached without an authenticated user (the default: it may not, and
 * apachectl configtest refuses one that can be). */
static const char *set_wirehook_console(cmd_parms *cmd, void *dconf,
                                        const char *arg)
{
    wh_mod_dir_conf *conf = dconf;
    const char *err = ap_check_cmd_context(cmd, NOT_IN_LIMIT);
    if (err)
        return err;
    if (strcasecmp(arg, "public") == 0)
        conf->console_public = 1;
    else if (strcasecmp(arg, "authenticated") == 0)
        conf->console_public = 0;
    else
        return "WirehookConsole must be public or authenticated";
    conf->console_set = 1;
    return NULL;
}

static const command_rec wirehook_cmds[] = {
    AP_INIT_TAKE1("WirehookConfig", set_wirehook_config, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "Path of a wirehook configuration file (verifies webhooks "
                  "here), or 'off'"),
    AP_INIT_TAKE1("WirehookConsole", set_wirehook_console, NULL, ACCESS_CONF,
                  "public (a console here may be reached without a login) or "
                  "authenticated (the default)"),
    {NULL}
};

/* ---------------------------------------------------------- lifecycle --- */

/* What a configuration stores where, in a few words: the replay store's spec
 * (with the default store's file), and the inbox (an SQLite file by name; a
 * PostgreSQL conninfo never, it may hold a password). */
static const char *config_summary(apr_pool_t *p, const wh_mod_config *config)
{
    const wh_config *cfg = config->cfg;
    const char *store = cfg->replay_cache ? cfg->replay_cache : "lmdb";
    const char *file = wh_inbox_sqlite_file(cfg);

    if (!config->app_use)
        store = "none (the inbox's and the console's alone)";
    else if (cfg->replay_cache_args)    /* a conninfo's password masked */
        store = wh_replay_spec_display(p, cfg->replay_cache_provider,
                                       cfg->replay_cache_args);
    if (strcmp(store, "lmdb") == 0)
        store = apr_pstrcat(p, "lmdb (", wh_mod_lmdb_default_path(p), ")",
                            NULL);
    return apr_psprintf(p, "replay store %s; inbox %s%s%s", store,
                        !cfg->inbox_params ? "none" : cfg->inbox_driver_name,
                        file ? " " : "", file ? file : "");
}

/* One short line per start with the version, and one per configuration. The
 * replay store's guarantees are the docs' (and WH00962's, at debug). */
static int wh_post_config_last(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    apr_hash_t *configs = wh_mod_configs(pconf);
    ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, WHLOGNO(00992)
                 "mod_wirehook %s: %u WirehookConfig file%s", wh_version(),
                 apr_hash_count(configs),
                 apr_hash_count(configs) == 1 ? "" : "s");
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, configs); hi;
         hi = apr_hash_next(hi)) {
        const wh_mod_config *config = apr_hash_this_val(hi);
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, WHLOGNO(00993)
                     "WirehookConfig %s: %s", config->path,
                     config_summary(ptemp, config));
    }
    return OK;
}

static void wh_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_hash_t *configs = wh_mod_configs(s->process->pconf);
    for (apr_hash_index_t *hi = apr_hash_first(pchild, configs); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_config *config = apr_hash_this_val(hi);
        config->inbox_pool = pchild;
        config->inbox = NULL;
        if (apr_thread_mutex_create(&config->inbox_mutex,
                                    APR_THREAD_MUTEX_DEFAULT, pchild)
            != APR_SUCCESS) {
            config->inbox_mutex = NULL;
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, WHLOGNO(00902)
                         "WirehookConfig %s: cannot create the inbox mutex",
                         config->path);
        }
    }
}

static void register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(wh_post_config_last, NULL, NULL, APR_HOOK_LAST);
    ap_hook_child_init(wh_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    wh_mod_check_register();
    wh_mod_verify_register();
    wh_mod_body_register();
    wh_mod_replay_register();
    wh_mod_inbox_register();
    wh_mod_status_register();
    wh_mod_console_register();
    wh_mod_metrics_register();
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
