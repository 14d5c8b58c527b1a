/* A bounded page buffer and the escaping every value goes through
 * (wh_html.h). */
#include "wh_html.h"
#include "verify/wh_utf8.h"

#include <apr_escape.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <stdarg.h>
#include <string.h>

#define WH_HTML_FIRST 8192
#define WH_REPLACEMENT "\xEF\xBF\xBD"      /* U+FFFD */

void wh_html_init(wh_html *h, apr_pool_t *p, apr_size_t max)
{
    memset(h, 0, sizeof(*h));
    h->p = p;
    h->max = max;
    h->cap = max < WH_HTML_FIRST ? max : WH_HTML_FIRST;
    h->buf = apr_palloc(p, h->cap + 1);
    h->buf[0] = '\0';
}

/* Room for n more bytes; 0 when the page's bound is reached (what would
 * not fit is dropped, and the page is marked). */
static int room(wh_html *h, apr_size_t n)
{
    apr_size_t want;
    char *nb;

    if (h->len + n <= h->cap)
        return 1;
    if (h->len + n > h->max) {
        h->overflow = 1;
        return 0;
    }
    want = h->cap * 2;
    if (want < h->len + n)
        want = h->len + n;
    if (want > h->max)
        want = h->max;
    nb = apr_palloc(h->p, want + 1);
    memcpy(nb, h->buf, h->len);
    h->buf = nb;
    h->cap = want;
    return 1;
}

void wh_html_rawn(wh_html *h, const char *s, apr_size_t n)
{
    if (!s || !n || h->overflow || !room(h, n))
        return;
    memcpy(h->buf + h->len, s, n);
    h->len += n;
    h->buf[h->len] = '\0';
}

void wh_html_raw(wh_html *h, const char *s)
{
    if (s)
        wh_html_rawn(h, s, strlen(s));
}

void wh_html_printf(wh_html *h, const char *fmt, ...)
{
    va_list ap;
    const char *s;

    va_start(ap, fmt);
    s = apr_pvsprintf(h->p, fmt, ap);
    va_end(ap);
    wh_html_raw(h, s);
}

/* The reference for a character HTML gives meaning to, or NULL. */
static const char *reference(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

/* The code point of a well-formed sequence of k bytes. */
static unsigned long code_point(const unsigned char *u, apr_size_t k)
{
    unsigned long cp = k == 2 ? u[0] & 0x1f : k == 3 ? u[0] & 0x0f : u[0] & 0x07;
    for (apr_size_t i = 1; i < k; i++)
        cp = (cp << 6) | (u[i] & 0x3f);
    return cp;
}

/* Characters that are valid text but show nothing, or change how the
 * text around them is shown: C1 controls, the bidirectional controls
 * (an RLO makes "etelpmoC" read "Complete", reversed digits a different
 * amount), zero-width and other invisible formatting characters, line
 * and paragraph separators, tags. */
static int hidden(unsigned long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || cp == 0x61c || cp == 0x180e
           || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e)
           || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff
           || (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

void wh_html_textn(wh_html *h, const char *s, apr_size_t len, apr_size_t max_bytes)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t i = 0, run = 0, end = len;

    if (!s)
        return;
    if (max_bytes && end > max_bytes)
        end = max_bytes;
    /* runs of plain bytes are copied at once */
    while (i < end && !h->overflow) {
        unsigned char c = u[i];
        const char *ref = NULL;
        char shown[16];
        apr_size_t k = 1;
        int bad = 0;

        if (c >= 0x80) {
            k = wh_utf8_seq_len(u + i, end - i);
            bad = k == 0;
            if (bad) {
                k = 1;
            } else if (hidden(code_point(u + i, k))) {
                apr_snprintf(shown, sizeof(shown), "&lt;U+%04lX&gt;", code_point(u + i, k));
                ref = shown;
            }
        } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
            bad = 1;
        } else {
            ref = reference(c);
        }
        if (!bad && !ref) {
            i += k;
            run += k;
            continue;
        }
        wh_html_rawn(h, s + i - run, run);
        run = 0;
        wh_html_raw(h, bad ? WH_REPLACEMENT : ref);
        i += k;
    }
    wh_html_rawn(h, s + i - run, run);
    if (end < len)
        wh_html_raw(h, "\xE2\x80\xA6");     /* an ellipsis: cut here */
}

void wh_html_text(wh_html *h, const char *s)
{
    if (s)
        wh_html_textn(h, s, strlen(s), 0);
}

const char *wh_html_escape(apr_pool_t *p, const char *s)
{
    wh_html h;
    apr_size_t n;

    wh_html_init(&h, p, (s ? strlen(s) : 0) * 8 + 16);
    wh_html_text(&h, s);
    return wh_html_done(&h, &n);
}

const char *wh_url_part(apr_pool_t *p, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    apr_size_t n = s ? strlen(s) : 0;
    char *o = apr_palloc(p, n * 3 + 1), *w = o;

    for (apr_size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (apr_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            *w++ = (char)c;
        } else {
            *w++ = '%';
            *w++ = hex[c >> 4];
            *w++ = hex[c & 15];
        }
    }
    *w = '\0';
    return o;
}

/* Decodes s[0..n) (form rules: '+' is a space); NULL on a bad escape or
 * a NUL byte. apr_unescape_url looks at the two characters after a '%'
 * even past n: the byte after a piece is '=', '&' or the form's end,
 * never a hex digit, so an escape cut short by n is still refused. */
static const char *form_decode(apr_pool_t *p, const char *s, apr_size_t n)
{
    char *o = apr_palloc(p, n + 1);
    apr_status_t rv = apr_unescape_url(o, s, (apr_ssize_t)n, NULL, NULL, 1, NULL);

    /* APR_NOTFOUND: nothing to decode, copied as it was */
    return rv == APR_SUCCESS || rv == APR_NOTFOUND ? o : NULL;
}

const char *wh_form_value(apr_pool_t *p, const char *form, apr_size_t max,
                          const char *name)
{
    apr_size_t nlen = name ? strlen(name) : 0;
    const char *s = form;

    if (!form || !name || strnlen(form, max + 1) > max)
        return NULL;
    while (*s) {
        const char *amp = strchr(s, '&');
        apr_size_t n = amp ? (apr_size_t)(amp - s) : strlen(s);
        const char *eq = memchr(s, '=', n);
        apr_size_t klen = eq ? (apr_size_t)(eq - s) : n;
        const char *key = form_decode(p, s, klen);
        if (key && strlen(key) == nlen && memcmp(key, name, nlen) == 0)
            return eq ? form_decode(p, eq + 1, n - klen - 1) : "";
        if (!amp)
            break;
        s = amp + 1;
    }
    return NULL;
}

const char *wh_html_done(wh_html *h, apr_size_t *len)
{
    *len = h->len;
    return h->buf;
}
