#ifndef WH_PARSE_H
#define WH_PARSE_H
#include <apr_pools.h>
#include "wh_file_id.h"

/* Value parsers shared by the config file reader, the module and the CGI.
 * Each takes (pool, arg, &out) and returns NULL or an error string. */
const char *wh_parse_int64(apr_pool_t *p, const char *arg, apr_int64_t min,
                           apr_int64_t max, apr_int64_t *out);
const char *wh_parse_int(apr_pool_t *p, const char *arg, int min, int max,
                         int *out);
const char *wh_parse_header_name(apr_pool_t *p, const char *arg,
                                 const char **out);
/* An absolute http(s) URL, or an absolute path ("/v1/wires?x=1"). */
const char *wh_parse_url(apr_pool_t *p, const char *arg, const char **out);
const char *wh_parse_path(apr_pool_t *p, const char *arg, const char **out);
/* An origin, scheme://host[:port] (http or https, a trailing "/" allowed):
 * its canonical form, lowercase, without the scheme's own port
 * ("https://console.example.com"). */
const char *wh_parse_origin(apr_pool_t *p, const char *arg, const char **out);
const char *wh_parse_realm(apr_pool_t *p, const char *arg, const char **out);
/* "shmcb", "shmcb:/path(512000)", "memcache:host:port", "redis:host:port" */
const char *wh_parse_replay_cache(apr_pool_t *p, const char *arg,
                                  const char **provider, const char **args);

/* One word an enumerated value may be, and what it means. A list of them
 * ends with a NULL name. */
typedef struct {
    const char *name;       /* the canonical spelling */
    int value;
} wh_choice;

/* One of choices, compared without case like httpd's On/Off: *out is the
 * entry matched. The error lists every choice ("must be a, b or c"). */
const char *wh_parse_choice(apr_pool_t *p, const char *arg,
                            const wh_choice *choices, const wh_choice **out);

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
