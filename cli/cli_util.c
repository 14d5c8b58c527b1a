#include "cli_util.h"
#include "verify/wh_utf8.h"
#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

const char *wh_cli_read_input(apr_pool_t *p, const char *path, apr_size_t max,
                              char **buf, apr_size_t *len)
{
    apr_file_t *f;
    apr_status_t rv;
    apr_size_t cap = 8192, used = 0;
    char *data = apr_palloc(p, cap + 1);
    char err[256];
    const char *name = (!path || strcmp(path, "-") == 0) ? "stdin" : path;

    if (!path || strcmp(path, "-") == 0)
        rv = apr_file_open_stdin(&f, p);
    else
        rv = apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY, 0, p);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "%s: %s", name, apr_strerror(rv, err, sizeof(err)));
    for (;;) {
        apr_size_t n = cap - used;
        rv = apr_file_read(f, data + used, &n);
        used += n;
        if (rv == APR_EOF)
            break;
        if (rv != APR_SUCCESS)
            return apr_psprintf(p, "%s: %s", name, apr_strerror(rv, err, sizeof(err)));
        if (used == cap) {
            char *bigger;
            if (cap >= max)
                return apr_psprintf(p, "%s: larger than %" APR_SIZE_T_FMT " bytes", name, max);
            cap *= 2;
            bigger = apr_palloc(p, cap + 1);
            memcpy(bigger, data, used);
            data = bigger;
        }
    }
    if (used > max)
        return apr_psprintf(p, "%s: larger than %" APR_SIZE_T_FMT " bytes", name, max);
    data[used] = '\0';
    *buf = data;
    *len = used;
    return NULL;
}

int wh_cli_usage(const char *usage)
{
    fprintf(stderr, "usage: wirehook %s\n", usage);
    return 2;
}

int wh_cli_wants_help(int argc, const char *const *argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

/* 1 when tok is an option that consumes the next argument. */
static int takes_arg(const apr_getopt_option_t *opts, const char *tok)
{
    if (tok[0] != '-')
        return 0;
    for (const apr_getopt_option_t *o = opts; o && o->name; o++)
        if (o->has_arg && ((tok[1] == '-' && strcmp(tok + 2, o->name) == 0)
                           || (tok[1] == o->optch && tok[2] == '\0')))
            return 1;
    return 0;
}

/* apr_getopt rejects a bare "-" as an illegal option, yet "-" is how
 * users name stdin; it is moved behind a "--" where getopt leaves it be
 * (unless it is an option's argument). */
static const char *const *stdin_dash_last(apr_pool_t *p, int *argc,
                                          const char *const *argv,
                                          const apr_getopt_option_t *opts)
{
    const char **out = apr_pcalloc(p, sizeof(char *) * ((apr_size_t)*argc + 3));
    int n = 0, dashes = 0;

    for (int i = 0; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return argv;
        if (i > 0 && strcmp(argv[i], "-") == 0 && !takes_arg(opts, argv[i - 1]))
            dashes++;
        else
            out[n++] = argv[i];
    }
    if (dashes) {
        out[n++] = "--";
        while (dashes--)
            out[n++] = "-";
    }
    *argc = n;
    return out;
}

apr_getopt_t *wh_cli_getopt(apr_pool_t *p, int argc, const char *const *argv,
                            const apr_getopt_option_t *opts)
{
    apr_getopt_t *os;
    const char *const *args = stdin_dash_last(p, &argc, argv, opts);
    if (apr_getopt_init(&os, p, argc, args) != APR_SUCCESS)
        return NULL;
    os->interleave = 1;
    os->errfn = NULL;   /* we print our own usage line */
    return os;
}

const char *wh_cli_safe_url(apr_pool_t *p, const char *url)
{
    const char *scheme_end = strstr(url, "://");
    const char *host, *at, *slash;

    if (!scheme_end)
        return url;
    host = scheme_end + 3;
    slash = strchr(host, '/');
    at = strchr(host, '@');
    if (!at || (slash && at > slash))
        return url;
    return apr_pstrcat(p, apr_pstrmemdup(p, url, (apr_size_t)(host - url)), "***@",
                       at + 1, NULL);
}

/* The code points that show nothing or move text: the console escapes
 * the same ones (shared/console/wh_html.c). */
static int hidden(unsigned long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || cp == 0x61c || cp == 0x180e
           || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e)
           || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff
           || (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

const char *wh_cli_text(apr_pool_t *p, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t n = s ? strlen(s) : 0, i = 0;
    char *o, *w;

    if (!s)
        return NULL;
    o = w = apr_palloc(p, n * 10 + 1);
    while (i < n) {
        apr_size_t k = u[i] < 0x80 ? 1 : wh_utf8_seq_len(u + i, n - i);
        if (k == 0 || (k == 1 && (u[i] < 0x20 || u[i] == 0x7f))) {
            w += apr_snprintf(w, 5, "\\x%02x", u[i]);
            i++;
            continue;
        }
        if (k > 1) {
            unsigned long cp = k == 2 ? u[i] & 0x1f : k == 3 ? u[i] & 0x0f : u[i] & 0x07;
            for (apr_size_t j = 1; j < k; j++)
                cp = (cp << 6) | (u[i + j] & 0x3f);
            if (hidden(cp)) {
                w += apr_snprintf(w, 11, "<U+%04lX>", cp);
                i += k;
                continue;
            }
        }
        memcpy(w, u + i, k);
        w += k;
        i += k;
    }
    *w = '\0';
    return o;
}
