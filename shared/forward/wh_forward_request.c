/* The request one stored event becomes: the body as received, the facts
 * as Wirehook-* headers (the names the module uses in front of an
 * application), the notificationId as Idempotency-Key, and a signature of
 * the forwarder's own in the bank's scheme, so the application verifies
 * it with the code (or the `wirehook check`/`sign` calls) it would use
 * for the bank. */
#include "wh_forward.h"
#include "verify/wh_schema.h"
#include "verify/wh_signature.h"

#include <apr_lib.h>
#include <apr_strings.h>
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
