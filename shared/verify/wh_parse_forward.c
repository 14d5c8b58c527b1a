/* Parsers for the Forward* configuration keys (their durations are
 * wh_duration.c's, as every key's). */
#include "wh_parse_forward.h"
#include "wh_parse.h"

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
