/* wirehook probe's HTTP side (probe_http.h). Every request goes to the
 * one URL given, exactly as the core built it: its headers in order (a
 * repeated one twice), no Expect: 100-continue, no Content-Type of
 * curl's own, no credentials but the probe's own Authorization header,
 * no redirects followed. A paced body is handed to curl by a read
 * callback that pauses the upload until its next piece is due. */
#include "probe_http.h"
#include "cli_util.h"
#include <apr_date.h>
#include <apr_strings.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

/* how much of an answer is kept: the rest is read and dropped */
#define KEEP_ANSWER (64 * 1024)
/* trickle: the body in this many pieces over the slow seconds */
#define TRICKLE_PIECES 8

struct probe_http {
    apr_pool_t *pool; /* answers live here */
    probe_http_opts o;
    CURLM *multi;
    probe_transfer *active; /* a list */
};

struct probe_transfer {
    probe_http *h;
    probe_transfer *next;
    CURL *easy;
    struct curl_slist *hdrs;
    const wh_probe_req *req;
    probe_done_fn done;
    void *ctx;
    apr_time_t started;
    /* pacing: bytes handed to curl, bytes that may go now, when the next
     * piece is due (0: none), and whether curl is paused waiting */
    apr_size_t sent, allowed;
    apr_time_t next_step;
    int step, paused;
    apr_time_t give_up; /* a stall is abandoned then; 0: never */
    char *resp;
    apr_size_t resp_len, keep; /* kept so far, at most */
    apr_time_t date;
    char errbuf[CURL_ERROR_SIZE];
};

const char *probe_http_create(apr_pool_t *p, const probe_http_opts *o,
                              probe_http **out)
{
    probe_http *h = apr_pcalloc(p, sizeof(*h));
    h->pool = p;
    h->o = *o;
    h->multi = curl_multi_init();
    if (!h->multi)
        return "cannot initialise libcurl";
    *out = h;
    return NULL;
}

static void free_transfer(probe_transfer *t)
{
    curl_multi_remove_handle(t->h->multi, t->easy);
    curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->hdrs);
    free(t->resp);
    free(t);
}

void probe_http_destroy(probe_http *h)
{
    while (h->active) {
        probe_transfer *t = h->active;
        h->active = t->next;
        free_transfer(t);
    }
    curl_multi_cleanup(h->multi);
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
    probe_transfer *t = ud;
    size_t n = size * nmemb, keep = n;
    if (t->resp_len + keep > t->keep)
        keep = t->keep - t->resp_len;
    if (keep) {
        char *grown = realloc(t->resp, t->resp_len + keep + 1);
        if (!grown)
            return 0;
        t->resp = grown;
        memcpy(t->resp + t->resp_len, ptr, keep);
        t->resp_len += keep;
        t->resp[t->resp_len] = '\0';
    }
    return n;
}

/* The Date header, for the report's note on the receiver's clock. */
static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    probe_transfer *t = ud;
    size_t n = size * nmemb;
    if (n > 5 && n < 128 && strncasecmp(ptr, "Date:", 5) == 0) {
        char line[128];
        memcpy(line, ptr + 5, n - 5);
        line[n - 5] = '\0';
        t->date = apr_date_parse_http(line);
    }
    return n;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud)
{
    probe_transfer *t = ud;
    size_t room = size * nmemb;
    if (t->sent >= t->req->body_len)
        return 0;
    if (t->sent >= t->allowed) {
        t->paused = 1;
        return CURL_READFUNC_PAUSE;
    }
    size_t n = t->allowed - t->sent;
    if (n > room)
        n = room;
    memcpy(buf, t->req->body + t->sent, n);
    t->sent += n;
    return n;
}

/* What may go at the start, and when the next piece is due. */
static void pace_start(probe_transfer *t)
{
    const wh_probe_req *q = t->req;
    apr_interval_time_t slow = apr_time_from_sec(q->pace_seconds);
    switch (q->pace) {
    case WH_PACE_LATE_LAST_BYTE:
        t->allowed = q->body_len ? q->body_len - 1 : 0;
        t->next_step = t->started + slow;
        break;
    case WH_PACE_TRICKLE:
        t->allowed = q->body_len / TRICKLE_PIECES;
        t->next_step = t->started + slow / TRICKLE_PIECES;
        break;
    case WH_PACE_STALL:
        t->allowed = q->body_len / 2;
        t->give_up = t->started + apr_time_from_sec(t->h->o.stall_limit);
        break;
    default: t->allowed = q->body_len; break;
    }
}

/* The next piece is due: more may go, and a paused upload goes on. */
static void pace_step(probe_transfer *t, apr_time_t now)
{
    const wh_probe_req *q = t->req;
    apr_interval_time_t slow = apr_time_from_sec(q->pace_seconds);
    if (q->pace == WH_PACE_TRICKLE && ++t->step < TRICKLE_PIECES - 1) {
        t->allowed = q->body_len * (apr_size_t)(t->step + 1) / TRICKLE_PIECES;
        t->next_step = t->started + slow * (t->step + 1) / TRICKLE_PIECES;
    }
    else {
        t->allowed = q->body_len;
        t->next_step = 0;
    }
    if (t->paused && t->allowed > t->sent) {
        t->paused = 0;
        curl_easy_pause(t->easy, CURLPAUSE_CONT);
    }
    (void)now;
}

probe_transfer *probe_http_start(probe_http *h, const wh_probe_req *req,
                                 probe_done_fn done, void *ctx)
{
    probe_transfer *t = calloc(1, sizeof(*t));
    int has_ct = 0;
    if (!t)
        return NULL;
    t->h = h;
    t->keep = KEEP_ANSWER;
    t->req = req;
    t->done = done;
    t->ctx = ctx;
    t->easy = curl_easy_init();
    if (!t->easy) {
        free(t);
        return NULL;
    }
    for (int i = 0; i < req->headers->nelts; i++) {
        const wh_probe_header *hd = &APR_ARRAY_IDX(req->headers, i,
                                                   wh_probe_header);
        size_t n = strlen(hd->name) + strlen(hd->value) + 3;
        char *line = malloc(n);
        if (line) {
            snprintf(line, n, "%s: %s", hd->name, hd->value);
            t->hdrs = curl_slist_append(t->hdrs, line);
            free(line);
        }
        has_ct |= strcasecmp(hd->name, "Content-Type") == 0;
    }
    /* curl's own additions, refused: the probe sends what it built */
    t->hdrs = curl_slist_append(t->hdrs, "Expect:");
    if (!has_ct)
        t->hdrs = curl_slist_append(t->hdrs, "Content-Type:");

    CURL *e = t->easy;
    curl_easy_setopt(e, CURLOPT_URL, h->o.url);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->hdrs);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "wirehook-probe/1");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    long timeout = h->o.timeout;
    if (req->pace) /* a paced body takes its own time on top */
        timeout += (long)(req->pace == WH_PACE_STALL ? h->o.stall_limit
                                                     : req->pace_seconds);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, timeout);
    if (h->o.cacert)
        curl_easy_setopt(e, CURLOPT_CAINFO, h->o.cacert);
    if (h->o.insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (strcmp(req->method, "GET") == 0 && req->body_len == 0) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    else if (req->pace) {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, t);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)req->body_len);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
    }
    else {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)req->body_len);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
    }
    t->started = apr_time_now();
    pace_start(t);
    if (curl_multi_add_handle(h->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        curl_slist_free_all(t->hdrs);
        free(t);
        return NULL;
    }
    t->next = h->active;
    h->active = t;
    return t;
}

double probe_transfer_server_time(const probe_transfer *t)
{
    curl_off_t pre = 0, first = 0;
    curl_easy_getinfo(t->easy, CURLINFO_PRETRANSFER_TIME_T, &pre);
    curl_easy_getinfo(t->easy, CURLINFO_STARTTRANSFER_TIME_T, &first);
    return first > pre ? (double)(first - pre) : 0;
}

apr_time_t probe_transfer_date(const probe_transfer *t)
{
    return t->date;
}

apr_time_t probe_transfer_started(const probe_transfer *t)
{
    return t->started;
}

static void unlink_transfer(probe_http *h, probe_transfer *t)
{
    for (probe_transfer **pp = &h->active; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            return;
        }
}

/* Hands the answer to the done function, then frees the transfer. */
static void finish(probe_http *h, probe_transfer *t, CURLcode res,
                   int still_open)
{
    wh_probe_answer *a = apr_pcalloc(h->pool, sizeof(*a));
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    a->status = still_open ? 0 : (int)status;
    a->still_open = still_open;
    a->elapsed = apr_time_now() - t->started;
    if (t->resp_len) {
        a->body = apr_pstrmemdup(h->pool, t->resp, t->resp_len);
        a->body_len = t->resp_len;
    }
    if (still_open)
        a->error = apr_psprintf(h->pool,
                                "still open after %" APR_INT64_T_FMT " s",
                                h->o.stall_limit);
    else if (res != CURLE_OK)
        a->error = apr_pstrdup(
            h->pool, t->errbuf[0] ? t->errbuf : curl_easy_strerror(res));
    unlink_transfer(h, t);
    t->done(t->ctx, t, a);
    free_transfer(t);
}

int probe_http_step(probe_http *h, apr_interval_time_t wait)
{
    apr_time_t now = apr_time_now();
    int running = 0, left;
    CURLMsg *msg;

    for (probe_transfer *t = h->active, *next; t; t = next) {
        next = t->next;
        if (t->next_step && now >= t->next_step)
            pace_step(t, now);
        if (t->give_up && now >= t->give_up) {
            finish(h, t, CURLE_OK, 1);
        }
        else if (t->give_up && t->paused) {
            /* curl reads nothing of a paused transfer: woken, it looks at
             * the connection (an answer, a close) and pauses again */
            t->paused = 0;
            curl_easy_pause(t->easy, CURLPAUSE_CONT);
        }
    }
    /* wake up for the next piece or the next give-up, whichever is first */
    for (probe_transfer *t = h->active; t; t = t->next) {
        apr_time_t due = t->next_step ? t->next_step : t->give_up;
        if (due && due - now < wait)
            wait = due > now ? due - now : 0;
    }
    curl_multi_perform(h->multi, &running);
    while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
        char *priv = NULL;
        if (msg->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
        finish(h, (probe_transfer *)priv, msg->data.result, 0);
    }
    if (h->active && wait > 0)
        curl_multi_poll(h->multi, NULL, 0, (int)(wait / 1000) + 1, NULL);
    int n = 0;
    for (probe_transfer *t = h->active; t; t = t->next)
        n++;
    return n;
}

const char *probe_http_fetch(apr_pool_t *p, const probe_http_opts *o,
                             const char *source, apr_size_t max,
                             const char **body, apr_size_t *len)
{
    if (strncmp(source, "http://", 7) && strncmp(source, "https://", 8)) {
        char *buf;
        const char *err = wh_cli_read_input(p, source, max, &buf, len);
        *body = buf;
        return err;
    }
    CURL *e = curl_easy_init();
    probe_transfer t;
    memset(&t, 0, sizeof(t));
    t.keep = max;
    if (!e)
        return "cannot initialise libcurl";
    curl_easy_setopt(e, CURLOPT_URL, source);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "wirehook-probe/1");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, o->timeout);
    if (o->cacert)
        curl_easy_setopt(e, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    CURLcode res = curl_easy_perform(e);
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    const char *err = NULL;
    if (res != CURLE_OK)
        err = apr_psprintf(p, "%s: %s", wh_cli_safe_url(p, source),
                           t.errbuf[0] ? t.errbuf : curl_easy_strerror(res));
    else if (status < 200 || status > 299)
        err = apr_psprintf(p, "%s: answered %ld", wh_cli_safe_url(p, source),
                           status);
    else if (t.resp_len >= max)
        err = apr_psprintf(p, "%s: larger than %" APR_SIZE_T_FMT " bytes",
                           wh_cli_safe_url(p, source), max);
    *body = t.resp ? apr_pstrmemdup(p, t.resp, t.resp_len) : "";
    *len = t.resp_len;
    free(t.resp);
    curl_easy_cleanup(e);
    return err;
}
