/* The forwarder's configuration keys (wh_forward_keys.h). Durations are
 * kept in milliseconds, bare digits are seconds; docs/forwarding.md
 * explains the schedule the defaults make (about 17 hours of retries
 * before an event is dead). That the backoff's min is at most its max,
 * and that ForwardUrl and ForwardSecretFile come together, is
 * wh_config_finalize()'s: either may come first. */
#include "wh_forward_keys.h"

#include <apr_strings.h>
#include <apr_uri.h>
#include <string.h>
#include <strings.h>

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

#define WH_MS_DAY APR_INT64_C(86400000)

const wh_key wh_forward_keys[] = {
    WH_KEY_STRING_ROW("ForwardUrl", forward_url, wh_parse_forward_url, "URL",
                      NULL, "where wirehook forward POSTs stored events "
                      "(unset: no forwarding)"),
    WH_KEY_PATH_ROW("ForwardSecretFile", forward_secret_file,
                    "secret that signs forwarded events (with ForwardUrl)"),
    WH_KEY_INT_ROW("ForwardMaxAttempts", forward_max_attempts, 1, 10000, "100",
                   "attempts before an event is dead"),
    WH_KEY_DURATION_ROW("ForwardMaxAge", forward_max_age, WH_US_MS, WH_US_S,
                        1000, 30 * WH_MS_DAY, "1d",
                        "retrying stops this long after the first attempt"),
    WH_KEY_DURATION_ROW("ForwardTimeout", forward_timeout, WH_US_MS, WH_US_S,
                        100, 600000, "30s", "one attempt to forward"),
    WH_KEY_INT_ROW("ForwardConcurrency", forward_concurrency, 1, 1000, "32",
                   "attempts in flight at once"),
    WH_KEY_PATH_ROW("ForwardCAFile", forward_ca_file,
                    "CA bundle for an https ForwardUrl (unset: the system's)"),
    WH_KEY_DURATION_ROW("ForwardBackoffMin", forward_backoff_min, WH_US_MS,
                        WH_US_S, 10, 3600000, "1s",
                        "delay before the first retry"),
    WH_KEY_DURATION_ROW("ForwardBackoffMax", forward_backoff_max, WH_US_MS,
                        WH_US_S, 10, WH_MS_DAY, "15m",
                        "longest delay between retries"),
    WH_KEY_END
};
