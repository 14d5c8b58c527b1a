/* Building one probe's request: a fresh notification, its body ops, the
 * timestamp, the signature (the core's HMAC, over exactly what the
 * receiver checks) and the headers, each transformation as
 * docs/probe.md defines it. Secrets stay out of everything a report
 * prints: a header carries what is sent and what may be shown. */
#include "wh_probe_int.h"
#include "verify/wh_signature.h"
#include <apr_base64.h>
#include <apr_strings.h>
#include <openssl/rand.h>
#include <string.h>

static void random_bytes(const wh_probe_ctx *ctx, unsigned char *buf,
                         apr_size_t n)
{
    if (ctx->random)
        ctx->random(ctx->random_ctx, buf, n);
    else if (RAND_bytes(buf, (int)n) != 1)
        memset(buf, 0, n); /* never reached on a working OpenSSL */
}

static const char *random_hex(apr_pool_t *p, const wh_probe_ctx *ctx,
                              apr_size_t digits)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[64];
    char *out = apr_palloc(p, digits + 1);
    random_bytes(ctx, b, (digits + 1) / 2);
    for (apr_size_t i = 0; i < digits; i++)
        out[i] = hex[i % 2 ? b[i / 2] & 15 : b[i / 2] >> 4];
    out[digits] = '\0';
    return out;
}

/* A random UUID (version 4): the notificationId of each request. */
static const char *fresh_id(apr_pool_t *p, const wh_probe_ctx *ctx)
{
    unsigned char b[16];
    random_bytes(ctx, b, sizeof(b));
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    return apr_psprintf(p,
                        "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                        "%02x%02x%02x%02x%02x%02x",
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8],
                        b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static const char *rfc3339(apr_pool_t *p, apr_time_t now)
{
    apr_time_exp_t tm;
    apr_time_exp_gmt(&tm, now);
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                        tm.tm_sec);
}

static void add_header(wh_probe_req *req, const char *name, const char *value,
                       const char *shown)
{
    wh_probe_header *h = apr_array_push(req->headers);
    h->name = name;
    h->value = value;
    h->shown = shown ? shown : value;
}

/* -------------------------------------------------------------- parts --- */

static const char *ts_value(apr_pool_t *p, const wh_config *cfg,
                            const wh_ts_spec *ts, apr_time_t now)
{
    apr_int64_t shift = ts->tolerances * cfg->timestamp_tolerance
                        + ts->seconds;
    int ms = cfg->timestamp_unit == WH_TS_MILLISECONDS;
    if (ts->other_unit)
        ms = !ms;
    apr_int64_t v = ms ? apr_time_as_msec(now) + shift * 1000
                       : apr_time_sec(now) + shift;
    return apr_psprintf(p, "%" APR_INT64_T_FMT "%s", v,
                        ts->suffix ? ts->suffix : "");
}

static const char *sig_value(apr_pool_t *p, const wh_probe_ctx *ctx,
                             const wh_sig_spec *sg, const char *hex)
{
    char *s;
    switch (sg->kind) {
    case WH_SIG_RANDOM: return random_hex(p, ctx, WH_SIG_HEX_LEN);
    case WH_SIG_TRUNCATE: return apr_pstrmemdup(p, hex, (apr_size_t)sg->n);
    case WH_SIG_APPEND: return apr_pstrcat(p, hex, sg->text, NULL);
    case WH_SIG_REPLACE:
        return apr_pstrcat(p, apr_pstrmemdup(p, hex, (apr_size_t)sg->n),
                           sg->text, hex + sg->n + 1, NULL);
    case WH_SIG_UPPERCASE:
        s = apr_pstrdup(p, hex);
        for (char *c = s; *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'f' ? *c - 32 : *c);
        return s;
    case WH_SIG_PREFIX: return apr_pstrcat(p, sg->text, hex, NULL);
    default: return hex;
    }
}

static const char *basic(apr_pool_t *p, const char *user, const char *password)
{
    const char *pair = apr_pstrcat(p, user, ":", password, NULL);
    int n = (int)strlen(pair);
    char *enc = apr_palloc(p, (apr_size_t)apr_base64_encode_len(n));
    apr_base64_encode(enc, pair, n);
    return apr_pstrcat(p, "Basic ", enc, NULL);
}

static const char *add_auth(apr_pool_t *p, const wh_probe_ctx *ctx,
                            const wh_probe_parts *pp, wh_probe_req *req)
{
    const char *user = ctx->user;
    switch (pp->auth) {
    case WH_AUTH_NONE: return NULL;
    case WH_AUTH_HEADER:
        add_header(req, "Authorization", pp->auth_header, NULL);
        return NULL;
    case WH_AUTH_UNKNOWN_USER:
        user = apr_pstrcat(p, "wirehook-probe-", random_hex(p, ctx, 12), NULL);
        add_header(req, "Authorization",
                   basic(p, user, random_hex(p, ctx, 16)),
                   apr_psprintf(p, "Basic (unknown user %s)", user));
        return NULL;
    case WH_AUTH_WRONG_PASSWORD:
        if (!user)
            return "no Basic credentials";
        add_header(req, "Authorization",
                   basic(p, user,
                         apr_pstrcat(p, "wirehook-probe-",
                                     random_hex(p, ctx, 16), NULL)),
                   apr_psprintf(p, "Basic (user %s, a wrong password)", user));
        return NULL;
    default:
        if (!user || !ctx->password)
            return "no Basic credentials";
        add_header(
            req, "Authorization", basic(p, user, ctx->password),
            apr_psprintf(p, "Basic (user %s, password withheld)", user));
        return NULL;
    }
}

static int pads(const apr_array_header_t *ops, long *n)
{
    for (int i = 0; ops && i < ops->nelts; i++) {
        const wh_body_op *op = &APR_ARRAY_IDX(ops, i, wh_body_op);
        if (op->kind == WH_BODY_PAD) {
            *n = op->n;
            return 1;
        }
    }
    return 0;
}

/* The fresh notification with the probe's body ops: the signed bytes, and
 * the sent ones after "after_signing". */
static const char *make_body(apr_pool_t *p, const wh_probe_ctx *ctx,
                             const wh_probe_set *set, const wh_probe_parts *pp,
                             apr_time_t now, wh_probe_req *req,
                             const char **signed_body, apr_size_t *signed_len)
{
    wh_body_state st = {NULL, NULL, 0};
    const char *err;

    st.tree = wh_probe_body_tree(p, set->notification);
    if (!st.tree)
        return "out of memory";
    req->notification_id = fresh_id(p, ctx);
    if (json_object_is_type(st.tree, json_type_object)) {
        json_object_object_add(st.tree, "notificationId",
                               json_object_new_string(req->notification_id));
        json_object_object_add(st.tree, "eventDateTime",
                               json_object_new_string(rfc3339(p, now)));
    }
    if ((err = wh_probe_body_apply(p, &st, pp->body, ctx->cfg->max_body_size))
        != NULL)
        return err;
    *signed_body = wh_probe_body_snapshot(p, &st, signed_len);
    if ((err = wh_probe_body_apply(p, &st, pp->after_signing,
                                   ctx->cfg->max_body_size))
        != NULL)
        return err;
    wh_probe_body_bytes(p, &st);
    req->body = st.text;
    req->body_len = st.len;
    req->signed_body_differs = st.len != *signed_len
                               || memcmp(st.text, *signed_body, st.len) != 0;
    return NULL;
}

const char *wh_probe_build(apr_pool_t *p, const wh_probe_ctx *ctx,
                           const wh_probe_set *set, const wh_probe_parts *pp,
                           apr_time_t now, wh_probe_req **out)
{
    wh_probe_req *req = apr_pcalloc(p, sizeof(*req));
    const wh_config *cfg = ctx->cfg;
    const char *err, *signed_body, *why = NULL;
    apr_size_t signed_len;
    long excess;

    *out = NULL;
    req->method = pp->method;
    req->headers = apr_array_make(p, 6, sizeof(wh_probe_header));
    req->pace = pp->pace;
    req->pace_seconds = ctx->slow_seconds;
    if (pads(pp->body, &excess)
        && cfg->max_body_size + excess > (apr_int64_t)WH_PROBE_MAX_BODY) {
        req->skipped = "MaxBodySize is beyond the largest body the probe "
                       "builds (64 MiB)";
        *out = req;
        return NULL;
    }
    if ((err = make_body(p, ctx, set, pp, now, req, &signed_body, &signed_len))
        != NULL)
        return err;

    /* the timestamp: late_last_byte's is fresh when the request begins and
     * stale by slow/2 s when its last byte arrives */
    wh_ts_spec late = {0, -1, (long)(ctx->slow_seconds / 2), 0, NULL, NULL};
    const wh_ts_spec *ts = pp->pace == WH_PACE_LATE_LAST_BYTE ? &late
                                                              : &pp->timestamp;
    const char *ts_sent = ts->omit ? NULL : ts_value(p, cfg, ts, now);

    req->signed_method = pp->sign_method ? pp->sign_method : pp->method;
    req->signed_url = ctx->signed_url;
    if (pp->sign_url != WH_URL_SAME)
        req->signed_url = wh_probe_url_change(p, ctx->signed_url, pp->sign_url,
                                              &why);
    if (!req->signed_url) {
        req->skipped = why;
        *out = req;
        return NULL;
    }
    const unsigned char *key = ctx->secret;
    apr_size_t key_len = ctx->secret_len;
    req->signed_with = "the signing secret";
    if (pp->sign_other_secret) {
        key = (const unsigned char *)set->other_secret;
        key_len = strlen(set->other_secret);
        req->signed_with = "another secret (other_secret)";
    }
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[WH_SIG_HEX_LEN + 1];
    if (!key
        || wh_signature_compute(key, key_len, req->signed_method,
                                req->signed_url, signed_body, signed_len,
                                ts_sent ? ts_sent : "", raw)
               != 0)
        return "cannot compute the signature";
    wh_signature_hex(raw, hex);

    if (!pp->content_type_omitted && pp->content_type)
        add_header(req, "Content-Type", pp->content_type, NULL);
    if ((err = add_auth(p, ctx, pp, req)) != NULL)
        return err;
    if (ts->repeat)
        add_header(req, cfg->timestamp_header,
                   ts_value(p, cfg, ts->repeat, now), NULL);
    if (ts_sent)
        add_header(req, cfg->timestamp_header, ts_sent, NULL);
    const wh_sig_spec *sg = &pp->signature;
    if (sg->kind == WH_SIG_REPEAT)
        add_header(req, cfg->signature_header,
                   sig_value(p, ctx, sg->first, hex), NULL);
    if (sg->kind != WH_SIG_OMIT) {
        const char *v = sig_value(p, ctx, sg, apr_pstrdup(p, hex));
        add_header(req, cfg->signature_header, v, NULL);
    }
    if (sg->kind == WH_SIG_OMIT && ts->omit && pp->auth == WH_AUTH_NONE)
        req->signed_method = req->signed_url = NULL; /* a bare request */
    *out = req;
    return NULL;
}
