/* The console's overview: notifications accepted, the answers refused by
 * code, and forward outcomes, each per minute over the last hour and per
 * ten minutes over the last day (the last bin is the one now is in);
 * the host's answers by code; forwarding, its forwarders' liveness; the
 * quarantine and the replay store. Arrivals are counted from listing
 * positions (wh_inbox_arrivals: the same cost whatever the traffic),
 * refusals from the host's ring (wh_console_ring.h), outcomes from the
 * forwarder's counts by the minute. */
#include "wh_console_int.h"
#include "wh_console_ring.h"
#include "inbox/wh_inbox_views.h"
#include "forward/wh_forward_queue.h"
#include "forward/wh_forward_views.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

#define MINUTE APR_INT64_C(60000000)
#define HOUR_BARS 60                       /* one a minute */
#define DAY_BARS 144                       /* one per 10 minutes */
#define DAY_STEP (10 * MINUTE)
/* Codes a refusal chart shows on their own; the rest are "other codes". */
#define REFUSAL_SERIES 6
/* A forwarder silent for longer than this is said to be so. */
#define FORWARDER_SILENT (3 * WH_FQ_ALIVE_EVERY)

/* The two windows: their bins and where they start. */
typedef struct {
    int nbins;
    apr_interval_time_t step;
    apr_time_t start;
    int tick_every;
    const char *name;            /* "last hour", "last day" */
} span;

static void spans(wh_cx *x, span *hour, span *day)
{
    apr_time_t now = x->req->now;
    hour->nbins = HOUR_BARS;
    hour->step = MINUTE;
    hour->start = (now / MINUTE - (HOUR_BARS - 1)) * MINUTE;
    hour->tick_every = 15;
    hour->name = "last hour, per minute";
    day->nbins = DAY_BARS;
    day->step = DAY_STEP;
    day->start = (now / DAY_STEP - (DAY_BARS - 1)) * DAY_STEP;
    day->tick_every = 36;
    day->name = "last day, per 10 minutes";
}

static double *doubles(wh_cx *x, int n)
{
    return apr_pcalloc(x->p, sizeof(double) * (apr_size_t)n);
}

static void card(wh_cx *x, const char *label, const char *value, const char *note)
{
    wh_html_raw(&x->h, "<div class=\"card\"><div class=\"label\">");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, "</div><div class=\"value\">");
    wh_html_text(&x->h, value);
    wh_html_raw(&x->h, "</div>");
    if (note) {
        wh_html_raw(&x->h, "<div class=\"note\">");
        wh_html_text(&x->h, note);
        wh_html_raw(&x->h, "</div>");
    }
    wh_html_raw(&x->h, "</div>");
}

/* Notifications accepted per bin of sp, and their total. */
static int arrivals(wh_cx *x, const span *sp, apr_int64_t *total)
{
    apr_time_t t[DAY_BARS + 1];
    apr_int64_t pos[DAY_BARS + 1];
    double *v = doubles(x, sp->nbins);
    wh_cx_series series = { "accepted", "s0", v };

    for (int k = 0; k <= sp->nbins; k++)
        t[k] = sp->start + k * sp->step;
    if (wh_inbox_arrivals(x->ib, x->p, t, sp->nbins + 1, pos) != 0)
        return -1;
    for (int k = 0; k < sp->nbins; k++)
        v[k] = (double)(pos[k + 1] - pos[k]);
    *total = pos[sp->nbins] - pos[0];
    wh_cx_chart(x, apr_pstrcat(x->p, "Notifications stored, ", sp->name, NULL),
                "stored", &series, 1, sp->nbins, sp->start, sp->step, sp->tick_every);
    return 0;
}

typedef struct {
    int answer;
    apr_uint64_t total;
} code_total;

static int more_first(const void *a, const void *b)
{
    const code_total *x = a, *y = b;
    return (y->total > x->total) - (y->total < x->total);
}

/* The answers refused per bin of sp, by code: the codes most seen on
 * their own, the rest together. */
static void refusals(wh_cx *x, const span *sp)
{
    const wh_console_host *h = x->req->host;
    int na = wh_ring_answers(), n = 0, ns = 0;
    apr_uint64_t *counts;
    code_total *ct;
    wh_cx_series series[REFUSAL_SERIES + 1];
    static const char *const css[] = { "s1", "s2", "s3", "s4", "s5", "s6", "s7" };

    if (!h || !h->ring)
        return;
    counts = apr_palloc(x->p, sizeof(*counts) * (apr_size_t)(sp->nbins * na));
    ct = apr_pcalloc(x->p, sizeof(*ct) * (apr_size_t)na);
    wh_ring_read(h->ring, x->req->now, sp->step != MINUTE, sp->nbins, counts);
    /* refusals only: every answer but accepted (0) and duplicate (1) */
    for (int a = 2; a < na; a++) {
        ct[n].answer = a;
        for (int b = 0; b < sp->nbins; b++)
            ct[n].total += counts[b * na + a];
        if (ct[n].total)
            n++;
    }
    qsort(ct, (size_t)n, sizeof(*ct), more_first);
    for (int i = 0; i < n && ns <= REFUSAL_SERIES; i++) {
        /* the last series holds every code past the first ones */
        int last = ns == REFUSAL_SERIES ? n : i + 1;
        double *v = doubles(x, sp->nbins);
        series[ns].name = last == i + 1 ? wh_ring_answer(ct[i].answer) : "other codes";
        series[ns].css = css[ns];
        series[ns].values = v;
        for (int k = i; k < last; k++)
            for (int b = 0; b < sp->nbins; b++)
                v[b] += (double)counts[b * na + ct[k].answer];
        ns++;
    }
    if (!ns) {
        static const double zero[DAY_BARS] = { 0 };
        series[0].name = "refused";
        series[0].css = "s1";
        series[0].values = zero;
        ns = 1;
    }
    wh_cx_chart(x, apr_pstrcat(x->p, "Refused, by code, ", sp->name, NULL), "refused",
                series, ns, sp->nbins, sp->start, sp->step, sp->tick_every);
}

/* Attempts to forward per bin of sp, by outcome. */
static void outcomes(wh_cx *x, wh_fq *d, const span *sp)
{
    apr_int64_t fw[DAY_BARS], rt[DAY_BARS], dd[DAY_BARS];
    double *v[3];
    int known = 0;
    wh_cx_series series[3] = { { "forwarded", "s0", NULL }, { "retried", "s4", NULL },
                               { "dead", "s1", NULL } };

    if (wh_fq_outcomes(d, x->p, sp->start, sp->step, sp->nbins, fw, rt, dd, &known) != 0
        || !known)
        return;
    for (int s = 0; s < 3; s++) {
        v[s] = doubles(x, sp->nbins);
        series[s].values = v[s];
    }
    for (int b = 0; b < sp->nbins; b++) {
        v[0][b] = (double)fw[b];
        v[1][b] = (double)rt[b];
        v[2][b] = (double)dd[b];
    }
    wh_cx_chart(x, apr_pstrcat(x->p, "Forward attempts, by outcome, ", sp->name, NULL),
                "attempts", series, 3, sp->nbins, sp->start, sp->step, sp->tick_every);
}

static const char *ago(wh_cx *x, apr_time_t t)
{
    apr_interval_time_t d = x->req->now - t;
    long s = d > 0 ? (long)apr_time_sec(d) : 0;
    if (s < 120)
        return apr_psprintf(x->p, "%ld s ago", s);
    if (s < 7200)
        return apr_psprintf(x->p, "%ld min ago", s / 60);
    if (s < 172800)
        return apr_psprintf(x->p, "%ld h ago", s / 3600);
    return apr_psprintf(x->p, "%ld days ago", s / 86400);
}

/* Each forwarder's liveness: running (a sign of life lately), stopped
 * (said so when it stopped) or silent (killed, hung, or its host gone). */
static void forwarders(wh_cx *x, wh_fq *d)
{
    apr_array_header_t *rows;
    int known = 0, running = 0;

    if (wh_fq_forwarders(d, x->p, &rows, &known) != 0 || !known)
        return;
    for (int i = 0; i < rows->nelts; i++) {
        const wh_fq_forwarder *f = &APR_ARRAY_IDX(rows, i, wh_fq_forwarder);
        running += !f->stopped_at && x->req->now - f->seen_at <= FORWARDER_SILENT;
    }
    wh_html_raw(&x->h, "<h3>Forwarders</h3>");
    if (!running)
        wh_cx_notice(x, "error", "No forwarder is running: nothing is forwarded until "
                     "one is started (wirehook forward).");
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>Forwarder</th><th>State</th>"
                "<th>Last sign of life</th><th>Started</th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_fq_forwarder *f = &APR_ARRAY_IDX(rows, i, wh_fq_forwarder);
        int live = !f->stopped_at && x->req->now - f->seen_at <= FORWARDER_SILENT;
        wh_html_raw(&x->h, "<tr>");
        wh_cx_cell(x, f->owner);
        wh_html_printf(&x->h, "<td><span class=\"st st-%s\">%s</span></td><td>",
                       live ? "ok" : f->stopped_at ? "none" : "dead",
                       live ? "running" : f->stopped_at ? "stopped" : "silent");
        wh_cx_time(x, f->seen_at);
        wh_html_raw(&x->h, " <span class=\"dim\">");
        wh_html_text(&x->h, ago(x, f->seen_at));
        wh_html_raw(&x->h, "</span></td><td>");
        wh_cx_time(x, f->started_at);
        wh_html_raw(&x->h, "</td></tr>");
    }
    wh_html_raw(&x->h, "</tbody></table>");
}

static void answers(wh_cx *x)
{
    const wh_console_host *h = x->req->host;

    wh_html_raw(&x->h, "<section><h2>Answers to the bank</h2>");
    if (!h || !h->counts) {
        wh_html_raw(&x->h, "<p class=\"dim\">");
        wh_html_text(&x->h, h && h->no_counters ? h->no_counters
                                                : "This host keeps no counters.");
        wh_html_raw(&x->h, "</p></section>");
        return;
    }
    wh_html_raw(&x->h, "<p class=\"dim\">Since ");
    wh_cx_time(x, h->counters_since);
    wh_html_raw(&x->h, " (");
    wh_html_text(&x->h, h->host);
    wh_html_raw(&x->h, "'s counters).</p><table class=\"list narrow\"><thead><tr><th>Answer"
                "</th><th>Count</th></tr></thead><tbody>");
    for (int i = 0; i < h->counts->nelts; i++) {
        const wh_console_count *c = &APR_ARRAY_IDX(h->counts, i, wh_console_count);
        int refused = strcmp(c->code, "accepted") != 0 && strcmp(c->code, "duplicate") != 0;
        /* the refusals that never happened would only be noise */
        if (refused && c->n == 0)
            continue;
        wh_html_raw(&x->h, refused ? "<tr><td>refused: <code>" : "<tr><td><code>");
        wh_html_text(&x->h, c->code);
        wh_html_printf(&x->h, "</code></td><td class=\"n\">%" APR_UINT64_T_FMT "</td></tr>",
                       c->n);
    }
    wh_html_raw(&x->h, "</tbody></table></section>");
}

static void forwarding(wh_cx *x)
{
    wh_fq *d = NULL;
    wh_fq_counts st;
    int rc = wh_cx_queue(x, &d);

    wh_html_raw(&x->h, "<section><h2>Forwarding</h2>");
    if (rc == 0) {
        wh_html_raw(&x->h, "<p class=\"dim\">wirehook forward has not run on this inbox.</p>"
                    "</section>");
        return;
    }
    if (rc < 0 || wh_fq_stats(d, x->p, &st) != 0) {
        wh_html_raw(&x->h, "<p class=\"notice error\">The inbox did not answer.</p></section>");
        return;
    }
    wh_html_raw(&x->h, "<div class=\"cards\">");
    card(x, "Backlog", apr_psprintf(x->p, "%" APR_INT64_T_FMT, st.waiting + st.ready + st.unqueued),
         apr_psprintf(x->p, "%" APR_INT64_T_FMT " queued, %" APR_INT64_T_FMT
                      " not queued yet", st.waiting + st.ready, st.unqueued));
    card(x, "Lag", st.oldest && st.oldest < x->req->now
                       ? apr_psprintf(x->p, "%.1f s", (double)(x->req->now - st.oldest)
                                                          / APR_USEC_PER_SEC)
                       : "0 s", "age of the oldest event not forwarded");
    card(x, "Retrying", apr_psprintf(x->p, "%" APR_INT64_T_FMT, st.retrying), NULL);
    wh_html_raw(&x->h, "<a class=\"card-link\" href=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/dead", NULL));
    wh_html_raw(&x->h, "\">");
    card(x, "Dead letters", apr_psprintf(x->p, "%" APR_INT64_T_FMT, st.dead), NULL);
    wh_html_raw(&x->h, "</a></div>");
    forwarders(x, d);
    wh_html_raw(&x->h, "</section>");
}

static void replay(wh_cx *x)
{
    const wh_console_host *h = x->req->host;

    wh_html_raw(&x->h, "<section><h2>Replay store</h2><p>");
    if (!h || !h->replay_provider) {
        wh_html_raw(&x->h, "<span class=\"dim\">None here: the inbox's unique "
                    "notificationId decides duplicates.</span>");
    } else {
        wh_html_raw(&x->h, "<code>");
        wh_html_text(&x->h, h->replay_provider);
        wh_html_raw(&x->h, "</code>: ");
        if (!h->replay_fill_known)
            wh_html_raw(&x->h, "fill unknown");
        else if (h->replay_capacity)
            wh_html_printf(&x->h, "%" APR_UINT64_T_FMT " of %" APR_UINT64_T_FMT
                           " ids (%.1f%%)", h->replay_live, h->replay_capacity,
                           100.0 * (double)h->replay_live / (double)h->replay_capacity);
        else
            wh_html_printf(&x->h, "%" APR_UINT64_T_FMT " ids, no fixed capacity",
                           h->replay_live);
    }
    wh_html_raw(&x->h, "</p></section>");
}

void wh_cx_overview(wh_cx *x)
{
    apr_int64_t listed = 0, held = 0, hour = 0, day = 0;
    span sp[2];
    wh_fq *d = NULL;

    wh_cx_page_begin(x, "Overview", "overview");
    wh_html_raw(&x->h, "<h1>Overview</h1>");
    if (!wh_cx_inbox(x) || wh_inbox_listed(x->ib, x->p, &listed) != 0
        || wh_inbox_quarantine_held(x->ib, x->p, &held) != 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox is unavailable (see the error log).");
        answers(x);
        return;
    }
    spans(x, &sp[0], &sp[1]);
    /* the figures first, then the charts side by side: hour and day */
    wh_html_raw(&x->h, "<div class=\"cards\">");
    card(x, "Events listed", apr_psprintf(x->p, "%" APR_INT64_T_FMT, listed), NULL);
    wh_html_raw(&x->h, "<a class=\"card-link\" href=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/quarantine", NULL));
    wh_html_raw(&x->h, "\">");
    card(x, "Quarantine", apr_psprintf(x->p, "%" APR_INT64_T_FMT, held), "held");
    wh_html_raw(&x->h, "</a></div><div class=\"charts\">");
    if (arrivals(x, &sp[0], &hour) != 0 || arrivals(x, &sp[1], &day) != 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox did not answer.");
        return;
    }
    for (int i = 0; i < 2; i++)
        refusals(x, &sp[i]);
    if (wh_cx_queue(x, &d) > 0)
        for (int i = 0; i < 2; i++)
            outcomes(x, d, &sp[i]);
    wh_html_printf(&x->h, "</div><p class=\"count\">%" APR_INT64_T_FMT " stored in the "
                   "last hour, %" APR_INT64_T_FMT " in the last day.</p><div class=\"cols\">",
                   hour, day);
    forwarding(x);
    answers(x);
    wh_html_raw(&x->h, "</div>");
    replay(x);
}
