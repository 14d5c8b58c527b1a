#ifndef WH_DATETIME_H
#define WH_DATETIME_H
#include <apr_pools.h>
#include <apr_time.h>

/* RFC 3339 section 5.6 date-time, the form eventDateTime must have:
 * YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm|-hh:mm), T and Z in either case,
 * 1 to 9 fraction digits, calendar-checked, second 60 (a leap second)
 * allowed. Returns 0 when s[0..len) has that form, -1 otherwise; with us
 * not NULL, *us gets the instant as microseconds since 1970-01-01T00:00:00Z
 * (negative before it): the offset applied, the fraction truncated to
 * microseconds, and a leap second :60 counted as the next minute's :00 (the
 * epoch scale has no leap seconds; it then ties with that :00, and never
 * sorts before the :59 it follows). */
int wh_datetime_parse(const char *s, apr_size_t len, apr_int64_t *us);

/* The other way: t as RFC 3339 UTC with milliseconds,
 * "2026-11-22T14:05:09.123Z" (a form the parser reads back), in p; ""
 * for an instant APR cannot break down. */
const char *wh_time_rfc3339(apr_pool_t *p, apr_time_t t);

#endif
