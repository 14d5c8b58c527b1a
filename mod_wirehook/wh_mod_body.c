/* Bounded read-ahead of the request body, and the WIREHOOK_KEPT_BODY input
 * filter that serves exactly the verified bytes to the handler afterwards
 * (httpd's model: mod_request's KEPT_BODY filter over r->kept_body). */
#include "wh_mod_body.h"
#include "wh_mod_request.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include "util_filter.h"
#include <apr_strings.h>
#include <apr_buckets.h>

#define WH_READ_CHUNK 8192

/* Reads the whole body through r->input_filters (de-chunked by HTTP_IN, no
 * content decoding: see mod_wirehook.c). Never holds more than max + one
 * read chunk; stops as soon as max is exceeded (WH_BODY_OVERFLOW, nothing
 * more is read: the caller closes the connection). Errors of lower filters
 * come back as WH_BODY_ERROR with *status mapped as mod_request does. */
wh_body_result wh_mod_read_body(request_rec *r, apr_int64_t max,
                                const char **body, apr_size_t *len,
                                int *status)
{
    *body = "";
    *len = 0;
    *status = OK;

    /* Content-Length over the limit: 413 without reading a byte. The core
     * already refused it in the envelope; this keeps the function safe on
     * its own. */
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    apr_size_t cap = WH_READ_CHUNK;
    if (cl && !apr_table_get(r->headers_in, "Transfer-Encoding")) {
        apr_int64_t n = apr_atoi64(cl);
        if (n > max)
            return WH_BODY_OVERFLOW;
        if (n >= 0)
            cap = (apr_size_t)n + 1;
    }
    if (cap > (apr_size_t)max + 1)
        cap = (apr_size_t)max + 1;

    char *buf = apr_palloc(r->pool, cap);
    apr_size_t used = 0;
    apr_bucket_brigade *bb = apr_brigade_create(r->pool,
                                                r->connection->bucket_alloc);
    int seen_eos = 0;
    while (!seen_eos) {
        apr_status_t rv = ap_get_brigade(r->input_filters, bb,
                                         AP_MODE_READBYTES, APR_BLOCK_READ,
                                         WH_READ_CHUNK);
        if (rv != APR_SUCCESS) {
            apr_brigade_destroy(bb);
            *status = ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
            ap_log_rerror(APLOG_MARK, APLOG_INFO, rv, r, WHLOGNO(00920)
                          "reading the request body failed (answer %d)",
                          *status);
            return WH_BODY_ERROR;
        }
        for (apr_bucket *b = APR_BRIGADE_FIRST(bb);
             b != APR_BRIGADE_SENTINEL(bb); b = APR_BUCKET_NEXT(b)) {
            if (APR_BUCKET_IS_EOS(b)) {
                seen_eos = 1;
                break;
            }
            if (APR_BUCKET_IS_METADATA(b))
                continue;
            const char *data;
            apr_size_t n;
            rv = apr_bucket_read(b, &data, &n, APR_BLOCK_READ);
            if (rv != APR_SUCCESS) {
                apr_brigade_destroy(bb);
                *status = ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
                return WH_BODY_ERROR;
            }
            if ((apr_int64_t)(used + n) > max) {
                apr_brigade_destroy(bb);
                ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, WHLOGNO(00921)
                              "body exceeds MaxBodySize %" APR_INT64_T_FMT
                              ": stopped reading", max);
                return WH_BODY_OVERFLOW;
            }
            if (used + n + 1 > cap) {
                apr_size_t ncap = cap * 2;
                while (ncap < used + n + 1)
                    ncap *= 2;
                if (ncap > (apr_size_t)max + 1)
                    ncap = (apr_size_t)max + 1;
                char *nbuf = apr_palloc(r->pool, ncap);
                memcpy(nbuf, buf, used);
                buf = nbuf;
                cap = ncap;
            }
            memcpy(buf + used, data, n);
            used += n;
        }
        apr_brigade_cleanup(bb);
    }
    apr_brigade_destroy(bb);
    buf[used] = '\0';
    *body = buf;
    *len = used;
    return WH_BODY_OK;
}

/* Reads and drops the rest of the body, at most max bytes. 0 when it ended
 * within them; -1 when it is longer or reading failed (the caller closes
 * the connection instead). */
int wh_mod_drain_body(request_rec *r, apr_int64_t max)
{
    apr_bucket_brigade *bb = apr_brigade_create(r->pool,
                                                r->connection->bucket_alloc);
    apr_int64_t seen = 0;
    int rc = -1;

    for (;;) {
        apr_off_t n = 0;
        if (ap_get_brigade(r->input_filters, bb, AP_MODE_READBYTES,
                           APR_BLOCK_READ, WH_READ_CHUNK) != APR_SUCCESS
            || apr_brigade_length(bb, 1, &n) != APR_SUCCESS)
            break;
        seen += n;
        if (seen > max)
            break;
        if (!APR_BRIGADE_EMPTY(bb) && APR_BUCKET_IS_EOS(APR_BRIGADE_LAST(bb))) {
            rc = 0;
            break;
        }
        apr_brigade_cleanup(bb);
    }
    apr_brigade_destroy(bb);
    return rc;
}

/* Before an answer given without reading the body: a body no larger than
 * MaxBodySize is read and dropped first, so the answer reaches the client
 * whole — an HTTP/1.1 connection stays usable, and an HTTP/2 stream is not
 * reset while the client is still sending (httpd never drains an h2
 * stream itself, and clients may lose an answer that overtakes their
 * upload). A larger or unbounded body stays unread and the connection is
 * closed; with Expect: 100-continue nothing is read at all (the client
 * waits for permission that is not coming). */
void wh_mod_drain_before_answer(request_rec *r, apr_int64_t max)
{
    const char *te = apr_table_get(r->headers_in, "Transfer-Encoding");
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    if (r->expecting_100 || (te == NULL && cl != NULL && apr_atoi64(cl) > max)
        || wh_mod_drain_body(r, max) != 0)
        r->connection->keepalive = AP_CONN_CLOSE;
}

/* -------------------------------------------------- kept-body filter --- */

static ap_filter_rec_t *kept_body_handle;

typedef struct {
    const char *buf;
    apr_size_t len;
    apr_size_t off;
} kept_ctx;

static apr_status_t kept_body_filter(ap_filter_t *f, apr_bucket_brigade *bb,
                                     ap_input_mode_t mode,
                                     apr_read_type_e block,
                                     apr_off_t readbytes)
{
    (void)block;
    kept_ctx *ctx = f->ctx;
    apr_bucket_alloc_t *ba = f->c->bucket_alloc;

    if (mode == AP_MODE_INIT)
        return APR_SUCCESS;
    if (ctx == NULL)                     /* never: added with a context */
        return ap_get_brigade(f->next, bb, mode, block, readbytes);

    apr_size_t left = ctx->len - ctx->off;
    if (left == 0) {
        APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(ba));
        return APR_SUCCESS;
    }

    apr_size_t n = left;
    const char *from = ctx->buf + ctx->off;
    switch (mode) {
    case AP_MODE_GETLINE: {
        const char *nl = memchr(from, '\n', left);
        if (nl)
            n = (apr_size_t)(nl - from) + 1;
        break;
    }
    case AP_MODE_EXHAUSTIVE:
        break;
    default:                             /* READBYTES, SPECULATIVE */
        if (readbytes > 0 && (apr_off_t)n > readbytes)
            n = (apr_size_t)readbytes;
        break;
    }

    /* The bytes live in the request pool for the whole request (internal
     * redirects share it), so the buckets need not copy them. */
    APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_immortal_create(from, n, ba));
    if (mode != AP_MODE_SPECULATIVE) {
        ctx->off += n;
        if (ctx->off == ctx->len)
            APR_BRIGADE_INSERT_TAIL(bb, apr_bucket_eos_create(ba));
    }
    return APR_SUCCESS;
}

/* Hands the verified bytes to whatever reads the body next. The body was
 * read in full, so a chunked request now has a known length: Content-Length
 * is set to it (and Transfer-Encoding dropped) so CGI and proxied backends
 * see a consistent request. A Content-Length request keeps its header,
 * which already equals the byte count. */
void *wh_mod_keep_body(request_rec *r, const char *body, apr_size_t len)
{
    kept_ctx *ctx = apr_pcalloc(r->pool, sizeof(*ctx));
    ctx->buf = body;
    ctx->len = len;
    ctx->off = 0;
    ap_add_input_filter_handle(kept_body_handle, ctx, r, r->connection);
    if (apr_table_get(r->headers_in, "Transfer-Encoding")) {
        apr_table_unset(r->headers_in, "Transfer-Encoding");
        apr_table_setn(r->headers_in, "Content-Length",
                       apr_psprintf(r->pool, "%" APR_SIZE_T_FMT, len));
    }
    return ctx;
}

/* An internal redirect keeps only the protocol-level input filters: the
 * redirected request gets the kept-body filter back, with the same state,
 * so whatever the first handler did not read is still served (as
 * mod_request re-inserts KEPT_BODY for r->kept_body). */
void wh_mod_kept_body_resume(request_rec *r, void *kept)
{
    for (ap_filter_t *f = r->input_filters; f; f = f->next)
        if (f->ctx == kept)
            return;                      /* still there (fast redirect) */
    ap_add_input_filter_handle(kept_body_handle, kept, r, r->connection);
}

void wh_mod_body_register(void)
{
    kept_body_handle = ap_register_input_filter(WH_MOD_KEPT_FILTER,
                                                kept_body_filter, NULL,
                                                AP_FTYPE_RESOURCE);
}
