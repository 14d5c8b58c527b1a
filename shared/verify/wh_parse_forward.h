#ifndef WH_FORWARD_PARSE_H
#define WH_FORWARD_PARSE_H
#include <apr_pools.h>
#include "wh_duration.h"   /* wh_parse_duration_ms, the Forward* durations */

/* Value parsers of the Forward* keys, in the (pool, arg, &out) style of
 * wh_parse.h: NULL or an error that never repeats the value. */

/* The application's URL: an absolute http:// or https:// URL with a host,
 * no fragment, bytes the signature can cover unchanged (see wh_parse_url);
 * a bare /path is refused, since the forwarder has to connect to it. */
const char *wh_parse_forward_url(apr_pool_t *p, const char *arg,
                                 const char **out);

#endif
