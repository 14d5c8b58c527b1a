#ifndef WH_CONFIG_LOCATE_H
#define WH_CONFIG_LOCATE_H
/* Where wirehook.cgi finds its configuration file (docs/configuration.md,
 * "The CGI: where it finds its configuration"), the first that exists:
 *
 *   1. the file WIREHOOK_CONFIG names, when that variable reached the
 *      program (SetEnv, where no suEXEC cleans the environment);
 *   2. beside the script, named after it with a ".ht" prefix: orders.cgi
 *      reads .htorders.conf (Apache's default configuration serves no
 *      .ht* file);
 *   3. ~/.wirehook/orders.conf, ~ being the home directory of the user
 *      the program runs as, from the account database (never $HOME).
 *
 * Plain data in: an environment lookup (asked for WIREHOOK_CONFIG only),
 * the script's path and a lookup of the home directory (called only when
 * the rule gets that far). Nothing of the request takes part: the caller
 * takes the script's path from what the server mapped (SCRIPT_FILENAME)
 * or from argv[0], never from PATH_INFO, the query string or a header. */
#include <apr_pools.h>
#include <apr_tables.h>

#define WH_CONFIG_ENV "WIREHOOK_CONFIG"

typedef const char *(*wh_locate_env_fn)(void *ctx, const char *name);
/* The running user's home directory, or NULL with *why set. */
typedef const char *(*wh_locate_home_fn)(void *ctx, apr_pool_t *p,
                                         const char **why);

typedef struct {
    const char *rule; /* WH_CONFIG_ENV, "the file beside the script",
                             "the file in the home directory" */
    const char *path; /* NULL: this rule gives no file (why says) */
    const char *why;  /* NULL when the file exists, else what was found */
} wh_config_place;

typedef struct {
    apr_array_header_t
        *places;      /* of wh_config_place, in the order looked at */
    const char *path; /* the file to read, or NULL: none exists */
    int from_env;     /* WIREHOOK_CONFIG named it */
} wh_config_found;

void wh_config_locate(apr_pool_t *p, wh_locate_env_fn env, void *env_ctx,
                      const char *script, wh_locate_home_fn home,
                      void *home_ctx, wh_config_found *out);

/* What was at the place: "set" (WIREHOOK_CONFIG), "found", or why not. */
const char *wh_config_place_state(const wh_config_place *pl);

/* Every place looked at and what was there, on one line:
 * "WIREHOOK_CONFIG (not set), /srv/.htorders.conf (no such file), ...". */
const char *wh_config_locate_report(apr_pool_t *p,
                                    const wh_config_found *found);

/* The script's name without its directory and last extension
 * ("/srv/hooks/orders.cgi" -> "orders"), or NULL when there is none. */
const char *wh_config_script_stem(apr_pool_t *p, const char *script);

#endif
