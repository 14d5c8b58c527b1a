#include "wh_log.h"
#include <stdarg.h>
#include <stdio.h>

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
