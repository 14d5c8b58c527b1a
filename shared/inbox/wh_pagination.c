/* Query-string parsing for inbox listings (the spec's offset/limit
 * convention plus filters). Strict on purpose: a list call that
 * silently ignored a misspelt parameter ("ofset=50") would page from the
 * start and look correct, so anything not understood is a 400. */
#include "wh_pagination.h"
#include "verify/wh_utf8.h"
#include <apr_escape.h>
#include <apr_strings.h>
#include <string.h>

/* Largest offset: 2^53 - 1, the largest integer every JSON consumer holds
 * exactly (the next offset is echoed back as a string, but clients parse
 * it into numbers). Also keeps offset + limit far from overflow. */
#define WH_PAGE_MAX_OFFSET APR_INT64_C(9007199254740991)
/* Filter values: payment ids and statuses are short; this bounds what is
 * bound into SQL and echoed nowhere. */
#define WH_PAGE_MAX_FILTER 128
/* Whole query string; httpd bounds the request line anyway (8190). */
#define WH_PAGE_MAX_QUERY 4096
/* How much of an unknown parameter's name an error message quotes. */
#define WH_PAGE_NAME_ECHO 40

/* application/x-www-form-urlencoded decoding ('+' is a space) by APR, on
 * a NUL-terminated copy so no escape can reach past the parameter.
 * Returns NULL for a malformed escape or a decoded NUL. */
static char *url_decode(apr_pool_t *p, const char *s, apr_size_t n)
{
    const char *part = apr_pstrmemdup(p, s, n);
    char *out = apr_palloc(p, n + 1);
    apr_status_t rv = apr_unescape_url(out, part, APR_ESCAPE_STRING, NULL, NULL, 1, NULL);

    /* APR_NOTFOUND only says nothing needed decoding: out is the copy. */
    return (rv == APR_SUCCESS || rv == APR_NOTFOUND) ? out : NULL;
}

/* Well-formed UTF-8 (the core's own check) without C0/C1 control
 * characters: a value PostgreSQL would refuse as text must be a 400, not a
 * 503 from the database. */
static int clean_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;

    if (wh_utf8_length(s, strlen(s)) < 0)
        return 0;
    for (; *u; u++) {
        if (*u < 0x20 || *u == 0x7f)
            return 0;
        if (*u == 0xc2 && u[1] >= 0x80 && u[1] < 0xa0)
            return 0;   /* U+0080..U+009F */
    }
    return 1;
}

/* Digits only, value in [min, max]. */
static int parse_count(const char *s, apr_int64_t min, apr_int64_t max,
                       apr_int64_t *out)
{
    apr_int64_t v = 0;

    if (!*s)
        return 0;
    for (; *s; s++) {
        int d;
        if (*s < '0' || *s > '9')
            return 0;
        d = *s - '0';
        if (v > (max - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    /* The loop only guards against overflow; a single digit can still be
     * above a small maximum (ListMaxLimit 1, limit=2). */
    if (v < min || v > max)
        return 0;
    *out = v;
    return 1;
}

/* The name of an unknown parameter, safe to put in a message. */
static const char *echo_name(apr_pool_t *p, const char *name)
{
    apr_size_t n = strlen(name);
    char *s;

    if (n > WH_PAGE_NAME_ECHO)
        n = WH_PAGE_NAME_ECHO;
    s = apr_pstrmemdup(p, name, n);
    for (apr_size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ||
            s[i] == '"' || s[i] == '\\')
            s[i] = '?';
    return s;
}

const char *wh_page_filter_value(apr_pool_t *p, const char *name,
                                 const char *value, const char **out)
{
    apr_size_t n = strlen(value);
    if (n == 0 || n > WH_PAGE_MAX_FILTER)
        return apr_psprintf(p, "%s must be 1 to %d bytes", name,
                            WH_PAGE_MAX_FILTER);
    if (!clean_utf8(value))
        return apr_psprintf(p, "%s must be UTF-8 text without control "
                            "characters", name);
    *out = value;
    return NULL;
}

/* "offset, limit, paymentId, status" as far as `allowed` goes. */
static const char *known_names(apr_pool_t *p, unsigned allowed)
{
    return apr_pstrcat(p, "offset, limit",
                       allowed & WH_PAGE_PAYMENT_ID ? ", paymentId" : "",
                       allowed & WH_PAGE_STATUS ? ", status" : "",
                       allowed & WH_PAGE_NOTIFICATION_ID ? ", notificationId" : "", NULL);
}

const char *wh_pagination_parse(apr_pool_t *p, const char *query,
                                 const wh_config *cfg, wh_page_query *out)
{
    return wh_pagination_parse_filters(p, query, cfg,
                                       WH_PAGE_PAYMENT_ID | WH_PAGE_STATUS
                                       | WH_PAGE_NOTIFICATION_ID, out);
}

const char *wh_pagination_parse_filters(apr_pool_t *p, const char *query,
                                         const wh_config *cfg, unsigned allowed,
                                         wh_page_query *out)
{
    int seen_offset = 0, seen_limit = 0, max_limit;
    const char *s, *end;

    memset(out, 0, sizeof(*out));
    out->offset = 0;
    out->limit = cfg && cfg->list_default_limit > 0 ? cfg->list_default_limit : 25;
    max_limit = cfg && cfg->list_max_limit > 0 ? cfg->list_max_limit : 100;
    if (out->limit > max_limit)
        out->limit = max_limit;
    if (!query || !*query)
        return NULL;
    if (strlen(query) > WH_PAGE_MAX_QUERY)
        return apr_psprintf(p, "the query string is longer than %d bytes",
                            WH_PAGE_MAX_QUERY);

    for (s = query; *s; s = *end ? end + 1 : end) {
        const char *eq;
        char *name, *value;
        apr_size_t len;

        end = strchr(s, '&');
        if (!end)
            end = s + strlen(s);
        len = (apr_size_t)(end - s);
        if (len == 0)
            continue;   /* "a=1&&b=2": an empty pair says nothing */
        eq = memchr(s, '=', len);
        name = url_decode(p, s, eq ? (apr_size_t)(eq - s) : len);
        value = eq ? url_decode(p, eq + 1, (apr_size_t)(end - eq - 1))
                   : apr_pstrdup(p, "");
        if (!name || !value)
            return "malformed percent-encoding in the query string";

        if (strcmp(name, "offset") == 0) {
            if (seen_offset++)
                return "offset is given more than once";
            if (!parse_count(value, 0, WH_PAGE_MAX_OFFSET, &out->offset))
                return apr_psprintf(p, "offset must be a whole number from 0 "
                                    "to %" APR_INT64_T_FMT, WH_PAGE_MAX_OFFSET);
        } else if (strcmp(name, "limit") == 0) {
            apr_int64_t v;
            if (seen_limit++)
                return "limit is given more than once";
            if (!parse_count(value, 1, max_limit, &v))
                return apr_psprintf(p, "limit must be a whole number from 1 "
                                    "to %d", max_limit);
            out->limit = (int)v;
        } else if ((allowed & WH_PAGE_PAYMENT_ID) && strcmp(name, "paymentId") == 0) {
            const char *err;
            if (out->payment_id)
                return "paymentId is given more than once";
            if ((err = wh_page_filter_value(p, "paymentId", value, &out->payment_id)))
                return err;
        } else if ((allowed & WH_PAGE_STATUS) && strcmp(name, "status") == 0) {
            const char *err;
            if (out->status)
                return "status is given more than once";
            if ((err = wh_page_filter_value(p, "status", value, &out->status)))
                return err;
        } else if ((allowed & WH_PAGE_NOTIFICATION_ID)
                   && strcmp(name, "notificationId") == 0) {
            const char *err;
            if (out->notification_id)
                return "notificationId is given more than once";
            if ((err = wh_page_filter_value(p, "notificationId", value,
                                            &out->notification_id)))
                return err;
        } else {
            return apr_psprintf(p, "unknown query parameter '%s' (known: %s)",
                                echo_name(p, name), known_names(p, allowed));
        }
    }
    return NULL;
}
