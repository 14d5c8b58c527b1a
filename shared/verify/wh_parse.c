/* Value parsers in the mod_auth_openidc src/cfg/parse.c style:
 * (pool, arg, &out) -> NULL or an error string.
 *
 * Error messages describe the rule that was broken and never repeat the
 * value: values may be conninfo strings with passwords, and a mistyped
 * config line may be a pasted secret. The caller adds "path:line: Key:". */
#include "wh_parse.h"

#include <apr_crypto.h>
#include <apr_file_io.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_uri.h>
#include <string.h>

#define WH_HEADER_NAME_MAX 64
#define WH_REALM_MAX 128
#define WH_PATH_MAX 4096
#define WH_URL_MAX 2048
#define WH_PROVIDER_MAX 32
#define WH_PROVIDER_ARGS_MAX 1024

/* ---- integers ------------------------------------------------------ */

/* Strict decimal: optional '-', at least one digit, nothing else. Unlike
 * strtoll/apr_strtoi64 no leading space, '+', hex or trailing junk is
 * accepted, so "10s" or " 5" cannot sneak through as a number.
 * Returns 0 on success, -1 on syntax error or overflow. */
static int scan_int64(const char *s, apr_int64_t *out)
{
    const apr_int64_t limit = APR_INT64_MAX;
    apr_int64_t v = 0;
    int neg = 0;

    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (!*s)
        return -1;
    for (; *s; s++) {
        int d;
        if (*s < '0' || *s > '9')
            return -1;
        d = *s - '0';
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = neg ? -v : v;
    return 0;
}

const char *wh_parse_int64(apr_pool_t *p, const char *arg, apr_int64_t min,
                           apr_int64_t max, apr_int64_t *out)
{
    apr_int64_t v;

    if (!arg || scan_int64(arg, &v) != 0 || v < min || v > max)
        return apr_psprintf(p, "must be an integer from %" APR_INT64_T_FMT
                            " to %" APR_INT64_T_FMT, min, max);
    *out = v;
    return NULL;
}

const char *wh_parse_int(apr_pool_t *p, const char *arg, int min, int max,
                         int *out)
{
    apr_int64_t v;
    const char *err = wh_parse_int64(p, arg, min, max, &v);

    if (err)
        return err;
    *out = (int)v; /* in [min, max], so it fits */
    return NULL;
}

/* ---- character classes --------------------------------------------- */

/* Control bytes (C0 and DEL). Bytes >= 0x80 are not controls: paths and
 * conninfo strings may be UTF-8. */
static int has_ctl(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            return 1;
    return 0;
}

/* ---- strings ------------------------------------------------------- */

const char *wh_parse_header_name(apr_pool_t *p, const char *arg,
                                 const char **out)
{
    apr_size_t len;
    const char *s;

    if (!arg || !*arg)
        return "must not be empty";
    len = strlen(arg);
    if (len > WH_HEADER_NAME_MAX)
        return apr_psprintf(p, "must be at most %d characters",
                            WH_HEADER_NAME_MAX);
    /* Letters, digits and '-': the other HTTP token characters ('_',
     * '.', ...) are valid in a header name, but httpd leaves such headers
     * out of a CGI's environment (where '_' and '-' would be one name), so
     * the CGI could never read one: the same file must mean the same
     * thing to the module and the CGI. */
    for (s = arg; *s; s++)
        if (!apr_isalnum(*s) && *s != '-')
            return "must contain only letters, digits and '-' (httpd passes "
                   "no other header name to a CGI)";
    *out = apr_pstrmemdup(p, arg, len);
    return NULL;
}

const char *wh_parse_path(apr_pool_t *p, const char *arg, const char **out)
{
    apr_size_t len;

    if (!arg || !*arg)
        return "must not be empty";
    len = strlen(arg);
    if (len > WH_PATH_MAX)
        return apr_psprintf(p, "must be at most %d bytes", WH_PATH_MAX);
    if (has_ctl(arg))
        return "must not contain control characters";
    /* Resolution against a base directory is the caller's job: the config
     * file resolves against its own directory, httpd against ServerRoot. */
    *out = apr_pstrmemdup(p, arg, len);
    return NULL;
}

/* The realm is sent inside WWW-Authenticate: Basic realm="...", so a quote
 * or backslash would need escaping and a control byte could split the
 * header; rejecting them keeps the header trivially well-formed. */
const char *wh_parse_realm(apr_pool_t *p, const char *arg, const char **out)
{
    apr_size_t len;
    const char *s;

    if (!arg || !*arg)
        return "must not be empty";
    len = strlen(arg);
    if (len > WH_REALM_MAX)
        return apr_psprintf(p, "must be at most %d characters", WH_REALM_MAX);
    for (s = arg; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return "must be printable ASCII without '\"' or '\\'";
    }
    *out = apr_pstrmemdup(p, arg, len);
    return NULL;
}

/* ---- enumerations -------------------------------------------------- */

const char *wh_parse_choice(apr_pool_t *p, const char *arg,
                            const wh_choice *choices, const wh_choice **out)
{
    const char *rule = NULL;
    const wh_choice *c;

    for (c = choices; arg && c->name; c++)
        if (!strcasecmp(arg, c->name)) {
            *out = c;
            return NULL;
        }
    for (c = choices; c->name; c++)
        rule = !rule ? apr_pstrcat(p, "must be ", c->name, NULL)
               : apr_pstrcat(p, rule, c[1].name ? ", " : " or ", c->name,
                             NULL);
    return rule ? rule : "must be one of no values";
}

/* ---- URL ----------------------------------------------------------- */

/* The URL is fed byte for byte into the HMAC, so anything that a client
 * would re-encode (space, control, non-ASCII) can never match and is
 * rejected up front, as is a fragment, which is never sent over HTTP. */
static const char *check_url_bytes(apr_pool_t *p, const char *arg)
{
    const char *s;

    if (strlen(arg) > WH_URL_MAX)
        return apr_psprintf(p, "must be at most %d bytes", WH_URL_MAX);
    for (s = arg; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            return "must not contain whitespace, control or non-ASCII "
                   "characters (percent-encode them)";
    return NULL;
}

const char *wh_parse_url(apr_pool_t *p, const char *arg, const char **out)
{
    apr_uri_t u;
    const char *err;

    if (!arg || !*arg)
        return "must not be empty";
    if ((err = check_url_bytes(p, arg)) != NULL)
        return err;
    if (strchr(arg, '#'))
        return "must not contain a fragment ('#')";
    /* Some senders sign only the path and query (the shared vectors show
     * that form too); "//host" would be a scheme-relative URL, not a path. */
    if (arg[0] == '/' && arg[1] != '/') {
        *out = apr_pstrdup(p, arg);
        return NULL;
    }
    if (apr_uri_parse(p, arg, &u) != APR_SUCCESS)
        return "is not a valid URL";
    if (!u.scheme || (strcasecmp(u.scheme, "http") != 0
                      && strcasecmp(u.scheme, "https") != 0))
        return "must be an absolute http:// or https:// URL or a path "
               "starting with /";
    if (!u.hostname || !*u.hostname)
        return "must name a host (http://host/...)";
    *out = apr_pstrdup(p, arg);
    return NULL;
}

const char *wh_parse_origin(apr_pool_t *p, const char *arg, const char **out)
{
    apr_uri_t u;
    const char *err;
    char *o;

    if (!arg || !*arg)
        return "must not be empty";
    if ((err = check_url_bytes(p, arg)) != NULL)
        return err;
    if (apr_uri_parse(p, arg, &u) != APR_SUCCESS || !u.scheme
        || (strcasecmp(u.scheme, "http") != 0 && strcasecmp(u.scheme, "https") != 0))
        return "must be an origin: http:// or https://, the host and the port "
               "only when not the scheme's own (https://console.example.com)";
    if (!u.hostname || !*u.hostname)
        return "must name a host (https://host)";
    if (u.user || u.password || u.query || u.fragment
        || (u.path && *u.path && strcmp(u.path, "/") != 0))
        return "must be an origin only: no user, path, query or fragment";
    if (u.port_str && (!*u.port_str || strspn(u.port_str, "0123456789") != strlen(u.port_str)
                       || u.port == 0))
        return "must have a port of digits, from 1 to 65535";
    o = apr_psprintf(p, strchr(u.hostname, ':') ? "%s://[%s]" : "%s://%s", u.scheme,
                     u.hostname);
    for (char *c = o; *c; c++)
        *c = (char)apr_tolower(*c);
    if (u.port_str && u.port != apr_uri_port_of_scheme(o[4] == 's' ? "https" : "http"))
        o = apr_psprintf(p, "%s:%u", o, (unsigned)u.port);
    *out = o;
    return NULL;
}

/* ---- ReplayCache --------------------------------------------------- */

#define WH_PROVIDER_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

const char *wh_parse_replay_cache(apr_pool_t *p, const char *arg,
                                  const char **provider, const char **args)
{
    apr_size_t n;
    const char *rest;

    if (!arg || !*arg)
        return "must not be empty";
    n = strspn(arg, WH_PROVIDER_CHARS);
    if (n == 0 || (arg[n] != '\0' && arg[n] != ':'))
        return "must be a provider name of [a-z0-9_] optionally followed "
               "by ':' and arguments (e.g. shmcb, redis:host:port)";
    if (n > WH_PROVIDER_MAX)
        return apr_psprintf(p, "provider name must be at most %d characters",
                            WH_PROVIDER_MAX);
    if (arg[n] == '\0') {
        *provider = apr_pstrmemdup(p, arg, n);
        *args = NULL;
        return NULL;
    }
    rest = arg + n + 1;
    if (!*rest)
        return "provider arguments after ':' must not be empty";
    if (strlen(rest) > WH_PROVIDER_ARGS_MAX)
        return apr_psprintf(p, "provider arguments must be at most %d bytes",
                            WH_PROVIDER_ARGS_MAX);
    if (has_ctl(rest))
        return "provider arguments must not contain control characters";
    *provider = apr_pstrmemdup(p, arg, n);
    *args = apr_pstrdup(p, rest);
    return NULL;
}

/* ---- line-oriented files ------------------------------------------- */

static const char *io_error(apr_pool_t *p, const char *path, const char *what,
                            apr_status_t rv)
{
    char buf[256];

    return apr_psprintf(p, "%s %s: %s", what, path,
                        apr_strerror(rv, buf, sizeof buf));
}

/* Reads the file into a buffer from tmp, sized from the file's length. One
 * extra byte is requested so a file that grows while being read is noticed
 * instead of silently truncated. *cap is set as soon as *buf exists so the
 * caller can wipe it even when this fails. */
static const char *read_whole(apr_pool_t *p, apr_pool_t *tmp, const char *path,
                              apr_size_t max_bytes, char **buf,
                              apr_size_t *cap, apr_size_t *len, wh_file_id *id)
{
    apr_file_t *f;
    apr_finfo_t fi;
    apr_size_t want;
    apr_status_t rv;

    /* Non-blocking: opening a FIFO for reading would otherwise wait for a
     * writer (httpd -t and every CGI request hanging on one); a regular
     * file reads the same either way, and anything else is refused below. */
    rv = apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY
                       | APR_FOPEN_NONBLOCK, APR_OS_DEFAULT, tmp);
    if (rv != APR_SUCCESS)
        return io_error(p, path, "cannot open", rv);
    rv = apr_file_info_get(&fi, WH_FILE_ID_WANTED | APR_FINFO_TYPE, f);
    if (rv != APR_SUCCESS && rv != APR_INCOMPLETE)
        return io_error(p, path, "cannot stat", rv);
    if (id)
        wh_file_id_from_finfo(&fi, id);
    if (fi.filetype != APR_REG)
        return apr_psprintf(p, "%s: not a regular file", path);
    if (fi.size < 0 || (apr_uint64_t)fi.size > (apr_uint64_t)max_bytes)
        return apr_psprintf(p, "%s: file too large (limit %" APR_SIZE_T_FMT
                            " bytes)", path, max_bytes);
    want = (apr_size_t)fi.size;
    *cap = want + 2;
    *buf = apr_palloc(tmp, *cap);
    rv = apr_file_read_full(f, *buf, want + 1, len);
    apr_file_close(f);
    if (rv != APR_SUCCESS && rv != APR_EOF)
        return io_error(p, path, "cannot read", rv);
    if (*len > want)
        return apr_psprintf(p, "%s: file changed while being read", path);
    (*buf)[*len] = '\0';
    return NULL;
}

static void split_lines(char *buf, apr_size_t len, wh_parse_line_fn fn,
                        void *ctx)
{
    char *pos = buf;
    char *end = buf + len;
    unsigned lineno = 0;

    while (pos < end) {
        char *nl = memchr(pos, '\n', (apr_size_t)(end - pos));
        char *stop = nl ? nl : end;

        *stop = '\0';
        fn(ctx, ++lineno, pos, (apr_size_t)(stop - pos));
        pos = stop + 1;
    }
}

const char *wh_parse_lines(apr_pool_t *p, const char *path,
                           apr_size_t max_bytes, wh_parse_line_fn fn,
                           void *ctx)
{
    return wh_parse_lines_ex(p, path, max_bytes, fn, ctx, NULL);
}

const char *wh_parse_lines_ex(apr_pool_t *p, const char *path,
                              apr_size_t max_bytes, wh_parse_line_fn fn,
                              void *ctx, wh_file_id *id)
{
    apr_pool_t *tmp;
    char *buf = NULL;
    apr_size_t cap = 0, len = 0;
    const char *err;

    if (!path || !*path)
        return "no file name given";
    if (max_bytes > APR_SIZE_MAX - 2)
        max_bytes = APR_SIZE_MAX - 2;
    if (apr_pool_create(&tmp, p) != APR_SUCCESS)
        return apr_psprintf(p, "%s: out of memory", path);
    if (id)
        memset(id, 0, sizeof(*id));
    err = read_whole(p, tmp, path, max_bytes, &buf, &cap, &len, id);
    if (!err)
        split_lines(buf, len, fn, ctx);
    /* Pools do not clear freed memory and this buffer may hold secrets. */
    if (buf)
        apr_crypto_memzero(buf, cap);
    apr_pool_destroy(tmp);
    return err;
}
