/* The dead letters: their reasons and last answers counted, a filter
 * (reason, last HTTP status, payment, when they died), the newest first,
 * Retry one; and "retry all matching": how many a filter holds now, then
 * a confirmation bound to that filter (wh_console_actions.c does it). */
#include "wh_console_dead.h"
#include "inbox/wh_pagination.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"

#include <apr_strings.h>
#include <string.h>

/* A form value with spaces around it dropped; NULL when empty. */
static const char *trimmed(wh_cx *x, const char *form, const char *name)
{
    const char *v = wh_form_value(x->p, form, WH_CX_FORM_MAX, name);
    apr_size_t n;

    if (!v)
        return NULL;
    while (*v == ' ' || *v == '\t')
        v++;
    n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    return n ? apr_pstrmemdup(x->p, v, n) : NULL;
}

int wh_cx_dead_filter_of(wh_cx *x, const char *form, wh_fq_dead_filter *f,
                         const char **why)
{
    const char *reason = trimmed(x, form, "reason"), *http = trimmed(x, form, "http");
    const char *pay = trimmed(x, form, "payment"), *from = trimmed(x, form, "from");
    const char *to = trimmed(x, form, "to"), *out;

    memset(f, 0, sizeof(*f));
    if (reason && wh_page_filter_value(x->p, "reason", reason, &out) != NULL) {
        *why = "the reason is not one a dead letter can have";
        return -1;
    }
    f->reason = reason;
    if (http && strcmp(http, "none") == 0)
        f->http_status = -1;
    else if (http && wh_parse_int(x->p, http, 100, 599, &f->http_status) != NULL) {
        *why = "the HTTP status is a number from 100 to 599, or \"none\"";
        return -1;
    }
    if (pay && wh_page_filter_value(x->p, "payment", pay, &out) != NULL) {
        *why = "the paymentId is not one a payment can have";
        return -1;
    }
    f->payment_id = pay;
    if ((from && wh_cx_parse_time(x, from, &f->from) != 0)
        || (to && wh_cx_parse_time(x, to, &f->to) != 0)) {
        *why = "a time is 2026-11-27 10:00 (UTC) or RFC 3339";
        return -1;
    }
    return 0;
}

static const char *stamp(wh_cx *x, apr_time_t t)
{
    apr_time_exp_t tm;
    if (apr_time_exp_gmt(&tm, t) != APR_SUCCESS)
        return "?";
    return apr_psprintf(x->p, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                        tm.tm_mday, tm.tm_hour, tm.tm_min);
}

const char *wh_cx_dead_filter_text(wh_cx *x, const wh_fq_dead_filter *f)
{
    const char *t = "";

    if (f->reason)
        t = apr_pstrcat(x->p, t, *t ? "," : "", " reason \"", f->reason, "\"", NULL);
    if (f->http_status > 0)
        t = apr_psprintf(x->p, "%s%s last status %d", t, *t ? "," : "", f->http_status);
    else if (f->http_status < 0)
        t = apr_pstrcat(x->p, t, *t ? "," : "", " no answer", NULL);
    if (f->payment_id)
        t = apr_pstrcat(x->p, t, *t ? "," : "", " payment ", f->payment_id, NULL);
    if (f->from)
        t = apr_pstrcat(x->p, t, *t ? "," : "", " died from ", stamp(x, f->from), " UTC", NULL);
    if (f->to)
        t = apr_pstrcat(x->p, t, *t ? "," : "", " died before ", stamp(x, f->to), " UTC", NULL);
    return *t ? apr_pstrcat(x->p, "with", t, NULL) : "";
}

/* "N dead letters with ... match" (now), or "N dead letters" */
static void count_line(wh_cx *x, apr_int64_t n, const wh_fq_dead_filter *f, const char *now)
{
    const char *cond = wh_cx_dead_filter_text(x, f);
    wh_html_printf(&x->h, "%" APR_INT64_T_FMT " dead letter%s", n, n == 1 ? "" : "s");
    if (*cond) {
        wh_html_raw(&x->h, " ");
        wh_html_text(&x->h, cond);
        wh_html_raw(&x->h, n == 1 ? " matches" : " match");
    }
    wh_html_raw(&x->h, now);
}

/* The filter's part of a query, as the page was asked. */
static const char *filter_query(wh_cx *x, const char *before)
{
    static const char *const names[] = { "reason", "http", "payment", "from", "to",
                                         "before", NULL };
    const char *values[6];
    for (int i = 0; i < 5; i++)
        values[i] = wh_cx_param(x, names[i]);
    values[5] = before;
    return wh_cx_query(x, names, values);
}

static const char *http_text(wh_cx *x, int status)
{
    return status > 0 ? apr_itoa(x->p, status) : "none";
}

/* The reasons and statuses, counted, each a link to its filter. */
static void reasons(wh_cx *x, wh_fq *d)
{
    apr_array_header_t *rows;

    if (wh_fq_dead_reasons(d, x->p, &rows) != 0 || !rows->nelts)
        return;
    wh_html_raw(&x->h, "<table class=\"list narrow\"><thead><tr><th>Reason</th>"
                "<th>Last status</th><th>Dead letters</th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_fq_reason *r = &APR_ARRAY_IDX(rows, i, wh_fq_reason);
        static const char *const names[] = { "reason", "http", NULL };
        const char *values[2] = { r->reason, http_text(x, r->http_status) };
        wh_html_raw(&x->h, "<tr><td><a href=\"");
        wh_html_text(&x->h, apr_pstrcat(x->p, wh_cx_url(x, "/dead", NULL),
                                        wh_cx_query(x, names, values), NULL));
        wh_html_raw(&x->h, "\">");
        wh_html_text(&x->h, r->reason ? r->reason : "-");
        wh_html_raw(&x->h, "</a></td>");
        wh_cx_cell(x, r->http_status > 0 ? apr_itoa(x->p, r->http_status) : "no answer");
        wh_html_printf(&x->h, "<td class=\"n\">%" APR_INT64_T_FMT "</td></tr>", r->n);
    }
    wh_html_raw(&x->h, "</tbody></table>");
}

static void filter_form(wh_cx *x, const char *action, const char *button)
{
    wh_html_raw(&x->h, "<form class=\"filters\" method=\"get\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, action, NULL));
    wh_html_raw(&x->h, "\">");
    wh_cx_field(x, "reason", "Reason", wh_cx_param(x, "reason"), "e.g. rejected");
    wh_cx_field(x, "http", "Last HTTP status", wh_cx_param(x, "http"), "400, or none");
    wh_cx_field(x, "payment", "Payment", wh_cx_param(x, "payment"), "paymentId");
    wh_cx_field(x, "from", "Died from", wh_cx_param(x, "from"), "2026-11-27 10:00");
    wh_cx_field(x, "to", "until", wh_cx_param(x, "to"), "2026-11-27 11:00");
    wh_html_raw(&x->h, "<button type=\"submit\">");
    wh_html_text(&x->h, button);
    wh_html_raw(&x->h, "</button></form>");
}

/* The queue, or a page that says why there is none (0). */
static int queue_or_say(wh_cx *x, wh_fq **d)
{
    int rc = wh_cx_queue(x, d);
    if (rc < 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox is unavailable (see the error log).");
        return 0;
    }
    if (rc == 0) {
        wh_html_raw(&x->h, "<p class=\"dim\">wirehook forward has not run on this inbox: "
                    "no dead letters.</p>");
        return 0;
    }
    return 1;
}

void wh_cx_dead(wh_cx *x)
{
    const char *before_s = wh_cx_param(x, "before"), *why = NULL;
    apr_int64_t before = 0, total = 0;
    int limit = wh_cx_rows(x);
    wh_fq_dead_filter f;
    wh_fq *d = NULL;
    apr_array_header_t *rows;

    wh_cx_page_begin(x, "Dead letters", "dead");
    wh_html_raw(&x->h, "<h1>Dead letters</h1>");
    wh_cx_done_message(x);
    if (!queue_or_say(x, &d))
        return;
    if (before_s && wh_parse_int64(x->p, before_s, 1, APR_INT64_MAX, &before) != NULL)
        before = 0;
    reasons(x, d);
    filter_form(x, "/dead", "Show");
    if (wh_cx_dead_filter_of(x, x->req->query, &f, &why) != 0) {
        wh_cx_notice(x, "error", why);
        return;
    }
    if (wh_fq_dead_count(d, x->p, &f, &total) != 0
        || wh_fq_dead_page(d, x->p, &f, before, limit + 1, &rows) != 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox did not answer.");
        return;
    }
    wh_html_raw(&x->h, "<p class=\"count\">");
    count_line(x, total, &f, ".");
    if (total > 0) {
        wh_html_raw(&x->h, " \xC2\xB7 <a class=\"bulk\" href=\"");
        wh_html_text(&x->h, apr_pstrcat(x->p, wh_cx_url(x, "/dead/retry", NULL),
                                        filter_query(x, NULL), NULL));
        wh_html_printf(&x->h, "\">Retry all %" APR_INT64_T_FMT " matching\xE2\x80\xA6</a>",
                       total);
    }
    wh_html_raw(&x->h, "</p><table class=\"list\"><thead><tr><th>Event</th><th>Payment</th>"
                "<th>Attempts</th><th>Dead since</th><th>Last answer</th><th>Reason</th>"
                "<th></th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts && i < limit; i++) {
        const wh_fq_dead *r = &APR_ARRAY_IDX(rows, i, wh_fq_dead);
        wh_html_raw(&x->h, "<tr>");
        wh_cx_cell_link(x, "/events", wh_cx_num(x, r->event_id), r->notification_id);
        wh_cx_cell_link(x, "/payments", r->payment_id, NULL);
        wh_html_printf(&x->h, "<td class=\"n\">%d</td><td>", r->attempts);
        wh_cx_time(x, r->dead_at);
        wh_html_raw(&x->h, "</td><td>");
        if (r->http_status)
            wh_html_printf(&x->h, "%d: ", r->http_status);
        wh_html_textn(&x->h, r->answer ? r->answer : "", r->answer ? strlen(r->answer) : 0, 200);
        wh_html_raw(&x->h, "</td>");
        wh_cx_cell(x, r->reason);
        wh_html_raw(&x->h, "<td class=\"acts\">");
        wh_cx_action_form(x, "retry", "event", wh_cx_num(x, r->event_id), "Retry", "dead", NULL);
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"7\" class=\"dim\">No dead letters here.</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    wh_cx_pager_link(x, "\xC2\xAB Newest", before ? apr_pstrcat(x->p, wh_cx_url(x, "/dead", NULL),
                                                                filter_query(x, NULL), NULL)
                                                  : NULL);
    wh_cx_pager_link(x, "Older \xE2\x80\xBA",
                     rows->nelts > limit
                         ? apr_pstrcat(x->p, wh_cx_url(x, "/dead", NULL),
                                       filter_query(x, wh_cx_num(x, APR_ARRAY_IDX(
                                           rows, limit - 1, wh_fq_dead).event_id)), NULL)
                         : NULL);
    wh_html_raw(&x->h, "</p>");
}

/* A hidden field of the confirmation, when set. */
static void hidden(wh_cx *x, const char *name, const char *v)
{
    if (!v || !*v)
        return;
    wh_html_raw(&x->h, "<input type=\"hidden\" name=\"");
    wh_html_text(&x->h, name);
    wh_html_raw(&x->h, "\" value=\"");
    wh_html_text(&x->h, v);
    wh_html_raw(&x->h, "\">");
}

void wh_cx_dead_retry(wh_cx *x)
{
    const char *why = NULL, *token;
    apr_int64_t total = 0;
    wh_fq_dead_filter f;
    wh_fq *d = NULL;

    wh_cx_page_begin(x, "Retry dead letters", "dead");
    wh_html_raw(&x->h, "<h1>Retry dead letters</h1>");
    if (!queue_or_say(x, &d))
        return;
    if (wh_cx_dead_filter_of(x, x->req->query, &f, &why) != 0) {
        wh_cx_notice(x, "error", why);
        return;
    }
    if (wh_fq_dead_count(d, x->p, &f, &total) != 0) {
        x->status = 503;
        wh_cx_notice(x, "error", "The inbox did not answer.");
        return;
    }
    wh_html_raw(&x->h, "<p class=\"preview\">");
    count_line(x, total, &f, " now.");
    wh_html_raw(&x->h, "</p>");
    if (total == 0) {
        wh_cx_notice(x, "warn", "Nothing to retry.");
    } else if (!x->can_act) {
        wh_html_raw(&x->h, "<p class=\"dim\">An operator can put them back in the "
                    "queue from here.</p>");
    } else if ((token = wh_csrf_token(x->p, &x->c->key, x->session, x->req->user,
                                      "retry-matching",
                                      apr_pstrcat(x->p, "filter=",
                                                  wh_fq_dead_filter_key(x->p, &f), NULL),
                                      x->req->now)) != NULL) {
        wh_html_raw(&x->h, "<p>Each is put back in the forward queue with a fresh count of "
                    "attempts, each payment's in listing order; those matching by the time "
                    "you confirm are retried, the log says how many.</p>"
                    "<form class=\"act confirm\" method=\"post\" action=\"");
        wh_html_text(&x->h, wh_cx_url(x, WH_CONSOLE_ACTIONS "/retry-matching", NULL));
        wh_html_raw(&x->h, "\"><input type=\"hidden\" name=\"token\" value=\"");
        wh_html_text(&x->h, token);
        wh_html_raw(&x->h, "\">");
        hidden(x, "reason", wh_cx_param(x, "reason"));
        hidden(x, "http", wh_cx_param(x, "http"));
        hidden(x, "payment", wh_cx_param(x, "payment"));
        hidden(x, "from", wh_cx_param(x, "from"));
        hidden(x, "to", wh_cx_param(x, "to"));
        hidden(x, "expect", wh_cx_num(x, total));
        wh_html_printf(&x->h, "<button type=\"submit\" class=\"danger\">Retry these %"
                       APR_INT64_T_FMT "</button></form>", total);
    }
    wh_html_raw(&x->h, "<p><a href=\"");
    wh_html_text(&x->h, apr_pstrcat(x->p, wh_cx_url(x, "/dead", NULL), filter_query(x, NULL),
                                    NULL));
    wh_html_raw(&x->h, "\">Back to the dead letters</a></p>");
}
