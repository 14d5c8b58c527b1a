#ifndef WH_FORWARD_VIEWS_H
#define WH_FORWARD_VIEWS_H
/* The forward queue's views for people (the console, `wirehook inbox
 * dead`): events by forwarding state, dead letters chosen by a filter
 * (listed, counted, retried together), each payment's dead letters,
 * attempts by outcome per minute, and the forwarders' liveness. Readers
 * of a queue attached with wh_fq_attach; every list seeks on an index,
 * so a page costs the same whatever the inbox's size. */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "wh_forward_queue.h"
#include "inbox/wh_inbox_views.h"

/* Forwarding states an operator filters events by. */
typedef enum {
    WH_FQ_SHOW_FORWARDED = 1,    /* a 2xx came */
    WH_FQ_SHOW_RETRYING,         /* failed at least once, to be tried again */
    WH_FQ_SHOW_DEAD,             /* a dead letter */
    WH_FQ_SHOW_NOT_YET           /* neither forwarded nor dead: not queued
                                    yet, waiting, queued or retrying */
} wh_fq_show;

/* The state's name in a URL ("forwarded", "retrying", "dead", "notyet"),
 * and back (0: none of them). */
const char *wh_fq_show_name(wh_fq_show s);
wh_fq_show wh_fq_show_parse(const char *name);

/* A page of events in state `show`, under the query's other filters
 * (paymentId, status, window, newest_first; offset and after are not
 * used): rows of wh_event_row, *more when others follow. 0 or -1. */
int wh_fq_events(wh_fq *q, apr_pool_t *p, const wh_events_query *eq, wh_fq_show show,
                 apr_array_header_t **rows, int *more);

/* Dead letters an operator picks together. Every field narrows; zero or
 * NULL fields match everything. */
typedef struct {
    const char *reason;          /* exactly this reason */
    int http_status;             /* the last answer's status; -1: none
                                    came (a transport error) */
    const char *payment_id;
    apr_time_t from, to;         /* died in [from, to) */
} wh_fq_dead_filter;

/* The filter as a canonical string: what a confirmation is bound to. */
const char *wh_fq_dead_filter_key(apr_pool_t *p, const wh_fq_dead_filter *f);

/* Newest first: dead letters with event id < before_id (0: from the
 * newest) matching f, at most limit. 0 or -1. */
int wh_fq_dead_page(wh_fq *q, apr_pool_t *p, const wh_fq_dead_filter *f,
                    apr_int64_t before_id, int limit, apr_array_header_t **rows);
/* How many dead letters match f. 0 or -1. */
int wh_fq_dead_count(wh_fq *q, apr_pool_t *p, const wh_fq_dead_filter *f, apr_int64_t *n);
/* Puts every dead letter matching f back in the queue (each payment's
 * in listing order, batch by batch). *n: how many. 0 or -1. */
int wh_fq_dead_retry_matching(wh_fq *q, apr_pool_t *p, const wh_fq_dead_filter *f,
                              apr_time_t now, int *n);

/* The dead letters' reasons and last statuses with their counts, most
 * first (at most WH_FQ_REASONS_MAX): what a filter can pick. */
typedef struct {
    const char *reason;          /* NULL: none recorded */
    int http_status;             /* -1: no answer */
    apr_int64_t n;
} wh_fq_reason;
#define WH_FQ_REASONS_MAX 30
int wh_fq_dead_reasons(wh_fq *q, apr_pool_t *p, apr_array_header_t **rows);

/* The dead letters of each of payment_ids[0..n) (at most 1000), as a hash
 * paymentId -> apr_int64_t * (payments without any are left out). */
int wh_fq_dead_by_payment(wh_fq *q, apr_pool_t *p, const char *const *payment_ids,
                          int n, apr_hash_t **out);

/* Attempts by outcome in nbins bins of `step` from `from` (both in
 * whole minutes): forwarded[i], retried[i], dead[i] (the caller's
 * arrays). *known 0 when no forwarder has counted them yet. 0 or -1. */
int wh_fq_outcomes(wh_fq *q, apr_pool_t *p, apr_time_t from, apr_interval_time_t step,
                   int nbins, apr_int64_t *forwarded, apr_int64_t *retried,
                   apr_int64_t *dead, int *known);

/* The forwarders that ran on this inbox (the latest seen first, at most
 * WH_FQ_FORWARDERS_SHOWN): who, since when, last seen, stopped (0:
 * not cleanly). *known 0 when none recorded its liveness yet. */
typedef struct {
    const char *owner;           /* host:pid:random */
    apr_time_t started_at, seen_at, stopped_at;
} wh_fq_forwarder;
#define WH_FQ_FORWARDERS_SHOWN 10
int wh_fq_forwarders(wh_fq *q, apr_pool_t *p, apr_array_header_t **rows, int *known);

#endif
