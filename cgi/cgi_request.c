/* The request as its variables describe it (RFC 3875), and its body. */
#include "cgi.h"
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

typedef struct {
    apr_pool_t *p;
    const wh_cgi_io *io;
} header_ctx;

/* "X-Timestamp" -> HTTP_X_TIMESTAMP, as httpd names header variables;
 * the two content headers have their own meta-variables. Authorization
 * only arrives with `CGIPassAuth On`. */
static const char *cgi_header(void *ctx, const char *name)
{
    header_ctx *h = ctx;
    char *var, *w;

    if (strcasecmp(name, "Content-Type") == 0)
        return wh_cgi_env(h->io, "CONTENT_TYPE");
    if (strcasecmp(name, "Content-Length") == 0)
        return wh_cgi_getenv(h->io, "CONTENT_LENGTH");   /* "" is malformed, not absent */
    var = apr_pstrcat(h->p, "HTTP_", name, NULL);
    for (w = var + 5; *w; w++)
        *w = apr_isalnum(*w) ? (char)apr_toupper(*w) : '_';
    return wh_cgi_getenv(h->io, var);
}

void wh_cgi_request(apr_pool_t *p, const wh_cgi_io *io, const wh_config *cfg,
                    wh_request *req)
{
    const char *scheme = wh_cgi_env(io, "REQUEST_SCHEME");
    const char *https = wh_cgi_env(io, "HTTPS");
    header_ctx *h = apr_palloc(p, sizeof(*h));

    memset(req, 0, sizeof(*req));
    if (!scheme)
        scheme = https && strcasecmp(https, "on") == 0 ? "https" : "http";
    req->method = wh_cgi_env(io, "REQUEST_METHOD");
    /* REQUEST_URI is httpd's unparsed URI: path and query exactly as sent,
     * which is what the sender signed. */
    req->url = wh_request_url(p, cfg, scheme, wh_cgi_env(io, "HTTP_HOST"),
                              wh_cgi_env(io, "REQUEST_URI"));
    h->p = p;
    h->io = io;
    req->header = cgi_header;
    req->header_ctx = h;
    req->body = "";
    req->body_len = 0;
    req->now = apr_time_now();
}

/* Reads until n bytes or the body's end; returns bytes read or -1. */
static apr_ssize_t read_full(const wh_cgi_io *io, char *buf, apr_size_t n)
{
    apr_size_t got = 0;
    while (got < n) {
        apr_ssize_t r = io->read(io->ctx, buf + got, n - got);
        if (r == 0)
            break;
        if (r < 0)
            return -1;
        got += (apr_size_t)r;
    }
    return (apr_ssize_t)got;
}

const char *wh_cgi_read_body(apr_pool_t *p, const wh_cgi_io *io,
                             const wh_config *cfg, wh_request *req)
{
    const char *cl = wh_cgi_getenv(io, "CONTENT_LENGTH");
    apr_size_t max = (apr_size_t)cfg->max_body_size;
    apr_ssize_t got;
    char *buf;

    if (cl) {
        /* wh_verify_envelope has checked it is digits and within bounds. */
        apr_off_t len = 0;
        char *end;
        if (apr_strtoff(&len, cl, &end, 10) != APR_SUCCESS || *end || len < 0)
            return "Content-Length is not a number";
        if ((apr_size_t)len > max) {
            req->body_overflow = 1;
            return NULL;
        }
        buf = apr_palloc(p, (apr_size_t)len + 1);
        got = read_full(io, buf, (apr_size_t)len);
        if (got < 0)
            return "reading the body failed";
        if ((apr_size_t)got != (apr_size_t)len)
            return "the body is shorter than Content-Length";
    } else {
        /* Chunked upload: no length; read with a running budget and stop
         * one byte past it, which is enough to know it is too large. */
        buf = apr_palloc(p, max + 2);
        got = read_full(io, buf, max + 1);
        if (got < 0)
            return "reading the body failed";
        if ((apr_size_t)got > max) {
            req->body_overflow = 1;
            got = (apr_ssize_t)max;
        }
    }
    buf[got] = '\0';
    req->body = buf;
    req->body_len = (apr_size_t)got;
    return NULL;
}
