/* mod_wirehook internals shared by the module's source files.
 *
 * The module is glue: every verification decision is made by the core
 * (shared/wh_verify.h, wh_replay.h). Files, one job each:
 *   mod_wirehook.c    directives, per-dir config, lifecycle, hook
 *                     registration
 *   wh_mod_verify.c   the request path: verification in fixups, and the
 *                     guard in front of every handler (fail closed)
 *   wh_mod_body.c     bounded read-ahead of the body, WIREHOOK_KEPT_BODY
 *                     input filter
 *   wh_mod_replay.c   replay protection on mod_socache
 *   wh_mod_request.c  request_rec -> wh_request, wh_response -> wire,
 *                     facts -> env/headers, header stripping, logging
 *   wh_mod_inbox.c    `SetHandler wirehook` (the inbox endpoint)
 *   wh_mod_status.c   counters in shared memory, shown by mod_status
 */
#ifndef MOD_WIREHOOK_H
#define MOD_WIREHOOK_H

#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include <apr_thread_mutex.h>

#include "wh_config.h"
#include "wh_verify.h"
#include "wh_response.h"
#include "wh_inbox.h"
#include "wh_replay.h"
#include "wh_replay_lmdb.h"
#include "wh_mod_logtags.h"

/* mod_wirehook.c gets it from AP_DECLARE_MODULE */
#ifndef WH_MOD_MAIN
APLOG_USE_MODULE(wirehook);
#endif

#define WH_MOD_HANDLER      "wirehook"
#define WH_MOD_KEPT_FILTER  "WIREHOOK_KEPT_BODY"
#define WH_MOD_MUTEX_TYPE   "wirehook-replay"

/* One replay store (a mod_socache instance, its mutexes and its ledger),
 * shared by every loaded configuration naming the same ReplayCache.
 * Opaque: wh_mod_replay.c. */
typedef struct wh_mod_replay wh_mod_replay;

/* One loaded configuration file (cached per path per generation). */
typedef struct wh_mod_site {
    const char *path;
    wh_config *cfg;
    wh_verifier *vf;
    wh_mod_replay *replay;              /* set in post_config */
    /* inbox, per child, opened lazily under mutex */
    apr_thread_mutex_t *inbox_mutex;
    apr_pool_t *inbox_pool;
    wh_inbox *inbox;
    apr_time_t inbox_retry_at;          /* no open before (wh_mod_inbox.c) */
    /* wh_mod_status.c: this site's counters in shared memory (set in
     * post_config; NULL: not counted) */
    struct wh_mod_stats_slot *stats;
} wh_mod_site;

/* Per-dir config: WirehookConfig PATH | off. */
typedef struct {
    int set;
    wh_mod_site *site;                  /* NULL: off */
    /* The URL path of the <Location> section that holds WirehookConfig
     * (NULL in any other section, or a regex): the inbox's own URL, so
     * the rest of a request's path is the resource under it. */
    const char *base;
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
    wh_mod_site *site;
    wh_mod_phase phase;
    wh_request req;
    wh_verdict verdict;
    wh_logger log;                      /* the core's sink, bound to r */
    void *kept;                         /* WIREHOOK_KEPT_BODY filter state */
    const request_rec *delivered_to;    /* kept body and facts are on it */
    wh_mod_replay *recorded;            /* the id is in this replay store */
} wh_mod_state;

extern module AP_MODULE_DECLARE_DATA wirehook_module;

/* mod_wirehook.c */
apr_hash_t *wh_mod_pool_hash(apr_pool_t *p, const char *key);
apr_hash_t *wh_mod_sites(apr_pool_t *pconf);
/* The WirehookConfig in force for r (its final per-dir config), or NULL. */
wh_mod_site *wh_mod_site_of(const request_rec *r);

/* wh_mod_verify.c */
void wh_mod_verify_register(void);
/* This module's state for r: its own, else the nearest one up r's
 * internal-redirect chain. NULL for none. */
wh_mod_state *wh_mod_chain_state(const request_rec *r);

/* wh_mod_request.c */
void wh_mod_request_init(request_rec *r, const wh_config *cfg,
                         wh_request *req);
int wh_mod_respond(request_rec *r, const wh_response *resp);
int wh_mod_respond_error(request_rec *r, int status, const char *code,
                         const char *message);
void wh_mod_strip_client_headers(request_rec *r);
void wh_mod_publish_facts(request_rec *r, const wh_facts *facts);
void wh_mod_log_verdict(request_rec *r, const wh_verdict *v);
/* The core's sink: baton is the request_rec, or NULL for the server. */
void wh_mod_log_sink(void *baton, wh_log_level level, const char *msg);
extern const wh_logger wh_mod_server_logger;

/* wh_mod_body.c */
typedef enum {
    WH_BODY_OK = 0,
    WH_BODY_OVERFLOW,                   /* MaxBodySize exceeded */
    WH_BODY_ERROR                       /* lower filter failed: *status */
} wh_body_result;
wh_body_result wh_mod_read_body(request_rec *r, apr_int64_t max,
                                const char **body, apr_size_t *len,
                                int *status);
/* Reads and drops the rest of r's body if it ends within max bytes: 0;
 * -1 when it is longer (or reading failed). */
int wh_mod_drain_body(request_rec *r, apr_int64_t max);
/* Hands exactly these bytes to whatever reads r's body next; returns the
 * filter state (one per request chain). */
void *wh_mod_keep_body(request_rec *r, const char *body, apr_size_t len);
/* Puts the filter with that state on r when it is not there already
 * (an internal redirect drops request-level filters). */
void wh_mod_kept_body_resume(request_rec *r, void *kept);
void wh_mod_body_register(void);

/* wh_mod_replay.c */
typedef enum {
    WH_REPLAY_FIRST = 0,                /* claimed now: deliver */
    WH_REPLAY_DUPLICATE,
    WH_REPLAY_UNAVAILABLE,              /* cannot promise: answer 503 */
    WH_REPLAY_IN_PROGRESS               /* another copy's delivery is under
                                           way: 503, retry later */
} wh_replay_result;
/* How long a delivery's claim on its id holds at most (the handler
 * running): past it, or once the claiming process is gone (lmdb), a copy
 * is delivered. */
#define WH_REPLAY_CLAIM_LEASE apr_time_from_sec(120)
void wh_mod_replay_register(void);
wh_replay_result wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                                     const wh_config *cfg,
                                     const wh_facts *facts);
void wh_mod_replay_forget(request_rec *r, wh_mod_replay *rp, const char *id);
/* The delivery of id succeeded (final status below 500): from now on a
 * copy is a duplicate for the rest of ReplayWindow. */
void wh_mod_replay_settle(request_rec *r, wh_mod_replay *rp, const char *id,
                          const wh_config *cfg);
/* For server-status: the provider's name ("dbm", "shmcb", ...). */
const char *wh_mod_replay_provider(const wh_mod_replay *rp);
/* For server-status: live ids against capacity (0: no fixed capacity);
 * -1 when unknown. Live ids are those this server stored within the
 * window (a shared memcached or redis holds the other servers' too). */
int wh_mod_replay_fill(const wh_mod_replay *rp, apr_uint64_t *live,
                       apr_uint64_t *capacity);

/* wh_mod_replay_lmdb.c: ReplayCache lmdb (shared/wh_replay_lmdb.h) in
 * httpd's lifecycle; wh_mod_replay.c decides and logs. */
typedef struct wh_mod_lmdb wh_mod_lmdb;
int wh_mod_lmdb_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                       const wh_replay_model *m, const char *spec,
                       const char *site_path, apr_int64_t tolerance,
                       int predecessor, wh_mod_lmdb **out);
void wh_mod_lmdb_child_init(wh_mod_lmdb *l, apr_pool_t *pchild, server_rec *s);
wh_lmdb_result wh_mod_lmdb_check(wh_mod_lmdb *l, const wh_config *cfg,
                                 const wh_facts *f, apr_time_t now,
                                 const char **err);
void wh_mod_lmdb_forget(request_rec *r, wh_mod_lmdb *l, const char *id);
void wh_mod_lmdb_settle(request_rec *r, wh_mod_lmdb *l, const char *id);
int wh_mod_lmdb_fill(const wh_mod_lmdb *l, apr_uint64_t *live,
                     apr_uint64_t *capacity);
apr_time_t wh_mod_lmdb_since(const wh_mod_lmdb *l);
apr_size_t wh_mod_lmdb_map_size(const wh_mod_lmdb *l);

/* wh_mod_inbox.c */
void wh_mod_inbox_register(void);
int wh_mod_is_inbox(const request_rec *r);
/* The inbox's handler (r's handler is wirehook): stores a verified POST,
 * serves the listing and the payment views; answers r and returns OK. */
int wh_mod_inbox_run(request_rec *r);
/* The site's inbox in this child, opened on first use (NULL: cannot be
 * opened now; tried again after a few seconds). */
wh_inbox *wh_mod_inbox_get(request_rec *r, wh_mod_site *site);

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
