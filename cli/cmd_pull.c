/* wirehook pull: walks an offset/limit list endpoint (the spec's
 * pagination convention) until pagination.moreRecords is false and prints
 * every record as one compact JSON line (NDJSON) on stdout.
 *
 * Tolerant in what it reads (moreResults as the spec's sample spells it,
 * offset as string or number, records under "events" or the first array),
 * strict about progress: a server that never ends, or hands back an offset
 * that does not move, is stopped with an error rather than followed. */
#include "commands.h"
#include "cli_util.h"
#include <apr_strings.h>
#include <apr_time.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PULL_USAGE "pull URL [--user U:PASS | --user-file F] [--limit N] [--since-offset N]\n" \
                   "       [--max-pages N] [--retries N] [--timeout S] [--verbose]"

/* Largest page body kept in memory: a page is at most ListMaxLimit bodies
 * of MaxBodySize each on our own server; others are bounded too. */
#define PULL_MAX_PAGE (64u * 1024u * 1024u)
#define PULL_DEFAULT_MAX_PAGES 100000
#define PULL_DEFAULT_ATTEMPTS 5
#define PULL_BACKOFF_FIRST_MS 500
#define PULL_BACKOFF_CAP_MS 30000
/* Retry-After is honoured up to this; a server asking for longer is
 * treated as down for this run. */
#define PULL_RETRY_AFTER_CAP_S 60
#define PULL_JSON_DEPTH 64

typedef struct {
    char *data;
    apr_size_t len, cap;
    int overflow;
} buffer;

typedef struct {
    apr_pool_t *p;
    CURL *curl;
    const char *base;        /* URL without our paging parameters */
    const char *userpwd;
    int limit;               /* 0: let the server choose */
    int attempts;
    long timeout;
    int verbose;
} puller;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    buffer *b = ud;
    size_t n = size * nmemb;

    if (b->len + n > PULL_MAX_PAGE) {
        b->overflow = 1;
        return 0;   /* makes curl fail the transfer */
    }
    if (b->len + n + 1 > b->cap) {
        apr_size_t cap = b->cap ? b->cap : 16384;
        char *bigger;
        while (cap < b->len + n + 1)
            cap *= 2;
        bigger = realloc(b->data, cap);
        if (!bigger)
            return 0;
        b->data = bigger;
        b->cap = cap;
    }
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

static const char *page_url(const puller *pl, apr_int64_t offset)
{
    const char *sep = strchr(pl->base, '?') ? "&" : "?";
    if (pl->limit > 0)
        return apr_psprintf(pl->p, "%s%soffset=%" APR_INT64_T_FMT "&limit=%d", pl->base,
                            sep, offset, pl->limit);
    return apr_psprintf(pl->p, "%s%soffset=%" APR_INT64_T_FMT, pl->base, sep, offset);
}

/* error.code/message of a JSON error body, for the 4xx message. */
static const char *error_summary(apr_pool_t *p, const buffer *b)
{
    json_object *root, *err, *code, *msg;
    const char *out = NULL;

    if (!b->data || !b->len)
        return "";
    root = json_tokener_parse(b->data);
    if (root && json_object_object_get_ex(root, "error", &err) &&
        json_object_is_type(err, json_type_object)) {
        json_object_object_get_ex(err, "code", &code);
        json_object_object_get_ex(err, "message", &msg);
        out = apr_psprintf(p, ": %s%s%s", code ? json_object_get_string(code) : "",
                           msg ? " - " : "", msg ? json_object_get_string(msg) : "");
    }
    if (root)
        json_object_put(root);
    if (!out) {
        apr_size_t n = b->len > 200 ? 200 : b->len;
        out = apr_pstrcat(p, ": ", apr_pstrmemdup(p, b->data, n), NULL);
    }
    for (char *c = (char *)out; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = ' ';
    return out;
}

/* One GET with retries. Returns 0 and the body in *b, or 1 after printing
 * why. */
static int fetch(puller *pl, const char *url, buffer *b)
{
    apr_int64_t delay_ms = PULL_BACKOFF_FIRST_MS;

    for (int attempt = 1;; attempt++) {
        char errbuf[CURL_ERROR_SIZE] = "";
        long status = 0;
        curl_off_t retry_after = -1;
        CURLcode rc;
        const char *why;
        apr_int64_t wait_ms;

        b->len = 0;
        b->overflow = 0;
        curl_easy_setopt(pl->curl, CURLOPT_URL, url);
        curl_easy_setopt(pl->curl, CURLOPT_WRITEDATA, b);
        curl_easy_setopt(pl->curl, CURLOPT_ERRORBUFFER, errbuf);
        rc = curl_easy_perform(pl->curl);
        if (rc == CURLE_OK) {
            curl_easy_getinfo(pl->curl, CURLINFO_RESPONSE_CODE, &status);
            if (status >= 200 && status < 300)
                return 0;
            if (status != 429 && status < 500) {
                /* The request itself is wrong (auth, bad query, no such
                 * endpoint): retrying will not change that. */
                fprintf(stderr, "wirehook pull: %s: HTTP %ld%s\n", wh_cli_safe_url(pl->p, url),
                        status, error_summary(pl->p, b));
                return 1;
            }
            curl_easy_getinfo(pl->curl, CURLINFO_RETRY_AFTER, &retry_after);
            why = apr_psprintf(pl->p, "HTTP %ld", status);
        } else if (b->overflow) {
            fprintf(stderr, "wirehook pull: %s: page larger than %u bytes\n",
                    wh_cli_safe_url(pl->p, url), PULL_MAX_PAGE);
            return 1;
        } else if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT ||
                   rc == CURLE_LOGIN_DENIED) {
            fprintf(stderr, "wirehook pull: %s: %s\n", wh_cli_safe_url(pl->p, url),
                    *errbuf ? errbuf : curl_easy_strerror(rc));
            return 1;
        } else {
            why = *errbuf ? apr_pstrdup(pl->p, errbuf) : curl_easy_strerror(rc);
        }

        if (attempt >= pl->attempts) {
            fprintf(stderr, "wirehook pull: %s: %s (gave up after %d attempts)\n",
                    wh_cli_safe_url(pl->p, url), why, attempt);
            return 1;
        }
        wait_ms = delay_ms;
        if (retry_after >= 0) {
            if (retry_after > PULL_RETRY_AFTER_CAP_S) {
                fprintf(stderr, "wirehook pull: %s: %s, Retry-After %ld s is too long\n",
                        wh_cli_safe_url(pl->p, url), why, (long)retry_after);
                return 1;
            }
            wait_ms = (apr_int64_t)retry_after * 1000;
        }
        if (pl->verbose)
            fprintf(stderr, "wirehook pull: %s; retrying in %" APR_INT64_T_FMT " ms\n",
                    why, wait_ms);
        apr_sleep(apr_time_from_msec(wait_ms));
        delay_ms = delay_ms * 2 > PULL_BACKOFF_CAP_MS ? PULL_BACKOFF_CAP_MS : delay_ms * 2;
    }
}

/* Reads "offset" as a non-negative integer from a string or a number. */
static int read_offset(json_object *o, apr_int64_t *out)
{
    if (json_object_is_type(o, json_type_int)) {
        int64_t v = json_object_get_int64(o);
        if (v < 0)
            return 0;
        *out = v;
        return 1;
    }
    if (json_object_is_type(o, json_type_string)) {
        const char *s = json_object_get_string(o);
        apr_int64_t v = 0;
        if (!*s)
            return 0;
        for (; *s; s++) {
            if (*s < '0' || *s > '9' || v > (APR_INT64_MAX - (*s - '0')) / 10)
                return 0;
            v = v * 10 + (*s - '0');
        }
        *out = v;
        return 1;
    }
    return 0;
}

static int read_bool(json_object *o, int *out)
{
    if (json_object_is_type(o, json_type_boolean)) {
        *out = json_object_get_boolean(o);
        return 1;
    }
    if (json_object_is_type(o, json_type_string)) {
        const char *s = json_object_get_string(o);
        if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
            *out = s[0] == 't';
            return 1;
        }
    }
    return 0;
}

typedef struct {
    json_object *root;
    json_object *records;
    int more;
    int has_offset;
    apr_int64_t next_offset;
} page;

static const char *parse_page(apr_pool_t *p, const buffer *b, page *pg)
{
    json_tokener *tok;
    json_object *pag, *o;
    enum json_tokener_error jerr;

    memset(pg, 0, sizeof(*pg));
    if (!b->data || !b->len)
        return "empty response";
    tok = json_tokener_new_ex(PULL_JSON_DEPTH);
    if (!tok)
        return "out of memory";
    pg->root = json_tokener_parse_ex(tok, b->data, (int)b->len);
    jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!pg->root || jerr != json_tokener_success)
        return apr_psprintf(p, "response is not JSON (%s)", json_tokener_error_desc(jerr));
    if (!json_object_is_type(pg->root, json_type_object))
        return "response is not a JSON object";
    /* The records: "events" in the spec's sample; other collections name
     * theirs after what they hold, so the first array member stands in. */
    if (json_object_object_get_ex(pg->root, "events", &o)) {
        if (!json_object_is_type(o, json_type_array))
            return "\"events\" is not an array";
        pg->records = o;
    } else {
        json_object_object_foreach(pg->root, key, val) {
            (void)key;
            if (json_object_is_type(val, json_type_array)) {
                pg->records = val;
                break;
            }
        }
        if (!pg->records)
            return "no array of records in the response";
    }
    if (!json_object_object_get_ex(pg->root, "pagination", &pag) ||
        !json_object_is_type(pag, json_type_object))
        return "no pagination object in the response";
    /* moreRecords per the field description; moreResults as the sample. */
    if (!(json_object_object_get_ex(pag, "moreRecords", &o) ||
          json_object_object_get_ex(pag, "moreResults", &o)) || !read_bool(o, &pg->more))
        return "pagination.moreRecords is missing or not a boolean";
    if (json_object_object_get_ex(pag, "offset", &o)) {
        if (!read_offset(o, &pg->next_offset))
            return "pagination.offset is not a non-negative integer";
        pg->has_offset = 1;
    }
    return NULL;
}

static int parse_int_opt(const char *name, const char *arg, apr_int64_t min,
                         apr_int64_t max, apr_int64_t *out)
{
    char *end;
    apr_int64_t v;

    errno = 0;
    v = apr_strtoi64(arg, &end, 10);
    if (errno || !*arg || *end || v < min || v > max) {
        fprintf(stderr, "wirehook pull: --%s must be a whole number from %" APR_INT64_T_FMT
                " to %" APR_INT64_T_FMT "\n", name, min, max);
        return 0;
    }
    *out = v;
    return 1;
}

static const char *read_user_file(apr_pool_t *p, const char *path, const char **out)
{
    char *buf, *nl;
    apr_size_t len;
    const char *err = wh_cli_read_input(p, path, 4096, &buf, &len);

    if (err)
        return err;
    if ((nl = strpbrk(buf, "\r\n")) != NULL)
        *nl = '\0';
    if (!strchr(buf, ':'))
        return apr_psprintf(p, "%s: expected one line USER:PASSWORD", path);
    *out = buf;
    return NULL;
}

static int walk(puller *pl, apr_int64_t offset, apr_int64_t max_pages)
{
    buffer b = { NULL, 0, 0, 0 };
    apr_int64_t pages = 0, records = 0;
    int rc = 1;

    for (;;) {
        const char *url, *err;
        page pg;
        size_t n;

        if (pages >= max_pages) {
            fprintf(stderr, "wirehook pull: stopped after %" APR_INT64_T_FMT " pages "
                    "(--max-pages); the server kept saying moreRecords\n", pages);
            goto out;
        }
        url = page_url(pl, offset);
        if (fetch(pl, url, &b) != 0)
            goto out;
        pages++;
        if ((err = parse_page(pl->p, &b, &pg)) != NULL) {
            fprintf(stderr, "wirehook pull: %s: %s\n", wh_cli_safe_url(pl->p, url), err);
            if (pg.root)
                json_object_put(pg.root);
            goto out;
        }
        n = json_object_array_length(pg.records);
        for (size_t i = 0; i < n; i++) {
            const char *line = json_object_to_json_string_ext(
                json_object_array_get_idx(pg.records, i),
                JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
            if (printf("%s\n", line) < 0) {
                fprintf(stderr, "wirehook pull: writing stdout failed\n");
                json_object_put(pg.root);
                goto out;
            }
        }
        if (fflush(stdout) != 0) {
            fprintf(stderr, "wirehook pull: writing stdout failed\n");
            json_object_put(pg.root);
            goto out;
        }
        records += (apr_int64_t)n;
        json_object_put(pg.root);
        /* No offset given: the convention's arithmetic (offset + count). */
        if (!pg.has_offset)
            pg.next_offset = offset + (apr_int64_t)n;
        if (!pg.more) {
            offset = pg.next_offset;
            break;
        }
        if (pg.next_offset <= offset) {
            fprintf(stderr, "wirehook pull: %s: moreRecords is true but the next offset (%"
                    APR_INT64_T_FMT ") does not advance past %" APR_INT64_T_FMT
                    "; stopping\n", wh_cli_safe_url(pl->p, url), pg.next_offset, offset);
            goto out;
        }
        offset = pg.next_offset;
    }
    if (pl->verbose)
        fprintf(stderr, "wirehook pull: %" APR_INT64_T_FMT " records in %" APR_INT64_T_FMT
                " pages; resume with --since-offset %" APR_INT64_T_FMT "\n", records, pages,
                offset);
    rc = 0;
out:
    free(b.data);
    return rc;
}

int wh_cmd_pull(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "user", 'u', 1, "USER:PASSWORD for Basic auth" },
        { "user-file", 'U', 1, "file holding USER:PASSWORD (keeps it out of ps)" },
        { "limit", 'l', 1, "records per page (the server's default)" },
        { "since-offset", 's', 1, "offset to start from (0)" },
        { "max-pages", 'm', 1, "stop with an error after this many pages (100000)" },
        { "retries", 'r', 1, "attempts per page for transient failures (5)" },
        { "timeout", 't', 1, "seconds per request (60)" },
        { "verbose", 'v', 0, "progress and retries on stderr" },
        { NULL, 0, 0, NULL }
    };
    puller pl;
    apr_getopt_t *os;
    apr_int64_t v, offset = 0, max_pages = PULL_DEFAULT_MAX_PAGES;
    const char *arg, *user_file = NULL, *err;
    apr_status_t rv;
    int ch, rc;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " PULL_USAGE "\n\n"
               "Walks an offset/limit list endpoint until pagination.moreRecords is false\n"
               "and prints each record as one compact JSON line (NDJSON) on stdout.\n\n"
               "  --user U:PASS      Basic auth (visible in ps; prefer --user-file)\n"
               "  --user-file F      file with one line USER:PASSWORD\n"
               "  --limit N          records per page (default: the server's)\n"
               "  --since-offset N   start at offset N (default 0); a run's last offset\n"
               "                     is printed with --verbose to resume from\n"
               "  --max-pages N      give up after N pages (default 100000)\n"
               "  --retries N        attempts per page for connection errors, 429 and 5xx,\n"
               "                     with exponential backoff from 0.5 s (cap 30 s) and\n"
               "                     Retry-After honoured up to 60 s (default 5)\n"
               "  --timeout S        seconds per request (default 60)\n"
               "  --verbose          progress on stderr\n\n"
               "Reads moreRecords or moreResults, offset as string or number, and the\n"
               "records from \"events\" (else the first array in the page). Stops with\n"
               "an error on any other 4xx, on a page whose next offset does not advance,\n"
               "and after --max-pages. Exit 0 when the walk ended, 1 on error, 2 usage.\n");
        return 0;
    }
    memset(&pl, 0, sizeof(pl));
    pl.p = p;
    pl.attempts = PULL_DEFAULT_ATTEMPTS;
    pl.timeout = 60;
    if (!(os = wh_cli_getopt(p, argc, argv, opts)))
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 'u': pl.userpwd = arg; break;
        case 'U': user_file = arg; break;
        case 'v': pl.verbose = 1; break;
        case 'l':
            if (!parse_int_opt("limit", arg, 1, 1000000, &v))
                return 2;
            pl.limit = (int)v;
            break;
        case 's':
            if (!parse_int_opt("since-offset", arg, 0, APR_INT64_C(9007199254740991), &offset))
                return 2;
            break;
        case 'm':
            if (!parse_int_opt("max-pages", arg, 1, APR_INT64_C(1000000000), &max_pages))
                return 2;
            break;
        case 'r':
            if (!parse_int_opt("retries", arg, 1, 100, &v))
                return 2;
            pl.attempts = (int)v;
            break;
        case 't':
            if (!parse_int_opt("timeout", arg, 1, 3600, &v))
                return 2;
            pl.timeout = (long)v;
            break;
        }
    }
    if (rv != APR_EOF || os->argc - os->ind != 1 || (pl.userpwd && user_file))
        return wh_cli_usage(PULL_USAGE);
    pl.base = os->argv[os->ind];
    if (strncmp(pl.base, "http://", 7) != 0 && strncmp(pl.base, "https://", 8) != 0) {
        fprintf(stderr, "wirehook pull: the URL must start with http:// or https://\n");
        return 2;
    }
    if (strchr(pl.base, '#') || strstr(pl.base, "offset=") || strstr(pl.base, "limit=")) {
        fprintf(stderr, "wirehook pull: the URL must not carry offset, limit or a "
                "fragment: use --since-offset and --limit\n");
        return 2;
    }
    if (user_file && (err = read_user_file(p, user_file, &pl.userpwd)) != NULL) {
        fprintf(stderr, "wirehook pull: %s\n", err);
        return 1;
    }

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(pl.curl = curl_easy_init())) {
        fprintf(stderr, "wirehook pull: libcurl initialisation failed\n");
        return 1;
    }
    curl_easy_setopt(pl.curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(pl.curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(pl.curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(pl.curl, CURLOPT_TIMEOUT, pl.timeout);
    curl_easy_setopt(pl.curl, CURLOPT_PROTOCOLS_STR, "http,https");
    /* No redirects: the credentials must not follow them to another host. */
    curl_easy_setopt(pl.curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(pl.curl, CURLOPT_USERAGENT, "wirehook-pull");
    if (pl.userpwd) {
        curl_easy_setopt(pl.curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(pl.curl, CURLOPT_USERPWD, pl.userpwd);
    }
    {
        struct curl_slist *hdrs = curl_slist_append(NULL, "Accept: application/json");
        curl_easy_setopt(pl.curl, CURLOPT_HTTPHEADER, hdrs);
        rc = walk(&pl, offset, max_pages);
        curl_slist_free_all(hdrs);
    }
    curl_easy_cleanup(pl.curl);
    curl_global_cleanup();
    return rc;
}
