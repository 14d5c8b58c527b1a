#ifndef WH_MOD_CONFIG_H
#define WH_MOD_CONFIG_H
/* What every file of mod_wirehook shares: the loaded WirehookConfig files
 * (configurations), the per-directory configuration, the per-request state,
 * and where a request finds them. The module is glue: every decision is the
 * core's (shared/). Files, one job each, from the bottom up:
 *   wh_mod_config.c   configurations, per-request state
 *   wh_mod_request.c  request_rec -> wh_request, wh_response -> wire,
 *                     facts -> env/headers, header stripping, logging
 *   wh_mod_body.c     bounded read-ahead of the body, the
 *                     WIREHOOK_KEPT_BODY input filter
 *   wh_mod_config_inbox.c  a configuration's inbox in each child
 *   wh_mod_replay_lmdb.c  ReplayCache lmdb in httpd's lifecycle
 *   wh_mod_replay_socache.c  ReplayCache dbm, shmcb (mod_socache)
 *   wh_mod_replay.c   replay protection (ReplayCache): the store of each
 *                     spec, claims, their renewal
 *   wh_mod_status.c   counters in shared memory, shown by mod_status
 *   wh_mod_metrics.c  `SetHandler wirehook-metrics` (Prometheus)
 *   wh_mod_inbox.c    `SetHandler wirehook` (the inbox endpoint)
 *   wh_mod_verify.c   the request path: verification in fixups, and the
 *                     guard in front of every handler (fail closed)
 *   mod_wirehook.c    the directive, lifecycle, hook registration */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include <apr_thread_mutex.h>

#include "verify/wh_config.h"
#include "verify/wh_verify.h"
#include "inbox/wh_inbox.h"
#include "wh_mod_logtags.h"

/* mod_wirehook.c gets it from AP_DECLARE_MODULE */
#ifndef WH_MOD_MAIN
APLOG_USE_MODULE(wirehook);
#endif

#define WH_MOD_HANDLER      "wirehook"
#define WH_MOD_CONSOLE      "wirehook-console"
#define WH_MOD_KEPT_FILTER  "WIREHOOK_KEPT_BODY"
#define WH_MOD_CONFIRM_FILTER "WIREHOOK_CONFIRM"

/* One replay store, shared by every loaded configuration naming the same
 * ReplayCache, and one delivery's claim in it. Opaque: wh_mod_replay.c. */
typedef struct wh_mod_replay wh_mod_replay;
typedef struct wh_mod_claim wh_mod_claim;
struct wh_mod_stats_slot;

/* One loaded configuration file (cached per path per generation). */
typedef struct wh_mod_config {
    const char *path;
    wh_config *cfg;
    wh_verifier *vf;
    wh_mod_replay *replay;              /* set in post_config; NULL for a
                                           configuration only the inbox
                                           uses */
    /* Some WirehookConfig naming this file is not in a section of the
     * inbox alone (SetHandler wirehook beside it, no section inside): an
     * application may be behind it, so it needs a replay store. */
    int app_use;
    /* inbox, per child, opened lazily under mutex */
    apr_thread_mutex_t *inbox_mutex;
    apr_pool_t *inbox_pool;
    wh_inbox *inbox;
    apr_time_t inbox_retry_at;          /* no open before (wh_mod_inbox.c) */
    /* wh_mod_status.c: this configuration's counters in shared memory
     * (set in post_config; NULL: not counted) */
    struct wh_mod_stats_slot *stats;
    /* wh_mod_console.c: the console (created with the configuration)
     * and, set in check_config, the URL of the first console showing this
     * configuration */
    struct wh_console *console;
    const char *console_base;
} wh_mod_config;

/* Per-dir config: WirehookConfig PATH | off. */
typedef struct {
    int set;
    wh_mod_config *config;              /* NULL: off */
    /* The URL path of the <Location> section that holds WirehookConfig
     * (NULL in any other section, or a regex): the inbox's own URL, so
     * the rest of a request's path is the resource under it. */
    const char *base;
    /* WirehookConsole public: a console here may be reached without an
     * authenticated user (console_set: the directive was given) */
    int console_public, console_set;
} wh_mod_dir_conf;

typedef enum {
    /* accepted and recorded: the handler gets the kept body and facts */
    WH_ST_VERIFIED = 1,
    /* POST to the inbox: the verdict (good or bad) is the inbox handler's
     * to store or quarantine; no other handler may take it */
    WH_ST_INBOX
} wh_mod_phase;

/* Per-request state, on request_config of the request that verified (and
 * carried along an internal-redirect chain). */
typedef struct wh_mod_state {
    wh_mod_config *config;
    wh_mod_phase phase;
    wh_request req;
    wh_verdict verdict;
    wh_logger log;                      /* the core's sink, bound to r */
    void *kept;                         /* WIREHOOK_KEPT_BODY filter state */
    const request_rec *delivered_to;    /* kept body and facts are on it */
    wh_mod_replay *recorded;            /* the id is in this replay store */
    wh_mod_claim *claim;                /* ... claimed by this delivery */
} wh_mod_state;

extern module AP_MODULE_DECLARE_DATA wirehook_module;

/* A hash kept as userdata of pool p under key, created on first use. */
apr_hash_t *wh_mod_pool_hash(apr_pool_t *p, const char *key);
/* Loaded configuration files of this configuration generation, keyed by
 * absolute path. */
apr_hash_t *wh_mod_configs(apr_pool_t *pconf);
/* The WirehookConfig in force for r (its final per-dir config), or NULL. */
wh_mod_config *wh_mod_config_of(const request_rec *r);
/* This module's state on r itself, or NULL. */
wh_mod_state *wh_mod_state_of(const request_rec *r);
/* This module's state for r: its own, else the nearest one up r's
 * internal-redirect chain. NULL for none. */
wh_mod_state *wh_mod_chain_state(const request_rec *r);

#endif
