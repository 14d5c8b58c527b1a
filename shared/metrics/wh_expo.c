/* Prometheus's text exposition format (wh_expo.h). */
#include "wh_expo.h"
#include "verify/wh_utf8.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wh_expo {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
};

wh_expo *wh_expo_make(apr_pool_t *p)
{
    wh_expo *e = apr_palloc(p, sizeof(*e));

    e->p = p;
    e->cap = 4096;
    e->len = 0;
    e->buf = apr_palloc(p, e->cap);
    e->buf[0] = '\0';
    return e;
}

static void put(wh_expo *e, const char *s, apr_size_t n)
{
    if (e->len + n + 1 > e->cap) {
        apr_size_t cap = e->cap * 2;
        char *buf;
        while (e->len + n + 1 > cap)
            cap *= 2;
        buf = apr_palloc(e->p, cap);
        memcpy(buf, e->buf, e->len);
        e->buf = buf;
        e->cap = cap;
    }
    memcpy(e->buf + e->len, s, n);
    e->len += n;
    e->buf[e->len] = '\0';
}

static void puts_(wh_expo *e, const char *s)
{
    put(e, s, strlen(s));
}

/* s escaped for a label value (quote: also '"') or a HELP text. */
static void put_escaped(wh_expo *e, const char *s, int quote)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    apr_size_t n = strlen((const char *)u), i = 0, run = 0;

    while (i < n) {
        unsigned char c = u[i];
        const char *rep = NULL;
        apr_size_t k = 1;

        if (c == '\\')
            rep = "\\\\";
        else if (c == '\n')
            rep = "\\n";
        else if (c == '"' && quote)
            rep = "\\\"";
        else if (c >= 0x80 && (k = wh_utf8_seq_len(u + i, n - i)) == 0) {
            rep = "\xEF\xBF\xBD";
            k = 1;
        }
        if (rep) {
            put(e, (const char *)u + i - run, run);
            puts_(e, rep);
            run = 0;
        } else {
            run += k;
        }
        i += k;
    }
    put(e, (const char *)u + i - run, run);
}

void wh_expo_family(wh_expo *e, const char *name, const char *type,
                    const char *help)
{
    puts_(e, "# HELP ");
    puts_(e, name);
    puts_(e, " ");
    put_escaped(e, help, 0);
    puts_(e, "\n# TYPE ");
    puts_(e, name);
    puts_(e, " ");
    puts_(e, type);
    puts_(e, "\n");
}

void wh_expo_sample(wh_expo *e, const char *name, const char *const *labels,
                    const char *value)
{
    puts_(e, name);
    if (labels && labels[0]) {
        puts_(e, "{");
        for (int i = 0; labels[i] && labels[i + 1]; i += 2) {
            if (i)
                puts_(e, ",");
            puts_(e, labels[i]);
            puts_(e, "=\"");
            put_escaped(e, labels[i + 1], 1);
            puts_(e, "\"");
        }
        puts_(e, "}");
    }
    puts_(e, " ");
    puts_(e, value);
    puts_(e, "\n");
}

void wh_expo_u64(wh_expo *e, const char *name, const char *const *labels,
                 apr_uint64_t value)
{
    char v[32];

    apr_snprintf(v, sizeof(v), "%" APR_UINT64_T_FMT, value);
    wh_expo_sample(e, name, labels, v);
}

void wh_expo_double(wh_expo *e, const char *name, const char *const *labels,
                    double value)
{
    char v[40];

    /* the shortest of %.15g..%.17g that reads back the same: 0.25, not
     * 0.25000000000000000 */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(v, sizeof(v), "%.*g", digits, value);
        if (strtod(v, NULL) == value)
            break;
    }
    wh_expo_sample(e, name, labels, v);
}

const char *wh_expo_text(const wh_expo *e, apr_size_t *len)
{
    if (len)
        *len = e->len;
    return e->buf;
}
