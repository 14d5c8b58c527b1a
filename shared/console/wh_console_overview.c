/* The console's overview: arrivals per minute over the last hour and the
 * last day (counted from listing positions, wh_inbox_arrivals: the same
 * cost whatever the traffic), the host's answers by code, forwarding,
 * the quarantine and the replay store. */
#include "wh_console_int.h"
#include "inbox/wh_inbox_views.h"
#include "forward/wh_forward_queue.h"

#include <apr_strings.h>
#include <string.h>

#define MINUTE APR_INT64_C(60000000)
#define HOUR_BARS 60                       /* one a minute */
#define DAY_BARS 144                       /* one per 10 minutes */
#define DAY_STEP (10 * MINUTE)

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

static const char *hhmm(wh_cx *x, apr_time_t t)
{
    apr_time_exp_t tm;
    if (apr_time_exp_gmt(&tm, t) != APR_SUCCESS)
        return "";
    return apr_psprintf(x->p, "%02d:%02d", tm.tm_hour, tm.tm_min);
}

/* Both charts from one bisection: 61 + 145 instants. */
static int charts(wh_cx *x, apr_int64_t *hour_total, apr_int64_t *day_total)
{
    apr_time_t now = x->req->now, t[HOUR_BARS + 1 + DAY_BARS + 1];
    apr_time_t hour_end = (now / MINUTE + 1) * MINUTE, day_end = (now / DAY_STEP + 1) * DAY_STEP;
    apr_int64_t pos[HOUR_BARS + 1 + DAY_BARS + 1];
    double hv[HOUR_BARS], dv[DAY_BARS];
    const char *hl[HOUR_BARS], *dl[DAY_BARS];
    const int n = HOUR_BARS + 1 + DAY_BARS + 1;

    for (int k = 0; k <= HOUR_BARS; k++)
        t[k] = hour_end - (HOUR_BARS - k) * MINUTE;
    for (int k = 0; k <= DAY_BARS; k++)
        t[HOUR_BARS + 1 + k] = day_end - (DAY_BARS - k) * DAY_STEP;
    if (wh_inbox_arrivals(x->ib, x->p, t, n, pos) != 0)
        return -1;
    for (int k = 0; k < HOUR_BARS; k++) {
        hv[k] = (double)(pos[k + 1] - pos[k]);
        hl[k] = apr_psprintf(x->p, "%s UTC: %.0f", hhmm(x, t[k]), hv[k]);
    }
    for (int k = 0; k < DAY_BARS; k++) {
        const apr_int64_t *d = pos + HOUR_BARS + 1;
        dv[k] = (double)(d[k + 1] - d[k]) / 10.0;
        dl[k] = apr_psprintf(x->p, "%s-%s UTC: %" APR_INT64_T_FMT " (%.1f a minute)",
                             hhmm(x, t[HOUR_BARS + 1 + k]), hhmm(x, t[HOUR_BARS + 2 + k]),
                             d[k + 1] - d[k], dv[k]);
    }
    *hour_total = pos[HOUR_BARS] - pos[0];
    *day_total = pos[n - 1] - pos[HOUR_BARS + 1];
    wh_html_raw(&x->h, "<div class=\"charts\">");
    wh_cx_chart(x, "Notifications per minute, last hour", hv, HOUR_BARS, hl,
                hhmm(x, t[0]), hhmm(x, t[HOUR_BARS]));
    wh_cx_chart(x, "Notifications per minute, last day (10-minute averages)", dv, DAY_BARS,
                dl, hhmm(x, t[HOUR_BARS + 1]), hhmm(x, t[n - 1]));
    wh_html_raw(&x->h, "</div>");
    return 0;
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
    int rc = wh_fq_attach(x->p, x->ib, x->c->cfg, &d);

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
    wh_html_raw(&x->h, "</a></div></section>");
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

    wh_cx_page_begin(x, "Overview", "overview");
    wh_html_raw(&x->h, "<h1>Overview</h1>");
    if (!wh_cx_inbox(x) || wh_inbox_listed(x->ib, x->p, &listed) != 0
        || wh_inbox_quarantine_held(x->ib, x->p, &held) != 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox is unavailable (see the error log).");
        answers(x);
        return;
    }
    if (charts(x, &hour, &day) != 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox did not answer.");
        return;
    }
    wh_html_raw(&x->h, "<div class=\"cards\">");
    card(x, "Events listed", apr_psprintf(x->p, "%" APR_INT64_T_FMT, listed), NULL);
    card(x, "Last hour", apr_psprintf(x->p, "%" APR_INT64_T_FMT, hour), NULL);
    card(x, "Last day", apr_psprintf(x->p, "%" APR_INT64_T_FMT, day), NULL);
    wh_html_raw(&x->h, "<a class=\"card-link\" href=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/quarantine", NULL));
    wh_html_raw(&x->h, "\">");
    card(x, "Quarantine", apr_psprintf(x->p, "%" APR_INT64_T_FMT, held), "held, not released");
    wh_html_raw(&x->h, "</a></div><div class=\"cols\">");
    answers(x);
    forwarding(x);
    wh_html_raw(&x->h, "</div>");
    replay(x);
}
