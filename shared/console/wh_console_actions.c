/* The console's actions: what each must pass before it changes anything
 * (the operator's role, ConsoleActions, the console's own origin, a form
 * whose token is this session's, this user's, for this action on this
 * target, and still fresh), then retry, retry every dead letter matching
 * a filter, release, discard, acknowledge. Each one, done or refused, is
 * a line for the host's log with the operator's name; after it the
 * browser is sent to a page whose notice says what was done (sealed, so
 * no link of anybody else's can show one). */
#include "wh_console_int.h"
#include "wh_console_dead.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_quarantine_ops.h"
#include "forward/wh_forward_views.h"
#include "verify/wh_parse.h"
#include "verify/wh_verdict.h"

#include <apr_strings.h>
#include <string.h>

static void refuse(wh_cx *x, const char *action, const char *why)
{
    x->out->audit = apr_psprintf(x->p, "console: refused %s by user %s: %s", action,
                                 x->req->user ? x->req->user : "-", why);
    x->out->audit_level = WH_LOG_WARN;
    wh_cx_error_page(x, 403, WH_CODE_FORBIDDEN, why);
}

static void audit(wh_cx *x, const char *what)
{
    x->out->audit = apr_psprintf(x->p, "console: user %s %s",
                                 x->req->user ? x->req->user : "-", what);
    x->out->audit_level = WH_LOG_INFO;
}

static void unavailable(wh_cx *x)
{
    wh_cx_error_page(x, 503, WH_CODE_INBOX_UNAVAILABLE, "the inbox is unavailable; retry later");
}

static int is_form(const char *ct)
{
    static const char form[] = "application/x-www-form-urlencoded";
    return ct && strncasecmp(ct, form, sizeof(form) - 1) == 0
           && (ct[sizeof(form) - 1] == '\0' || ct[sizeof(form) - 1] == ';'
               || ct[sizeof(form) - 1] == ' ');
}

/* The request as far as every action goes; returns the form, or NULL
 * when the request was refused (answered). */
static const char *admit_request(wh_cx *x, const char *action)
{
    const wh_console_request *r = x->req;

    if (!r->method || strcmp(r->method, "POST") != 0) {
        wh_cx_not_allowed(x, "POST", 0);
        return NULL;
    }
    if (!r->may_act) {
        refuse(x, action, "this user may read, not act");
        return NULL;
    }
    if (!x->c->cfg->console_actions) {
        refuse(x, action, "the console is read-only (ConsoleActions off)");
        return NULL;
    }
    if (!wh_cx_same_origin(x)) {
        refuse(x, action, r->origin ? "the request came from another origin"
                                    : "the request carries no Origin header");
        return NULL;
    }
    if (r->fetch_site && strcmp(r->fetch_site, "same-origin") != 0) {
        refuse(x, action, "the request came from another site (Sec-Fetch-Site)");
        return NULL;
    }
    if (!is_form(r->content_type) || !r->body || r->body_len > WH_CX_FORM_MAX
        || memchr(r->body, '\0', r->body_len)) {
        refuse(x, action, "not a console form");
        return NULL;
    }
    if (!x->session) {
        refuse(x, action, "no console session (cookie): reload the page");
        return NULL;
    }
    return apr_pstrmemdup(x->p, r->body, r->body_len);
}

/* The form's token for action on target; 0 when refused (answered). */
static int admit_token(wh_cx *x, const char *action, const char *form, const char *target)
{
    const char *token = wh_form_value(x->p, form, WH_CX_FORM_MAX, "token");

    if (!token) {
        refuse(x, action, "the form carries no token");
        return 0;
    }
    switch (wh_csrf_check(x->p, &x->c->key, x->session, x->req->user, action, target, token,
                          x->req->now)) {
    case WH_CSRF_OK:
        return 1;
    case WH_CSRF_EXPIRED:
        refuse(x, action, "the page is too old to act from: reload it and try again");
        return 0;
    default:
        refuse(x, action, "the form's token is not for this session, action and "
               "target: reload the page");
        return 0;
    }
}

static const char *value(wh_cx *x, const char *form, const char *name)
{
    return wh_form_value(x->p, form, WH_CX_FORM_MAX, name);
}

/* ---- retry ------------------------------------------------------------ */

static void retry(wh_cx *x)
{
    const char *form = admit_request(x, "retry"), *event, *pay, *back, *pid = NULL;
    apr_int64_t id = 0;
    wh_fq *d = NULL;
    int n = 0, rc;

    if (!form)
        return;
    event = value(x, form, "event");
    pay = value(x, form, "payment");
    back = value(x, form, "back");
    if ((event && wh_parse_int64(x->p, event, 1, APR_INT64_MAX, &id) != NULL)
        || (!event && (!pay || wh_page_filter_value(x->p, "payment", pay, &pid) != NULL))) {
        wh_cx_error_page(x, 400, WH_CODE_BAD_REQUEST, "retry needs event=ID or payment=PAYMENTID");
        return;
    }
    if (!admit_token(x, "retry", form, event ? apr_pstrcat(x->p, "event=", event, NULL)
                                             : apr_pstrcat(x->p, "payment=", pid, NULL)))
        return;
    if ((rc = wh_cx_queue(x, &d)) < 0) {
        unavailable(x);
        return;
    }
    if (rc > 0) {
        rc = event ? wh_fq_dead_retry(d, x->p, wh_cx_num(x, id), x->req->now, &n)
                   : wh_fq_dead_retry_payment(d, x->p, pid, x->req->now, &n);
        if (rc < 0) {
            unavailable(x);
            return;
        }
    }
    audit(x, event ? apr_psprintf(x->p, "retried dead letter event %" APR_INT64_T_FMT
                                  ": %d put back", id, n)
                   : apr_psprintf(x->p, "retried the dead letters of payment %s: %d put back",
                                  pid, n));
    if (back && strcmp(back, "dead") == 0)
        wh_cx_see_other(x, wh_cx_done_url(x, "/dead", NULL, "retry", n));
    else if (event)
        wh_cx_see_other(x, wh_cx_done_url(x, "/events", wh_cx_num(x, id), "retry", n));
    else
        wh_cx_see_other(x, wh_cx_done_url(x, "/payments", pid, "retry", n));
}

/* Every dead letter matching the filter the confirmation page showed,
 * bound to it by the token; `expect` is the count that page showed (the
 * log says both when they differ). */
static void retry_matching(wh_cx *x)
{
    const char *form = admit_request(x, "retry-matching"), *why = NULL, *expect;
    wh_fq_dead_filter f;
    apr_int64_t shown = -1;
    wh_fq *d = NULL;
    int n = 0, rc;

    if (!form)
        return;
    if (wh_cx_dead_filter_of(x, form, &f, &why) != 0) {
        wh_cx_error_page(x, 400, WH_CODE_BAD_REQUEST, why);
        return;
    }
    if (!admit_token(x, "retry-matching", form,
                     apr_pstrcat(x->p, "filter=", wh_fq_dead_filter_key(x->p, &f), NULL)))
        return;
    expect = value(x, form, "expect");
    if (expect && wh_parse_int64(x->p, expect, 0, APR_INT64_MAX, &shown) != NULL)
        shown = -1;
    if ((rc = wh_cx_queue(x, &d)) < 0
        || (rc > 0 && wh_fq_dead_retry_matching(d, x->p, &f, x->req->now, &n) != 0)) {
        unavailable(x);
        return;
    }
    audit(x, apr_psprintf(x->p, "retried %s%s: %d put back (%" APR_INT64_T_FMT
                          " when confirmed)", *wh_cx_dead_filter_text(x, &f)
                                              ? "the dead letters " : "every dead letter",
                          wh_cx_dead_filter_text(x, &f), n, shown));
    wh_cx_see_other(x, wh_cx_done_url(x, "/dead", NULL, "retry", n));
}

/* ---- the quarantine ---------------------------------------------------- */

/* The quarantined notification's id from the form, its token checked. */
static int quarantine_id(wh_cx *x, const char *action, const char *form, apr_int64_t *id,
                         const char **qid)
{
    *qid = value(x, form, "id");
    if (!*qid || wh_parse_int64(x->p, *qid, 1, APR_INT64_MAX, id) != NULL) {
        wh_cx_error_page(x, 400, WH_CODE_BAD_REQUEST,
                         apr_pstrcat(x->p, action, " needs id=QUARANTINE-ID", NULL));
        return 0;
    }
    return admit_token(x, action, form, apr_pstrcat(x->p, "id=", *qid, NULL));
}

/* Back to the quarantine's list or the body's own page. */
static const char *quarantine_back(wh_cx *x, const char *form, const char *qid,
                                   const char *done, apr_int64_t n)
{
    const char *back = value(x, form, "back");
    return back && strcmp(back, "list") == 0 ? wh_cx_done_url(x, "/quarantine", NULL, done, n)
                                             : wh_cx_done_url(x, "/quarantine", qid, done, n);
}

static void release(wh_cx *x)
{
    const char *form = admit_request(x, "release"), *qid, *done;
    apr_int64_t id = 0, event_id = 0;
    wh_inbox *ib;
    wh_verdict v;

    if (!form || !quarantine_id(x, "release", form, &id, &qid))
        return;
    if ((ib = wh_cx_inbox(x)) == NULL) {
        unavailable(x);
        return;
    }
    switch (wh_quarantine_release(ib, x->p, x->c->cfg, id, x->req->now, &v, &event_id)) {
    case WH_RELEASE_STORED: done = "released"; break;
    case WH_RELEASE_DUPLICATE: done = "duplicate"; break;
    case WH_RELEASE_ALREADY: done = "already"; break;
    case WH_RELEASE_INVALID: done = "invalid"; break;
    case WH_RELEASE_DISCARDED: done = "notheld"; break;
    case WH_RELEASE_NOT_FOUND:
        wh_cx_error_page(x, 404, WH_CODE_NOT_FOUND, "the quarantine holds no such notification");
        return;
    default:
        unavailable(x);
        return;
    }
    audit(x, apr_psprintf(x->p, "released quarantined notification %" APR_INT64_T_FMT
                          ": %s (event %" APR_INT64_T_FMT ")", id, done, event_id));
    wh_cx_see_other(x, quarantine_back(x, form, qid, done, event_id));
}

/* Discard or acknowledge. */
static void resolve(wh_cx *x, const char *action, const char *resolution)
{
    const char *form = admit_request(x, action), *qid, *done;
    apr_int64_t id = 0;
    wh_inbox *ib;

    if (!form || !quarantine_id(x, action, form, &id, &qid))
        return;
    if ((ib = wh_cx_inbox(x)) == NULL) {
        unavailable(x);
        return;
    }
    switch (wh_quarantine_resolve(ib, x->p, id, resolution, x->req->user, x->req->now)) {
    case WH_RESOLVE_DONE: done = resolution; break;
    case WH_RESOLVE_NOT_HELD: done = "notheld"; break;
    case WH_RESOLVE_NOT_FOUND:
        wh_cx_error_page(x, 404, WH_CODE_NOT_FOUND, "the quarantine holds no such notification");
        return;
    default:
        unavailable(x);
        return;
    }
    audit(x, apr_psprintf(x->p, "%s quarantined notification %" APR_INT64_T_FMT ": %s",
                          strcmp(resolution, WH_QUARANTINE_DISCARD) == 0 ? "discarded"
                                                                        : "acknowledged",
                          id, strcmp(done, "notheld") == 0 ? "it was no longer held" : "done"));
    wh_cx_see_other(x, quarantine_back(x, form, qid, done, 0));
}

void wh_cx_action(wh_cx *x, const char *name)
{
    if (strcmp(name, "/retry") == 0)
        retry(x);
    else if (strcmp(name, "/retry-matching") == 0)
        retry_matching(x);
    else if (strcmp(name, "/release") == 0)
        release(x);
    else if (strcmp(name, "/discard") == 0)
        resolve(x, "discard", WH_QUARANTINE_DISCARD);
    else if (strcmp(name, "/acknowledge") == 0)
        resolve(x, "acknowledge", WH_QUARANTINE_ACKNOWLEDGE);
    else
        wh_cx_error_page(x, 404, WH_CODE_NOT_FOUND, "no such action (known: retry, "
                         "retry-matching, release, discard, acknowledge)");
}
