/* The request one stored event becomes: the body as received, the facts
 * as Wirehook-* headers (the names the module uses in front of an
 * application), the notificationId as Idempotency-Key, a W3C traceparent
 * (the event's trace, this attempt's span), and a signature of the
 * forwarder's own in the bank's scheme, so the application verifies it
 * with the code (or the `wirehook check`/`sign` calls) it would use for
 * the bank. */
#include "wh_forward.h"
#include "verify/wh_schema.h"
#include "verify/wh_signature.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

/* A JSON string may hold "\r\n": a fact must never split a header. The
 * module replaces control characters the same way. */
static const char *header_safe(apr_pool_t *p, const char *v)
{
    char *s = apr_pstrdup(p, v);

    for (char *c = s; *c; c++)
        if (apr_iscntrl((unsigned char)*c))
            *c = '?';
    return s;
}

static void add(apr_array_header_t *h, apr_pool_t *p, const char *name,
                const char *value)
{
    if (value)
        APR_ARRAY_PUSH(h, const char *) =
            apr_pstrcat(p, name, ": ", header_safe(p, value), NULL);
}

static int all_zero(const char *hex)
{
    return hex[strspn(hex, "0")] == '\0';
}

/* A UUID's 32 hex digits, lowercase, into out: 1, or 0 when s is no
 * UUID (8-4-4-4-12) or is the nil one (no valid trace id). */
static int uuid_digits(const char *s, char out[33])
{
    static const int dash[] = { 8, 13, 18, 23 };
    int k = 0, d = 0;

    if (!s || strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        if (d < 4 && i == dash[d]) {
            if (s[i] != '-')
                return 0;
            d++;
        } else if (apr_isxdigit((unsigned char)s[i])) {
            out[k++] = (char)apr_tolower((unsigned char)s[i]);
        } else {
            return 0;
        }
    }
    out[32] = '\0';
    return !all_zero(out);
}

const char *wh_forward_trace_id(apr_pool_t *p, const char *notification_id)
{
    char *id = apr_palloc(p, 33);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    const char *nid = notification_id ? notification_id : "";

    /* the notificationId the bank quotes finds the delivery in the
     * application's traces */
    if (uuid_digits(nid, id))
        return id;
    /* anything else (the schema wants a UUID, but the inbox takes what
     * it is given): still one trace per event, the same at each attempt */
    if (!EVP_Digest(nid, strlen(nid), md, &n, EVP_sha256(), NULL) || n < 16)
        return NULL;
    for (int i = 0; i < 16; i++)
        apr_snprintf(id + 2 * i, 3, "%02x", md[i]);
    if (all_zero(id))
        id[31] = '1';
    return id;
}

/* W3C Trace Context: version 00, the event's trace, a new span for each
 * attempt (random, never all zeros), sampled, so that the application's
 * tracer records the delivery. */
static const char *traceparent(apr_pool_t *p, const char *notification_id)
{
    const char *trace = wh_forward_trace_id(p, notification_id);
    unsigned char span[8];
    char hex[17];

    do {
        if (!trace || RAND_bytes(span, sizeof(span)) != 1)
            return NULL;
        for (int i = 0; i < 8; i++)
            apr_snprintf(hex + 2 * i, 3, "%02x", span[i]);
    } while (all_zero(hex));
    return apr_pstrcat(p, "00-", trace, "-", hex, "-01", NULL);
}

apr_array_header_t *wh_forward_headers(apr_pool_t *p, const wh_config *cfg,
                                       const wh_secret *secret,
                                       const wh_fwd_event *ev, apr_time_t now)
{
    apr_array_header_t *h = apr_array_make(p, 14, sizeof(const char *));
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[WH_SIG_HEX_LEN + 1];
    apr_int64_t t = cfg->timestamp_unit == WH_TS_MILLISECONDS
                        ? (apr_int64_t)apr_time_as_msec(now)
                        : (apr_int64_t)apr_time_sec(now);
    const char *ts = apr_psprintf(p, "%" APR_INT64_T_FMT, t);

    if (!secret || !cfg->forward_url ||
        wh_signature_compute(secret->key, secret->len, "POST", cfg->forward_url,
                             ev->body, ev->body_len, ts, raw) != 0)
        return NULL;
    wh_signature_hex(raw, hex);

    add(h, p, "Content-Type", "application/json");
    add(h, p, cfg->timestamp_header, ts);
    add(h, p, cfg->signature_header, hex);
    add(h, p, "Idempotency-Key", ev->notification_id);
    add(h, p, "Wirehook-Verified", "1");
    add(h, p, "Wirehook-Notification-Id", ev->notification_id);
    add(h, p, "Wirehook-Event-Type", ev->event_type);
    add(h, p, "Wirehook-Event-Time", ev->event_time);
    add(h, p, "Wirehook-Payment-Id", ev->payment_id);
    add(h, p, "Wirehook-Status", ev->status);
    add(h, p, "Wirehook-Status-Known",
        ev->status && wh_schema_status_known(ev->status) ? "1" : "0");
    add(h, p, "Wirehook-Attempt", apr_psprintf(p, "%d", ev->attempt));
    add(h, p, "traceparent", traceparent(p, ev->notification_id));
    return h;
}

const char *wh_forward_secret_load(apr_pool_t *p, const wh_config *cfg,
                                   const wh_secret **out)
{
    apr_array_header_t *secrets = NULL;
    const char *err;

    if (!cfg->forward_url || !cfg->forward_secret_file)
        return "forwarding is not configured (ForwardUrl and "
               "ForwardSecretFile)";
    if ((err = wh_secrets_load(p, cfg->forward_secret_file, &secrets)) != NULL)
        return apr_psprintf(p, "%sForwardSecretFile: %s",
                            wh_config_where(p, cfg, "ForwardSecretFile"), err);
    *out = &APR_ARRAY_IDX(secrets, 0, wh_secret);
    return NULL;
}
