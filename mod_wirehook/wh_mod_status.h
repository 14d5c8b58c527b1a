#ifndef WH_MOD_STATUS_H
#define WH_MOD_STATUS_H
#include "wh_mod_config.h"
#include "verify/wh_response.h"
#include "metrics/wh_metrics.h"

/* Counters per configuration, in shared memory (every child and
 * thread adds to the same numbers; graceful restarts keep them), shown by
 * mod_status in /server-status and /server-status?auto. Each call is one
 * relaxed atomic add: no lock, no system call. config may be NULL.
 * Count every POST wirehook answers exactly once, by what the sender is
 * told:
 *   wh_mod_stats_verdict(config, code)  code: the answered verdict's:
 *       WH_CODE_ACCEPTED (delivered to the handler), WH_CODE_DUPLICATE, or
 *       an error code (WH_CODE_REPLAY_UNAVAILABLE, WH_CODE_INTERNAL...)
 *   wh_mod_stats_inbox(config, result)  for the inbox handler's store:
 *       counts the inbox result and the answer it makes (stored ->
 *       accepted, duplicate -> duplicate, unavailable -> inbox_unavailable)
 *   wh_mod_stats_endpoint(config, verdict, response)  for a handler that
 *       only has wh_endpoint_store's answer: the verdict's code when it
 *       failed, else the inbox result read back from the answer. */
void wh_mod_stats_verdict(const wh_mod_config *config, const char *code);
void wh_mod_stats_inbox(const wh_mod_config *config, wh_inbox_result res);
void wh_mod_stats_endpoint(const wh_mod_config *config, const wh_verdict *v,
                           const wh_response *resp);
/* Verification latency: the time from r's arrival (r->request_time, when
 * httpd read its request line) to now, in config's histogram, once per
 * counted answer, when wirehook has answered or handed r to the
 * application.
 *   wh_mod_stats_latency(config, r)       observes it now (the inbox
 *       handler, after its store)
 *   wh_mod_stats_verified(config, r, rc)  for the request path, right
 *       after the checks returned rc: observes it when wirehook answered
 *       (DONE) or handed r on (OK), except an inbox POST (its handler
 *       observes it after the store) and a request httpd answered itself
 *       (no verdict: an error reading the body). */
void wh_mod_stats_latency(const wh_mod_config *config, const request_rec *r);
void wh_mod_stats_verified(const wh_mod_config *config, const request_rec *r, int rc);
void wh_mod_status_register(void);
/* The configuration's counters for the console: an array of
 * wh_console_count (accepted, duplicate, then each code) in p, and when
 * they started.
 * 0, or -1 when the configuration has none. */
int wh_mod_stats_counts(const wh_mod_config *config, apr_pool_t *p,
                        apr_array_header_t **counts, apr_time_t *since);
/* The configuration's answers by the minute, for the console; NULL when
 * it has no counters or this build keeps no rings. */
const struct wh_console_ring *wh_mod_stats_ring(const wh_mod_config *config);
/* For the metrics: this generation's configurations (those without
 * counters too), by index; when the counters started (0: none); and a
 * configuration's counters and latency into m (counted set; 0, or -1
 * when it has none). */
int wh_mod_stats_nconfigs(void);
wh_mod_config *wh_mod_stats_config(int i);
apr_time_t wh_mod_stats_since(void);
int wh_mod_stats_metrics(const wh_mod_config *config, apr_pool_t *p, wh_metrics_config *m);

#endif
