#include "wh_log.h"
#include <apr_strings.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void wh_logf(const wh_logger *lg, wh_log_level level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    if (!lg || !lg->fn)
        return;
    va_start(ap, fmt);
    /* Truncation is fine: a log line is informative, never parsed. */
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    lg->fn(lg->baton, level, buf);
}

const char *wh_log_one_line(apr_pool_t *p, const char *m)
{
    apr_size_t n = m ? strlen(m) : 0;
    char *s;

    if (n == 0)
        return "unknown error";
    if (n > WH_LOG_FOREIGN_MAX)
        n = WH_LOG_FOREIGN_MAX;
    s = apr_pstrmemdup(p, m, n);
    for (apr_size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20)
            s[i] = ' ';
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
    return s;
}
