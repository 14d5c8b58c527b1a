/* Configuration of wirehook.cgi from its environment. httpd builds a CGI's
 * environment from SetEnv/PassEnv and the request headers; headers always
 * arrive prefixed HTTP_, so a client cannot forge a WIREHOOK_ variable. */
#include "cgi.h"
#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define WH_ENV_PREFIX "WIREHOOK_"
#define WH_ENV_PREFIX_LEN (sizeof(WH_ENV_PREFIX) - 1)

static const char *canonical_key(const char *name)
{
    for (const char *const *k = wh_config_keys(); *k; k++)
        if (strcasecmp(*k, name) == 0)
            return *k;
    return NULL;
}

const char *wh_cgi_load_config(apr_pool_t *p, char **envp, wh_config **out)
{
    const char *path = NULL, *err;
    apr_array_header_t *errs = apr_array_make(p, 4, sizeof(const char *));
    apr_hash_t *from_env = apr_hash_make(p);
    wh_config *cfg;

    for (char **e = envp; e && *e; e++)
        if (strncmp(*e, WH_ENV_PREFIX "CONFIG=", WH_ENV_PREFIX_LEN + 7) == 0)
            path = *e + WH_ENV_PREFIX_LEN + 7;

    if (path && *path) {
        if ((err = wh_config_parse_file(p, path, &cfg)) != NULL)
            APR_ARRAY_PUSH(errs, const char *) = err;
    } else {
        /* Everything from SetEnv: allowed, finalize says what is missing. */
        cfg = wh_config_create(p);
    }

    for (char **e = envp; e && *e; e++) {
        const char *eq, *key;
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

    if (errs->nelts == 0 && (err = wh_config_finalize(p, cfg)) != NULL)
        APR_ARRAY_PUSH(errs, const char *) = err;
    if (errs->nelts == 0 && (!cfg->inbox_params || !*cfg->inbox_params))
        APR_ARRAY_PUSH(errs, const char *) =
            "InboxParams is required: wirehook.cgi stores into the inbox";
    *out = cfg;
    return errs->nelts ? apr_array_pstrcat(p, errs, '\n') : NULL;
}
