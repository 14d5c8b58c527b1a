#ifndef WH_TIMESTAMP_H
#define WH_TIMESTAMP_H
#include <apr_time.h>
#include "wh_config.h"

typedef enum {
    WH_TS_OK = 0,
    WH_TS_MALFORMED,     /* empty, non-digits, more than 18 digits */
    WH_TS_EXPIRED,       /* older than tolerance */
    WH_TS_FUTURE         /* further ahead than tolerance */
} wh_ts_result;

/* Parses a digits-only timestamp (at most 18 digits) into microseconds
 * since the epoch. unit auto: 13 or more digits are milliseconds, fewer
 * are seconds. A value beyond what microseconds hold becomes
 * APR_INT64_MAX: far in the future, never malformed. */
wh_ts_result wh_timestamp_parse(const char *value, wh_ts_unit unit,
                                apr_time_t *out);
/* Parses and checks |now - ts| <= tolerance seconds. *skew_sec receives
 * ts - now in whole seconds when parsed. */
wh_ts_result wh_timestamp_check(const char *value, wh_ts_unit unit,
                                apr_int64_t tolerance_sec, apr_time_t now,
                                apr_int64_t *skew_sec);

#endif
