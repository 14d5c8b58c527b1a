/* A request's variables, body and answer (wh_cgi_io, cgi.h), and the
 * plain CGI's: environ, stdin, stdout, stderr. */
#include "cgi.h"
#include <apr_strings.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

const char *wh_cgi_getenv(const wh_cgi_io *io, const char *name)
{
    apr_size_t n = strlen(name);

    for (char **e = io->envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

const char *wh_cgi_env(const wh_cgi_io *io, const char *name)
{
    const char *v = wh_cgi_getenv(io, name);
    return v && *v ? v : NULL;
}

static apr_ssize_t stdio_read(void *ctx, char *buf, apr_size_t n)
{
    (void)ctx;
    for (;;) {
        ssize_t r = read(STDIN_FILENO, buf, n);
        if (r >= 0)
            return (apr_ssize_t)r;
        if (errno != EINTR)
            return -1;
    }
}

static int stdio_write(void *ctx, const char *buf, apr_size_t n)
{
    (void)ctx;
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        n -= (apr_size_t)w;
    }
    return 0;
}

static void stdio_log(void *ctx, const char *line, apr_size_t n)
{
    (void)ctx;
    (void)fwrite(line, 1, n, stderr);
    fflush(stderr);
}

wh_cgi_io wh_cgi_stdio(void)
{
    wh_cgi_io io = { environ, stdio_read, stdio_write, stdio_log, 0, NULL };
    return io;
}

int wh_cgi_send(apr_pool_t *p, const wh_cgi_io *io, const char *head,
                const char *body, apr_size_t body_len)
{
    apr_size_t head_len = strlen(head);
    char *all;

    /* one write: one system call for plain CGI, as stdio made it */
    all = apr_palloc(p, head_len + body_len + 1);
    memcpy(all, head, head_len);
    if (body_len)
        memcpy(all + head_len, body, body_len);
    return io->write(io->ctx, all, head_len + body_len);
}

/* Read and dropped after the answer, so that httpd can finish sending
 * the body without an error; past it the process stops reading. */
#define WH_CGI_DRAIN_MAX (8u * 1024u * 1024u)

/* Reads the body into buf until its end or an error, at most max bytes
 * in all; 1 at its end. */
static int drop_input(const wh_cgi_io *io, apr_size_t max)
{
    char buf[16384];
    apr_size_t total = 0;

    while (total < max) {
        apr_ssize_t r = io->read(io->ctx, buf, sizeof(buf));
        if (r == 0)
            return 1;
        if (r < 0)
            return 0;
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
 * own (shutdown fails): the answer goes out on another pipe, unaffected.
 * Under FastCGI the server has sent the whole body, bounded by its own
 * limit (FcgidMaxRequestLen); what is left past the budget, the FastCGI
 * library reads out when it closes the connection. */
void wh_cgi_drain(const wh_cgi_io *io)
{
    if (drop_input(io, WH_CGI_DRAIN_MAX) || io->fastcgi)
        return;
    if (shutdown(STDIN_FILENO, SHUT_RD) != 0)
        return;
    /* what the socket held at the shutdown, then end of file; the bound
     * is only a guard, the socket's buffer is far smaller */
    (void)drop_input(io, WH_CGI_DRAIN_MAX);
}
