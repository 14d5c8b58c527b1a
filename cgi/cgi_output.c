/* What wirehook.cgi prints: the response on the answer's stream (and
 * nothing else ever goes there), log lines on the log's. */
#include "cgi.h"
#include <apr_strings.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const level_names[] = { "error", "warn", "info", "debug" };

/* httpd logs every line a CGI writes to stderr at its error level,
 * whatever the line says: info lines there read as errors and fill the
 * log. Warnings and errors only, unless CGILogLevel asks for more. */
static wh_log_level threshold = WH_LOG_WARN;

void wh_cgi_set_log_level(wh_log_level level)
{
    threshold = level;
}

/* The request being served, whose log stream the lines go to (FastCGI:
 * httpd logs them with the request); NULL: stderr. */
static const wh_cgi_io *log_io;

void wh_cgi_log_to(const wh_cgi_io *io)
{
    log_io = io;
}

static void emit(const char *level_name, const char *msg);

static void cgi_log(void *baton, wh_log_level level, const char *msg)
{
    (void)baton;
    if (level > threshold || !msg)
        return;
    emit(level_names[level], msg);
}

void wh_cgi_audit(const char *msg)
{
    if (msg)
        emit("notice", msg);
}

/* One line per message: httpd turns each stderr line into an error-log
 * entry, so embedded newlines would split or forge entries. Multi-line
 * messages (a list of config errors) become one line each. */
static void emit(const char *level_name, const char *msg)
{
    const char *s = msg;
    do {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[1100], out[1200];
        size_t w = 0;
        int len;
        for (size_t i = 0; i < n && w < sizeof(line) - 1; i++)
            line[w++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? ' ' : s[i];
        line[w] = '\0';
        len = w > 0 ? snprintf(out, sizeof(out), "wirehook.cgi[%ld] %s: %s\n",
                               (long)getpid(), level_name, line) : 0;
        if (len > 0 && (size_t)len < sizeof(out)) {
            if (log_io)
                log_io->log(log_io->ctx, out, (apr_size_t)len);
            else
                (void)fwrite(out, 1, (size_t)len, stderr);
        }
        s = nl ? nl + 1 : NULL;
    } while (s && *s);
    if (!log_io)
        fflush(stderr);
}

const wh_logger wh_cgi_logger = { cgi_log, NULL };

/* Header values come from the core (realm, fixed lists); a CR or LF would
 * still break the header block, so such a header is left out. */
static int header_safe(const char *v)
{
    return v && !strpbrk(v, "\r\n");
}

int wh_cgi_write(apr_pool_t *p, const wh_cgi_io *io, const wh_response *res)
{
    const char *body = res->body ? res->body : "";
    const char *head = apr_psprintf(
        p, "Status: %d %s\r\nContent-Type: %s\r\n%s%s%s%s%s%s%s\r\n", res->status,
        wh_status_reason(res->status),
        res->content_type ? res->content_type : "application/json",
        header_safe(res->www_authenticate) ? "WWW-Authenticate: " : "",
        header_safe(res->www_authenticate) ? res->www_authenticate : "",
        header_safe(res->www_authenticate) ? "\r\n" : "",
        header_safe(res->allow) ? "Allow: " : "",
        header_safe(res->allow) ? res->allow : "",
        header_safe(res->allow) ? "\r\n" : "",
        res->retry_after > 0 ? apr_psprintf(p, "Retry-After: %d\r\n",
                                            res->retry_after) : "");

    return wh_cgi_send(p, io, head, body, strlen(body));
}
