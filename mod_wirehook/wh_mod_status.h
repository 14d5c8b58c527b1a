#ifndef WH_MOD_STATUS_H
#define WH_MOD_STATUS_H
#include "wh_mod_config.h"
#include "verify/wh_response.h"

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
void wh_mod_status_register(void);
/* The configuration's counters for the console: an array of
 * wh_console_count (accepted, duplicate, then each code) in p, and when
 * they started.
 * 0, or -1 when the configuration has none. */
int wh_mod_stats_counts(const wh_mod_config *config, apr_pool_t *p,
                        apr_array_header_t **counts, apr_time_t *since);

#endif
