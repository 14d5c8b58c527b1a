/* What is wrong with the configuration, said where it is made: by
 * `apache2 -t` (check_config, which it runs before "Syntax OK") and at
 * every start (post_config, into the error log). The core finds the
 * mistakes (verify/wh_config_lint.h, the permission warnings, the inbox's
 * files); this file only reports them, and walks httpd's own sections
 * for the one mistake only httpd's configuration shows: SetHandler
 * wirehook where no WirehookConfig reaches, which would answer every
 * request 500.
 *
 * The walk looks at the <Location> sections (how every document of this
 * project sets up the inbox) merged as httpd's location walk merges them
 * for that URL, the server's defaults included. A WirehookConfig in a
 * <Directory>, <Files> or <If> section could still reach such a location
 * at request time: when there is one, the finding is a warning; else
 * it refuses the configuration. */
#include "wh_mod_check.h"
#include "wh_mod_sections.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_config_lint.h"

#include "http_core.h"
#include "http_log.h"
#include <apr_strings.h>

/* The warnings about every configuration's files, one log line each (the
 * core joins them with '\n'). */
static void report_warnings(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s)
{
    apr_hash_t *configs = wh_mod_configs(pconf);

    for (apr_hash_index_t *hi = apr_hash_first(ptemp, configs); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_config *config = apr_hash_this_val(hi);
        const char *w[3];
        char *lines = NULL, *state = NULL;

        w[0] = wh_config_permission_warnings(ptemp, config->cfg);
        w[1] = wh_inbox_file_warnings(ptemp, config->cfg);
        w[2] = wh_config_lint_warnings(ptemp, config->cfg, WH_PART_SECRETS);
        for (int i = 0; i < 3; i++)
            if (w[i])
                lines = lines ? apr_pstrcat(ptemp, lines, "\n", w[i], NULL)
                              : apr_pstrdup(ptemp, w[i]);
        for (char *l = lines ? apr_strtok(lines, "\n", &state) : NULL; l;
             l = apr_strtok(NULL, "\n", &state))
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00901)
                         "WirehookConfig %s: %s", config->path, l);
    }
}

static int config_in(ap_conf_vector_t *v);

static int config_in_any(const apr_array_header_t *secs)
{
    ap_conf_vector_t **sec = secs ? (ap_conf_vector_t **)secs->elts : NULL;

    for (int i = 0; sec && i < secs->nelts; i++)
        if (config_in(sec[i]))
            return 1;
    return 0;
}

/* A WirehookConfig in this section or in a <Files> or <If> inside it. */
static int config_in(ap_conf_vector_t *v)
{
    const wh_mod_dir_conf *dc = ap_get_module_config(v, &wirehook_module);
    core_dir_config *cd = ap_get_core_module_config(v);

    return (dc && dc->set && dc->config) || config_in_any(cd->sec_file)
           || config_in_any(cd->sec_if);
}

/* A WirehookConfig outside the <Location> sections and the server's own
 * level, which the walk does not merge. */
static int config_elsewhere(server_rec *s)
{
    core_server_config *sc = ap_get_core_module_config(s->module_config);
    core_dir_config *defaults = ap_get_core_module_config(s->lookup_defaults);
    ap_conf_vector_t **sec = (ap_conf_vector_t **)sc->sec_url->elts;

    if (config_in_any(sc->sec_dir) || config_in_any(defaults->sec_file)
        || config_in_any(defaults->sec_if))
        return 1;
    for (int i = 0; i < sc->sec_url->nelts; i++) {
        core_dir_config *cd = ap_get_core_module_config(sec[i]);
        if (config_in_any(cd->sec_if))
            return 1;
    }
    return 0;
}

/* SetHandler wirehook in a <Location> that no WirehookConfig reaches. */
static int inbox_without_config(apr_pool_t *ptemp, server_rec *s0)
{
    apr_hash_t *seen = apr_hash_make(ptemp);
    int bad = 0;

    for (server_rec *s = s0; s; s = s->next) {
        core_server_config *sc = ap_get_core_module_config(s->module_config);
        ap_conf_vector_t **sec = (ap_conf_vector_t **)sc->sec_url->elts;
        int maybe = -1;   /* config_elsewhere(s), once asked */

        for (int i = 0; i < sc->sec_url->nelts; i++) {
            core_dir_config *cd = ap_get_core_module_config(sec[i]);
            const char *path = cd->d, *key, *h, *msg;
            ap_conf_vector_t *conf;
            const wh_mod_dir_conf *dc;
            request_rec *fake;

            if (cd->r || !path || cd->d_is_fnmatch)
                continue;
            key = apr_psprintf(ptemp, "%pp%s", (void *)s, path);
            if (apr_hash_get(seen, key, APR_HASH_KEY_STRING))
                continue;
            apr_hash_set(seen, key, APR_HASH_KEY_STRING, "");
            conf = wh_mod_location_config(ptemp, s, path);
            if (!(fake = wh_mod_anonymous_request(ptemp, s, conf, path, "127.0.0.1"))
                || !(h = wh_mod_handler_of(ptemp, fake)) || strcmp(h, WH_MOD_HANDLER) != 0)
                continue;
            dc = ap_get_module_config(conf, &wirehook_module);
            if (dc && dc->config)
                continue;
            if (maybe < 0)
                maybe = config_elsewhere(s);
            msg = wh_lint_inbox_without_config(ptemp, apr_psprintf(ptemp, "<Location %s>", path));
            if (maybe) {
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(01001)
                             "%s, unless a <Directory>, <Files> or <If> section "
                             "gives it one", msg);
            }
            else {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(01000) "%s", msg);
                bad = 1;
            }
        }
    }
    return bad;
}

/* An SQLite inbox on a network file system, refused as the replay
 * stores' files are (WH00994): the core says why and what instead. */
static int inbox_on_network_fs(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s)
{
    apr_hash_t *configs = wh_mod_configs(pconf);
    int bad = 0;

    for (apr_hash_index_t *hi = apr_hash_first(ptemp, configs); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_config *config = apr_hash_this_val(hi);
        const char *why = wh_inbox_network_fs(ptemp, config->cfg);
        if (why) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(01004)
                         "WirehookConfig %s: %s", config->path, why);
            bad = 1;
        }
    }
    return bad;
}

static int check_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                        server_rec *s)
{
    int bad;

    (void)plog;
    /* at a start, post_config writes the warnings to the error log, which
     * is not open yet here */
    if (ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST)
        report_warnings(pconf, ptemp, s);
    bad = inbox_without_config(ptemp, s);
    bad |= inbox_on_network_fs(pconf, ptemp, s);
    return bad ? HTTP_INTERNAL_SERVER_ERROR : OK;
}

static int post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp,
                       server_rec *s)
{
    (void)plog;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    report_warnings(pconf, ptemp, s);
    return OK;
}

void wh_mod_check_register(void)
{
    ap_hook_check_config(check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(post_config, NULL, NULL, APR_HOOK_MIDDLE);
}
