#ifndef WH_DURATION_H
#define WH_DURATION_H
/* The one syntax of every duration in the configuration file and on the
 * command line: digits with an optional unit, us, ms, s, m, h or d
 * ("250ms", "30s", "5m", "1d"). Bare digits keep the unit each key had
 * before units existed (seconds for most, microseconds for
 * InboxBatchWait), so existing files read the same. */
#include <apr_pools.h>

#define WH_US_MS APR_INT64_C(1000)
#define WH_US_S APR_INT64_C(1000000)

/* What one key accepts. unit_us: the unit the key's value is kept in (a
 * duration must be a whole number of it); bare_us: what bare digits mean;
 * min and max: the bounds, in unit_us. */
typedef struct {
    apr_int64_t unit_us;
    apr_int64_t bare_us;
    apr_int64_t min;
    apr_int64_t max;
} wh_duration_rule;

/* NULL and *out (in rule->unit_us), or the broken rule (the value is
 * never repeated). *out is untouched on error. */
const char *wh_parse_duration(apr_pool_t *p, const char *arg,
                              const wh_duration_rule *rule, apr_int64_t *out);

/* The same in milliseconds with bare digits as seconds (the Forward* keys,
 * wirehook forward --interval). */
const char *wh_parse_duration_ms(apr_pool_t *p, const char *arg,
                                 apr_int64_t min_ms, apr_int64_t max_ms,
                                 apr_int64_t *out);

/* "1d", "15m", "30s", "250ms", "300us": the largest unit that divides. */
const char *wh_format_duration_us(apr_pool_t *p, apr_int64_t us);

#endif
