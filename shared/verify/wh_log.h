#ifndef WH_LOG_H
#define WH_LOG_H
#include <apr_pools.h>
/* The core never writes to stdout/stderr: hosts hand it a sink.
 * Messages passed to the sink never contain secrets, passwords or the
 * expected signature. */

typedef enum {
    WH_LOG_ERROR = 0,
    WH_LOG_WARN = 1,
    WH_LOG_INFO = 2,
    WH_LOG_DEBUG = 3
} wh_log_level;

typedef void (*wh_log_fn)(void *baton, wh_log_level level, const char *msg);

typedef struct {
    wh_log_fn fn;      /* may be NULL: logging disabled */
    void *baton;
} wh_logger;

/* printf-style helper; a no-op when lg or lg->fn is NULL. */
void wh_logf(const wh_logger *lg, wh_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Longest message of another program (a database driver's) kept for a
 * log line. */
#define WH_LOG_FOREIGN_MAX 300

/* Another program's message as one log line, in p: control characters
 * (libpq's messages span lines) become spaces, trailing spaces go, at most
 * WH_LOG_FOREIGN_MAX bytes; "unknown error" when m is NULL or empty. */
const char *wh_log_one_line(apr_pool_t *p, const char *m);

#endif
