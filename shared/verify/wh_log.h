#ifndef WH_LOG_H
#define WH_LOG_H
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

#endif
