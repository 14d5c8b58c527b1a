/* `SetHandler wirehook-metrics`: the metrics of every configuration this
 * server loaded, as mod_status shows them, in Prometheus's text format.
 * This file only gathers: the counters and the latency from shared
 * memory (wh_mod_status.c), the replay store's state (wh_mod_replay.c),
 * the inbox's and the forwarder's figures through the core's reads on
 * this child's connection (wh_metrics_read_inbox: indexed, bounded by
 * the backlog, never by the events stored); the core writes the text.
 *
 * Who may scrape is httpd's Require, as for the console; the metrics
 * hold counts and configuration paths, no payment and no secret
 * (docs/monitoring.md suggests `Require local`). Its <Location> must not
 * be under a WirehookConfig: the guard would verify the GET as a
 * notification and refuse it. */
#include "wh_mod_metrics.h"
#include "wh_mod_status.h"
#include "wh_mod_replay.h"
#include "wh_mod_config_inbox.h"
#include "metrics/wh_metrics.h"
#include "verify/wh_version.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include <apr_strings.h>

static void gather(request_rec *r, wh_mod_config *config, apr_time_t now,
                   wh_metrics_config *m)
{
    const wh_mod_replay *rp = config->replay;

    memset(m, 0, sizeof(*m));
    m->config = config->path;
    wh_mod_stats_metrics(config, r->pool, m);
    if (rp) {
        m->replay_provider = wh_mod_replay_provider(rp);
        m->replay_fill_known =
            wh_mod_replay_fill(rp, &m->replay_live, &m->replay_capacity) == 0;
        /* a store that can count its ids answered; another is asked */
        m->replay_up = m->replay_fill_known || wh_mod_replay_health(rp, r->pool) == 0;
    }
    wh_metrics_read_inbox(r->pool, config->cfg->inbox_params ? wh_mod_inbox_get(r, config)
                                                            : NULL,
                          config->cfg, now, m);
}

static int metrics_handler(request_rec *r)
{
    wh_metrics m;
    wh_metrics_config *c;
    apr_time_t now = apr_time_now();
    apr_size_t len = 0;
    const char *text;
    int n = wh_mod_stats_nconfigs(), k = 0, rc;

    if (!r->handler || strcmp(r->handler, WH_MOD_METRICS) != 0)
        return DECLINED;
    r->allowed = AP_METHOD_BIT << M_GET;
    if (r->method_number != M_GET)
        return HTTP_METHOD_NOT_ALLOWED;
    if ((rc = ap_discard_request_body(r)) != OK)
        return rc;
    memset(&m, 0, sizeof(m));
    m.version = wh_version();
    m.counters_since = wh_mod_stats_since();
    c = apr_pcalloc(r->pool, sizeof(*c) * (apr_size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        wh_mod_config *config = wh_mod_stats_config(i);
        if (config)
            gather(r, config, now, &c[k++]);
    }
    m.configs = c;
    m.nconfigs = k;
    text = wh_metrics_render(r->pool, &m, &len);
    ap_set_content_type(r, WH_METRICS_CONTENT_TYPE);
    ap_set_content_length(r, (apr_off_t)len);
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    if (!r->header_only)
        ap_rwrite(text, (int)len, r);
    return OK;
}

void wh_mod_metrics_register(void)
{
    ap_hook_handler(metrics_handler, NULL, NULL, APR_HOOK_MIDDLE);
}
