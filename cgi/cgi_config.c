/* Configuration of wirehook.cgi: the file found by the rule of
 * verify/wh_config_locate.h, then WIREHOOK_<Key> overrides from the
 * environment. httpd builds a CGI's environment from SetEnv/PassEnv and
 * the request headers; headers always arrive prefixed HTTP_, so a client
 * cannot forge a WIREHOOK_ variable. suEXEC passes no WIREHOOK_ variable
 * at all, which is why the file is also looked for where no environment
 * is needed. */
#include "cgi.h"
#include "config/wh_config_load.h"
#include "verify/wh_account.h"
#include <apr_file_info.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WH_ENV_PREFIX "WIREHOOK_"
#define WH_ENV_PREFIX_LEN (sizeof(WH_ENV_PREFIX) - 1)

static const char *canonical_key(const char *name)
{
    const wh_key *k = wh_config_key(name);

    return k ? k->name : NULL;
}

/* The environment as the locating rule asks it (WIREHOOK_CONFIG only); the
 * last of two settings wins, as getenv's first would not tell apart. */
static const char *env_lookup(void *ctx, const char *name)
{
    char **envp = ctx;
    apr_size_t n = strlen(name);
    const char *v = NULL;

    for (char **e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            v = *e + n + 1;
    return v;
}

/* The running user's home directory from the account database, by uid:
 * $HOME is whatever the environment says (suEXEC removes it). Looked up
 * once per process: a FastCGI process looks for its configuration at
 * every request, and the self-contained build reads /etc/passwd for it. */
static const char *home_lookup(void *ctx, apr_pool_t *p, const char **why)
{
    static char *home, *home_why;
    static int looked;
    (void)ctx;

    if (!looked) {
        const char *h = NULL, *w = wh_user_home(p, getuid(), &h);
        looked = 1;
        home = h ? strdup(h) : NULL;
        home_why = w ? strdup(w) : NULL;
    }
    *why = home_why;
    return home;
}

const char *wh_cgi_script_path(apr_pool_t *p, const wh_cgi_io *io,
                               const char *argv0)
{
    const char *s = wh_cgi_getenv(io, "SCRIPT_FILENAME");
    char *cwd, *abs;

    if (!s || !*s)
        s = argv0;
    if (!s || !*s || s[0] == '/')
        return s && *s ? s : NULL;
    if (apr_filepath_get(&cwd, APR_FILEPATH_NATIVE, p) != APR_SUCCESS
        || apr_filepath_merge(&abs, cwd, s, APR_FILEPATH_NATIVE, p)
               != APR_SUCCESS)
        return s;
    return abs;
}

/* WIREHOOK_<Key> overrides; *any says whether there was one. */
static void apply_env(apr_pool_t *p, char **envp, wh_config *cfg,
                      apr_array_header_t *errs, int *any)
{
    apr_hash_t *from_env = apr_hash_make(p);

    *any = 0;
    for (char **e = envp; e && *e; e++) {
        const char *eq, *key, *err;
        char *name;

        if (strncmp(*e, WH_ENV_PREFIX, WH_ENV_PREFIX_LEN) != 0)
            continue;
        eq = strchr(*e, '=');
        if (!eq)
            continue;
        name = apr_pstrmemdup(p, *e + WH_ENV_PREFIX_LEN,
                              (apr_size_t)(eq - *e) - WH_ENV_PREFIX_LEN);
        if (strcasecmp(name, "CONFIG") == 0) {
            /* only WIREHOOK_CONFIG names the file: another spelling would
             * be ignored while the settings it holds went missing */
            if (strcmp(name, "CONFIG") != 0)
                APR_ARRAY_PUSH(errs, const char *) =
                    apr_psprintf(p, "environment: " WH_ENV_PREFIX "%s: the "
                                 "configuration file is named by "
                                 WH_ENV_PREFIX "CONFIG", name);
            continue;
        }
        *any = 1;
        key = canonical_key(name);
        if (!key) {
            APR_ARRAY_PUSH(errs, const char *) =
                apr_psprintf(p, "environment: unknown setting " WH_ENV_PREFIX "%s", name);
            continue;
        }
        /* Two spellings of one key (WIREHOOK_MAXBODYSIZE and
         * WIREHOOK_MaxBodySize) would make the winner depend on the
         * environment's order. */
        if (apr_hash_get(from_env, key, APR_HASH_KEY_STRING)) {
            APR_ARRAY_PUSH(errs, const char *) =
                apr_psprintf(p, "environment: %s is set twice", key);
            continue;
        }
        apr_hash_set(from_env, key, APR_HASH_KEY_STRING, key);
        if ((err = wh_config_set(p, cfg, key, eq + 1, 1)) != NULL)
            APR_ARRAY_PUSH(errs, const char *) =
                apr_psprintf(p, "environment: " WH_ENV_PREFIX "%s: %s", name, err);
    }
}

void wh_cgi_locate_config(apr_pool_t *p, char **envp, const char *script,
                          wh_config_found *found)
{
    wh_config_locate(p, env_lookup, envp, script, home_lookup, NULL, found);
}

/* The file's identity before it is read: a change after this look is
 * seen at the next. */
static void look_at(apr_pool_t *p, const char *path, wh_cgi_file *f)
{
    f->path = path;
    if (!path || wh_file_id_of(p, path, &f->id) != APR_SUCCESS)
        memset(&f->id, 0, sizeof(f->id));
}

int wh_cgi_config_files_changed(apr_pool_t *p, const wh_cgi_config_files *files)
{
    const wh_cgi_file *all[] = { &files->conf, &files->readers, &files->operators };

    for (apr_size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        wh_cgi_file now;
        if (!all[i]->path)
            continue;
        look_at(p, all[i]->path, &now);
        if (!wh_file_id_same(&now.id, &all[i]->id))
            return 1;
    }
    return 0;
}

const char *wh_cgi_load_config(apr_pool_t *p, char **envp, const char *script,
                               wh_config **out, wh_config_found *found,
                               wh_cgi_config_files *files)
{
    apr_array_header_t *errs = apr_array_make(p, 4, sizeof(const char *));
    const char *err;
    wh_config *cfg;
    int any_env;

    wh_cgi_locate_config(p, envp, script, found);
    if (files) {
        memset(files, 0, sizeof(*files));
        look_at(p, found->path, &files->conf);
    }
    if (found->path) {
        if ((err = wh_config_parse_file(p, found->path, &cfg)) != NULL)
            APR_ARRAY_PUSH(errs, const char *) = err;
    }
    else {
        /* Everything from SetEnv is allowed, finalize says what is missing. */
        cfg = wh_config_create(p);
    }
    *out = cfg;
    apply_env(p, envp, cfg, errs, &any_env);
    if (files) {
        look_at(p, cfg->console_readers_file, &files->readers);
        look_at(p, cfg->console_operators_file, &files->operators);
    }

    if (!found->path && !any_env && errs->nelts == 0)
        /* "missing required key" would only mislead: nothing was read */
        return apr_psprintf(
            p,
            "no configuration file found; looked at: %s. suEXEC passes "
            "no SetEnv variable (WIREHOOK_CONFIG, WIREHOOK_<Key>) to the "
            "program: put the configuration in one of these files "
            "(docs/configuration.md, \"The CGI: where it finds "
            "its configuration\")",
            wh_config_locate_report(p, found));
#ifdef WH_CGI_SELF_CONTAINED
    if (cfg->inbox_driver == WH_INBOX_PGSQL)
        APR_ARRAY_PUSH(errs, const char *) =
            "InboxDriver pgsql needs the dynamic build: make CGI_LINK=dynamic (this "
            "wirehook.cgi is self-contained and has no PostgreSQL client)";
    /* MariaDB Connector/C is not linked in: it loads its authentication
     * plugins as shared objects and looks names up through NSS, which
     * this build refuses, and the LGPL would have every copy come with
     * what a user needs to relink it (docs/cgi.md, "Linking"). */
    if (cfg->inbox_driver == WH_INBOX_MYSQL)
        APR_ARRAY_PUSH(errs, const char *) =
            "InboxDriver mysql needs the dynamic build: make CGI_LINK=dynamic (this "
            "wirehook.cgi is self-contained and has no MySQL client: MariaDB "
            "Connector/C loads its authentication plugins as shared objects and "
            "asks NSS, which a self-contained program cannot)";
#endif
    if (errs->nelts == 0 && (err = wh_config_finalize(p, cfg)) != NULL)
        APR_ARRAY_PUSH(errs, const char *) = err;
    if (errs->nelts == 0 && (!cfg->inbox_params || !*cfg->inbox_params))
        APR_ARRAY_PUSH(errs, const char *) =
            "InboxParams is required: wirehook.cgi stores into the inbox";
    if (errs->nelts && !found->path)
        APR_ARRAY_PUSH(errs, const char *) = apr_psprintf(
            p,
            "(configured by the environment alone: no configuration file "
            "found; looked at: %s)",
            wh_config_locate_report(p, found));
    return errs->nelts ? apr_array_pstrcat(p, errs, '\n') : NULL;
}

const char *wh_cgi_config_file_warning(apr_pool_t *p, const char *path,
                                       int read_too)
{
    struct stat st;

    if (!path || stat(path, &st) != 0)
        return NULL;
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return apr_psprintf(
            p, "the configuration file %s is writable by %s (chmod 600)", path,
            st.st_mode & S_IWOTH ? "others" : "its group");
    if (read_too && (st.st_mode & S_IROTH))
        return apr_psprintf(p,
                            "the configuration file %s is readable by others "
                            "(chmod o-rw)",
                            path);
    return NULL;
}
