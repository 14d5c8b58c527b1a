#ifndef WH_PARSE_H
#define WH_PARSE_H
#include <apr_pools.h>
#include "wh_config.h"
#include "wh_file_id.h"
#include "wh_log.h"

/* Value parsers shared by the config file reader, the module and the CGI.
 * Each takes (pool, arg, &out) and returns NULL or an error string. */
const char *wh_parse_int64(apr_pool_t *p, const char *arg, apr_int64_t min,
                           apr_int64_t max, apr_int64_t *out);
const char *wh_parse_int(apr_pool_t *p, const char *arg, int min, int max,
                         int *out);
const char *wh_parse_header_name(apr_pool_t *p, const char *arg,
                                 const char **out);
const char *wh_parse_ts_unit(apr_pool_t *p, const char *arg, wh_ts_unit *out);
const char *wh_parse_unknown_status(apr_pool_t *p, const char *arg, int *reject);
/* An absolute http(s) URL, or an absolute path ("/v1/wires?x=1"). */
const char *wh_parse_url(apr_pool_t *p, const char *arg, const char **out);
/* absolute|path */
const char *wh_parse_url_form(apr_pool_t *p, const char *arg, wh_url_form *out);
const char *wh_parse_inbox_driver(apr_pool_t *p, const char *arg,
                                  wh_inbox_driver *out, const char **name);
/* "shmcb", "shmcb:/path(512000)", "memcache:host:port", "redis:host:port" */
const char *wh_parse_replay_cache(apr_pool_t *p, const char *arg,
                                  const char **provider, const char **args);
const char *wh_parse_path(apr_pool_t *p, const char *arg, const char **out);
const char *wh_parse_realm(apr_pool_t *p, const char *arg, const char **out);
/* on|off (either case), as httpd's flags: 1 or 0. */
const char *wh_parse_on_off(apr_pool_t *p, const char *arg, int *out);
/* error|warn|info|debug */
const char *wh_parse_log_level(apr_pool_t *p, const char *arg, wh_log_level *out);

/* Line-oriented files (config, secrets, htpasswd). Reads the whole file
 * (at most max_bytes) and calls fn once per line, numbered from 1. The line
 * excludes its '\n' (a '\r' before it is kept), is NUL-terminated in place
 * and len is its true length, which counts any embedded NUL byte. The
 * buffer is wiped and freed on return, so fn must copy what it keeps.
 * Returns NULL or an I/O error naming the path (never file content). */
typedef void (*wh_parse_line_fn)(void *ctx, unsigned lineno, char *line,
                                 apr_size_t len);
const char *wh_parse_lines(apr_pool_t *p, const char *path,
                           apr_size_t max_bytes, wh_parse_line_fn fn,
                           void *ctx);

/* wh_parse_lines, also giving the identity of the file it read (taken
 * from the open file, so it is the version read); *id is zeroed when the
 * file could not be opened. */
const char *wh_parse_lines_ex(apr_pool_t *p, const char *path,
                              apr_size_t max_bytes, wh_parse_line_fn fn,
                              void *ctx, wh_file_id *id);
#endif
