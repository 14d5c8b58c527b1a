/* The payments page, by latest activity (the newest event's arrival),
 * newest first, each marked with its dead letters; and one payment: its
 * timeline by eventDateTime beside its arrival order, its current state,
 * Retry every dead letter of it. */
#include "wh_console_int.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"
#include "forward/wh_forward_views.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* The cursor of the next page: "<updated_at>:<paymentId>" of the last row
 * shown (the id may hold ':', the number cannot). 0, or -1 when absent
 * or not one. */
static int cursor(wh_cx *x, apr_time_t *at, const char **id)
{
    const char *v = wh_cx_param(x, "before"), *colon, *out;
    apr_int64_t t = 0;

    if (!v || !(colon = strchr(v, ':'))
        || wh_parse_int64(x->p, apr_pstrmemdup(x->p, v, (apr_size_t)(colon - v)), 0,
                          APR_INT64_MAX, &t) != NULL
        || wh_page_filter_value(x->p, "paymentId", colon + 1, &out) != NULL)
        return -1;
    *at = (apr_time_t)t;
    *id = out;
    return 0;
}

static const char *payments_url(wh_cx *x, const char *before)
{
    static const char *const names[] = { "status", "limit", "before", NULL };
    const char *values[3] = { wh_cx_param(x, "status"), wh_cx_param(x, "limit"), before };
    return apr_pstrcat(x->p, wh_cx_url(x, "/payments", NULL), wh_cx_query(x, names, values),
                       NULL);
}

void wh_cx_payments(wh_cx *x)
{
    const char *pay = wh_cx_filter(x, "paymentId"), *status = wh_cx_filter(x, "status");
    const char *before_id = NULL, **ids;
    apr_time_t before_at = 0;
    apr_array_header_t *rows;
    apr_hash_t *dead = NULL;
    wh_fq *d = NULL;
    int limit = wh_cx_rows(x), more = 0;

    if (pay) {
        wh_cx_payment(x, pay);
        return;
    }
    wh_cx_page_begin(x, "Payments", "payments");
    wh_html_raw(&x->h, "<h1>Payments</h1><form class=\"filters\" method=\"get\" action=\"");
    wh_html_text(&x->h, wh_cx_url(x, "/payments", NULL));
    wh_html_raw(&x->h, "\">");
    wh_cx_field(x, "paymentId", "Payment", NULL, "paymentId");
    wh_cx_field(x, "status", "Current status", status, "e.g. complete");
    wh_html_raw(&x->h, "<button type=\"submit\">Show</button></form>");
    if (cursor(x, &before_at, &before_id) != 0)
        before_id = NULL;
    if (!wh_cx_inbox(x)
        || wh_payments_recent(x->ib, x->p, status, before_at, before_id, limit, &rows, &more)
               != WH_PAY_OK) {
        wh_cx_unavailable(x);
        return;
    }
    ids = apr_palloc(x->p, sizeof(*ids) * (apr_size_t)(rows->nelts + 1));
    for (int i = 0; i < rows->nelts; i++)
        ids[i] = APR_ARRAY_IDX(rows, i, wh_payment_row).payment_id;
    if (wh_cx_queue(x, &d) > 0 && wh_fq_dead_by_payment(d, x->p, ids, rows->nelts, &dead) != 0)
        dead = NULL;
    wh_html_raw(&x->h, "<p class=\"count\">By latest activity, the newest first.</p>"
                "<table class=\"list\"><thead><tr><th>paymentId</th><th>Status</th>"
                "<th>eventDateTime</th><th>Events</th><th>Latest activity</th>"
                "<th>Dead letters</th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_payment_row *r = &APR_ARRAY_IDX(rows, i, wh_payment_row);
        const apr_int64_t *k = dead ? apr_hash_get(dead, r->payment_id, APR_HASH_KEY_STRING)
                                    : NULL;
        wh_html_raw(&x->h, k ? "<tr class=\"has-dead\">" : "<tr>");
        wh_cx_cell_link(x, "/payments", r->payment_id, NULL);
        wh_cx_cell(x, r->status);
        wh_cx_cell(x, r->event_time);
        wh_html_printf(&x->h, "<td class=\"n\">%" APR_INT64_T_FMT "</td><td>", r->events);
        wh_cx_time(x, r->updated_at);
        wh_html_raw(&x->h, "</td><td>");
        if (k)
            wh_html_printf(&x->h, "<span class=\"st st-dead\">%" APR_INT64_T_FMT " dead</span>",
                           *k);
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, "<tr><td colspan=\"6\" class=\"dim\">No payments here.</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    wh_cx_pager_link(x, "\xC2\xAB Newest", before_id ? payments_url(x, NULL) : NULL);
    if (more && rows->nelts) {
        const wh_payment_row *last = &APR_ARRAY_IDX(rows, rows->nelts - 1, wh_payment_row);
        wh_cx_pager_link(x, "Older \xE2\x80\xBA",
                         payments_url(x, apr_psprintf(x->p, "%" APR_TIME_T_FMT ":%s",
                                                      last->updated_at, last->payment_id)));
    } else {
        wh_cx_pager_link(x, "Older \xE2\x80\xBA", NULL);
    }
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
        const wh_fq_state *s = states ? apr_hash_get(states, &e->event_id,
                                                     sizeof(e->event_id)) : NULL;
        wh_html_raw(&x->h, "<tr>");
        wh_cx_cell(x, e->event_time);
        wh_cx_cell(x, e->status);
        wh_html_raw(&x->h, "<td>");
        wh_cx_time(x, e->received_at);
        wh_html_raw(&x->h, "</td>");
        wh_cx_cell_link(x, "/events", wh_cx_num(x, e->event_id), e->notification_id);
        wh_html_raw(&x->h, "<td>");
        if (states)
            wh_cx_state_badge(x, s ? s->state : -1, s ? s->leased : 0, s ? s->attempts : 0);
        else
            wh_html_raw(&x->h, "<span class=\"dim\">-</span>");
        wh_html_raw(&x->h, "</td></tr>");
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
        wh_cx_not_found(x, "No payment can have this id.");
        return;
    }
    if (!wh_cx_inbox(x)) {
        wh_cx_unavailable(x);
        return;
    }
    res = wh_payments_view(x->ib, x->p, id, &pay, &hist, &trunc);
    wh_html_raw(&x->h, "<h1>Payment ");
    wh_html_text(&x->h, id);
    wh_html_raw(&x->h, "</h1>");
    if (res == WH_PAY_NOT_FOUND) {
        wh_cx_not_found(x, "The inbox holds no event of this payment.");
        return;
    }
    if (res != WH_PAY_OK) {
        wh_cx_unavailable(x);
        return;
    }
    wh_cx_done_message(x);
    wh_html_raw(&x->h, "<dl class=\"facts\">");
    wh_cx_dl_row(x, "Current status",
                 apr_pstrcat(x->p, pay.status, wh_schema_status_known(pay.status)
                                               ? "" : " (not in the spec's list)", NULL));
    wh_cx_dl_row(x, "Set by", apr_pstrcat(x->p, pay.notification_id, ", eventDateTime ",
                                          pay.event_time ? pay.event_time : "-", NULL));
    wh_cx_dl_row(x, "Events", wh_cx_num(x, pay.events));
    wh_cx_dl_row(x, "Latest activity", wh_time_rfc3339(x->p, pay.updated_at));
    wh_html_raw(&x->h, "</dl>");
    if (trunc)
        wh_cx_notice(x, "warn", apr_psprintf(x->p, "Only the latest %d events are shown.",
                                             WH_PAYMENT_HISTORY_MAX));
    if (wh_cx_queue(x, &d) > 0 && wh_fq_dead_count_payment(d, x->p, id, &dead) == 0
        && dead > 0) {
        wh_cx_notice(x, "error", apr_psprintf(x->p, "%" APR_INT64_T_FMT " dead letter%s.",
                                              dead, dead == 1 ? "" : "s"));
        wh_cx_action_form(x, "retry", "payment", id, "Retry every dead letter of this payment",
                          NULL, NULL);
    }
    ids = apr_palloc(x->p, sizeof(apr_int64_t) * (apr_size_t)(hist->nelts + 1));
    for (int i = 0; i < hist->nelts; i++)
        ids[i] = APR_ARRAY_IDX(hist, i, wh_payment_event).event_id;
    states = wh_cx_states(x, ids, hist->nelts);
    arrival = apr_array_copy(x->p, hist);
    qsort(arrival->elts, (size_t)arrival->nelts, sizeof(wh_payment_event), by_arrival);
    wh_html_raw(&x->h, "<div class=\"cols\">");
    history_table(x, "Timeline by eventDateTime", hist, states);
    history_table(x, "In arrival order", arrival, states);
    wh_html_raw(&x->h, "</div>");
}
