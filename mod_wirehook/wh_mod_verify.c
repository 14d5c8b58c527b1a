/* The request path, and the one rule it keeps: a request whose *final*
 * configuration names a WirehookConfig reaches its handler only with a
 * verified body from its own request chain. Otherwise it is verified
 * there and then, or refused with a JSON error.
 *
 * Two places keep it:
 *
 *  - fixups, first in line (after core's SetHandler): the early check,
 *    under the configuration the request arrived with. Failures are
 *    answered before mod_rewrite's per-directory rules or any handler
 *    runs; the verified bytes are kept for the handler (WIREHOOK_KEPT_BODY).
 *
 *  - the guard, a handler hook ordered before every other handler: it
 *    looks at the configuration the request finally runs under. httpd may
 *    change it after fixups without a new request: mod_dir's
 *    DirectoryIndex and FallbackResource, and MultiViews, swap in another
 *    resource's per-dir configuration and handler by a fast internal
 *    redirect; a protected resource reached that way is verified here. A
 *    subrequest that runs a handler in a protected context (SSI include
 *    virtual, exec cgi) carries no body of its own and is refused (403),
 *    never run unverified.
 *
 * For the inbox (SetHandler wirehook) the guard is the handler: it runs
 * the inbox itself and never declines to a later one. mod_proxy takes any
 * request that ProxyPass or a [P] rule marked at translation, whatever
 * handler SetHandler names, and ranks ahead of an ordinary handler; so
 * does a mod_lua LuaMapHandler. Declining would hand them an inbox
 * request's listing or an unverified body.
 *
 * The guard does not trust that fixups ran or saw the right configuration:
 * whatever route httpd took (DirectoryIndex, FallbackResource, mod_rewrite,
 * ErrorDocument, Action, aliases, subrequests, <Files>, .htaccess), the
 * handler runs only if the chain holds a verdict of the configuration in
 * force. mod_wirehook/README.md has the rule and why; docs/reliability.md
 * lists every route tried. */
#include "wh_mod_verify.h"
#include "wh_mod_inbox.h"
#include "wh_mod_console.h"
#include "wh_mod_replay.h"
#include "wh_mod_status.h"
#include "wh_mod_body.h"
#include "wh_mod_request.h"
#include "inbox/wh_endpoint.h"
#include "replay/wh_replay_verdict.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include <apr_strings.h>

static wh_mod_state *new_state(request_rec *r, wh_mod_config *config)
{
    wh_mod_state *st = apr_pcalloc(r->pool, sizeof(*st));
    st->config = config;
    st->log.fn = wh_mod_log_sink;
    st->log.baton = r;
    wh_mod_request_init(r, config->cfg, &st->req);
    st->req.log = &st->log;
    wh_verdict_init(&st->verdict, r->pool);
    ap_set_module_config(r->request_config, &wirehook_module, st);
    return st;
}

/* Every verdict not handed on is answered here: counted by its code, then
 * the core's answer to it. DONE: no handler, no ErrorDocument (which would
 * render HTML). */
static int answer(request_rec *r, const wh_mod_state *st)
{
    wh_response resp;
    wh_mod_stats_verdict(st->config, st->verdict.code);
    wh_response_from_verdict(r->pool, &st->verdict, &resp);
    return wh_mod_respond(r, &resp);
}

/* A check refused it: logged, then answered. (The replay store's answers
 * are logged where the store is asked, each with its own tag.) */
static int respond_verdict(request_rec *r, const wh_mod_state *st)
{
    wh_mod_log_verdict(r, &st->verdict);
    return answer(r, st);
}

static ap_filter_rec_t *confirm_handle;

/* The application's answer is on its way to the client: the id is
 * confirmed in the replay store now, before a byte of the answer is sent,
 * unless the answer is 5xx (then the claim is forgotten at
 * log_transaction). Confirming only at log_transaction, after the answer
 * was written, left a moment in which a server killed -9 had answered 200
 * yet its claim merely lapsed, and the bank's copy sent to another server
 * was delivered a second time. */
static apr_status_t confirm_filter(ap_filter_t *f, apr_bucket_brigade *bb)
{
    wh_mod_state *st = f->ctx;

    if (st->claim && !ap_is_HTTP_SERVER_ERROR(f->r->status)) {
        wh_mod_replay_confirm(f->r, st->claim, st->config->cfg);
        st->claim = NULL;
    }
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

/* The confirmation rides r's output; an error document replaces r's
 * output filters, hence the insert_error_filter hook. */
static void confirm_on_answer(request_rec *r, wh_mod_state *st)
{
    if (st->claim == NULL)
        return;
    for (const ap_filter_t *f = r->output_filters; f; f = f->next)
        if (f->frec == confirm_handle && f->ctx == st)
            return;
    ap_add_output_filter_handle(confirm_handle, st, r, r->connection);
}

/* The handler gets the verified bytes and the facts (once per request: a
 * fast redirect keeps both on r; an internal redirect needs them again). */
static void deliver(request_rec *r, wh_mod_state *st)
{
    confirm_on_answer(r, st);
    wh_mod_kept_body_resume(r, st->kept);
    if (st->delivered_to != r) {
        wh_mod_publish_facts(r, &st->verdict.facts);
        st->delivered_to = r;
    }
}

/* ---- the steps ------------------------------------------------------ */

/* An internal redirect of a request this module verified: the body was
 * consumed, so the redirected request gets the kept body back and the same
 * facts. The guard still checks that the configuration is the same. */
static int resume_after_redirect(request_rec *r)
{
    wh_mod_state *prior = r->prev ? wh_mod_chain_state(r->prev) : NULL;
    if (prior == NULL || prior->phase != WH_ST_VERIFIED)
        return 0;
    ap_set_module_config(r->request_config, &wirehook_module, prior);
    deliver(r, prior);
    return 1;
}

/* Method, Basic auth, Content-Type/-Encoding, declared length: decided
 * before a byte of the body is read. */
static int check_envelope(request_rec *r, wh_mod_state *st)
{
    wh_verify_envelope(st->config->vf, &st->req, &st->verdict, r->pool);
    if (st->verdict.ok)
        return OK;
    wh_mod_drain_before_answer(r, st->config->cfg->max_body_size);
    return respond_verdict(r, st);
}

/* The body: the chain's kept bytes when an earlier request of it read them
 * (the wire has nothing more), else read now, bounded by MaxBodySize.
 * Freshness is judged from the moment it was complete (wh_request.now). */
static int read_body(request_rec *r, wh_mod_state *st,
                     const wh_mod_state *prior)
{
    int status = OK;

    if (prior && prior->req.body && !prior->req.body_overflow) {
        st->req.body = prior->req.body;
        st->req.body_len = prior->req.body_len;
        st->req.now = prior->req.now;
        st->kept = prior->kept;
        return OK;
    }
    switch (wh_mod_read_body(r, st->config->cfg->max_body_size, &st->req.body,
                             &st->req.body_len, &status)) {
    case WH_BODY_ERROR:
        /* timeouts, aborted clients, bad chunking, LimitRequestBody:
         * httpd's own answer, unchanged */
        ap_set_module_config(r->request_config, &wirehook_module, NULL);
        return status;
    case WH_BODY_OVERFLOW:
        /* the rest stays unread: never drain it, close after the 413 */
        st->req.body_overflow = 1;
        r->connection->keepalive = AP_CONN_CLOSE;
        break;
    case WH_BODY_OK:
        break;
    }
    st->req.now = apr_time_now();
    /* trailers merged into the headers at the end of a chunked body
     * (MergeTrailers on) must not bring forged facts in */
    wh_mod_strip_client_headers(r);
    return OK;
}

/* Timestamp, signature, strict JSON, schema. For the inbox the verdict,
 * good or bad, is the handler's: it stores or quarantines. */
static int check_payload(request_rec *r, wh_mod_state *st)
{
    wh_verify_payload(st->config->vf, &st->req, &st->verdict, r->pool);
    if (wh_mod_is_inbox(r) && !st->req.body_overflow) {
        st->phase = WH_ST_INBOX;
        wh_mod_log_verdict(r, &st->verdict);
        return OK;
    }
    return st->verdict.ok ? OK : respond_verdict(r, st);
}

/* Seen within ReplayWindow: a duplicate, never delivered again; a store that
 * cannot promise to remember: 503 (the core's verdict on what the store
 * said, wh_replay_verdict.h). An id this chain recorded in the same store
 * (the configuration changed along the chain, the store did not) is its own
 * record, not a replay. */
static int check_replay(request_rec *r, wh_mod_state *st,
                        const wh_mod_state *prior)
{
    const wh_facts *f = &st->verdict.facts;
    wh_mod_replay *rp = st->config->replay;

    if (prior && prior->recorded == rp && rp != NULL
        && prior->verdict.facts.notification_id && f->notification_id
        && strcmp(prior->verdict.facts.notification_id, f->notification_id) == 0) {
        st->recorded = rp;
        return OK;
    }
    if (rp == NULL) {
        /* every WirehookConfig naming this file sits beside SetHandler
         * wirehook, so it got no replay store; yet this request reached
         * another handler (.htaccess, a later section): fail closed */
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00995)
                      "refused notificationId=%s: WirehookConfig %s was taken "
                      "for the inbox's alone (each WirehookConfig naming it "
                      "sits beside SetHandler wirehook), so it has no replay "
                      "store, yet %s reached handler %s: name it in a section "
                      "of its own in front of the application",
                      f->notification_id ? f->notification_id : "-",
                      st->config->path, r->uri, r->handler ? r->handler : "-");
        wh_replay_verdict_unavailable(&st->verdict);
        return answer(r, st);
    }
    wh_mod_replay_check(r, rp, st->config->cfg, &st->verdict, &st->claim);
    if (!st->verdict.ok)
        return answer(r, st);
    /* Still fresh now that the id is recorded? Otherwise this record
     * may have followed a copy's that had just lapsed (wh_verify.h): it
     * is taken back, and the bank retries with a fresh timestamp. */
    if (!wh_verify_fresh_at(st->config->vf, &st->verdict, apr_time_now())) {
        wh_mod_replay_forget(r, st->claim);
        st->claim = NULL;
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00991)
                      "refused notificationId=%s: recorded in the replay store "
                      "only after its timestamp's TimestampTolerance had passed "
                      "(the store kept it waiting); taken back, answered 503",
                      f->notification_id);
        wh_replay_verdict_unavailable(&st->verdict);
        return answer(r, st);
    }
    st->recorded = rp;
    return OK;
}

/* The whole verification of r under config. OK: the handler may run
 * (with the kept body and facts, or, for the inbox, the verdict to store).
 * Anything else has been answered (DONE) or is httpd's own error status. */
static int verify(request_rec *r, wh_mod_config *config,
                  const wh_mod_state *prior)
{
    wh_mod_state *st = new_state(r, config);
    int rc;

    wh_mod_strip_client_headers(r);
    if ((rc = check_envelope(r, st)) != OK
        || (rc = read_body(r, st, prior)) != OK
        || (rc = check_payload(r, st)) != OK)
        return rc;
    if (st->phase == WH_ST_INBOX)
        return OK;
    if ((rc = check_replay(r, st, prior)) != OK)
        return rc;
    wh_mod_log_verdict(r, &st->verdict);
    wh_mod_stats_verdict(st->config, st->verdict.code);
    st->phase = WH_ST_VERIFIED;
    if (st->kept == NULL)
        st->kept = wh_mod_keep_body(r, st->req.body, st->req.body_len);
    deliver(r, st);
    return OK;
}

/* ErrorDocument onto a resource under WirehookConfig: httpd re-runs the
 * failed request, perhaps a notification, as a GET of it. Neither the
 * inbox (a 200 listing reads as an acknowledgement) nor the application
 * has anything to add: the failed request's own status, as JSON, after
 * the body is drained as for any answer given without reading it (an h2
 * stream is otherwise reset under the client's upload). DECLINED when r
 * is not an error document. */
static int refuse_error_document(request_rec *r, const wh_mod_config *config)
{
    wh_response resp;

    if (!r->prev || !wh_endpoint_error_document(r->pool, r->prev->status, &resp))
        return DECLINED;
    wh_mod_drain_before_answer(r, config->cfg->max_body_size);
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00970)
                  "%s is not an error document: %d for %s answered as such",
                  wh_mod_is_inbox(r) ? "the inbox" : r->uri, r->prev->status,
                  r->prev->uri);
    return wh_mod_respond(r, &resp);
}

/* ---- the hooks ------------------------------------------------------ */

static int wh_post_read_request(request_rec *r)
{
    wh_mod_strip_client_headers(r);
    return DECLINED;
}

static int wh_fixups(request_rec *r)
{
    wh_mod_config *config = wh_mod_config_of(r);
    int rc;

    if (r->main)                 /* a subrequest: the guard decides */
        return DECLINED;
    if (config != NULL && (rc = refuse_error_document(r, config)) != DECLINED)
        return rc;
    if (resume_after_redirect(r))
        return DECLINED;
    if (config == NULL)
        return DECLINED;
    if (wh_mod_is_inbox(r) && r->method_number != M_POST)
        return DECLINED;         /* the listing checks Basic auth itself */
    if (wh_mod_is_console(r))
        return DECLINED;         /* no notification: the guard runs it */
    rc = verify(r, config, r->prev ? wh_mod_chain_state(r->prev) : NULL);
    wh_mod_stats_verified(config, r, rc);
    return rc == OK ? DECLINED : rc;
}

static int wh_guard(request_rec *r)
{
    wh_mod_config *config = wh_mod_config_of(r);
    wh_mod_state *st;
    int rc;

    if (config == NULL)
        return DECLINED;
    if (r->main) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00955)
                      "refused: a subrequest for %s would run a handler under "
                      "WirehookConfig %s, and a subrequest carries no "
                      "verified body", r->uri, config->path);
        return HTTP_FORBIDDEN;
    }
    if ((rc = refuse_error_document(r, config)) != DECLINED)
        return rc;
    /* The console is no webhook: its readers and operators passed httpd's
     * authz, and it delivers nothing to an application. The guard runs it
     * (as the inbox), so no other handler can take its requests. */
    if (wh_mod_is_console(r))
        return wh_mod_console_run(r);
    st = wh_mod_chain_state(r);
    if (st && st->config == config) {
        if (st->phase == WH_ST_VERIFIED && !wh_mod_is_inbox(r)) {
            deliver(r, st);
            return DECLINED;
        }
        if (wh_mod_is_inbox(r))
            return wh_mod_inbox_run(r);
    }
    if (wh_mod_is_inbox(r) && r->method_number != M_POST)
        return wh_mod_inbox_run(r); /* the listing checks Basic auth itself */
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00956)
                  "verifying at the handler: %s reached handler %s under "
                  "WirehookConfig %s %s", r->uri, r->handler ? r->handler : "-",
                  config->path, st ? "after a verdict of another configuration"
                                 : "unverified (the configuration changed "
                                   "after fixups)");
    rc = verify(r, config, st);
    wh_mod_stats_verified(config, r, rc);
    if (rc != OK)
        return rc;
    return wh_mod_is_inbox(r) ? wh_mod_inbox_run(r) : DECLINED;
}

static void wh_insert_error_filter(request_rec *r)
{
    wh_mod_state *st = wh_mod_state_of(r);

    if (st && st->phase == WH_ST_VERIFIED && st->delivered_to == r)
        confirm_on_answer(r, st);
}

/* The end of a delivery, in every store this chain claimed its id in,
 * where the answer's way out did not already settle it (confirm_filter).
 * The application answered (final status below 500): the id is confirmed, a
 * duplicate from now on. It failed (5xx): the id is forgotten, so the bank's
 * retry is delivered instead of being answered "duplicate". A handler killed
 * before this (a full restart, a crash) leaves a claim that lapses with its
 * process or its lease: the retry is delivered. */
static int wh_log_transaction(request_rec *r)
{
    const request_rec *first = r, *last = r;
    wh_mod_replay *done = NULL;
    int failed;

    while (first->prev)
        first = first->prev;
    while (last->next)
        last = last->next;
    failed = ap_is_HTTP_SERVER_ERROR(last->status);
    for (const request_rec *q = first; q; q = q->next) {
        const wh_mod_state *st = wh_mod_state_of(q);
        if (st == NULL || st->phase != WH_ST_VERIFIED || st->claim == NULL
            || wh_mod_replay_of_claim(st->claim) == done)
            continue;
        done = wh_mod_replay_of_claim(st->claim);
        if (!failed) {
            wh_mod_replay_confirm(r, st->claim, st->config->cfg);
            continue;
        }
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00904)
                      "application answered %d for notificationId=%s: "
                      "removed from the replay store so a retry is delivered",
                      last->status, st->verdict.facts.notification_id);
        wh_mod_replay_forget(r, st->claim);
    }
    return DECLINED;
}

void wh_mod_verify_register(void)
{
    static const char *const after_core[] = {"core.c", NULL};
    ap_hook_post_read_request(wh_post_read_request, NULL, NULL,
                              APR_HOOK_REALLY_FIRST);
    /* after core's fixup (SetHandler), before mod_rewrite's per-dir rules */
    ap_hook_fixups(wh_fixups, after_core, NULL, APR_HOOK_REALLY_FIRST);
    /* ahead of every handler, including ones that ask to be REALLY_FIRST */
    ap_hook_handler(wh_guard, NULL, NULL, APR_HOOK_REALLY_FIRST - 10);
    ap_hook_insert_error_filter(wh_insert_error_filter, NULL, NULL,
                                APR_HOOK_MIDDLE);
    ap_hook_log_transaction(wh_log_transaction, NULL, NULL, APR_HOOK_MIDDLE);
    /* ahead of the protocol filters, which send the status line */
    confirm_handle = ap_register_output_filter(WH_MOD_CONFIRM_FILTER,
                                               confirm_filter, NULL,
                                               AP_FTYPE_CONTENT_SET);
}
