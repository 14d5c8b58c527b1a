/* The request as the CGI environment describes it (RFC 3875), and its
 * body from stdin. */
#include "cgi.h"
#include <apr_lib.h>
#include <apr_strings.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* "X-Timestamp" -> HTTP_X_TIMESTAMP, as httpd names header variables;
 * the two content headers have their own meta-variables. Authorization
 * only arrives with `CGIPassAuth On`. */
static const char *cgi_header(void *ctx, const char *name)
{
    apr_pool_t *p = ctx;
    char *var, *w;

    if (strcasecmp(name, "Content-Type") == 0)
        return env("CONTENT_TYPE");
    if (strcasecmp(name, "Content-Length") == 0)
        return getenv("CONTENT_LENGTH");   /* "" is malformed, not absent */
    var = apr_pstrcat(p, "HTTP_", name, NULL);
    for (w = var + 5; *w; w++)
        *w = apr_isalnum(*w) ? (char)apr_toupper(*w) : '_';
    return getenv(var);
}

void wh_cgi_request(apr_pool_t *p, const wh_config *cfg, wh_request *req)
{
    const char *scheme = env("REQUEST_SCHEME");
    const char *https = env("HTTPS");

    memset(req, 0, sizeof(*req));
    if (!scheme)
        scheme = https && strcasecmp(https, "on") == 0 ? "https" : "http";
    req->method = env("REQUEST_METHOD");
    /* REQUEST_URI is httpd's unparsed URI: path and query exactly as sent,
     * which is what the sender signed. */
    req->url = wh_request_url(p, cfg, scheme, env("HTTP_HOST"), env("REQUEST_URI"));
    req->header = cgi_header;
    req->header_ctx = p;
    req->body = "";
    req->body_len = 0;
    req->now = apr_time_now();
}

/* read(2) until n bytes or EOF; returns bytes read or -1. */
static apr_ssize_t read_full(char *buf, apr_size_t n)
{
    apr_size_t got = 0;
    while (got < n) {
        ssize_t r = read(STDIN_FILENO, buf + got, n - got);
        if (r == 0)
            break;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (apr_size_t)r;
    }
    return (apr_ssize_t)got;
}

const char *wh_cgi_read_body(apr_pool_t *p, const wh_config *cfg, wh_request *req)
{
    const char *cl = getenv("CONTENT_LENGTH");
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
        got = read_full(buf, (apr_size_t)len);
        if (got < 0)
            return "reading the body failed";
        if ((apr_size_t)got != (apr_size_t)len)
            return "the body is shorter than Content-Length";
    } else {
        /* Chunked upload: no length; read with a running budget and stop
         * one byte past it, which is enough to know it is too large. */
        buf = apr_palloc(p, max + 2);
        got = read_full(buf, max + 1);
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

/* Read and dropped after the answer, so that httpd can finish sending
 * the body without an error; past it the process stops reading. */
#define WH_CGI_DRAIN_MAX (8u * 1024u * 1024u)

/* read(2) of stdin into buf until end of file or an error, at most max
 * bytes in all; 1 at end of file. */
static int drop_input(apr_size_t max)
{
    char buf[16384];
    apr_size_t total = 0;

    while (total < max) {
        ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));
        if (r == 0)
            return 1;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return 0;
        }
        total += (apr_size_t)r;
    }
    return 0;
}

/* Under mod_cgid stdin and stdout are one socket, and a process that
 * exits with request body still unread in it resets it: httpd, which
 * reads the rest of the body before it passes the answer on, then reads
 * ECONNRESET instead of the answer, and the client's 413 was lost. So
 * past the budget the process shuts its reading side (httpd's further
 * writes fail at once: mod_cgid then reads the rest of the body itself
 * and discards it, bounded by LimitRequestBody) and reads out the little
 * that was already queued; then nothing is left unread when it exits,
 * and no upload holds it longer. Under mod_cgi stdin is a pipe of its
 * own (shutdown fails): the answer goes out on another pipe, unaffected. */
void wh_cgi_drain_stdin(void)
{
    if (drop_input(WH_CGI_DRAIN_MAX))
        return;
    if (shutdown(STDIN_FILENO, SHUT_RD) != 0)
        return;
    /* what the socket held at the shutdown, then end of file; the bound
     * is only a guard, the socket's buffer is far smaller */
    (void)drop_input(WH_CGI_DRAIN_MAX);
}
