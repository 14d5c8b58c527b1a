/* wirehook's metrics in Prometheus's text format (wh_metrics.h): the
 * names, their help and labels, and which figures each host shows. A
 * family is written only when some configuration has its figure; each
 * family's samples follow its HELP and TYPE lines, configuration by
 * configuration. */
#include "wh_metrics.h"
#include "wh_expo.h"

#include <apr_strings.h>
#include <stdio.h>

#define WH_METRICS_BOUND_ROW(us) (us),
static const apr_interval_time_t latency_bounds[] = {
    WH_METRICS_LATENCY_BOUNDS(WH_METRICS_BOUND_ROW)
};

int wh_metrics_latency_bucket(apr_interval_time_t took)
{
    int i = 0;

    while (i < WH_METRICS_LATENCY_BOUNDS_N && took > latency_bounds[i])
        i++;
    return i;
}

typedef int (*has_fn)(const wh_metrics_config *c);

/* The family's HELP and TYPE, when some configuration has it: 1. */
static int family(wh_expo *e, const wh_metrics *m, has_fn has, const char *name,
                  const char *type, const char *help)
{
    for (int i = 0; i < m->nconfigs; i++)
        if (has(&m->configs[i])) {
            wh_expo_family(e, name, type, help);
            return 1;
        }
    return 0;
}

/* A gauge or counter with one sample per configuration that has it. */
typedef apr_uint64_t (*value_fn)(const wh_metrics_config *c);
static void per_config(wh_expo *e, const wh_metrics *m, has_fn has, value_fn v,
                       const char *name, const char *type, const char *help)
{
    if (!family(e, m, has, name, type, help))
        return;
    for (int i = 0; i < m->nconfigs; i++) {
        const wh_metrics_config *c = &m->configs[i];
        const char *l[] = { "config", c->config, NULL };
        if (has(c))
            wh_expo_u64(e, name, l, v(c));
    }
}

static int counted(const wh_metrics_config *c) { return c->counted; }
static int counted_inbox(const wh_metrics_config *c) { return c->counted && c->has_inbox; }
static int replay(const wh_metrics_config *c) { return c->replay_provider != NULL; }
static int replay_fill(const wh_metrics_config *c)
{
    return c->replay_provider && c->replay_fill_known;
}
static int replay_limit(const wh_metrics_config *c)
{
    return replay_fill(c) && c->replay_capacity > 0;
}
static int inbox(const wh_metrics_config *c) { return c->has_inbox; }
static int inbox_read(const wh_metrics_config *c) { return c->has_inbox && c->inbox_up; }
static int purged(const wh_metrics_config *c) { return inbox_read(c) && c->last_purge > 0; }
static int forward(const wh_metrics_config *c) { return inbox_read(c) && c->forwards && c->forward_known; }
static int attempts(const wh_metrics_config *c) { return forward(c) && c->attempts_known; }

static apr_uint64_t v_replay_up(const wh_metrics_config *c) { return c->replay_up != 0; }
static apr_uint64_t v_replay_live(const wh_metrics_config *c) { return c->replay_live; }
static apr_uint64_t v_replay_cap(const wh_metrics_config *c) { return c->replay_capacity; }
static apr_uint64_t v_inbox_up(const wh_metrics_config *c) { return c->inbox_up != 0; }
static apr_uint64_t v_events(const wh_metrics_config *c) { return (apr_uint64_t)c->events; }
static apr_uint64_t v_held(const wh_metrics_config *c) { return (apr_uint64_t)c->quarantined; }
static apr_uint64_t v_purge(const wh_metrics_config *c)
{
    return (apr_uint64_t)apr_time_sec(c->last_purge);
}
static apr_uint64_t v_backlog(const wh_metrics_config *c) { return (apr_uint64_t)c->backlog; }
static apr_uint64_t v_unqueued(const wh_metrics_config *c) { return (apr_uint64_t)c->unqueued; }
static apr_uint64_t v_retrying(const wh_metrics_config *c) { return (apr_uint64_t)c->retrying; }
static apr_uint64_t v_dead(const wh_metrics_config *c) { return (apr_uint64_t)c->dead; }

static void answers(wh_expo *e, const wh_metrics *m)
{
    static const char name[] = "wirehook_notifications_total";

    if (!family(e, m, counted, name, "counter",
                "Notifications (POSTs) answered, by the code answered: accepted, "
                "duplicate, or the error code (docs/errors.md)."))
        return;
    for (int i = 0; i < m->nconfigs; i++) {
        const wh_metrics_config *c = &m->configs[i];
        for (int k = 0; c->counted && k < c->nanswers; k++) {
            const char *l[] = { "config", c->config, "code", c->answers[k].code, NULL };
            wh_expo_u64(e, name, l, c->answers[k].n);
        }
    }
}

static void inbox_stores(wh_expo *e, const wh_metrics *m)
{
    static const char name[] = "wirehook_inbox_stores_total";

    if (!family(e, m, counted_inbox, name, "counter",
                "POSTs the inbox handler stored, found already held (duplicate), "
                "or could not store (unavailable)."))
        return;
    for (int i = 0; i < m->nconfigs; i++) {
        const wh_metrics_config *c = &m->configs[i];
        const char *results[] = { "stored", "duplicate", "unavailable" };
        apr_uint64_t n[] = { c->inbox_stored, c->inbox_duplicate, c->inbox_unavailable };
        for (int k = 0; counted_inbox(c) && k < 3; k++) {
            const char *l[] = { "config", c->config, "result", results[k], NULL };
            wh_expo_u64(e, name, l, n[k]);
        }
    }
}

/* A bound in seconds as le says it: "0.0005", "2.5", "10". */
static const char *bound_label(apr_pool_t *p, int b)
{
    char v[32];

    snprintf(v, sizeof(v), "%g", (double)latency_bounds[b] / APR_USEC_PER_SEC);
    return apr_pstrdup(p, v);
}

static void latency(wh_expo *e, const wh_metrics *m, apr_pool_t *p)
{
    static const char name[] = "wirehook_verification_duration_seconds";

    if (!family(e, m, counted, name, "histogram",
                "Time from a notification's arrival to wirehook's answer, or to its "
                "hand-over to the application: the body read, the checks, the replay "
                "store and, for the inbox, the store."))
        return;
    for (int i = 0; i < m->nconfigs; i++) {
        const wh_metrics_config *c = &m->configs[i];
        const char *l[] = { "config", c->config, NULL, NULL, NULL };
        apr_uint64_t cumulative = 0;
        if (!c->counted)
            continue;
        l[2] = "le";
        for (int b = 0; b < WH_METRICS_LATENCY_BUCKETS; b++) {
            cumulative += c->latency[b];
            l[3] = b < WH_METRICS_LATENCY_BOUNDS_N ? bound_label(p, b) : "+Inf";
            wh_expo_u64(e, "wirehook_verification_duration_seconds_bucket", l, cumulative);
        }
        l[2] = NULL;
        wh_expo_double(e, "wirehook_verification_duration_seconds_sum", l,
                       (double)c->latency_sum_us / APR_USEC_PER_SEC);
        wh_expo_u64(e, "wirehook_verification_duration_seconds_count", l, cumulative);
    }
}

static void replay_store(wh_expo *e, const wh_metrics *m)
{
    static const char info[] = "wirehook_replay_store_info";

    if (family(e, m, replay, info, "gauge",
               "The replay store's provider (ReplayCache), always 1."))
        for (int i = 0; i < m->nconfigs; i++) {
            const wh_metrics_config *c = &m->configs[i];
            const char *l[] = { "config", c->config, "provider", c->replay_provider, NULL };
            if (replay(c))
                wh_expo_u64(e, info, l, 1);
        }
    per_config(e, m, replay, v_replay_up, "wirehook_replay_store_up", "gauge",
               "1 when the replay store answers (a store several servers share: a round "
               "trip made for this scrape), 0 when it does not: notifications are then "
               "refused 503 replay_cache_unavailable.");
    per_config(e, m, replay_fill, v_replay_live, "wirehook_replay_store_entries", "gauge",
               "Ids the replay store holds, expired ones not yet purged included (a "
               "store several servers share does not count them).");
    per_config(e, m, replay_limit, v_replay_cap, "wirehook_replay_store_entries_limit",
               "gauge", "About how many ids the replay store can hold; past it new "
               "ids are refused 503.");
}

static void inbox_figures(wh_expo *e, const wh_metrics *m)
{
    per_config(e, m, inbox, v_inbox_up, "wirehook_inbox_up", "gauge",
               "1 when the inbox answered every read of this scrape, 0 when it did "
               "not (notifications are then refused 503 inbox_unavailable).");
    per_config(e, m, inbox_read, v_events, "wirehook_inbox_events", "gauge",
               "Events the inbox lists.");
    per_config(e, m, inbox_read, v_held, "wirehook_quarantine_notifications", "gauge",
               "Authentic notifications held in quarantine, not released.");
    per_config(e, m, purged, v_purge, "wirehook_inbox_last_purge_timestamp_seconds", "gauge",
               "When the inbox was last purged, in seconds since the Unix epoch.");
}

static void forwarding(wh_expo *e, const wh_metrics *m)
{
    static const char lag[] = "wirehook_forward_lag_seconds";
    static const char tries[] = "wirehook_forward_attempts_total";

    per_config(e, m, forward, v_backlog, "wirehook_forward_backlog_events", "gauge",
               "Events stored and neither forwarded nor dead: queued, retrying, or "
               "not yet taken in.");
    per_config(e, m, forward, v_unqueued, "wirehook_forward_unqueued_events", "gauge",
               "Events stored that no forwarder has taken in yet (every one, before a "
               "forwarder first runs).");
    per_config(e, m, forward, v_retrying, "wirehook_forward_retrying_events", "gauge",
               "Queued events with at least one failed attempt, waiting for the next.");
    per_config(e, m, forward, v_dead, "wirehook_forward_dead_letters", "gauge",
               "Dead letters: events the forwarder gave up on (wirehook inbox dead list).");
    if (family(e, m, forward, lag, "gauge",
               "Age of the oldest event neither forwarded nor dead; 0 when caught up."))
        for (int i = 0; i < m->nconfigs; i++) {
            const wh_metrics_config *c = &m->configs[i];
            const char *l[] = { "config", c->config, NULL };
            if (forward(c))
                wh_expo_double(e, lag, l, c->lag_seconds);
        }
    if (family(e, m, attempts, tries, "counter",
               "Forwarding attempts, by outcome: forwarded (a 2xx), retried (failed, "
               "tried again later), dead (failed, given up)."))
        for (int i = 0; i < m->nconfigs; i++) {
            const wh_metrics_config *c = &m->configs[i];
            const char *outcomes[] = { "forwarded", "retried", "dead" };
            apr_int64_t n[] = { c->attempts.forwarded, c->attempts.retried, c->attempts.dead };
            for (int k = 0; attempts(c) && k < 3; k++) {
                const char *l[] = { "config", c->config, "outcome", outcomes[k], NULL };
                wh_expo_u64(e, tries, l, (apr_uint64_t)n[k]);
            }
        }
}

const char *wh_metrics_render(apr_pool_t *p, const wh_metrics *m, apr_size_t *len)
{
    wh_expo *e = wh_expo_make(p);
    const char *version[] = { "version", m->version ? m->version : "unknown", NULL };

    wh_expo_family(e, "wirehook_build_info", "gauge",
                   "wirehook's version (what wirehook --version says), always 1.");
    wh_expo_u64(e, "wirehook_build_info", version, 1);
    if (m->counters_since) {
        wh_expo_family(e, "wirehook_start_time_seconds", "gauge",
                       "When the counters started from zero (the last full start of "
                       "httpd), in seconds since the Unix epoch.");
        wh_expo_u64(e, "wirehook_start_time_seconds", NULL,
                    (apr_uint64_t)apr_time_sec(m->counters_since));
    }
    answers(e, m);
    inbox_stores(e, m);
    latency(e, m, p);
    replay_store(e, m);
    inbox_figures(e, m);
    forwarding(e, m);
    return wh_expo_text(e, len);
}
