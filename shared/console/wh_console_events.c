/* Finding an event or a payment, the events page and one event's page.
 * The events page lists the newest first, in listing order (stable:
 * positions are unique), filtered by paymentId, status (whatever its
 * case), forwarding state and arrival time; its pages are windows of
 * listing positions before or after the rows shown, so the newest page
 * and the hundredth cost the same. Every value shown goes through
 * wh_html_text; every link is built by wh_cx_url from %-encoded parts. */
#include "wh_console_int.h"
#include "inbox/wh_inbox_find.h"
#include "inbox/wh_pagination.h"
#include "forward/wh_forward_views.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

/* ---- find ------------------------------------------------------------- */

void wh_cx_find(wh_cx *x)
{
    const char *q = wh_cx_filter(x, "q"), *raw = wh_cx_param(x, "q");
    apr_array_header_t *hits;
    int more = 0;

    if (q && wh_cx_inbox(x) && wh_inbox_find(x->ib, x->p, q, &hits, &more) == 0
        && hits->nelts == 1) {
        /* one answer: go there */
        const wh_found *f = &APR_ARRAY_IDX(hits, 0, wh_found);
        wh_cx_see_other(x, f->kind == WH_FOUND_NOTIFICATION
                               ? wh_cx_url(x, "/events", wh_cx_num(x, f->event_id))
                               : wh_cx_url(x, "/payments", f->payment_id));
        return;
    }
    wh_cx_page_begin(x, "Find", "find");
    wh_html_raw(&x->h, "<h1>Find</h1>");
    if (!raw || !*raw) {
        wh_html_raw(&x->h, "<p class=\"dim\">A notificationId finds its event; a paymentId, "
                    "an endToEndId, an IMAD or an OMAD its payments. Exact match.</p>");
        return;
    }
    if (!q) {
        wh_cx_notice(x, "error", "Nothing can match this: a value is 1 to 128 bytes of "
                     "text without control characters.");
        return;
    }
    if (!wh_cx_inbox(x) || wh_inbox_find(x->ib, x->p, q, &hits, &more) != 0) {
        wh_cx_unavailable(x);
        return;
    }
    if (!hits->nelts) {
        x->status = 404;
        wh_html_raw(&x->h, "<p class=\"notice warn\">Nothing matches <code>");
        wh_html_text(&x->h, q);
        wh_html_raw(&x->h, "</code> as a notificationId, paymentId, endToEndId, IMAD or "
                    "OMAD (exact match; a quarantined body is not searched: see the "
                    "quarantine).</p>");
        return;
    }
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>Matched as</th><th>Found</th>"
                "</tr></thead><tbody>");
    for (int i = 0; i < hits->nelts; i++) {
        const wh_found *f = &APR_ARRAY_IDX(hits, i, wh_found);
        wh_html_raw(&x->h, "<tr>");
        wh_cx_cell(x, wh_found_name(f->kind));
        if (f->kind == WH_FOUND_NOTIFICATION)
            wh_cx_cell_link(x, "/events", wh_cx_num(x, f->event_id),
                            apr_psprintf(x->p, "event %" APR_INT64_T_FMT, f->event_id));
        else
            wh_cx_cell_link(x, "/payments", f->payment_id,
                            apr_pstrcat(x->p, "payment ", f->payment_id, NULL));
        wh_html_raw(&x->h, "</tr>");
    }
    wh_html_raw(&x->h, "</tbody></table>");
    if (more)
        wh_cx_notice(x, "warn", apr_psprintf(x->p, "More than %d match; the first are "
                                             "shown.", WH_FIND_MAX));
}

/* ---- events ----------------------------------------------------------- */

static const char *const state_values[] = { "", "forwarded", "retrying", "dead", "notyet" };
static const char *const state_labels[] = { "any", "forwarded", "retrying", "dead",
                                            "not forwarded yet" };

/* The link to another page of the same listing: its filters, limit and
 * one cursor. */
static const char *events_url(wh_cx *x, const char *before, const char *after)
{
    static const char *const names[] = { "paymentId", "status", "state", "from", "to",
                                         "limit", "before", "after", NULL };
    const char *values[8];
    for (int i = 0; i < 6; i++)
        values[i] = wh_cx_param(x, names[i]);
    values[6] = before;
    values[7] = after;
    return apr_pstrcat(x->p, wh_cx_url(x, "/events", NULL), wh_cx_query(x, names, values),
                       NULL);
}

/* The arrival-time window as listing positions: lo < seq <= hi (hi 0: no
 * end). 0, -1 a time is not one (said), -2 unavailable. */
static int window(wh_cx *x, apr_int64_t *lo, apr_int64_t *hi, int *has_to)
{
    const char *from_s = wh_cx_param(x, "from"), *to_s = wh_cx_param(x, "to");
    apr_time_t when[2];
    apr_int64_t pos[2] = { 0, 0 };
    int n = 0, f = -1, t = -1;

    *lo = *hi = 0;
    *has_to = 0;
    if (from_s && *from_s) {
        if (wh_cx_parse_time(x, from_s, &when[n]) != 0) {
            wh_cx_notice(x, "error", "\"Arrived from\" is not a time (2026-11-27 10:00, UTC, "
                         "or RFC 3339).");
            return -1;
        }
        f = n++;
    }
    if (to_s && *to_s) {
        if (wh_cx_parse_time(x, to_s, &when[n]) != 0) {
            wh_cx_notice(x, "error", "\"until\" is not a time (2026-11-27 11:00, UTC, or "
                         "RFC 3339).");
            return -1;
        }
        t = n++;
    }
    if (n && wh_inbox_arrivals(x->ib, x->p, when, n, pos) != 0)
        return -2;
    *lo = f >= 0 ? pos[f] : 0;
    if (t >= 0) {
        *hi = pos[t];
        *has_to = 1;
    }
    return 0;
}

void wh_cx_events(wh_cx *x)
{
    const char *pay = wh_cx_filter(x, "paymentId"), *status = wh_cx_filter(x, "status");
    const char *state_s = wh_cx_param(x, "state");
    const char *before_s = wh_cx_param(x, "before"), *after_s = wh_cx_param(x, "after");
    wh_fq_show show = state_s && *state_s ? wh_fq_show_parse(state_s) : 0;
    apr_int64_t listed = 0, lo = 0, hi = 0, before = 0, after = 0, *ids;
    int limit = wh_cx_rows(x), more = 0, has_to = 0, rc, newer = 0, older = 0;
    wh_events_query q;
    apr_array_header_t *rows;
    apr_hash_t *states;
    wh_fq *d = NULL;

    memset(&q, 0, sizeof(q));
    wh_cx_page_begin(x, "Events", "events");
    wh_html_raw(&x->h, "<h1>Events</h1><form class=\"filters\" method=\"get\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/events", NULL));
    wh_html_raw(&x->h, "\">");
    wh_cx_field(x, "paymentId", "Payment", pay, "paymentId");
    wh_cx_field(x, "status", "Status", status, "e.g. complete");
    wh_cx_select(x, "state", "Forwarding", state_s, state_values, state_labels, 5);
    wh_cx_field(x, "from", "Arrived from", wh_cx_param(x, "from"), "2026-11-27 10:00");
    wh_cx_field(x, "to", "until", wh_cx_param(x, "to"), "2026-11-27 11:00");
    wh_html_printf(&x->h, "<input type=\"hidden\" name=\"limit\" value=\"%d\">"
                   "<button type=\"submit\">Show</button></form>", limit);
    if (state_s && *state_s && !show) {
        wh_cx_notice(x, "error", "Forwarding is forwarded, retrying, dead or notyet.");
        return;
    }
    if (before_s && wh_parse_int64(x->p, before_s, 1, APR_INT64_MAX, &before) != NULL)
        before = 0;
    if (after_s && wh_parse_int64(x->p, after_s, 0, APR_INT64_MAX, &after) != NULL)
        after = 0;
    if (!wh_cx_inbox(x) || wh_inbox_listed(x->ib, x->p, &listed) != 0) {
        wh_cx_unavailable(x);
        return;
    }
    if ((rc = window(x, &lo, &hi, &has_to)) != 0) {
        if (rc == -2)
            wh_cx_unavailable(x);
        return;
    }
    if (!has_to)
        hi = listed;
    /* a cursor narrows the window: older than `before`, newer than `after` */
    if (before > 0 && before - 1 < hi)
        hi = before - 1;
    if (after > lo)
        lo = after;
    q.limit = limit;
    q.payment_id = pay;
    q.status = status;
    q.lo = lo;
    q.hi = hi;
    q.newest_first = !after_s;
    if (hi <= lo) {
        rows = apr_array_make(x->p, 1, sizeof(wh_event_row));
    } else if (show && (rc = wh_cx_queue(x, &d)) != 0) {
        if (rc < 0 || wh_fq_events(d, x->p, &q, show, &rows, &more) != 0) {
            wh_cx_unavailable(x);
            return;
        }
    } else if (show && show != WH_FQ_SHOW_NOT_YET) {
        /* no forwarder has run: nothing is forwarded, retrying or dead */
        rows = apr_array_make(x->p, 1, sizeof(wh_event_row));
    } else if (wh_inbox_events(x->ib, x->p, &q, &rows, &more) != 0) {
        wh_cx_unavailable(x);
        return;
    }
    if (!q.newest_first) {
        /* a newer page was read oldest first: shown newest first too */
        for (int i = 0, j = rows->nelts - 1; i < j; i++, j--) {
            wh_event_row t = APR_ARRAY_IDX(rows, i, wh_event_row);
            APR_ARRAY_IDX(rows, i, wh_event_row) = APR_ARRAY_IDX(rows, j, wh_event_row);
            APR_ARRAY_IDX(rows, j, wh_event_row) = t;
        }
        newer = more;
        older = 1;
    } else {
        older = more;
        newer = before > 0;
    }
    ids = apr_palloc(x->p, sizeof(apr_int64_t) * (apr_size_t)(rows->nelts + 1));
    for (int i = 0; i < rows->nelts; i++)
        ids[i] = APR_ARRAY_IDX(rows, i, wh_event_row).id;
    states = wh_cx_states(x, ids, rows->nelts);

    if (!pay && !status && !show)
        wh_html_printf(&x->h, "<p class=\"count\">%" APR_INT64_T_FMT " event%s%s; the "
                       "newest first.</p>", has_to || lo ? (hi > lo ? hi - lo : 0) : listed,
                       listed == 1 ? "" : "s", has_to || lo ? " in this window" : " listed");
    else
        wh_html_raw(&x->h, "<p class=\"count\">The newest first.</p>");
    wh_html_raw(&x->h, "<table class=\"list\"><thead><tr><th>#</th><th>Arrived</th>"
                "<th>notificationId</th><th>Payment</th><th>Status</th>"
                "<th>eventDateTime</th><th>Forwarding</th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_event_row *e = &APR_ARRAY_IDX(rows, i, wh_event_row);
        const wh_fq_state *s = states ? apr_hash_get(states, &e->id, sizeof(e->id)) : NULL;
        wh_html_printf(&x->h, "<tr><td class=\"n\">%" APR_INT64_T_FMT "</td><td>", e->seq);
        wh_cx_time(x, e->received_at);
        wh_html_raw(&x->h, "</td>");
        wh_cx_cell_link(x, "/events", wh_cx_num(x, e->id), e->notification_id);
        wh_cx_cell_link(x, "/payments", e->payment_id, NULL);
        wh_cx_cell(x, e->status ? e->status : e->event_type);
        wh_cx_cell(x, e->event_time);
        wh_html_raw(&x->h, "<td>");
        if (states)
            wh_cx_state_badge(x, s ? s->state : -1, s ? s->leased : 0, s ? s->attempts : 0);
        else
            wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"7\" class=\"dim\">No events here.</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    wh_cx_pager_link(x, "\xC2\xAB Newest", newer ? events_url(x, NULL, NULL) : NULL);
    wh_cx_pager_link(x, "\xE2\x80\xB9 Newer",
                     newer && rows->nelts
                         ? events_url(x, NULL, wh_cx_num(x, APR_ARRAY_IDX(rows, 0, wh_event_row).seq))
                         : NULL);
    wh_cx_pager_link(x, "Older \xE2\x80\xBA",
                     older && rows->nelts
                         ? events_url(x, wh_cx_num(x, APR_ARRAY_IDX(rows, rows->nelts - 1,
                                                                    wh_event_row).seq), NULL)
                         : NULL);
    wh_html_raw(&x->h, "</p>");
}

/* ---- one event -------------------------------------------------------- */

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
        wh_cx_unavailable(x);
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
        wh_cx_cell(x, a->answer);
        wh_html_raw(&x->h, "</tr>");
    }
    wh_html_raw(&x->h, "</tbody></table>");
}

static void forwarding(wh_cx *x, apr_int64_t id)
{
    wh_fq *d = NULL;
    apr_array_header_t *st;
    const wh_fq_state *s;
    int rc = wh_cx_queue(x, &d);

    wh_html_raw(&x->h, "<h2>Forwarding</h2>");
    if (rc < 0) {
        wh_cx_unavailable(x);
        return;
    }
    if (rc == 0) {
        wh_html_raw(&x->h, "<p class=\"dim\">wirehook forward has not run on this inbox.</p>");
        return;
    }
    if (wh_fq_states(d, x->p, &id, 1, &st) != 0) {
        wh_cx_unavailable(x);
        return;
    }
    s = st->nelts ? &APR_ARRAY_IDX(st, 0, wh_fq_state) : NULL;
    wh_html_raw(&x->h, "<dl class=\"facts\"><dt>State</dt><dd>");
    wh_cx_state_badge(x, s ? s->state : -1, s ? s->leased : 0, s ? s->attempts : 0);
    wh_html_raw(&x->h, "</dd>");
    if (s) {
        wh_cx_dl_row(x, "Attempts", apr_itoa(x->p, s->attempts));
        if (s->state == WH_FQ_READY && s->next_at)
            wh_cx_dl_row(x, s->leased ? "Lease ends" : "Next attempt",
                         wh_time_rfc3339(x->p, s->next_at));
        if (s->done_at)
            wh_cx_dl_row(x, s->state == WH_FQ_DEAD ? "Dead since" : "Forwarded",
                         wh_time_rfc3339(x->p, s->done_at));
        if (s->reason)
            wh_cx_dl_row(x, "Reason", s->reason);
        if (s->answer)
            wh_cx_dl_row(x, "Last error", apr_psprintf(x->p, "%s%s", s->http_status
                                                       ? apr_psprintf(x->p, "%d: ", s->http_status)
                                                       : "", s->answer));
    }
    wh_html_raw(&x->h, "</dl>");
    if (s && s->state == WH_FQ_DEAD)
        wh_cx_action_form(x, "retry", "event", wh_cx_num(x, id), "Retry this dead letter",
                          NULL, NULL);
    attempts_table(x, d, id);
}

void wh_cx_event(wh_cx *x, const char *sid)
{
    apr_int64_t id = 0;
    const char *nid = NULL;
    wh_event_row e;
    int rc;

    wh_cx_page_begin(x, "Event", "events");
    /* an event's number, or its notificationId (what the bank quotes) */
    if (wh_parse_int64(x->p, sid, 1, APR_INT64_MAX, &id) != NULL
        && wh_page_filter_value(x->p, "notificationId", sid, &nid) != NULL) {
        wh_cx_not_found(x, "No such event: an event is named by its number or its "
                        "notificationId.");
        return;
    }
    if (!wh_cx_inbox(x)
        || (rc = nid ? wh_inbox_event_by_nid(x->ib, x->p, nid, &e)
                     : wh_inbox_event(x->ib, x->p, id, &e)) < 0) {
        wh_cx_unavailable(x);
        return;
    }
    if (!rc) {
        wh_cx_not_found(x, "The inbox holds no such event.");
        return;
    }
    wh_html_raw(&x->h, "<h1>Event ");
    wh_html_text(&x->h, e.notification_id);
    wh_html_raw(&x->h, "</h1>");
    wh_cx_done_message(x);
    wh_html_raw(&x->h, "<div class=\"cols\"><section><h2>Verdict and facts</h2>"
                "<dl class=\"facts\">");
    wh_cx_dl_row(x, "Verdict", "accepted: Basic auth, timestamp, signature, JSON and schema "
                 "checked; stored in the inbox");
    wh_cx_dl_row(x, "notificationId", e.notification_id);
    wh_cx_dl_row(x, "eventType", e.event_type);
    wh_cx_dl_row(x, "eventDateTime", e.event_time);
    wh_html_raw(&x->h, "<dt>paymentId</dt><dd>");
    if (e.payment_id)
        wh_cx_link(x, "/payments", e.payment_id, e.payment_id);
    else
        wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
    wh_html_raw(&x->h, "</dd>");
    wh_cx_dl_row(x, "status", e.status ? apr_pstrcat(x->p, e.status,
                                                     wh_schema_status_known(e.status) ? ""
                                                     : " (not in the spec's list)", NULL)
                                       : NULL);
    wh_cx_dl_row(x, "Arrived", wh_time_rfc3339(x->p, e.received_at));
    wh_cx_dl_row(x, "Listing position", e.seq ? wh_cx_num(x, e.seq) : "not listed yet");
    wh_cx_dl_row(x, "Event number", wh_cx_num(x, e.id));
    wh_html_raw(&x->h, "</dl></section><section>");
    forwarding(x, e.id);
    wh_html_raw(&x->h, "</section></div><h2>Body, as received (pretty-printed)</h2>");
    body_block(x, e.body, strlen(e.body));
}
