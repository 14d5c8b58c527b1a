#ifndef WH_VERIFY_H
#define WH_VERIFY_H
#include <apr_pools.h>
#include <apr_time.h>
#include "wh_config.h"
#include "wh_verdict.h"
#include "wh_log.h"
#include "wh_auth.h"

/* Header lookup supplied by the host: case-insensitive name, NULL when the
 * header is absent. Repeated headers are joined by the host with ", " (as
 * httpd does), which makes a repeated timestamp or signature malformed. */
typedef const char *(*wh_header_fn)(void *ctx, const char *name);

/* A request as plain data: the core knows nothing of Apache or CGI. */
typedef struct {
    const char *method;          /* "POST" */
    const char *url;             /* the URL string the sender signed */
    wh_header_fn header;
    void *header_ctx;
    const char *body;            /* raw bytes exactly as received */
    apr_size_t body_len;
    int body_overflow;           /* host stopped reading at MaxBodySize */
    /* When the body was complete (apr_time_now() once the host has read
     * it, or before reading when there is none to read): the timestamp
     * is judged then, never at the request line. A body that arrives
     * slowly must not carry a notification past the moment its id stops
     * being remembered (see wh_verify_fresh_at). */
    apr_time_t now;
    /* Where the core's messages about this request go; NULL: the
     * verifier's logger. A host that knows the request at hand (httpd's
     * request_rec) passes a sink bound to it, so a shared verifier needs
     * no per-thread state. */
    const wh_logger *log;
} wh_request;

/* Per-configuration verifier: holds the config, the log sink and the
 * Basic-auth cache. Thread-safe; create once per process. */
typedef struct wh_verifier wh_verifier;

wh_verifier *wh_verifier_create(apr_pool_t *p, const wh_config *cfg,
                                const wh_logger *log);
/* The same for a process that serves one request (wirehook.cgi): one
 * entry in the in-process auth cache (its cache that outlives it is the
 * second-level store), and no re-reading of the credentials files, which
 * it has just read. */
wh_verifier *wh_verifier_create_once(apr_pool_t *p, const wh_config *cfg,
                                     const wh_logger *log);
const wh_config *wh_verifier_config(const wh_verifier *vf);
/* The secrets and users it checks against, re-read when their files
 * change (wh_creds.h); NULL when they could not be set up (then the
 * configuration's are used, never re-read). */
struct wh_creds *wh_verifier_creds(wh_verifier *vf);
wh_auth_cache *wh_verifier_auth_cache(wh_verifier *vf);

/* Checks 1-4 (method, Basic auth, Content-Type and Content-Encoding,
 * Content-Length against MaxBodySize): everything decidable before the body is read. Returns the
 * HTTP status; v->ok is 1 when the body may be read. */
int wh_verify_envelope(wh_verifier *vf, const wh_request *req,
                       wh_verdict *v, apr_pool_t *p);
/* Check 2 alone (Basic auth against BasicAuthFile, with the cache), for
 * endpoints that are not webhooks but share the credentials, such as the
 * inbox listing. Returns 0 and sets v->facts.user, or fails v (401 with
 * WWW-Authenticate) and returns its status. */
int wh_verify_auth(wh_verifier *vf, const wh_request *req, wh_verdict *v,
                   apr_pool_t *p);
/* Checks 4 (body size as read) to 9, after wh_verify_envelope passed. */
int wh_verify_payload(wh_verifier *vf, const wh_request *req,
                      wh_verdict *v, apr_pool_t *p);
/* Freshness once more, after a host recorded the accepted notification
 * of v (a replay store's claim), with now read once the record is made.
 * The body's arrival judged it fresh; a copy can only find the record
 * while it is kept, and a store keeps it ReplayWindow (at least 2 x
 * TimestampTolerance) from the record, which comes no earlier than that
 * judgement, so at least until signed_at + TimestampTolerance. A record
 * made at or after that moment (a worker held up between the body and
 * its store) may have followed a copy's record that had just lapsed, and
 * proves nothing: 0, and the host takes it back and answers a retryable
 * 503 (the delay was the server's). 1 while still fresh. */
int wh_verify_fresh_at(const wh_verifier *vf, const wh_verdict *v, apr_time_t now);
/* Both, in order. */
int wh_verify(wh_verifier *vf, const wh_request *req, wh_verdict *v,
              apr_pool_t *p);

/* The URL to use as HTTP_URL in the signed text: SignedUrl when set; else
 * with SignedUrlForm absolute, scheme "://" host-header path-and-query,
 * exactly as the request arrived (host as the Host header carried it, port
 * included when it was sent); with SignedUrlForm path, path-and-query. */
const char *wh_request_url(apr_pool_t *p, const wh_config *cfg,
                           const char *scheme, const char *host_header,
                           const char *unparsed_uri);

#endif
