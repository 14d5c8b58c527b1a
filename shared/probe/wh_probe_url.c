/* The URL a probe signs: the one the receiver will check (the spec
 * decision: scheme://host[:port]/path[?query] as the request carries it,
 * or SignedUrl / SignedUrlForm), and the same URL with one part changed
 * for the "signed over another URL" probes. Byte-exact string surgery:
 * apr_uri_unparse would normalise what the probe must keep as it is. */
#include "wh_probe_int.h"
#include "verify/wh_verify.h" /* wh_request_url */
#include <apr_strings.h>
#include <string.h>

typedef struct {
    const char *scheme; /* NULL: a path-only URL */
    const char *host;
    const char *port; /* NULL: none written */
    const char *path;
    const char *query; /* without '?'; NULL: none */
} url_parts;

static void split(apr_pool_t *p, const char *url, url_parts *u)
{
    const char *s = url, *sep = strstr(url, "://");

    memset(u, 0, sizeof(*u));
    if (url[0] != '/' && sep) {
        u->scheme = apr_pstrmemdup(p, url, (apr_size_t)(sep - url));
        s = sep + 3;
        apr_size_t alen = strcspn(s, "/?#");
        const char *auth = apr_pstrmemdup(p, s, alen);
        const char *at = strrchr(auth, '@');
        if (at)
            auth = at + 1; /* userinfo is never signed */
        const char *colon = auth[0] == '[' ? strchr(auth, ']') : auth;
        colon = colon ? strrchr(colon, ':') : NULL;
        if (colon) {
            u->host = apr_pstrmemdup(p, auth, (apr_size_t)(colon - auth));
            u->port = colon + 1;
        }
        else {
            u->host = auth;
        }
        s += alen;
    }
    apr_size_t plen = strcspn(s, "?#");
    u->path = apr_pstrmemdup(p, s, plen);
    if (s[plen] == '?') {
        const char *q = s + plen + 1;
        u->query = apr_pstrmemdup(p, q, strcspn(q, "#"));
    }
}

static const char *join(apr_pool_t *p, const url_parts *u)
{
    return apr_pstrcat(p, u->scheme ? u->scheme : "", u->scheme ? "://" : "",
                       u->scheme ? u->host : "",
                       u->scheme && u->port ? ":" : "",
                       u->scheme && u->port ? u->port : "", u->path,
                       u->query ? "?" : "", u->query ? u->query : "", NULL);
}

static const char *default_port(const char *scheme)
{
    return strcasecmp(scheme, "https") == 0 ? "443" : "80";
}

const char *wh_probe_signed_url(apr_pool_t *p, const wh_config *cfg,
                                const char *target)
{
    url_parts u;

    if (cfg->signed_url)
        return cfg->signed_url;
    split(p, target, &u);
    if (!u.scheme || !u.host || !*u.host
        || (strcasecmp(u.scheme, "http") && strcasecmp(u.scheme, "https")))
        return NULL;
    /* curl's Host header leaves out the scheme's default port */
    const char *host = u.port && strcmp(u.port, default_port(u.scheme))
                           ? apr_pstrcat(p, u.host, ":", u.port, NULL)
                           : u.host;
    const char *uri = apr_pstrcat(p, *u.path ? u.path : "/",
                                  u.query ? "?" : "", u.query ? u.query : "",
                                  NULL);
    char *scheme = apr_pstrdup(p, u.scheme);
    for (char *c = scheme; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    return wh_request_url(p, cfg, scheme, host, uri);
}

const char *wh_probe_url_change(apr_pool_t *p, const char *url,
                                wh_url_change change, const char **why)
{
    url_parts u;

    *why = NULL;
    split(p, url, &u);
    if (!u.scheme
        && (change == WH_URL_SCHEME || change == WH_URL_HOST
            || change == WH_URL_PORT)) {
        *why = "the receiver signs only the path and query (SignedUrlForm "
               "path, or a path in SignedUrl)";
        return NULL;
    }
    switch (change) {
    case WH_URL_SCHEME:
        u.scheme = strcasecmp(u.scheme, "https") == 0 ? "http" : "https";
        break;
    case WH_URL_HOST: u.host = "wirehook-probe.invalid"; break;
    case WH_URL_PORT: {
        apr_int64_t port = apr_atoi64(u.port ? u.port
                                             : default_port(u.scheme));
        u.port = apr_psprintf(p, "%" APR_INT64_T_FMT,
                              port >= 65535 ? port - 1 : port + 1);
        break;
    }
    case WH_URL_PATH_PART:
        u.path = apr_pstrcat(p, *u.path ? u.path : "/", "-probe", NULL);
        break;
    case WH_URL_QUERY:
        u.query = u.query ? apr_pstrcat(p, u.query, "&probe=1", NULL)
                          : "probe=1";
        break;
    default: break;
    }
    return join(p, &u);
}
