/* What wirehook.cgi prints: the response on stdout (and nothing else ever
 * goes there), log lines on stderr. */
#include "cgi.h"
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

/* One line per message: httpd turns each stderr line into an error-log
 * entry, so embedded newlines would split or forge entries. Multi-line
 * messages (a list of config errors) become one line each. */
static void cgi_log(void *baton, wh_log_level level, const char *msg)
{
    const char *s = msg;
    (void)baton;
    if (level > threshold || !msg)
        return;
    do {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char line[1100];
        size_t w = 0;
        for (size_t i = 0; i < n && w < sizeof(line) - 1; i++)
            line[w++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? ' ' : s[i];
        line[w] = '\0';
        if (w > 0)
            fprintf(stderr, "wirehook.cgi[%ld] %s: %s\n", (long)getpid(),
                    level_names[level], line);
        s = nl ? nl + 1 : NULL;
    } while (s && *s);
    fflush(stderr);
}

const wh_logger wh_cgi_logger = { cgi_log, NULL };

/* Header values come from the core (realm, fixed lists); a CR or LF would
 * still break the header block, so such a header is left out. */
static int header_safe(const char *v)
{
    return v && !strpbrk(v, "\r\n");
}

int wh_cgi_write(const wh_response *res)
{
    const char *body = res->body ? res->body : "";
    int ok = 1;

    ok &= printf("Status: %d %s\r\n", res->status, wh_status_reason(res->status)) > 0;
    ok &= printf("Content-Type: %s\r\n",
                 res->content_type ? res->content_type : "application/json") > 0;
    if (header_safe(res->www_authenticate))
        ok &= printf("WWW-Authenticate: %s\r\n", res->www_authenticate) > 0;
    if (header_safe(res->allow))
        ok &= printf("Allow: %s\r\n", res->allow) > 0;
    ok &= fputs("\r\n", stdout) >= 0;
    ok &= fwrite(body, 1, strlen(body), stdout) == strlen(body);
    ok &= fflush(stdout) == 0;
    return ok ? 0 : -1;
}
