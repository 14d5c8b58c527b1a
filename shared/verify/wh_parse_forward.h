#ifndef WH_FORWARD_PARSE_H
#define WH_FORWARD_PARSE_H
#include <apr_pools.h>

/* Value parsers of the Forward* keys, in the (pool, arg, &out) style of
 * wh_parse.h: NULL or an error that never repeats the value. */

/* A duration: digits with an optional unit, ms, s, m, h or d ("250ms",
 * "30s", "15m", "1d"); bare digits are seconds, like every other key of
 * the file. Result in milliseconds, within [min_ms, max_ms]. */
const char *wh_parse_duration_ms(apr_pool_t *p, const char *arg,
                                 apr_int64_t min_ms, apr_int64_t max_ms,
                                 apr_int64_t *out);

/* The application's URL: an absolute http:// or https:// URL with a host,
 * no fragment, bytes the signature can cover unchanged (see wh_parse_url);
 * a bare /path is refused, since the forwarder has to connect to it. */
const char *wh_parse_forward_url(apr_pool_t *p, const char *arg,
                                 const char **out);

/* "1d", "15m", "30s", "250ms": the largest unit that divides ms. */
const char *wh_format_duration(apr_pool_t *p, apr_int64_t ms);

#endif
