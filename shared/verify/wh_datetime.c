/* RFC 3339 date-times: the check the schema makes on eventDateTime and the
 * instant the inbox orders a payment's events by, from one parser; and
 * the form the views print the inbox's own instants in. */
#include "wh_datetime.h"
#include <apr_strings.h>
#include <string.h>

#define WH_US_PER_SEC APR_INT64_C(1000000)

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads exactly n digits at s[*i]; len bounds the read. */
static int read_num(const char *s, apr_size_t len, apr_size_t *i, int n, int *out)
{
    int v = 0;
    if (len - *i < (apr_size_t)n)
        return 0;
    for (int k = 0; k < n; k++) {
        if (!is_digit(s[*i + k]))
            return 0;
        v = v * 10 + (s[*i + k] - '0');
    }
    *i += (apr_size_t)n;
    *out = v;
    return 1;
}

static int read_char(const char *s, apr_size_t len, apr_size_t *i, const char *accepted)
{
    if (*i >= len || s[*i] == '\0' || !strchr(accepted, s[*i]))
        return 0;
    (*i)++;
    return 1;
}

static int days_in_month(int year, int month)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/* Zone: Z, or +hh:mm / -hh:mm; *minutes east of UTC. */
static int read_zone(const char *s, apr_size_t len, apr_size_t *i, int *minutes)
{
    int oh, om, sign;
    *minutes = 0;
    if (read_char(s, len, i, "Zz"))
        return 1;
    if (*i >= len || (s[*i] != '+' && s[*i] != '-'))
        return 0;
    sign = s[(*i)++] == '-' ? -1 : 1;
    if (!(read_num(s, len, i, 2, &oh) && read_char(s, len, i, ":")
          && read_num(s, len, i, 2, &om) && oh < 24 && om < 60))
        return 0;
    *minutes = sign * (oh * 60 + om);
    return 1;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil): exact for every year 0000-9999. */
static apr_int64_t days_from_civil(int y, int m, int d)
{
    apr_int64_t yy = y - (m <= 2);
    apr_int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    apr_int64_t yoe = yy - era * 400;
    apr_int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    apr_int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The separator must be T (either case): the RFC's note allowing a space
 * is for human-readable use, not interchange. */
int wh_datetime_parse(const char *s, apr_size_t len, apr_int64_t *us)
{
    int y, mo, d, h, mi, sec, zone = 0;
    apr_int64_t frac_us = 0, scale = WH_US_PER_SEC / 10;
    apr_size_t i = 0;
    int ok = s && read_num(s, len, &i, 4, &y) && read_char(s, len, &i, "-")
             && read_num(s, len, &i, 2, &mo) && read_char(s, len, &i, "-")
             && read_num(s, len, &i, 2, &d) && read_char(s, len, &i, "Tt")
             && read_num(s, len, &i, 2, &h) && read_char(s, len, &i, ":")
             && read_num(s, len, &i, 2, &mi) && read_char(s, len, &i, ":")
             && read_num(s, len, &i, 2, &sec);

    if (ok && i < len && s[i] == '.') {
        apr_size_t start = ++i;
        for (; i < len && is_digit(s[i]); i++, scale /= 10)
            frac_us += (s[i] - '0') * scale;   /* digits past the 6th add 0 */
        ok = i > start && i - start <= 9;
    }
    ok = ok && read_zone(s, len, &i, &zone) && i == len;
    ok = ok && mo >= 1 && mo <= 12 && d >= 1 && d <= days_in_month(y, mo)
         && h < 24 && mi < 60 && sec <= 60;
    if (!ok)
        return -1;
    if (us) {
        apr_int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec
                           - (apr_int64_t)zone * 60;
        *us = secs * WH_US_PER_SEC + frac_us;
    }
    return 0;
}

const char *wh_time_rfc3339(apr_pool_t *p, apr_time_t t)
{
    apr_time_exp_t tm;

    if (apr_time_exp_gmt(&tm, t) != APR_SUCCESS)
        return "";
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                        tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                        tm.tm_min, tm.tm_sec, tm.tm_usec / 1000);
}
