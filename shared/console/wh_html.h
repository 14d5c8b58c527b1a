#ifndef WH_HTML_H
#define WH_HTML_H
/* Building a page: a bounded buffer, and escaping for each place a value
 * can go. Everything a page shows comes from the bank or the network, so
 * no value is ever written raw: wh_html_raw is for markup written in this
 * source, wh_html_text for every value (element text and double-quoted
 * attribute values alike), and URLs are built from %-encoded parts
 * (wh_url_part) under a path the configuration gave, never taken whole
 * from data (no javascript: or other scheme can get in). */
#include <apr_pools.h>

typedef struct {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
    apr_size_t max;              /* the page's bound */
    int overflow;                /* something was cut: the page says so */
} wh_html;

/* A page of at most max bytes. */
void wh_html_init(wh_html *h, apr_pool_t *p, apr_size_t max);

/* Markup of this source, copied as is. */
void wh_html_raw(wh_html *h, const char *s);
void wh_html_rawn(wh_html *h, const char *s, apr_size_t n);
/* printf for markup around numbers; never for a value from data. */
void wh_html_printf(wh_html *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A value as HTML text or as a double-quoted attribute value: & < > " '
 * become character references; a byte that is not part of well-formed
 * UTF-8 (overlong forms, surrogates, beyond U+10FFFF, cut sequences) and
 * every C0 control character but tab, newline and carriage return become
 * U+FFFD; a character that shows nothing or reorders the text around it
 * (C1 controls, bidirectional controls such as U+202E, zero-width and
 * other invisible formatting characters) is shown as its code point,
 * "<U+202E>", visible and inert; at most max_bytes of input are shown (0: all), then an
 * ellipsis. NULL shows as nothing. */
void wh_html_text(wh_html *h, const char *s);
void wh_html_textn(wh_html *h, const char *s, apr_size_t len, apr_size_t max_bytes);

/* The same into a new string. */
const char *wh_html_escape(apr_pool_t *p, const char *s);

/* s %-encoded for a path segment or a query value: every byte but
 * A-Z a-z 0-9 - . _ ~ becomes %XX. */
const char *wh_url_part(apr_pool_t *p, const char *s);

/* Decodes a query string or form body (application/x-www-form-urlencoded:
 * '+' is a space) for `name`: the first value, NULL when absent, "" when
 * empty. A value with a %-escape that is not two hex digits, or decoding
 * to a NUL byte, is taken as absent. The input is at most max bytes
 * (else NULL). */
const char *wh_form_value(apr_pool_t *p, const char *form, apr_size_t max,
                          const char *name);

/* The page: NUL-terminated, its length in *len. */
const char *wh_html_done(wh_html *h, apr_size_t *len);

#endif
