/* Parsers for the Forward* configuration keys. Durations carry a unit so
 * that a backoff of 250 ms and a maximum age of a day read naturally in
 * one file; a bare number stays seconds, as everywhere else in it. */
#include "wh_parse_forward.h"
#include "wh_parse.h"

#include <apr_strings.h>
#include <apr_uri.h>
#include <string.h>
#include <strings.h>

typedef struct {
    const char *suffix;
    apr_int64_t ms;
} unit;

/* Longest suffix first: "ms" before "m"/"s". */
static const unit units[] = {
    { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
    { "d", 86400000 }, { "", 1000 }
};

static const char *duration_rule(apr_pool_t *p, apr_int64_t min_ms,
                                 apr_int64_t max_ms)
{
    return apr_psprintf(p, "must be a duration from %s to %s (digits with "
                        "an optional unit: ms, s, m, h, d; bare digits are "
                        "seconds)", wh_format_duration(p, min_ms),
                        wh_format_duration(p, max_ms));
}

const char *wh_parse_duration_ms(apr_pool_t *p, const char *arg,
                                 apr_int64_t min_ms, apr_int64_t max_ms,
                                 apr_int64_t *out)
{
    apr_size_t len, digits = 0;
    apr_int64_t v = 0;

    if (!arg)
        return duration_rule(p, min_ms, max_ms);
    len = strlen(arg);
    while (digits < len && arg[digits] >= '0' && arg[digits] <= '9')
        digits++;
    /* 12 digits of any unit is past every maximum and far from overflow
     * once multiplied by a day. */
    if (digits == 0 || digits > 12)
        return duration_rule(p, min_ms, max_ms);
    for (apr_size_t i = 0; i < digits; i++)
        v = v * 10 + (arg[i] - '0');
    for (apr_size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        if (strcmp(arg + digits, units[u].suffix) != 0)
            continue;
        v *= units[u].ms;
        if (v < min_ms || v > max_ms)
            return duration_rule(p, min_ms, max_ms);
        *out = v;
        return NULL;
    }
    return duration_rule(p, min_ms, max_ms);
}

const char *wh_format_duration(apr_pool_t *p, apr_int64_t ms)
{
    /* From the largest unit down; the bare "" entry is not a suffix to
     * print. */
    for (int u = 4; u >= 0; u--)
        if (ms != 0 && ms % units[u].ms == 0)
            return apr_psprintf(p, "%" APR_INT64_T_FMT "%s", ms / units[u].ms,
                                units[u].suffix);
    return apr_psprintf(p, "%" APR_INT64_T_FMT "ms", ms);
}

/* The forwarder signs ForwardUrl as written, and the application checks
 * the signature against the URL it receives, rebuilt from the request
 * (scheme, Host, target), as wirehook does the bank's. So the string must
 * be the one the HTTP client sends: a default port (:80, :443) is dropped
 * from Host, dot segments are removed, an empty path is sent as "/", and
 * user:password@ becomes an Authorization header. Each would make every
 * signature fail and every event a dead letter: refused instead. The
 * value is never quoted back (it may hold a password). */
static const char *not_as_sent(apr_pool_t *p, const char *url)
{
    apr_uri_t u;
    const char *seg;

    if (apr_uri_parse(p, url, &u) != APR_SUCCESS)
        return "is not a valid URL";
    if (u.user || u.password)
        return "must not hold user:password@ (the client sends it as an "
               "Authorization header, not in the URL it signs against)";
    if (u.port_str && *u.port_str
        && ((strcasecmp(u.scheme, "http") == 0 && u.port == 80)
            || (strcasecmp(u.scheme, "https") == 0 && u.port == 443)))
        return "must not name the scheme's default port (the client sends "
               "Host without it, so the signed URL would not match): leave "
               "it out";
    if (!u.path || !*u.path)
        return "needs a path, at least \"/\" (the client sends \"/\" for "
               "none, so the signed URL would not match)";
    for (seg = u.path; seg; seg = strchr(seg + 1, '/')) {
        apr_size_t n = strcspn(seg + 1, "/");
        if ((n == 1 && seg[1] == '.') || (n == 2 && seg[1] == '.' && seg[2] == '.'))
            return "must not hold \".\" or \"..\" path segments (the "
                   "client removes them, so the signed URL would not match)";
    }
    return NULL;
}

const char *wh_parse_forward_url(apr_pool_t *p, const char *arg,
                                 const char **out)
{
    const char *url;
    const char *err = wh_parse_url(p, arg, &url);

    if (err)
        return err;
    if (url[0] == '/')
        return "must be an absolute http:// or https:// URL (the forwarder "
               "connects to it)";
    if ((err = not_as_sent(p, url)) != NULL)
        return err;
    *out = url;
    return NULL;
}
