#ifndef WH_CONFIG_LOAD_H
#define WH_CONFIG_LOAD_H
/* A configuration with every key wirehook has. Each subsystem declares
 * its own keys beside its code (verify/, inbox/, replay/, forward/,
 * console/: wh_<folder>_keys.c); verify/'s loader reads whatever keys it
 * is given. This folder is the one place above all of them, so the whole
 * table is put together here, and programs make their configurations
 * through it: no folder below has to call upward to know every key. */
#include "verify/wh_config.h"
#include "verify/wh_key.h"

/* Every key's table, NULL-terminated, in a stable order (what
 * `wirehook configtest --keys` prints). */
const wh_key *const *wh_config_keys(void);

/* The row of a key (any case), or NULL. */
const wh_key *wh_config_key(const char *name);

/* A config with every default filled in and nothing loaded. */
wh_config *wh_config_create(apr_pool_t *p);

/* Parses a config file into a fresh config (defaults first). Every error
 * is collected as "path:line: message"; returns NULL when there were none,
 * else all errors joined with '\n'. *out is set in both cases. Does not
 * finalize. */
const char *wh_config_parse_file(apr_pool_t *p, const char *path,
                                 wh_config **out);

/* Parse + finalize in one call. */
const char *wh_config_load_parts(apr_pool_t *p, const char *path,
                                 unsigned parts, wh_config **out);
/* load_parts with WH_PART_VERIFY. */
const char *wh_config_load(apr_pool_t *p, const char *path, wh_config **out);

#endif
