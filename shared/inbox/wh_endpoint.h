#ifndef WH_ENDPOINT_H
#define WH_ENDPOINT_H
#include "verify/wh_verify.h"
#include "wh_inbox.h"
#include "verify/wh_response.h"

/* The inbox endpoint, host-neutral: both the module's `SetHandler
 * wirehook` and wirehook.cgi call these and copy the wh_response out.
 *
 * Its resources, by sub-path (the part of the request path after the
 * inbox's own URL, %-decoded as httpd gives PATH_INFO):
 *   "" or "/"             POST: store a notification; GET/HEAD: the listing
 *   "/payments"           GET/HEAD: payments by current status (paginated)
 *   "/payments/{id}"      GET/HEAD: one payment, its status and history
 * anything else is 404 not_found. */

typedef enum {
    WH_ROUTE_INBOX = 0,
    WH_ROUTE_PAYMENTS,
    WH_ROUTE_PAYMENT,
    WH_ROUTE_UNKNOWN
} wh_route_kind;

typedef struct {
    wh_route_kind kind;
    const char *payment_id;      /* WH_ROUTE_PAYMENT: the id, else NULL */
} wh_route;

/* Which resource sub_path names (NULL is the inbox itself). A host that
 * must decide before reading a body (the CGI) asks this first. */
void wh_endpoint_route(apr_pool_t *p, const char *sub_path, wh_route *out);

/* POST whose verdict is already known: stores accepted notifications
 * (200 accepted / 200 duplicate), quarantines authentic bodies that failed
 * JSON or schema checks (and answers the verdict's 400), answers other
 * failures from the verdict, 503 inbox_unavailable when the store fails. */
void wh_endpoint_store(wh_inbox *ib, const wh_request *req,
                       const wh_verdict *v, apr_pool_t *p, wh_response *out);

/* An error document (ErrorDocument 404 <inbox URL>): httpd answers a
 * failed request, perhaps a POSTed notification, with a GET of the error
 * document. A listing answered 200 would read to the sender as the
 * acknowledgement of something never stored, so the inbox is never an
 * error document: when failed_status (the failed request's status, from
 * the host: the module's r->prev, the CGI's REDIRECT_STATUS) is an error,
 * *out answers that status with a JSON error and 1 is returned; else 0. */
int wh_endpoint_error_document(apr_pool_t *p, int failed_status, wh_response *out);

/* The inbox, asked for by wh_endpoint_handle_lazy only when a request
 * needs it: get(ctx) returns it, or NULL (503). */

/* A host that could not open the inbox (a schema newer than this build,
 * a missing driver, a directory it may not write) tries again after this
 * long at the most; its 503s meanwhile say so (Retry-After). A store or a
 * listing that failed on an open inbox says WH_INBOX_RETRY_MS. */
#define WH_ENDPOINT_OPEN_RETRY apr_time_from_sec(5)
typedef wh_inbox *(*wh_endpoint_inbox_fn)(void *ctx);

/* Dispatch by sub-path and method: an unknown sub-path is 404 not_found
 * (whatever the method); on the inbox itself POST -> wh_verify +
 * wh_endpoint_store, GET/HEAD -> the listing (Basic auth, the same users,
 * then the offset/limit query), anything else 405 with
 * Allow: GET, HEAD, POST; on the payment views GET/HEAD (Basic auth, the
 * listing's users) or 405 with Allow: GET, HEAD. query is the raw query
 * string or NULL. */
void wh_endpoint_handle(wh_verifier *vf, wh_inbox *ib, const wh_request *req,
                        const char *sub_path, const char *query, apr_pool_t *p,
                        wh_response *out);
/* The same with the inbox asked for (get(ctx)) only when the request needs
 * it: after Basic auth and the query have passed for the views and the
 * listing, after the verdict for a POST (an authentic one, accepted or
 * quarantined). */
void wh_endpoint_handle_lazy(wh_verifier *vf, wh_endpoint_inbox_fn get, void *ctx,
                             const wh_request *req, const char *sub_path,
                             const char *query, apr_pool_t *p, wh_response *out);

#endif
