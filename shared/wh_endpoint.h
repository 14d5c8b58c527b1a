#ifndef WH_ENDPOINT_H
#define WH_ENDPOINT_H
#include "wh_verify.h"
#include "wh_inbox.h"
#include "wh_response.h"

/* The inbox endpoint, host-neutral: both the module's `SetHandler
 * wirehook` and wirehook.cgi call these and copy the wh_response out. */

/* POST whose verdict is already known: stores accepted notifications
 * (200 accepted / 200 duplicate), quarantines authentic bodies that failed
 * JSON or schema checks (and answers the verdict's 400), answers other
 * failures from the verdict, 503 inbox_unavailable when the store fails. */
void wh_endpoint_store(wh_inbox *ib, const wh_request *req,
                       const wh_verdict *v, apr_pool_t *p, wh_response *out);

/* GET: Basic auth (same users), pagination, listing. */
void wh_endpoint_list(wh_verifier *vf, wh_inbox *ib, const wh_request *req,
                      const char *query, apr_pool_t *p, wh_response *out);

/* The same with the inbox asked for only once the request has passed
 * Basic auth and its query is valid, so a request without credentials
 * never opens (or creates) the database: get(ctx) returns it, or NULL
 * (503). */
typedef wh_inbox *(*wh_endpoint_inbox_fn)(void *ctx);
void wh_endpoint_list_lazy(wh_verifier *vf, wh_endpoint_inbox_fn get, void *ctx,
                           const wh_request *req, const char *query, apr_pool_t *p,
                           wh_response *out);

/* Dispatch by method: POST -> wh_verify + wh_endpoint_store, GET/HEAD ->
 * wh_endpoint_list, anything else 405 with Allow: GET, HEAD, POST. */
void wh_endpoint_handle(wh_verifier *vf, wh_inbox *ib, const wh_request *req,
                        const char *query, apr_pool_t *p, wh_response *out);

#endif
