/* Forwarding policy: how an answer is classified, how long to wait before
 * the next attempt, when to give up. Pure functions of their arguments
 * (randomness comes in as a number), so every rule is unit-tested. */
#include "wh_forward.h"

#include <apr_date.h>
#include <apr_strings.h>

wh_fwd_class wh_forward_classify(int answered, long status)
{
    if (!answered)
        return WH_FWD_RETRY;          /* refused, reset, timed out, TLS */
    if (status >= 200 && status <= 299)
        return WH_FWD_FORWARDED;
    /* The application says the request itself is wrong: the same bytes
     * will be refused again. 408 and 429 are about timing, not content. */
    if (status >= 400 && status <= 499 && status != 408 && status != 429)
        return WH_FWD_REJECTED;
    /* 5xx, 408, 429; and 1xx/3xx, which only a misconfigured URL or
     * proxy gives (redirects are not followed: the signature names the
     * URL): worth retrying while the operator fixes it. */
    return WH_FWD_RETRY;
}

apr_int64_t wh_forward_backoff_ms(int attempt, apr_int64_t min_ms,
                                  apr_int64_t max_ms, apr_uint64_t rnd)
{
    apr_int64_t d = min_ms > 0 ? min_ms : 1, half;

    if (max_ms < d)
        max_ms = d;
    for (int i = 1; i < attempt && d < max_ms; i++)
        d = d > max_ms / 2 ? max_ms : d * 2;
    if (d > max_ms)
        d = max_ms;
    half = d / 2;
    return half + (apr_int64_t)(rnd % (apr_uint64_t)(d - half + 1));
}

int wh_forward_retry_after(const char *value, apr_time_t now,
                           apr_int64_t *delay_ms)
{
    const apr_int64_t cap = (apr_int64_t)WH_FWD_RETRY_AFTER_MAX_S * 1000;
    const char *s;
    apr_int64_t secs = 0;
    apr_time_t when;

    if (!value)
        return -1;
    while (*value == ' ' || *value == '\t')
        value++;
    if (*value >= '0' && *value <= '9') {
        for (s = value; *s >= '0' && *s <= '9'; s++)
            if (secs <= WH_FWD_RETRY_AFTER_MAX_S)
                secs = secs * 10 + (*s - '0');
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s)
            return -1;
        *delay_ms = secs > WH_FWD_RETRY_AFTER_MAX_S ? cap : secs * 1000;
        return 0;
    }
    when = apr_date_parse_http(value);
    if (when == APR_DATE_BAD)
        return -1;
    if (when <= now) {
        *delay_ms = 0;
        return 0;
    }
    *delay_ms = apr_time_as_msec(when - now);
    if (*delay_ms > cap)
        *delay_ms = cap;
    return 0;
}

void wh_forward_plan(apr_pool_t *p, const wh_config *cfg, wh_fwd_class c,
                     int attempts, apr_time_t first_at, apr_time_t now,
                     apr_int64_t retry_after_ms, apr_uint64_t rnd,
                     wh_fwd_plan *out)
{
    apr_int64_t delay;
    apr_time_t deadline = first_at + apr_time_from_msec(cfg->forward_max_age);

    out->dead = 0;
    out->next_at = now;
    out->reason = NULL;
    if (c == WH_FWD_REJECTED) {
        out->dead = 1;
        out->reason = "rejected by the application";
        return;
    }
    if (attempts >= cfg->forward_max_attempts) {
        out->dead = 1;
        out->reason = apr_psprintf(p, "gave up after %d attempts "
                                   "(ForwardMaxAttempts)", attempts);
        return;
    }
    delay = wh_forward_backoff_ms(attempts, cfg->forward_backoff_min,
                                  cfg->forward_backoff_max, rnd);
    if (retry_after_ms > delay)
        delay = retry_after_ms;
    out->next_at = now + apr_time_from_msec(delay);
    if (out->next_at > deadline) {
        out->dead = 1;
        out->reason = apr_psprintf(p, "gave up after %d attempts: the next "
                                   "would start past ForwardMaxAge", attempts);
    }
}

apr_int64_t wh_forward_lease_ms(const wh_config *cfg)
{
    apr_int64_t margin = cfg->forward_timeout;

    if (margin < WH_FWD_LEASE_MARGIN_MIN_MS)
        margin = WH_FWD_LEASE_MARGIN_MIN_MS;
    if (margin > WH_FWD_LEASE_MARGIN_MAX_MS)
        margin = WH_FWD_LEASE_MARGIN_MAX_MS;
    return cfg->forward_timeout + margin;
}
