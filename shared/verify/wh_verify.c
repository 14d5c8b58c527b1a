#include "wh_verify.h"
#include "wh_creds.h"
#include "wh_schema.h"
#include "wh_signature.h"
#include "wh_timestamp.h"
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* Slots in the cache of successful Basic-auth checks: a webhook sender
 * uses one or two credentials, so this is generous and still tiny. */
#define WH_AUTH_CACHE_SLOTS 256

struct wh_verifier {
    const wh_config *cfg;
    wh_logger log;
    wh_creds *creds;          /* the secrets and users, re-read on change */
    wh_auth_cache *auth_cache;
    const char *www_authenticate;
};

static wh_verifier *verifier_create(apr_pool_t *p, const wh_config *cfg,
                                    const wh_logger *log, unsigned auth_slots,
                                    int watch_files)
{
    wh_verifier *vf = apr_pcalloc(p, sizeof(*vf));
    vf->cfg = cfg;
    if (log)
        vf->log = *log;
    vf->creds = watch_files ? wh_creds_create(p, cfg) : NULL;
    vf->auth_cache = wh_auth_cache_create(p, cfg->auth_cache_ttl, auth_slots);
    vf->www_authenticate = apr_psprintf(p, "Basic realm=\"%s\", charset=\"UTF-8\"",
                                        cfg->auth_realm ? cfg->auth_realm : "wirehook");
    return vf;
}

wh_verifier *wh_verifier_create(apr_pool_t *p, const wh_config *cfg,
                                const wh_logger *log)
{
    return verifier_create(p, cfg, log, WH_AUTH_CACHE_SLOTS, 1);
}

wh_verifier *wh_verifier_create_once(apr_pool_t *p, const wh_config *cfg,
                                     const wh_logger *log)
{
    return verifier_create(p, cfg, log, 1, 0);
}

const wh_config *wh_verifier_config(const wh_verifier *vf)
{
    return vf->cfg;
}

wh_auth_cache *wh_verifier_auth_cache(wh_verifier *vf)
{
    return vf->auth_cache;
}

static const char *header(const wh_request *req, const char *name)
{
    return req->header ? req->header(req->header_ctx, name) : NULL;
}

static int check_method(const wh_request *req, wh_verdict *v)
{
    if (req->method && strcmp(req->method, "POST") == 0)
        return 0;
    v->allow = "POST";
    return wh_verdict_fail(v, 405, WH_CODE_METHOD_NOT_ALLOWED,
                           "only POST is allowed here");
}

wh_creds *wh_verifier_creds(wh_verifier *vf)
{
    return vf->creds;
}

int wh_verify_auth(wh_verifier *vf, const wh_request *req, wh_verdict *v,
                   apr_pool_t *p)
{
    const wh_logger *log = req->log ? req->log : &vf->log;
    const char *user = NULL;
    int checked = 0;
    unsigned generation = 0;
    wh_creds_version *held = NULL;
    apr_hash_t *users = vf->creds ? wh_creds_users(vf->creds, req->now, log,
                                                   &held, &generation)
                                  : vf->cfg->users;
    wh_auth_result r = wh_auth_check_gen(p, users, generation, vf->auth_cache,
                                         header(req, "Authorization"), req->now,
                                         &user, &checked);
    wh_creds_release(vf->creds, held);
    if (checked && r == WH_AUTH_OK)
        /* once per credential per AuthCacheTTL in steady use */
        wh_logf(log, WH_LOG_DEBUG,
                "auth: password of user %s checked against BasicAuthFile", user);
    if (r == WH_AUTH_OK) {
        v->facts.user = user;
        return 0;
    }
    v->www_authenticate = vf->www_authenticate;
    if (r == WH_AUTH_MISSING)
        return wh_verdict_fail(v, 401, WH_CODE_AUTH_REQUIRED,
                               "Basic authentication is required");
    return wh_verdict_fail(v, 401, WH_CODE_AUTH_FAILED,
                           "the user name or password is wrong");
}

/* application/json with optional parameters; JSON is UTF-8 (RFC 8259), so
 * a charset parameter, when present, must say so. */
static int check_content_type(const wh_request *req, wh_verdict *v, apr_pool_t *p)
{
    const char *ct = header(req, "Content-Type");
    const char *semi, *params;
    size_t len;

    if (!ct)
        return wh_verdict_fail(v, 415, WH_CODE_UNSUPPORTED_MEDIA,
                               "Content-Type must be application/json");
    semi = strchr(ct, ';');
    len = semi ? (size_t)(semi - ct) : strlen(ct);
    while (len > 0 && apr_isspace(ct[len - 1]))
        len--;
    while (len > 0 && apr_isspace(*ct)) {
        ct++;
        len--;
    }
    if (len != strlen("application/json") || strncasecmp(ct, "application/json", len) != 0)
        return wh_verdict_fail(v, 415, WH_CODE_UNSUPPORTED_MEDIA,
                               "Content-Type must be application/json");
    for (params = semi; params; params = strchr(params + 1, ';')) {
        const char *q = params + 1;
        while (apr_isspace(*q))
            q++;
        if (strncasecmp(q, "charset=", 8) == 0) {
            char *val = apr_pstrdup(p, q + 8);
            char *end = strchr(val, ';');
            if (end)
                *end = '\0';
            apr_collapse_spaces(val, val);
            if (*val == '"' && strlen(val) >= 2) {
                val++;
                val[strlen(val) - 1] = '\0';
            }
            if (strcasecmp(val, "utf-8") != 0 && strcasecmp(val, "utf8") != 0)
                return wh_verdict_fail(v, 415, WH_CODE_UNSUPPORTED_MEDIA,
                                       "JSON must be sent as UTF-8");
        }
    }
    return 0;
}

/* The signature covers the body bytes as sent; a compressed body could be
 * neither schema-checked nor handed on as the verified JSON, and the bank
 * sends plain JSON. */
static int check_content_encoding(const wh_request *req, wh_verdict *v)
{
    const char *ce = header(req, "Content-Encoding");
    size_t n;

    if (!ce)
        return 0;
    while (apr_isspace(*ce))
        ce++;
    n = strlen(ce);
    while (n > 0 && apr_isspace(ce[n - 1]))
        n--;
    if (n == 0 || (n == 8 && strncasecmp(ce, "identity", 8) == 0))
        return 0;
    return wh_verdict_fail(v, 415, WH_CODE_UNSUPPORTED_MEDIA,
                           "Content-Encoding is not supported: send the JSON body as is");
}

static int too_large(const wh_config *cfg, wh_verdict *v)
{
    v->close_connection = 1;
    return wh_verdict_fail(v, 413, WH_CODE_BODY_TOO_LARGE,
                           apr_psprintf(v->details->pool,
                                        "the body exceeds %" APR_INT64_T_FMT " bytes",
                                        cfg->max_body_size));
}

static int check_content_length(const wh_config *cfg, const wh_request *req,
                                wh_verdict *v)
{
    const char *cl = header(req, "Content-Length");
    apr_off_t len;
    char *end;

    if (!cl)
        return 0;  /* chunked: the host enforces the budget while reading */
    if (!apr_isdigit(*cl) || apr_strtoff(&len, cl, &end, 10) != APR_SUCCESS || *end)
        return wh_verdict_fail(v, 400, WH_CODE_BAD_REQUEST,
                               "Content-Length is not a number");
    if (len > cfg->max_body_size)
        return too_large(cfg, v);
    return 0;
}

int wh_verify_envelope(wh_verifier *vf, const wh_request *req,
                       wh_verdict *v, apr_pool_t *p)
{
    if (check_method(req, v) || wh_verify_auth(vf, req, v, p) ||
        check_content_type(req, v, p) || check_content_encoding(req, v) ||
        check_content_length(vf->cfg, req, v))
        return v->status;
    v->ok = 1;
    return v->status;
}

static int check_timestamp(const wh_config *cfg, const wh_request *req,
                           wh_verdict *v, const char **ts_out,
                           apr_time_t *signed_at)
{
    const char *ts = header(req, cfg->timestamp_header);
    apr_int64_t skew = 0;

    if (!ts)
        return wh_verdict_fail(v, 401, WH_CODE_TS_MISSING,
                               apr_psprintf(v->details->pool, "the %s header is missing",
                                            cfg->timestamp_header));
    switch (wh_timestamp_check(ts, cfg->timestamp_unit, cfg->timestamp_tolerance,
                               req->now, &skew)) {
    case WH_TS_OK:
        *ts_out = ts;
        (void)wh_timestamp_parse(ts, cfg->timestamp_unit, signed_at);
        return 0;
    case WH_TS_MALFORMED:
        return wh_verdict_fail(v, 401, WH_CODE_TS_MALFORMED,
                               apr_psprintf(v->details->pool,
                                            "the %s header must be digits only",
                                            cfg->timestamp_header));
    case WH_TS_EXPIRED:
        return wh_verdict_fail(v, 401, WH_CODE_TS_EXPIRED,
                               apr_psprintf(v->details->pool,
                                            "the timestamp is %" APR_INT64_T_FMT
                                            " s old; at most %" APR_INT64_T_FMT " s is accepted",
                                            -skew, cfg->timestamp_tolerance));
    case WH_TS_FUTURE:
    default:
        return wh_verdict_fail(v, 401, WH_CODE_TS_FUTURE,
                               apr_psprintf(v->details->pool,
                                            "the timestamp is %" APR_INT64_T_FMT
                                            " s ahead; at most %" APR_INT64_T_FMT " s is accepted",
                                            skew, cfg->timestamp_tolerance));
    }
}

static int check_signature(wh_verifier *vf, const wh_request *req,
                           const char *ts, wh_verdict *v)
{
    const wh_config *cfg = vf->cfg;
    const char *sig = header(req, cfg->signature_header);
    unsigned char given[WH_SIG_RAW_LEN];
    const wh_logger *log = req->log ? req->log : &vf->log;
    wh_creds_version *held = NULL;
    const apr_array_header_t *secrets;
    int matched;

    if (!sig)
        return wh_verdict_fail(v, 401, WH_CODE_SIG_MISSING,
                               apr_psprintf(v->details->pool, "the %s header is missing",
                                            cfg->signature_header));
    if (wh_signature_decode(sig, given) != 0)
        return wh_verdict_fail(v, 401, WH_CODE_SIG_MALFORMED,
                               apr_psprintf(v->details->pool,
                                            "the %s header must be exactly 64 hex digits",
                                            cfg->signature_header));
    secrets = vf->creds ? wh_creds_secrets(vf->creds, req->now, log, &held)
                        : cfg->secrets;
    matched = wh_signature_match(secrets, req->method, req->url ? req->url : "",
                                 req->body ? req->body : "", req->body_len, ts,
                                 given);
    int tried = secrets ? secrets->nelts : 0;
    wh_creds_release(vf->creds, held);
    if (matched < 0) {
        /* Enough to debug URL form, clock or proxy problems; nothing that
         * helps forge a signature. */
        wh_logf(log, WH_LOG_DEBUG,
                "signature mismatch: signed text was method=%s url=%s timestamp=%s "
                "body_length=%" APR_SIZE_T_FMT "; %d secret(s) tried",
                req->method, req->url ? req->url : "", ts, req->body_len, tried);
        return wh_verdict_fail(v, 401, WH_CODE_SIG_MISMATCH,
                               "the signature does not match the request");
    }
    v->authentic = 1;
    return 0;
}

/* Strict JSON and the schema, in one pass over the body; the facts come
 * with it. */
static int check_body(const wh_config *cfg, const wh_request *req,
                      wh_verdict *v, apr_pool_t *p)
{
    wh_schema_opts opts = { cfg->unknown_status_reject };
    const char *why;
    int problems = wh_schema_check(p, req->body ? req->body : "", req->body_len,
                                   &opts, v->details, &v->facts, &why);

    if (problems == WH_SCHEMA_NOT_JSON)
        return wh_verdict_fail(v, 400, WH_CODE_INVALID_JSON,
                               apr_pstrcat(p, "the body is not valid JSON: ", why, NULL));
    if (problems > 0)
        return wh_verdict_fail(v, 400, WH_CODE_SCHEMA_VIOLATION,
                               "the notification does not match the schema");
    return 0;
}

int wh_verify_payload(wh_verifier *vf, const wh_request *req,
                      wh_verdict *v, apr_pool_t *p)
{
    const char *ts = NULL;
    apr_time_t signed_at = 0;
    int failed;

    v->ok = 0;
    if (req->body_overflow || req->body_len > (apr_size_t)vf->cfg->max_body_size)
        return too_large(vf->cfg, v);
    failed = check_timestamp(vf->cfg, req, v, &ts, &signed_at) ||
             check_signature(vf, req, ts, v) || check_body(vf->cfg, req, v, p);
    /* after check_body: the schema check fills the facts afresh */
    v->facts.signed_at = signed_at;
    if (failed)
        return v->status;
    v->ok = 1;
    v->status = 200;
    v->code = WH_CODE_ACCEPTED;
    v->message = "accepted";
    return v->status;
}

int wh_verify_fresh_at(const wh_verifier *vf, const wh_verdict *v, apr_time_t now)
{
    /* strictly before: a record kept until exactly now counts as gone */
    return now < v->facts.signed_at + apr_time_from_sec(vf->cfg->timestamp_tolerance);
}

int wh_verify(wh_verifier *vf, const wh_request *req, wh_verdict *v,
              apr_pool_t *p)
{
    if (wh_verify_envelope(vf, req, v, p) != 200 || !v->ok)
        return v->status;
    return wh_verify_payload(vf, req, v, p);
}

/* Where the path of an absolute-form request target ("http://host/p?q",
 * which HTTP/1.1 servers must accept and a client talking to a proxy
 * sends) begins: past "scheme://authority". NULL for any other form (the
 * usual origin-form "/p?q"). */
static const char *absolute_form_path(const char *target)
{
    const char *c = target;

    if (!apr_isalpha(*c))
        return NULL;
    while (apr_isalnum(*c) || *c == '+' || *c == '-' || *c == '.')
        c++;
    if (strncmp(c, "://", 3) != 0)
        return NULL;
    return c + 3 + strcspn(c + 3, "/?#");
}

const char *wh_request_url(apr_pool_t *p, const wh_config *cfg,
                           const char *scheme, const char *host_header,
                           const char *unparsed_uri)
{
    const char *target = unparsed_uri && *unparsed_uri ? unparsed_uri : "/";
    const char *path;

    if (cfg && cfg->signed_url)
        return cfg->signed_url;
    path = absolute_form_path(target);
    if (cfg && cfg->signed_url_form == WH_URL_PATH) {
        if (!path)
            return target;
        return *path == '/' ? path : apr_pstrcat(p, "/", path, NULL);
    }
    /* absolute-form: the URL the sender addressed, as it sent it */
    if (path)
        return target;
    return apr_pstrcat(p, scheme ? scheme : "http", "://",
                       host_header ? host_header : "", target, NULL);
}
