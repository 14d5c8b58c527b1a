#include "wh_timestamp.h"
#include <string.h>

/* Digits only (the spec's rule); 18 digits always fit in int64 and cover
 * every plausible seconds or milliseconds value, so longer is malformed.
 * A well-formed value too large for microseconds is a time far in the
 * future, not a malformed one: it is held at the largest time there is. */
#define WH_TS_MAX_DIGITS 18

wh_ts_result wh_timestamp_parse(const char *value, wh_ts_unit unit,
                                apr_time_t *out)
{
    apr_int64_t n = 0;
    size_t len;

    if (!value)
        return WH_TS_MALFORMED;
    len = strnlen(value, WH_TS_MAX_DIGITS + 1);
    if (len == 0 || len > WH_TS_MAX_DIGITS)
        return WH_TS_MALFORMED;
    for (size_t i = 0; i < len; i++) {
        if (value[i] < '0' || value[i] > '9')
            return WH_TS_MALFORMED;
        n = n * 10 + (value[i] - '0');
    }
    if (unit == WH_TS_AUTO)
        unit = len >= 13 ? WH_TS_MILLISECONDS : WH_TS_SECONDS;
    if (unit == WH_TS_MILLISECONDS)
        *out = n > APR_INT64_MAX / 1000 ? APR_INT64_MAX : (apr_time_t)n * 1000;
    else    /* seconds beyond year ~294000 would overflow microseconds */
        *out = n > APR_INT64_MAX / APR_USEC_PER_SEC
                   ? APR_INT64_MAX : (apr_time_t)apr_time_from_sec(n);
    return WH_TS_OK;
}

wh_ts_result wh_timestamp_check(const char *value, wh_ts_unit unit,
                                apr_int64_t tolerance_sec, apr_time_t now,
                                apr_int64_t *skew_sec)
{
    apr_time_t ts;
    wh_ts_result r = wh_timestamp_parse(value, unit, &ts);
    apr_time_t tol = apr_time_from_sec(tolerance_sec);

    if (r != WH_TS_OK)
        return r;
    if (skew_sec)
        *skew_sec = (ts - now) / APR_USEC_PER_SEC;
    if (ts < now - tol)
        return WH_TS_EXPIRED;
    if (ts > now + tol)
        return WH_TS_FUTURE;
    return WH_TS_OK;
}
