/* The console's pages but the overview: events, one event, payments,
 * one payment, dead letters, the quarantine and one quarantined body.
 * Every value shown goes through wh_html_text; every link is built by
 * wh_cx_url from %-encoded parts. */
#include "wh_console_int.h"
#include "inbox/wh_inbox_views.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"
#include "inbox/wh_quarantine_ops.h"
#include "forward/wh_forward_queue.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

static void unavailable(wh_cx *x)
{
    x->status = 503;
    wh_cx_notice(x, "error", "The inbox is unavailable (see the error log); "
                 "this page shows nothing until it answers again.");
}

static void not_found(wh_cx *x, const char *what)
{
    x->status = 404;
    wh_cx_notice(x, "error", what);
}

/* The limit a page was asked for, WH_CX_ROWS by default. */
static int rows_wanted(wh_cx *x)
{
    const char *v = wh_cx_param(x, "limit");
    int n = WH_CX_ROWS;
    if (v && *v && wh_parse_int(x->p, v, 1, WH_CX_ROWS_MAX, &n) != NULL)
        n = WH_CX_ROWS;
    return n;
}

/* A filter value from the query: NULL when absent, empty or not one an
 * event could hold. */
static const char *filter(wh_cx *x, const char *name)
{
    const char *v = wh_cx_param(x, name), *out = NULL;
    if (!v || !*v || wh_page_filter_value(x->p, name, v, &out) != NULL)
        return NULL;
    return out;
}

static const char *state_name(int state, int leased)
{
    switch (state) {
    case WH_FQ_WAITING: return "waiting";
    case WH_FQ_READY: return leased ? "in flight" : "queued";
    case WH_FQ_FORWARDED: return "forwarded";
    case WH_FQ_DEAD: return "dead";
    default: return "not queued";
    }
}

static void cell_text(wh_cx *x, const char *v)
{
    wh_html_raw(&x->h, "<td>");
    if (v)
        wh_html_text(&x->h, v);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</td>");
}

static void cell_link(wh_cx *x, const char *path, const char *seg, const char *text)
{
    wh_html_raw(&x->h, "<td>");
    if (seg)
        wh_cx_link(x, path, seg, text ? text : seg);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</td>");
}

static const char *num(wh_cx *x, apr_int64_t n)
{
    return apr_psprintf(x->p, "%" APR_INT64_T_FMT, n);
}

/* A labelled text field of a GET filter form. */
static void field(wh_cx *x, const char *name, const char *label, const char *value,
                  const char *placeholder)
{
    wh_html_raw(&x->h, "<label>");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, " <input type=\"text\" name=\"");
    wh_html_text(&x->h, name);
    wh_html_raw(&x->h, "\" value=\"");
    wh_html_text(&x->h, value ? value : "");
    wh_html_raw(&x->h, "\" placeholder=\"");
    wh_html_text(&x->h, placeholder);
    wh_html_raw(&x->h, "\"></label>");
}

/* The queue states of rows (by event id), or NULL when no forwarder has
 * run or the database failed. */
static apr_hash_t *states_of(wh_cx *x, const apr_int64_t *ids, int n)
{
    wh_fq *d = NULL;
    apr_array_header_t *st;
    apr_hash_t *h;

    if (n <= 0 || !wh_cx_inbox(x) || wh_fq_attach(x->p, x->ib, x->c->cfg, &d) <= 0
        || wh_fq_states(d, x->p, ids, n, &st) != 0)
        return NULL;
    h = apr_hash_make(x->p);
    for (int i = 0; i < st->nelts; i++) {
        wh_fq_state *s = &APR_ARRAY_IDX(st, i, wh_fq_state);
        apr_hash_set(h, &s->event_id, sizeof(s->event_id), s);
    }
    return h;
}

static void state_cell(wh_cx *x, apr_hash_t *states, apr_int64_t id)
{
    const wh_fq_state *s = states ? apr_hash_get(states, &id, sizeof(id)) : NULL;
    if (!states) {
        cell_text(x, NULL);
        return;
    }
    wh_html_printf(&x->h, "<td><span class=\"st st-%s\">",
                   s ? (s->state == WH_FQ_DEAD ? "dead"
                        : s->state == WH_FQ_FORWARDED ? "ok" : "open") : "none");
    wh_html_raw(&x->h, state_name(s ? s->state : -1, s ? s->leased : 0));
    wh_html_raw(&x->h, "</span></td>");
}

/* ---- events ----------------------------------------------------------- */

/* An arrival-time filter: RFC 3339, or "YYYY-MM-DD HH:MM[:SS]" in UTC.
 * 0 with *t, or -1. */
static int parse_when(wh_cx *x, const char *v, apr_time_t *t)
{
    char *s;
    apr_size_t n;
    apr_int64_t us;

    if (!v || (n = strlen(v)) < 16 || n > 40)
        return -1;
    s = apr_pstrdup(x->p, v);
    if (s[10] == ' ')
        s[10] = 'T';
    if (n == 16)
        s = apr_pstrcat(x->p, s, ":00Z", NULL);
    else if (n == 19)
        s = apr_pstrcat(x->p, s, "Z", NULL);
    if (wh_datetime_parse(s, strlen(s), &us) != 0)
        return -1;
    *t = (apr_time_t)us;
    return 0;
}

/* The link to another page of the same listing. */
static const char *events_url(wh_cx *x, apr_int64_t offset, int limit, const char *pay,
                              const char *status, apr_int64_t after)
{
    const char *from = wh_cx_param(x, "from"), *to = wh_cx_param(x, "to");
    return apr_pstrcat(x->p, wh_cx_url(x, "/events", NULL),
                       "?offset=", num(x, offset), "&limit=", apr_itoa(x->p, limit),
                       pay ? "&paymentId=" : "", pay ? wh_url_part(x->p, pay) : "",
                       status ? "&status=" : "", status ? wh_url_part(x->p, status) : "",
                       from && *from ? "&from=" : "", from && *from ? wh_url_part(x->p, from) : "",
                       to && *to ? "&to=" : "", to && *to ? wh_url_part(x->p, to) : "",
                       after > 0 ? "&after=" : "", after > 0 ? num(x, after) : "", NULL);
}

static void pager_link(wh_cx *x, const char *label, const char *url)
{
    if (!url) {
        wh_html_raw(&x->h, "<span class=\"dim\">");
        wh_html_text(&x->h, label);
        wh_html_raw(&x->h, "</span>");
        return;
    }
    wh_html_raw(&x->h, "<a href=\"");
    wh_html_text(&x->h, url);
    wh_html_raw(&x->h, "\">");
    wh_html_text(&x->h, label);
    wh_html_raw(&x->h, "</a>");
}

void wh_cx_events(wh_cx *x)
{
    const char *pay = filter(x, "paymentId"), *status = filter(x, "status");
    const char *from_s = wh_cx_param(x, "from"), *to_s = wh_cx_param(x, "to");
    const char *off_s = wh_cx_param(x, "offset"), *after_s = wh_cx_param(x, "after");
    int limit = rows_wanted(x), more = 0, empty = 0;
    apr_int64_t listed = 0, total;
    apr_time_t when[2];
    apr_int64_t pos[2] = { 0, 0 };
    int nwhen = 0, has_from = 0, has_to = 0;
    wh_events_query q;
    apr_array_header_t *rows;
    apr_int64_t *ids;
    apr_hash_t *states;

    memset(&q, 0, sizeof(q));
    wh_cx_page_begin(x, "Events", "events");
    wh_html_raw(&x->h, "<h1>Events</h1><form class=\"filters\" method=\"get\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/events", NULL));
    wh_html_raw(&x->h, "\">");
    field(x, "paymentId", "Payment", pay, "paymentId");
    field(x, "status", "Status", status, "e.g. Complete");
    field(x, "from", "Arrived from", from_s, "2026-11-27 10:00");
    field(x, "to", "until", to_s, "2026-11-27 11:00");
    wh_html_raw(&x->h, "<input type=\"hidden\" name=\"limit\" value=\"");
    wh_html_printf(&x->h, "%d\"><button type=\"submit\">Show</button></form>", limit);

    if (from_s && *from_s) {
        if (parse_when(x, from_s, &when[nwhen]) != 0) {
            wh_cx_notice(x, "error", "\"Arrived from\" is not a time (2026-11-27 10:00, UTC, "
                         "or RFC 3339).");
            return;
        }
        has_from = ++nwhen;
    }
    if (to_s && *to_s) {
        if (parse_when(x, to_s, &when[nwhen]) != 0) {
            wh_cx_notice(x, "error", "\"until\" is not a time (2026-11-27 11:00, UTC, or "
                         "RFC 3339).");
            return;
        }
        has_to = ++nwhen;
    }
    if (!wh_cx_inbox(x) || wh_inbox_listed(x->ib, x->p, &listed) != 0
        || (nwhen && wh_inbox_arrivals(x->ib, x->p, when, nwhen, pos) != 0)) {
        unavailable(x);
        return;
    }
    q.limit = limit;
    q.payment_id = pay;
    q.status = status;
    q.lo = has_from ? pos[has_from - 1] : 0;
    q.hi = has_to ? pos[has_to - 1] : 0;
    empty = has_to && q.hi <= q.lo;
    total = (has_to ? q.hi : listed) - q.lo;
    if (off_s && *off_s) {
        if (wh_parse_int64(x->p, off_s, 0, APR_INT64_MAX, &q.offset) != NULL) {
            wh_cx_notice(x, "error", "offset must be a whole number, 0 or more.");
            return;
        }
    } else if (!pay && !status && total > limit) {
        q.offset = total - limit;        /* the latest events first */
    }
    if (after_s && (pay || status))
        (void)wh_parse_int64(x->p, after_s, 1, APR_INT64_MAX, &q.after);
    if (empty) {
        rows = apr_array_make(x->p, 1, sizeof(wh_event_row));
    } else if (wh_inbox_events(x->ib, x->p, &q, &rows, &more) != 0) {
        unavailable(x);
        return;
    }
    ids = apr_palloc(x->p, sizeof(apr_int64_t) * (apr_size_t)(rows->nelts + 1));
    for (int i = 0; i < rows->nelts; i++)
        ids[i] = APR_ARRAY_IDX(rows, i, wh_event_row).id;
    states = states_of(x, ids, rows->nelts);

    if (!pay && !status)
        wh_html_printf(&x->h, "<p class=\"count\">%" APR_INT64_T_FMT " event%s%s; showing "
                       "positions %" APR_INT64_T_FMT " to %" APR_INT64_T_FMT ".</p>",
                       total > 0 ? total : 0, total == 1 ? "" : "s",
                       nwhen ? " in this window" : " listed",
                       rows->nelts ? APR_ARRAY_IDX(rows, 0, wh_event_row).seq : 0,
                       rows->nelts ? APR_ARRAY_IDX(rows, rows->nelts - 1, wh_event_row).seq : 0);
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>#</th><th>Arrived</th>"
                "<th>notificationId</th><th>Payment</th><th>Status</th>"
                "<th>eventDateTime</th><th>Forwarding</th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_event_row *e = &APR_ARRAY_IDX(rows, i, wh_event_row);
        wh_html_printf(&x->h, "<tr><td class=\"n\">%" APR_INT64_T_FMT "</td><td>", e->seq);
        wh_cx_time(x, e->received_at);
        wh_html_raw(&x->h, "</td>");
        cell_link(x, "/events", num(x, e->id), e->notification_id);
        cell_link(x, "/payments", e->payment_id, NULL);
        cell_text(x, e->status ? e->status : e->event_type);
        cell_text(x, e->event_time);
        state_cell(x, states, e->id);
        wh_html_raw(&x->h, "</tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"7\" class=\"dim\">No events here.</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    {
        apr_int64_t prev = q.offset > limit ? q.offset - limit : 0;
        apr_int64_t last_seq = rows->nelts ? APR_ARRAY_IDX(rows, rows->nelts - 1, wh_event_row).seq : 0;
        apr_int64_t last = total > limit ? total - limit : 0;
        pager_link(x, "\xC2\xAB First", q.offset > 0 ? events_url(x, 0, limit, pay, status, 0) : NULL);
        pager_link(x, "\xE2\x80\xB9 Earlier", q.offset > 0 ? events_url(x, prev, limit, pay, status, 0)
                                                           : NULL);
        pager_link(x, "Later \xE2\x80\xBA", more ? events_url(x, q.offset + rows->nelts, limit, pay,
                                                              status, (pay || status) ? last_seq : 0)
                                                 : NULL);
        pager_link(x, "Latest \xC2\xBB", !pay && !status && q.offset < last
                                             ? events_url(x, last, limit, NULL, NULL, 0) : NULL);
    }
    wh_html_raw(&x->h, "</p>");
}

/* ---- one event -------------------------------------------------------- */

static void dl_row(wh_cx *x, const char *term, const char *value)
{
    wh_html_raw(&x->h, "<dt>");
    wh_html_text(&x->h, term);
    wh_html_raw(&x->h, "</dt><dd>");
    if (value)
        wh_html_text(&x->h, value);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</dd>");
}

/* The body pretty-printed (json-c's indentation) when it is JSON and not
 * too large to show whole, else as it was received. */
static void body_block(wh_cx *x, const char *body, apr_size_t len)
{
    json_object *o = NULL;
    const char *shown = body;
    apr_size_t n = len;

    if (len <= WH_CX_BODY_SHOWN && (o = json_tokener_parse(body)) != NULL) {
        const char *pretty = json_object_to_json_string_ext(
            o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (pretty) {
            shown = apr_pstrdup(x->p, pretty);
            n = strlen(shown);
        }
        json_object_put(o);
    }
    wh_html_raw(&x->h, "<pre class=\"body\">");
    wh_html_textn(&x->h, shown, n, WH_CX_BODY_SHOWN);
    wh_html_raw(&x->h, "</pre>");
}

static void attempts_table(wh_cx *x, wh_fq *d, apr_int64_t id)
{
    apr_array_header_t *att;
    apr_int64_t total = 0;

    if (wh_fq_attempts(d, x->p, id, WH_CX_ATTEMPTS, &att, &total) != 0) {
        unavailable(x);
        return;
    }
    wh_html_printf(&x->h, "<h2>Attempts</h2><p class=\"count\">%" APR_INT64_T_FMT
                   " attempt%s%s.</p>", total, total == 1 ? "" : "s",
                   total > att->nelts ? ", the latest shown" : "");
    if (!att->nelts)
        return;
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>#</th><th>Started</th>"
                "<th>Took</th><th>Answer</th><th>Outcome</th><th>Answer or error</th>"
                "</tr></thead><tbody>");
    for (int i = 0; i < att->nelts; i++) {
        const wh_fq_attempt *a = &APR_ARRAY_IDX(att, i, wh_fq_attempt);
        wh_html_printf(&x->h, "<tr><td class=\"n\">%d</td><td>", a->attempt);
        wh_cx_time(x, a->started_at);
        wh_html_printf(&x->h, "</td><td class=\"n\">%" APR_INT64_T_FMT " ms</td>", a->duration_ms);
        if (a->http_status)
            wh_html_printf(&x->h, "<td class=\"n\">%d</td>", a->http_status);
        else
            wh_html_raw(&x->h, "<td class=\"dim\">no answer</td>");
        wh_html_printf(&x->h, "<td><span class=\"st st-%s\">%s</span></td>",
                       a->outcome == WH_FQ_FORWARDED ? "ok" : a->outcome == WH_FQ_DEAD ? "dead" : "open",
                       a->outcome == WH_FQ_FORWARDED ? "forwarded"
                       : a->outcome == WH_FQ_DEAD ? "dead" : "retried");
        cell_text(x, a->answer);
        wh_html_raw(&x->h, "</tr>");
    }
    wh_html_raw(&x->h, "</tbody></table>");
}

static void forwarding(wh_cx *x, apr_int64_t id)
{
    wh_fq *d = NULL;
    apr_array_header_t *st;
    const wh_fq_state *s;
    int rc = wh_fq_attach(x->p, x->ib, x->c->cfg, &d);

    wh_html_raw(&x->h, "<h2>Forwarding</h2>");
    if (rc < 0) {
        unavailable(x);
        return;
    }
    if (rc == 0) {
        wh_html_raw(&x->h, "<p class=\"dim\">wirehook forward has not run on this inbox.</p>");
        return;
    }
    if (wh_fq_states(d, x->p, &id, 1, &st) != 0) {
        unavailable(x);
        return;
    }
    s = st->nelts ? &APR_ARRAY_IDX(st, 0, wh_fq_state) : NULL;
    wh_html_raw(&x->h, "<dl class=\"facts\">");
    dl_row(x, "State", state_name(s ? s->state : -1, s ? s->leased : 0));
    if (s) {
        dl_row(x, "Attempts", apr_itoa(x->p, s->attempts));
        if (s->state == WH_FQ_READY && s->next_at)
            dl_row(x, s->leased ? "Lease ends" : "Next attempt",
                   wh_time_rfc3339(x->p, s->next_at));
        if (s->done_at)
            dl_row(x, s->state == WH_FQ_DEAD ? "Dead since" : "Forwarded",
                   wh_time_rfc3339(x->p, s->done_at));
        if (s->reason)
            dl_row(x, "Reason", s->reason);
        if (s->answer)
            dl_row(x, "Last error", apr_psprintf(x->p, "%s%s", s->http_status
                                                 ? apr_psprintf(x->p, "%d: ", s->http_status) : "",
                                                 s->answer));
    }
    wh_html_raw(&x->h, "</dl>");
    if (s && s->state == WH_FQ_DEAD)
        wh_cx_action_form(x, "retry", "retry", "event", num(x, id),
                          "Retry this dead letter");
    attempts_table(x, d, id);
}

void wh_cx_event(wh_cx *x, const char *sid)
{
    apr_int64_t id = 0;
    wh_event_row e;
    int rc;

    wh_cx_page_begin(x, "Event", "events");
    if (wh_parse_int64(x->p, sid, 1, APR_INT64_MAX, &id) != NULL) {
        not_found(x, "No such event: an event is named by its number.");
        return;
    }
    if (!wh_cx_inbox(x) || (rc = wh_inbox_event(x->ib, x->p, id, &e)) < 0) {
        unavailable(x);
        return;
    }
    if (!rc) {
        not_found(x, "The inbox holds no such event.");
        return;
    }
    wh_html_raw(&x->h, "<h1>Event ");
    wh_html_text(&x->h, e.notification_id);
    wh_html_raw(&x->h, "</h1>");
    wh_cx_done_message(x);
    wh_html_raw(&x->h, "<div class=\"cols\"><section><h2>Verdict and facts</h2>"
                "<dl class=\"facts\">");
    dl_row(x, "Verdict", "accepted: Basic auth, timestamp, signature, JSON and schema "
           "checked; stored in the inbox");
    dl_row(x, "notificationId", e.notification_id);
    dl_row(x, "eventType", e.event_type);
    dl_row(x, "eventDateTime", e.event_time);
    wh_html_raw(&x->h, "<dt>paymentId</dt><dd>");
    if (e.payment_id)
        wh_cx_link(x, "/payments", e.payment_id, e.payment_id);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</dd>");
    dl_row(x, "status", e.status ? apr_pstrcat(x->p, e.status,
                                               wh_schema_status_known(e.status) ? ""
                                               : " (not in the spec's list)", NULL)
                                 : NULL);
    dl_row(x, "Arrived", wh_time_rfc3339(x->p, e.received_at));
    dl_row(x, "Listing position", e.seq ? num(x, e.seq) : "not listed yet");
    dl_row(x, "Event number", num(x, e.id));
    wh_html_raw(&x->h, "</dl></section><section>");
    forwarding(x, e.id);
    wh_html_raw(&x->h, "</section></div><h2>Body, as received (pretty-printed)</h2>");
    body_block(x, e.body, strlen(e.body));
}

/* ---- payments --------------------------------------------------------- */

void wh_cx_payments(wh_cx *x)
{
    const char *pay = filter(x, "paymentId"), *status = filter(x, "status");
    const char *after = filter(x, "after");
    apr_array_header_t *rows;
    int limit = rows_wanted(x), more = 0;

    if (pay) {
        wh_cx_payment(x, pay);
        return;
    }
    wh_cx_page_begin(x, "Payments", "payments");
    wh_html_raw(&x->h, "<h1>Payments</h1><form class=\"filters\" method=\"get\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/payments", NULL));
    wh_html_raw(&x->h, "\">");
    field(x, "paymentId", "Payment", NULL, "paymentId");
    field(x, "status", "Current status", status, "e.g. Complete");
    wh_html_raw(&x->h, "<button type=\"submit\">Show</button></form>");
    if (!wh_cx_inbox(x) || wh_payments_after(x->ib, x->p, after, status, limit, &rows, &more)
                               != WH_PAY_OK) {
        unavailable(x);
        return;
    }
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>paymentId</th><th>Status</th>"
                "<th>eventDateTime</th><th>Events</th><th>Updated</th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_payment_row *r = &APR_ARRAY_IDX(rows, i, wh_payment_row);
        wh_html_raw(&x->h, "<tr>");
        cell_link(x, "/payments", r->payment_id, NULL);
        cell_text(x, r->status);
        cell_text(x, r->event_time);
        wh_html_printf(&x->h, "<td class=\"n\">%" APR_INT64_T_FMT "</td><td>", r->events);
        wh_cx_time(x, r->updated_at);
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"5\" class=\"dim\">No payments here.</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    pager_link(x, "\xC2\xAB First", after ? apr_pstrcat(x->p, wh_cx_url(x, "/payments", NULL),
                                                        "?limit=", apr_itoa(x->p, limit),
                                                        status ? "&status=" : "",
                                                        status ? wh_url_part(x->p, status) : "",
                                                        NULL) : NULL);
    pager_link(x, "Next \xE2\x80\xBA",
               more ? apr_pstrcat(x->p, wh_cx_url(x, "/payments", NULL), "?limit=",
                                  apr_itoa(x->p, limit), status ? "&status=" : "",
                                  status ? wh_url_part(x->p, status) : "", "&after=",
                                  wh_url_part(x->p, APR_ARRAY_IDX(rows, rows->nelts - 1,
                                                                  wh_payment_row).payment_id),
                                  NULL) : NULL);
    wh_html_raw(&x->h, "</p>");
}

static int by_arrival(const void *a, const void *b)
{
    const wh_payment_event *x = a, *y = b;
    return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

static void history_table(wh_cx *x, const char *caption, const apr_array_header_t *h,
                          apr_hash_t *states)
{
    wh_html_raw(&x->h, "<section><h2>");
    wh_html_text(&x->h, caption);
    wh_html_raw(&x->h, "</h2><table class=\"list\"><thead><tr><th>eventDateTime</th>"
                "<th>Status</th><th>Arrived</th><th>Event</th><th>Forwarding</th></tr>"
                "</thead><tbody>");
    for (int i = 0; i < h->nelts; i++) {
        const wh_payment_event *e = &APR_ARRAY_IDX(h, i, wh_payment_event);
        wh_html_raw(&x->h, "<tr>");
        cell_text(x, e->event_time);
        cell_text(x, e->status);
        wh_html_raw(&x->h, "<td>");
        wh_cx_time(x, e->received_at);
        wh_html_raw(&x->h, "</td>");
        cell_link(x, "/events", num(x, e->event_id), e->notification_id);
        state_cell(x, states, e->event_id);
        wh_html_raw(&x->h, "</tr>");
    }
    wh_html_raw(&x->h, "</tbody></table></section>");
}

void wh_cx_payment(wh_cx *x, const char *raw_id)
{
    const char *id = NULL;
    wh_payment_row pay;
    apr_array_header_t *hist, *arrival;
    apr_int64_t *ids, dead = 0;
    apr_hash_t *states;
    wh_fq *d = NULL;
    int trunc = 0;
    wh_pay_result res;

    wh_cx_page_begin(x, "Payment", "payments");
    if (wh_page_filter_value(x->p, "paymentId", raw_id, &id) != NULL) {
        not_found(x, "No payment can have this id.");
        return;
    }
    if (!wh_cx_inbox(x)) {
        unavailable(x);
        return;
    }
    res = wh_payments_view(x->ib, x->p, id, &pay, &hist, &trunc);
    if (res == WH_PAY_NOT_FOUND) {
        wh_html_raw(&x->h, "<h1>Payment ");
        wh_html_text(&x->h, id);
        wh_html_raw(&x->h, "</h1>");
        not_found(x, "The inbox holds no event of this payment.");
        return;
    }
    if (res != WH_PAY_OK) {
        unavailable(x);
        return;
    }
    wh_html_raw(&x->h, "<h1>Payment ");
    wh_html_text(&x->h, id);
    wh_html_raw(&x->h, "</h1>");
    wh_cx_done_message(x);
    wh_html_raw(&x->h, "<dl class=\"facts\">");
    dl_row(x, "Current status", apr_pstrcat(x->p, pay.status, wh_schema_status_known(pay.status)
                                                              ? "" : " (not in the spec's list)",
                                            NULL));
    dl_row(x, "Set by", apr_pstrcat(x->p, pay.notification_id, ", eventDateTime ",
                                    pay.event_time ? pay.event_time : "-", NULL));
    dl_row(x, "Events", num(x, pay.events));
    dl_row(x, "Updated", wh_time_rfc3339(x->p, pay.updated_at));
    wh_html_raw(&x->h, "</dl>");
    if (trunc)
        wh_cx_notice(x, "warn", apr_psprintf(x->p, "Only the latest %d events are shown.",
                                             WH_PAYMENT_HISTORY_MAX));
    if (wh_fq_attach(x->p, x->ib, x->c->cfg, &d) > 0
        && wh_fq_dead_count_payment(d, x->p, id, &dead) == 0 && dead > 0) {
        wh_cx_notice(x, "error", apr_psprintf(x->p, "%" APR_INT64_T_FMT " dead letter%s.",
                                              dead, dead == 1 ? "" : "s"));
        wh_cx_action_form(x, "retry", "retry", "payment", id,
                          "Retry every dead letter of this payment");
    }
    ids = apr_palloc(x->p, sizeof(apr_int64_t) * (apr_size_t)(hist->nelts + 1));
    for (int i = 0; i < hist->nelts; i++)
        ids[i] = APR_ARRAY_IDX(hist, i, wh_payment_event).event_id;
    states = states_of(x, ids, hist->nelts);
    arrival = apr_array_copy(x->p, hist);
    qsort(arrival->elts, (size_t)arrival->nelts, sizeof(wh_payment_event), by_arrival);
    wh_html_raw(&x->h, "<div class=\"cols\">");
    history_table(x, "Timeline by eventDateTime", hist, states);
    history_table(x, "In arrival order", arrival, states);
    wh_html_raw(&x->h, "</div>");
}

/* ---- dead letters ----------------------------------------------------- */

void wh_cx_dead(wh_cx *x)
{
    const char *after_s = wh_cx_param(x, "after");
    apr_int64_t after = 0;
    int limit = rows_wanted(x), rc;
    wh_fq *d = NULL;
    apr_array_header_t *rows;

    wh_cx_page_begin(x, "Dead letters", "dead");
    wh_html_raw(&x->h, "<h1>Dead letters</h1>");
    wh_cx_done_message(x);
    if (after_s && wh_parse_int64(x->p, after_s, 0, APR_INT64_MAX, &after) != NULL)
        after = 0;
    if (!wh_cx_inbox(x) || (rc = wh_fq_attach(x->p, x->ib, x->c->cfg, &d)) < 0) {
        unavailable(x);
        return;
    }
    if (rc == 0) {
        wh_html_raw(&x->h, "<p class=\"dim\">wirehook forward has not run on this inbox: "
                    "no dead letters.</p>");
        return;
    }
    if (wh_fq_dead_list(d, x->p, after, limit + 1, &rows) != 0) {
        unavailable(x);
        return;
    }
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>Event</th><th>Payment</th>"
                "<th>Attempts</th><th>Dead since</th><th>Last answer</th><th>Reason</th>"
                "<th></th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts && i < limit; i++) {
        const wh_fq_dead *r = &APR_ARRAY_IDX(rows, i, wh_fq_dead);
        wh_html_raw(&x->h, "<tr>");
        cell_link(x, "/events", num(x, r->event_id), r->notification_id);
        cell_link(x, "/payments", r->payment_id, NULL);
        wh_html_printf(&x->h, "<td class=\"n\">%d</td><td>", r->attempts);
        wh_cx_time(x, r->dead_at);
        wh_html_raw(&x->h, "</td><td>");
        if (r->http_status)
            wh_html_printf(&x->h, "%d: ", r->http_status);
        wh_html_textn(&x->h, r->answer ? r->answer : "", r->answer ? strlen(r->answer) : 0, 200);
        wh_html_raw(&x->h, "</td>");
        cell_text(x, r->reason);
        wh_html_raw(&x->h, "<td>");
        if (x->can_act) {
            const char *token = wh_csrf_token(x->p, &x->c->key, x->session, x->req->user, "retry");
            wh_html_raw(&x->h, "<form class=\"act\" method=\"post\" action=\"");
            wh_html_text(&x->h, wh_cx_url(x, WH_CONSOLE_ACTIONS "/retry", NULL));
            wh_html_raw(&x->h, "\"><input type=\"hidden\" name=\"token\" value=\"");
            wh_html_text(&x->h, token);
            wh_html_raw(&x->h, "\"><input type=\"hidden\" name=\"back\" value=\"dead\">"
                        "<input type=\"hidden\" name=\"event\" value=\"");
            wh_html_text(&x->h, num(x, r->event_id));
            wh_html_raw(&x->h, "\"><button type=\"submit\">Retry</button></form>");
        }
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"7\" class=\"dim\">No dead letters.</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    pager_link(x, "\xC2\xAB First", after ? wh_cx_url(x, "/dead", NULL) : NULL);
    pager_link(x, "Next \xE2\x80\xBA",
               rows->nelts > limit
                   ? apr_pstrcat(x->p, wh_cx_url(x, "/dead", NULL), "?after=",
                                 num(x, APR_ARRAY_IDX(rows, limit - 1, wh_fq_dead).event_id), NULL)
                   : NULL);
    wh_html_raw(&x->h, "</p>");
}

/* ---- the quarantine --------------------------------------------------- */

void wh_cx_quarantine(wh_cx *x)
{
    const char *after_s = wh_cx_param(x, "after");
    apr_int64_t after = 0;
    int limit = rows_wanted(x);
    apr_array_header_t *rows;

    wh_cx_page_begin(x, "Quarantine", "quarantine");
    wh_html_raw(&x->h, "<h1>Quarantine</h1><p class=\"dim\">Authentic notifications that "
                "failed the JSON or schema checks: kept, never listed, released once the "
                "configuration accepts them.</p>");
    if (after_s && wh_parse_int64(x->p, after_s, 0, APR_INT64_MAX, &after) != NULL)
        after = 0;
    if (!wh_cx_inbox(x) || wh_quarantine_list(x->ib, x->p, after, limit + 1, &rows) != 0) {
        unavailable(x);
        return;
    }
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>#</th><th>Received</th>"
                "<th>Code</th><th>Why</th><th>notificationId</th><th>State</th><th></th>"
                "</tr></thead><tbody>");
    for (int i = 0; i < rows->nelts && i < limit; i++) {
        const wh_quarantined *q = &APR_ARRAY_IDX(rows, i, wh_quarantined);
        wh_html_raw(&x->h, "<tr>");
        cell_link(x, "/quarantine", num(x, q->id), NULL);
        wh_html_raw(&x->h, "<td>");
        wh_cx_time(x, q->received_at);
        wh_html_raw(&x->h, "</td>");
        cell_text(x, q->code);
        cell_text(x, q->message);
        cell_text(x, q->notification_id);
        if (q->released_at)
            cell_link(x, "/events", num(x, q->released_event_id), "released");
        else
            wh_html_raw(&x->h, "<td><span class=\"st st-dead\">held</span></td>");
        wh_html_raw(&x->h, "<td>");
        if (!q->released_at)
            wh_cx_action_form(x, "release", "release", "id", num(x, q->id), "Release");
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"7\" class=\"dim\">The quarantine is empty."
                    "</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    pager_link(x, "\xC2\xAB First", after ? wh_cx_url(x, "/quarantine", NULL) : NULL);
    pager_link(x, "Next \xE2\x80\xBA",
               rows->nelts > limit
                   ? apr_pstrcat(x->p, wh_cx_url(x, "/quarantine", NULL), "?after=",
                                 num(x, APR_ARRAY_IDX(rows, limit - 1, wh_quarantined).id), NULL)
                   : NULL);
    wh_html_raw(&x->h, "</p>");
}

void wh_cx_quarantined(wh_cx *x, const char *sid)
{
    apr_int64_t id = 0;
    wh_quarantined q;
    json_object *details = NULL;
    int rc;

    wh_cx_page_begin(x, "Quarantined notification", "quarantine");
    if (wh_parse_int64(x->p, sid, 1, APR_INT64_MAX, &id) != NULL) {
        not_found(x, "No such quarantined notification.");
        return;
    }
    if (!wh_cx_inbox(x) || (rc = wh_quarantine_get(x->ib, x->p, id, &q)) < 0) {
        unavailable(x);
        return;
    }
    if (!rc) {
        not_found(x, "The quarantine holds no such notification.");
        return;
    }
    wh_html_printf(&x->h, "<h1>Quarantined notification %" APR_INT64_T_FMT "</h1>", id);
    wh_cx_done_message(x);
    wh_html_raw(&x->h, "<dl class=\"facts\">");
    dl_row(x, "Received", wh_time_rfc3339(x->p, q.received_at));
    dl_row(x, "Code", q.code);
    dl_row(x, "Why", q.message);
    dl_row(x, "notificationId", q.notification_id);
    wh_html_raw(&x->h, "<dt>State</dt><dd>");
    if (q.released_at) {
        wh_html_raw(&x->h, "released ");
        wh_cx_time(x, q.released_at);
        wh_html_raw(&x->h, " as ");
        wh_cx_link(x, "/events", num(x, q.released_event_id),
                   apr_psprintf(x->p, "event %" APR_INT64_T_FMT, q.released_event_id));
    } else {
        wh_html_raw(&x->h, "held");
    }
    wh_html_raw(&x->h, "</dd></dl>");
    if (!q.released_at)
        wh_cx_action_form(x, "release", "release", "id", num(x, id),
                          "Check again and release");
    wh_html_raw(&x->h, "<h2>Problems</h2><ul class=\"problems\">");
    if (q.details && (details = json_tokener_parse(q.details)) != NULL
        && json_object_is_type(details, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(details); i++) {
            json_object *d = json_object_array_get_idx(details, i), *f = NULL, *pr = NULL;
            json_object_object_get_ex(d, "field", &f);
            json_object_object_get_ex(d, "problem", &pr);
            wh_html_raw(&x->h, "<li><code>");
            wh_html_text(&x->h, f ? json_object_get_string(f) : "");
            wh_html_raw(&x->h, "</code> ");
            wh_html_text(&x->h, pr ? json_object_get_string(pr) : "");
            wh_html_raw(&x->h, "</li>");
        }
    }
    if (details)
        json_object_put(details);
    wh_html_raw(&x->h, "</ul><h2>Body, as received</h2><pre class=\"body\">");
    wh_html_textn(&x->h, q.body, q.body_len, WH_CX_BODY_SHOWN);
    wh_html_raw(&x->h, "</pre>");
}
