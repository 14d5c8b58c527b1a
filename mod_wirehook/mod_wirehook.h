/* mod_wirehook internals shared by the module's source files.
 *
 * The module is glue: every verification decision is made by the core
 * (shared/wh_verify.h). Files, one job each:
 *   mod_wirehook.c    directives, per-dir config, hook registration, the
 *                     early verification hook (fixups)
 *   wh_mod_body.c     bounded read-ahead of the body, replay input filter
 *   wh_mod_replay.c   cross-process replay protection on mod_socache
 *   wh_mod_request.c  request_rec -> wh_request, wh_response -> wire,
 *                     facts -> env/headers, core logger bridge
 *   wh_mod_inbox.c    `SetHandler wirehook` (the inbox endpoint)
 *   wh_mod_status.c   counters in shared memory, shown by mod_status
 */
#ifndef MOD_WIREHOOK_H
#define MOD_WIREHOOK_H

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "ap_socache.h"
#include <apr_global_mutex.h>
#include <apr_thread_mutex.h>

#include "wh_config.h"
#include "wh_verify.h"
#include "wh_response.h"
#include "wh_inbox.h"

#include "wh_mod_logtags.h"

/* mod_wirehook.c gets it from AP_DECLARE_MODULE */
#ifndef WH_MOD_MAIN
APLOG_USE_MODULE(wirehook);
#endif

#define WH_MOD_HANDLER      "wirehook"
#define WH_MOD_FILTER       "WIREHOOK_REPLAY"
#define WH_MOD_MUTEX_TYPE   "wirehook-replay"
#define WH_MOD_HEADER_PREFIX "Wirehook-"

/* One socache instance + its global mutex, shared by every loaded config
 * naming the same ReplayCache spec. Created in post_config. */
typedef struct wh_mod_replay {
    const char *spec;                   /* "shmcb", "memcache:host:port" */
    const char *provider_name;
    const char *args;
    const ap_socache_provider_t *provider;
    ap_socache_instance_t *instance;
    apr_global_mutex_t *mutex;
    /* Taken before mutex: threads of one child queue on this cheap
     * process-local lock, so the global one (a priority-inheriting robust
     * pthread mutex by default, whose every contended lock and unlock is a
     * system call) only ever sees one waiter per child. Per child. */
    apr_thread_mutex_t *local;
    const char *lockfile;
    int index;                          /* namespace suffix */
} wh_mod_replay;

/* One loaded configuration file (cached per path per process). */
typedef struct wh_mod_site {
    const char *path;
    wh_config *cfg;
    wh_verifier *vf;
    wh_mod_replay *replay;              /* set in post_config */
    /* inbox, per child, opened lazily under mutex */
    apr_thread_mutex_t *inbox_mutex;
    apr_pool_t *inbox_pool;
    wh_inbox *inbox;
    /* wh_mod_status.c: this site's counters in shared memory (set in
     * post_config; NULL: not counted) */
    struct wh_mod_stats_slot *stats;
} wh_mod_site;

/* Per-dir config: WirehookConfig PATH | off. */
typedef struct {
    int set;
    wh_mod_site *site;                  /* NULL: off */
} wh_mod_dir_conf;

/* Per-request state (request_config of the request that verified). */
typedef struct {
    wh_mod_site *site;
    wh_request req;
    wh_verdict verdict;
    int verified;                       /* accepted, facts valid */
    void *replay_ctx;                   /* WIREHOOK_REPLAY filter state */
    int replay_recorded;                /* id stored in the replay cache */
} wh_mod_state;

extern module AP_MODULE_DECLARE_DATA wirehook_module;

/* mod_wirehook.c */
apr_hash_t *wh_mod_pool_hash(apr_pool_t *p, const char *key);
apr_hash_t *wh_mod_sites(apr_pool_t *pconf);

/* wh_mod_request.c */
void wh_mod_request_init(request_rec *r, const wh_config *cfg,
                         wh_request *req);
int wh_mod_respond(request_rec *r, const wh_response *resp);
int wh_mod_respond_error(request_rec *r, int status, const char *code,
                         const char *message);
void wh_mod_strip_client_headers(request_rec *r);
void wh_mod_publish_facts(request_rec *r, const wh_facts *facts);
void wh_mod_log_verdict(request_rec *r, const wh_verdict *v);
extern const wh_logger wh_mod_logger;
/* The core's log sink reports against this request (thread-local). */
void wh_mod_log_bind(request_rec *r);

/* wh_mod_body.c */
typedef enum {
    WH_BODY_OK = 0,
    WH_BODY_OVERFLOW,                   /* MaxBodySize exceeded */
    WH_BODY_ERROR                       /* lower filter failed: *status */
} wh_body_result;
wh_body_result wh_mod_read_body(request_rec *r, apr_int64_t max,
                                const char **body, apr_size_t *len,
                                int *status);
/* Returns the filter state; wh_mod_replay_resume re-adds the filter with
 * it after an internal redirect (which drops request-level filters). */
void *wh_mod_replay_body(request_rec *r, const char *body, apr_size_t len);
void wh_mod_replay_resume(request_rec *r, void *ctx);
void wh_mod_body_register(void);

/* wh_mod_replay.c */
typedef enum {
    WH_REPLAY_FIRST = 0,                /* recorded now: deliver */
    WH_REPLAY_DUPLICATE,
    WH_REPLAY_UNAVAILABLE
} wh_replay_result;
void wh_mod_replay_register(void);
wh_replay_result wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                                     const wh_config *cfg, const char *id);
void wh_mod_replay_forget(request_rec *r, wh_mod_replay *rp, const char *id);
/* The replay store's fill: 0 and *live entries of *capacity, or -1 when
 * the store cannot tell. (Stubbed weakly in wh_mod_status.c until the
 * replay store with a capacity check defines it.) */
int wh_mod_replay_fill(const wh_mod_replay *rp, apr_uint64_t *live,
                       apr_uint64_t *capacity);

/* wh_mod_inbox.c */
void wh_mod_inbox_register(void);
int wh_mod_is_inbox(const request_rec *r);

/* wh_mod_status.c: counters per site, in shared memory (every child and
 * thread adds to the same numbers; graceful restarts keep them), shown by
 * mod_status in /server-status and /server-status?auto. Each call is one
 * relaxed atomic add: no lock, no system call. site may be NULL.
 * Count every POST wirehook answers exactly once, by what the sender is
 * told:
 *   wh_mod_stats_verdict(site, code)  code: WH_CODE_ACCEPTED (delivered to
 *       the handler), WH_MOD_STATS_DUPLICATE, or the error code answered
 *       (a verdict's code, WH_CODE_REPLAY_UNAVAILABLE, WH_CODE_INTERNAL...)
 *   wh_mod_stats_inbox(site, result)  for the inbox handler's store:
 *       counts the inbox result and the answer it makes (stored ->
 *       accepted, duplicate -> duplicate, unavailable -> inbox_unavailable)
 *   wh_mod_stats_endpoint(site, verdict, response)  for a handler that only
 *       has wh_endpoint_store's answer: the verdict's code when it failed,
 *       else the inbox result read back from the answer. */
#define WH_MOD_STATS_DUPLICATE "duplicate"
void wh_mod_stats_verdict(const wh_mod_site *site, const char *code);
void wh_mod_stats_inbox(const wh_mod_site *site, wh_inbox_result res);
void wh_mod_stats_endpoint(const wh_mod_site *site, const wh_verdict *v,
                           const wh_response *resp);
void wh_mod_status_register(void);

#endif
