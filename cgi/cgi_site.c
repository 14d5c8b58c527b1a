/* One configuration and what is built from it (wh_cgi_site, cgi.h).
 *
 * A FastCGI process keeps its site from one request to the next, and
 * loads it again when anything it was made from is no longer the same:
 * the request's environment (the script, SCRIPT_NAME and the
 * WIREHOOK_* variables: mod_fcgid passes SetEnv variables with each
 * request, and serves every URL that maps to the same program file with
 * the same processes), where the locating rule now finds the
 * configuration file, or a file it read (the configuration,
 * ConsoleReaders, ConsoleOperators). These are looked at on every
 * request, a few stat calls, so a change takes effect at the next
 * request as with plain CGI. The signing secrets and BasicAuthFile are
 * re-read by the verifier itself when their files change, as the
 * module's are (verify/wh_creds.h), here at every request too: a new
 * htpasswd user or a rotated secret leaves the inbox connection and the
 * auth cache in place. */
#include "cgi.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_creds.h"
#include <apr_strings.h>
#include <string.h>

#define WH_ENV_PREFIX "WIREHOOK_"

/* What the request's environment decides about the configuration. */
static const char *site_key(apr_pool_t *p, const wh_cgi_io *io, const char *script)
{
    apr_array_header_t *parts = apr_array_make(p, 8, sizeof(const char *));
    const char *name = wh_cgi_getenv(io, "SCRIPT_NAME");

    APR_ARRAY_PUSH(parts, const char *) = script ? script : "";
    APR_ARRAY_PUSH(parts, const char *) = name ? name : "";
    for (char **e = io->envp; e && *e; e++)
        if (strncmp(*e, WH_ENV_PREFIX, sizeof(WH_ENV_PREFIX) - 1) == 0)
            APR_ARRAY_PUSH(parts, const char *) = *e;
    return apr_array_pstrcat(p, parts, '\n');
}

static void log_warnings(apr_pool_t *p, const wh_config *cfg, const char *conf)
{
    const char *warn = wh_config_permission_warnings(p, cfg), *files;

    if ((files = wh_inbox_file_warnings(p, cfg)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if ((files = wh_cgi_config_file_warning(p, conf, 0)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if (warn)
        wh_logf(&wh_cgi_logger, WH_LOG_WARN, "%s", warn);
}

/* The request's variables copied into the site's pool: the configuration
 * keeps pointers into what it was built from (WIREHOOK_CONFIG's path,
 * values of WIREHOOK_<Key>), and a FastCGI request's go with it. */
static wh_cgi_io *lasting_io(apr_pool_t *sp, const wh_cgi_io *io)
{
    wh_cgi_io *copy = apr_pmemdup(sp, io, sizeof(*io));
    apr_size_t n = 0;

    while (io->envp && io->envp[n])
        n++;
    copy->envp = apr_palloc(sp, (n + 1) * sizeof(char *));
    for (apr_size_t i = 0; i < n; i++)
        copy->envp[i] = apr_pstrdup(sp, io->envp[i]);
    copy->envp[n] = NULL;
    return copy;
}

const char *wh_cgi_site_load(apr_pool_t *p, apr_pool_t *parent, const wh_cgi_io *io,
                             const char *argv0, int lasting, wh_cgi_site **out)
{
    apr_pool_t *sp = p;
    wh_cgi_site *site;
    const char *script, *err, *name;

    *out = NULL;
    if (lasting) {
        if (apr_pool_create(&sp, parent) != APR_SUCCESS)
            return "out of memory";
        io = lasting_io(sp, io);
    }
    site = apr_pcalloc(sp, sizeof(*site));
    site->pool = sp;
    script = wh_cgi_script_path(sp, io, argv0);
    if (lasting)
        site->key = site_key(sp, io, script);
    err = wh_cgi_load_config(sp, io->envp, script, &site->cfg, &site->found,
                             lasting ? &site->files : NULL);
    if (err) {
        err = apr_pstrdup(p, err);
        if (lasting)
            apr_pool_destroy(sp);
        return err;
    }
    wh_cgi_set_log_level(site->cfg->cgi_log_level);
    log_warnings(sp, site->cfg, site->found.path);
    /* With a console, its readers read there, and the bank's credentials
     * read nothing (the inbox's GET answers 403). */
    name = wh_cgi_getenv(io, "SCRIPT_NAME");
    if (site->cfg->console_readers || site->cfg->console_operators)
        site->cfg->readers_at = apr_pstrcat(sp, name ? name : "",
                                            WH_CGI_CONSOLE "/api/events", NULL);
    if (lasting) {
        site->vf = wh_verifier_create(sp, site->cfg, &wh_cgi_logger);
        /* at every request, as the configuration file is looked at */
        wh_creds_set_interval(wh_verifier_creds(site->vf), 0);
    } else {
        /* One request per process: one auth-cache slot (clearing the
         * module's 256 would only cost page faults), and no watch on the
         * credentials files it has just read. */
        site->vf = wh_verifier_create_once(sp, site->cfg, &wh_cgi_logger);
    }
    site->inbox = wh_cgi_inbox_create(sp, site->cfg, site->vf);
    *out = site;
    return NULL;
}

int wh_cgi_site_current(const wh_cgi_site *site, apr_pool_t *rp,
                        const wh_cgi_io *io, const char *argv0)
{
    const char *script = wh_cgi_script_path(rp, io, argv0);
    wh_config_found now;

    if (strcmp(site->key, site_key(rp, io, script)) != 0)
        return 0;
    wh_cgi_locate_config(rp, io->envp, script, &now);
    if ((now.path == NULL) != (site->found.path == NULL)
        || (now.path && strcmp(now.path, site->found.path) != 0))
        return 0;
    return !wh_cgi_config_files_changed(rp, &site->files);
}
