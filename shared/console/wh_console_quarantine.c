/* The quarantine: what is held (or everything), the newest first, with
 * each body's first problem; Release only where today's configuration
 * accepts the body (checked again for the page), Acknowledge (kept, no
 * longer held) and Discard (its bytes dropped). One body's page: every
 * problem, the body as received, the same actions. */
#include "wh_console_int.h"
#include "inbox/wh_quarantine_ops.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <string.h>

static const char *list_url(wh_cx *x, const char *before)
{
    static const char *const names[] = { "all", "before", NULL };
    const char *values[2] = { wh_cx_param(x, "all"), before };
    return apr_pstrcat(x->p, wh_cx_url(x, "/quarantine", NULL), wh_cx_query(x, names, values),
                       NULL);
}

/* The state of a row, as a badge. */
static void state(wh_cx *x, const wh_quarantined *q)
{
    if (q->released_at) {
        wh_html_raw(&x->h, "<span class=\"st st-ok\">");
        wh_cx_link(x, "/events", wh_cx_num(x, q->released_event_id), "released");
        wh_html_raw(&x->h, "</span>");
    } else if (q->resolution) {
        wh_html_raw(&x->h, "<span class=\"st st-none\">");
        wh_html_text(&x->h, q->resolution);
        wh_html_raw(&x->h, "</span>");
    } else {
        wh_html_raw(&x->h, "<span class=\"st st-dead\">held</span>");
    }
}

/* The actions a row allows (back: "list" or NULL for its own page). */
static void actions(wh_cx *x, const wh_quarantined *q, const char *back)
{
    const char *id = wh_cx_num(x, q->id);

    if (q->released_at)
        return;
    if (q->releasable == 1 && !(q->resolution && strcmp(q->resolution, "discarded") == 0))
        wh_cx_action_form(x, "release", "id", id, back ? "Release" : "Check again and release",
                          back, NULL);
    if (!q->resolution)
        wh_cx_action_form(x, "acknowledge", "id", id, "Acknowledge", back, "quiet");
    if (!q->resolution || strcmp(q->resolution, "acknowledged") == 0)
        wh_cx_action_form(x, "discard", "id", id, "Discard", back, "danger");
}

void wh_cx_quarantine(wh_cx *x)
{
    const char *before_s = wh_cx_param(x, "before"), *all_s = wh_cx_param(x, "all");
    int all = all_s && strcmp(all_s, "1") == 0, limit = wh_cx_rows(x);
    apr_int64_t before = 0, held = 0;
    apr_array_header_t *rows;

    wh_cx_page_begin(x, "Quarantine", "quarantine");
    wh_html_raw(&x->h, "<h1>Quarantine</h1><p class=\"dim\">Authentic notifications that "
                "failed the JSON or schema checks: kept, never listed; released once the "
                "configuration accepts them, or acknowledged or discarded by an "
                "operator.</p>");
    wh_cx_done_message(x);
    if (before_s && wh_parse_int64(x->p, before_s, 1, APR_INT64_MAX, &before) != NULL)
        before = 0;
    if (!wh_cx_inbox(x) || wh_inbox_quarantine_held(x->ib, x->p, &held) != 0
        || wh_quarantine_newest(x->ib, x->p, before, !all, limit + 1, &rows) != 0) {
        wh_cx_unavailable(x);
        return;
    }
    /* the bodies of the held rows against today's configuration: what
     * Release would find */
    (void)wh_quarantine_recheck(x->ib, x->p, x->c->cfg, rows);
    wh_html_printf(&x->h, "<p class=\"count\">%" APR_INT64_T_FMT " held. ", held);
    wh_html_raw(&x->h, "<a href=\"");
    wh_html_text(&x->h, apr_pstrcat(x->p, wh_cx_url(x, "/quarantine", NULL),
                                    all ? "" : "?all=1", NULL));
    wh_html_raw(&x->h, all ? "\">Show what is held</a>" : "\">Show everything</a>");
    wh_html_raw(&x->h, "</p><table class=\"list\"><thead><tr><th>#</th><th>Received</th>"
                "<th>Code</th><th>First problem</th><th>notificationId</th><th>State</th>"
                "<th></th></tr></thead><tbody>");
    for (int i = 0; i < rows->nelts && i < limit; i++) {
        const wh_quarantined *q = &APR_ARRAY_IDX(rows, i, wh_quarantined);
        wh_html_raw(&x->h, "<tr>");
        wh_cx_cell_link(x, "/quarantine", wh_cx_num(x, q->id), NULL);
        wh_html_raw(&x->h, "<td>");
        wh_cx_time(x, q->received_at);
        wh_html_raw(&x->h, "</td>");
        wh_html_raw(&x->h, "<td><code class=\"k\">");
        wh_html_text(&x->h, q->code);
        wh_html_raw(&x->h, "</code></td>");
        wh_cx_cell(x, wh_quarantine_first_problem(x->p, q));
        wh_cx_cell(x, q->notification_id);
        wh_html_raw(&x->h, "<td>");
        state(x, q);
        if (WH_QUARANTINE_HELD(q) && q->releasable == 1)
            wh_html_raw(&x->h, " <span class=\"st st-ok\">accepted today</span>");
        wh_html_raw(&x->h, "</td><td class=\"acts\">");
        actions(x, q, "list");
        wh_html_raw(&x->h, "</td></tr>");
    }
    if (!rows->nelts)
        wh_html_raw(&x->h, all ? "<tr><td colspan=\"7\" class=\"dim\">The quarantine is "
                                 "empty.</td></tr>"
                               : "<tr><td colspan=\"7\" class=\"dim\">Nothing is held."
                                 "</td></tr>");
    wh_html_raw(&x->h, "</tbody></table><p class=\"pager\">");
    wh_cx_pager_link(x, "\xC2\xAB Newest", before ? list_url(x, NULL) : NULL);
    wh_cx_pager_link(x, "Older \xE2\x80\xBA",
                     rows->nelts > limit
                         ? list_url(x, wh_cx_num(x, APR_ARRAY_IDX(rows, limit - 1,
                                                                  wh_quarantined).id))
                         : NULL);
    wh_html_raw(&x->h, "</p>");
}

void wh_cx_quarantined(wh_cx *x, const char *sid)
{
    apr_int64_t id = 0;
    wh_quarantined q;
    json_object *details = NULL;
    wh_verdict today;
    int rc;

    wh_cx_page_begin(x, "Quarantined notification", "quarantine");
    if (wh_parse_int64(x->p, sid, 1, APR_INT64_MAX, &id) != NULL) {
        wh_cx_not_found(x, "No such quarantined notification.");
        return;
    }
    if (!wh_cx_inbox(x) || (rc = wh_quarantine_get(x->ib, x->p, id, &q)) < 0) {
        wh_cx_unavailable(x);
        return;
    }
    if (!rc) {
        wh_cx_not_found(x, "The quarantine holds no such notification.");
        return;
    }
    wh_html_printf(&x->h, "<h1>Quarantined notification %" APR_INT64_T_FMT "</h1>", id);
    wh_cx_done_message(x);
    if (WH_QUARANTINE_HELD(&q) || (q.resolution && strcmp(q.resolution, "acknowledged") == 0)) {
        wh_quarantine_check(x->p, x->c->cfg, q.body, q.body_len, &today);
        q.releasable = today.ok;
    }
    wh_html_raw(&x->h, "<dl class=\"facts\">");
    wh_cx_dl_row(x, "Received", wh_time_rfc3339(x->p, q.received_at));
    wh_cx_dl_row(x, "Code", q.code);
    wh_cx_dl_row(x, "Why", q.message);
    wh_cx_dl_row(x, "notificationId", q.notification_id);
    wh_html_raw(&x->h, "<dt>State</dt><dd>");
    state(x, &q);
    if (q.released_at) {
        wh_html_raw(&x->h, " ");
        wh_cx_time(x, q.released_at);
    } else if (q.resolution) {
        wh_html_raw(&x->h, " ");
        wh_cx_time(x, q.resolved_at);
        wh_html_raw(&x->h, " by ");
        wh_html_text(&x->h, q.resolved_by ? q.resolved_by : "-");
    }
    wh_html_raw(&x->h, "</dd>");
    if (q.releasable >= 0)
        wh_cx_dl_row(x, "Today's configuration",
                     q.releasable ? "accepts it: Release stores it as a new event"
                                  : "still refuses it (below)");
    wh_html_raw(&x->h, "</dl>");
    actions(x, &q, NULL);
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
    if (q.resolution && strcmp(q.resolution, "discarded") == 0) {
        wh_html_raw(&x->h, "</ul><h2>Body</h2><p class=\"dim\">Discarded.</p>");
        return;
    }
    wh_html_raw(&x->h, "</ul><h2>Body, as received</h2><pre class=\"body\">");
    wh_html_textn(&x->h, q.body, q.body_len, WH_CX_BODY_SHOWN);
    wh_html_raw(&x->h, "</pre>");
}
