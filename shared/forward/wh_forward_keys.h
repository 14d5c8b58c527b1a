#ifndef WH_FORWARD_KEYS_H
#define WH_FORWARD_KEYS_H
/* The forwarder's configuration keys (rows of verify/wh_key.h), and the
 * parser of ForwardUrl in the (pool, arg, &out) style of verify/wh_parse.h:
 * NULL or an error that never repeats the value. */
#include "verify/wh_key.h"

extern const wh_key wh_forward_keys[];

/* The application's URL: an absolute http:// or https:// URL with a host,
 * no fragment, bytes the signature can cover unchanged (see wh_parse_url);
 * a bare /path is refused, since the forwarder has to connect to it. */
const char *wh_parse_forward_url(apr_pool_t *p, const char *arg,
                                 const char **out);

#endif
