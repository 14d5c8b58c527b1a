/* libcurl multi for wirehook forward. One multi handle keeps the
 * connections to the application alive between requests; easy handles
 * are recycled through a free list, so a steady stream of attempts
 * costs no per-request set-up beyond the headers and the signature. */
#include "forward_http.h"
#include "verify/wh_signature.h"

#include <apr_strings.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

/* Longest Retry-After value considered (an HTTP-date is 29 bytes). */
#define WH_FWD_RETRY_AFTER_MAX_LEN 64
/* Connecting is only part of an attempt: it gets at most this much. */
#define WH_FWD_CONNECT_TIMEOUT_MS 10000

typedef struct transfer {
    struct transfer *next;       /* free list */
    struct transfer *next_all;   /* every transfer, for the cleanup */
    CURL *easy;
    apr_pool_t *pool;            /* this attempt's strings; cleared after */
    struct curl_slist *hdrs;
    void *baton;
    char body[WH_FWD_KEEP_BODY];
    apr_size_t body_len;
    char retry_after[WH_FWD_RETRY_AFTER_MAX_LEN + 1];
    char errbuf[CURL_ERROR_SIZE];
    apr_time_t started;
} transfer;

struct wh_fwd_http {
    apr_pool_t *pool;
    const wh_config *cfg;
    const wh_secret *secret;
    CURLM *multi;
    transfer *free_list;
    transfer *all;
    int inflight;
};

static apr_status_t cleanup(void *data)
{
    wh_fwd_http *h = data;
    transfer *t;

    /* In flight or idle alike: removing a handle that is not in the multi
     * is a no-op. */
    while ((t = h->all) != NULL) {
        h->all = t->next_all;
        curl_multi_remove_handle(h->multi, t->easy);
        curl_easy_cleanup(t->easy);
        curl_slist_free_all(t->hdrs);
        free(t);
    }
    h->free_list = NULL;
    h->inflight = 0;
    if (h->multi)
        curl_multi_cleanup(h->multi);
    h->multi = NULL;
    return APR_SUCCESS;
}

void wh_fwd_http_set_secret(wh_fwd_http *h, const wh_secret *secret)
{
    h->secret = secret;
}

wh_fwd_http *wh_fwd_http_create(apr_pool_t *p, const wh_config *cfg,
                                const wh_secret *secret, const char **err)
{
    wh_fwd_http *h = apr_pcalloc(p, sizeof(*h));
    long conc = cfg->forward_concurrency;

    h->pool = p;
    h->cfg = cfg;
    h->secret = secret;
    if (!(h->multi = curl_multi_init())) {
        *err = "cannot initialise libcurl";
        return NULL;
    }
    apr_pool_cleanup_register(p, h, cleanup, apr_pool_cleanup_null);
    /* One application: as many connections as requests in flight, all
     * kept for the next ones. */
    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, conc);
    curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, conc);
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, conc);
    return h;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    transfer *t = ud;
    size_t n = size * nmemb, room = sizeof(t->body) - t->body_len;

    memcpy(t->body + t->body_len, ptr, n < room ? n : room);
    t->body_len += n < room ? n : room;
    return n;      /* the rest is read and dropped: the connection lives on */
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *ud)
{
    transfer *t = ud;
    size_t n = size * nmemb;
    static const char name[] = "retry-after:";
    const size_t nl = sizeof(name) - 1;

    /* A new status line (an interim 1xx, say) starts a new answer. */
    if (n >= 5 && strncmp(line, "HTTP/", 5) == 0)
        t->retry_after[0] = '\0';
    else if (n > nl && strncasecmp(line, name, nl) == 0) {
        size_t v = n - nl;
        while (v > 0 && (line[nl + v - 1] == '\r' || line[nl + v - 1] == '\n'))
            v--;
        if (v <= WH_FWD_RETRY_AFTER_MAX_LEN) {
            memcpy(t->retry_after, line + nl, v);
            t->retry_after[v] = '\0';
        }
    }
    return n;
}

static transfer *get_transfer(wh_fwd_http *h)
{
    transfer *t = h->free_list;

    if (t) {
        h->free_list = t->next;
        return t;
    }
    if (!(t = calloc(1, sizeof(*t))))
        return NULL;
    if (!(t->easy = curl_easy_init()) ||
        apr_pool_create(&t->pool, h->pool) != APR_SUCCESS) {
        if (t->easy)
            curl_easy_cleanup(t->easy);
        free(t);
        return NULL;
    }
    t->next_all = h->all;
    h->all = t;
    return t;
}

static void put_transfer(wh_fwd_http *h, transfer *t)
{
    curl_slist_free_all(t->hdrs);
    t->hdrs = NULL;
    apr_pool_clear(t->pool);
    t->next = h->free_list;
    h->free_list = t;
}

/* Options that are the same for every attempt; set again on a recycled
 * handle because curl keeps them, which is harmless. */
static void base_options(const wh_fwd_http *h, transfer *t)
{
    CURL *e = t->easy;
    long timeout = (long)h->cfg->forward_timeout;

    curl_easy_setopt(e, CURLOPT_URL, h->cfg->forward_url);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    /* Never follow a redirect: the signature names ForwardUrl, and the
     * event must not go to a host nobody configured. */
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     timeout < WH_FWD_CONNECT_TIMEOUT_MS ? timeout
                                                         : WH_FWD_CONNECT_TIMEOUT_MS);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "wirehook-forward/1");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    if (h->cfg->forward_ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, h->cfg->forward_ca_file);
}

int wh_fwd_http_start(wh_fwd_http *h, const wh_fwd_event *ev, void *baton)
{
    transfer *t = get_transfer(h);
    apr_array_header_t *hdrs;
    const char *body;

    if (!t)
        return -1;
    t->baton = baton;
    t->body_len = 0;
    t->retry_after[0] = '\0';
    t->errbuf[0] = '\0';
    hdrs = wh_forward_headers(t->pool, h->cfg, h->secret, ev, apr_time_now());
    if (!hdrs) {
        put_transfer(h, t);
        return -1;
    }
    for (int i = 0; i < hdrs->nelts; i++) {
        struct curl_slist *l = curl_slist_append(t->hdrs,
                                                 APR_ARRAY_IDX(hdrs, i, const char *));
        if (!l) {
            put_transfer(h, t);
            return -1;
        }
        t->hdrs = l;
    }
    /* No "Expect: 100-continue": one round trip per event. */
    t->hdrs = curl_slist_append(t->hdrs, "Expect:");
    body = apr_pstrmemdup(t->pool, ev->body, ev->body_len);
    base_options(h, t);
    curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->hdrs);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)ev->body_len);
    t->started = apr_time_now();
    if (curl_multi_add_handle(h->multi, t->easy) != CURLM_OK) {
        put_transfer(h, t);
        return -1;
    }
    h->inflight++;
    return 0;
}

int wh_fwd_http_inflight(const wh_fwd_http *h)
{
    return h->inflight;
}

static void finish(wh_fwd_http *h, CURLMsg *msg, wh_fwd_done_fn done, void *ctx)
{
    char *priv = NULL;
    transfer *t;
    wh_fwd_result r;
    long status = 0;

    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
    t = (transfer *)priv;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    memset(&r, 0, sizeof(r));
    r.baton = t->baton;
    /* A status line that arrived counts even if the body then broke off:
     * a 2xx means the application has the event. */
    r.answered = status >= 100;
    r.status = status;
    if (!r.answered)
        r.error = t->errbuf[0] ? t->errbuf : curl_easy_strerror(msg->data.result);
    r.retry_after_ms = -1;
    if (t->retry_after[0] &&
        wh_forward_retry_after(t->retry_after, apr_time_now(), &r.retry_after_ms) != 0)
        r.retry_after_ms = -1;
    r.body = t->body;
    r.body_len = t->body_len;
    r.elapsed_ms = apr_time_as_msec(apr_time_now() - t->started);
    curl_multi_remove_handle(h->multi, t->easy);
    h->inflight--;
    done(ctx, &r);
    put_transfer(h, t);
}

int wh_fwd_http_run(wh_fwd_http *h, int wait_ms, wh_fwd_done_fn done, void *ctx)
{
    int running = 0, finished = 0, left;
    CURLMsg *msg;

    curl_multi_perform(h->multi, &running);
    /* A transfer may finish within that perform (an answer on loopback
     * comes fast): then there is no socket left to wait on, and waiting
     * would only delay its outcome by wait_ms. */
    if (wait_ms > 0 && running == h->inflight) {
        curl_multi_poll(h->multi, NULL, 0, wait_ms, NULL);
        curl_multi_perform(h->multi, &running);
    }
    while ((msg = curl_multi_info_read(h->multi, &left)) != NULL)
        if (msg->msg == CURLMSG_DONE) {
            finish(h, msg, done, ctx);
            finished++;
        }
    return finished;
}

void wh_fwd_http_destroy(wh_fwd_http *h)
{
    if (h)
        apr_pool_cleanup_run(h->pool, h, cleanup);
}
