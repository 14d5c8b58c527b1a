#ifndef WH_INBOX_VIEWS_H
#define WH_INBOX_VIEWS_H
/* Read-only views of the inbox for people (the console): the listing's
 * events with their facts and without their bodies, one event whole, how
 * many events arrived before given instants, and how much the quarantine
 * holds. Every query seeks on an index, so a page or a chart costs the
 * same whatever the inbox's size or the page's offset: unfiltered pages
 * are ranges of listing positions (wh_order.seq), filtered ones index
 * ranges of (filter, seq), and instants become positions by bisecting the
 * listing. */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "wh_inbox.h"

typedef struct {
    apr_int64_t seq;             /* listing position (0: not listed yet) */
    apr_int64_t id;              /* wh_events.id, the arrival key */
    const char *notification_id;
    const char *event_type;
    const char *event_time;      /* eventDateTime as sent */
    const char *payment_id;      /* NULL: none */
    const char *status;          /* NULL: none */
    apr_time_t received_at;
    const char *body;            /* wh_inbox_event only: as received */
} wh_event_row;

typedef struct {
    apr_int64_t offset;          /* records to skip within the filter */
    int limit;                   /* rows wanted, >= 1 */
    const char *payment_id;      /* filter or NULL */
    const char *status;          /* filter or NULL: whatever its case */
    /* A window of listing positions, lo < seq <= hi (hi 0: no end): what
     * an arrival-time filter becomes (wh_inbox_arrivals). Unfiltered,
     * offset counts from lo. */
    apr_int64_t lo, hi;
    /* With a paymentId or status filter: the position of the last row of
     * the previous page, when the caller knows it. The page then starts
     * after it (a seek) instead of skipping `offset` rows of the filter;
     * the two agree when the hint came from the previous page. 0: none. */
    apr_int64_t after;
    /* 1: the latest rows of the window (lo, hi] first, newest first
     * (offset must be 0; a page further back is a window ending before
     * the last position shown). 0: oldest first. */
    int newest_first;
} wh_events_query;

/* One page in listing order: rows of wh_event_row (at most q->limit, no
 * bodies) and *more when rows are left after it. 0, or -1 when the
 * database is unavailable. */
int wh_inbox_events(wh_inbox *ib, apr_pool_t *p, const wh_events_query *q,
                    apr_array_header_t **rows, int *more);

/* The event with arrival key id, with its body. 1 found, 0 not, -1. */
int wh_inbox_event(wh_inbox *ib, apr_pool_t *p, apr_int64_t id, wh_event_row *out);

/* The event whose notificationId is nid, with its body. 1, 0, -1. */
int wh_inbox_event_by_nid(wh_inbox *ib, apr_pool_t *p, const char *nid,
                          wh_event_row *out);

/* How many events are listed (the last position). 0 or -1. */
int wh_inbox_listed(wh_inbox *ib, apr_pool_t *p, apr_int64_t *n);

/* For each instant times[i] (any order), positions[i] = the number of
 * listed events that arrived before it. Found by bisecting the listing on
 * arrival time, all instants together, about log2(listed) queries of at
 * most n positions each: exact while the listing follows arrival, which it
 * does but for events committed in the same moments (commit order, not
 * arrival, decides their positions). At most WH_ARRIVALS_MAX instants.
 * 0 or -1. */
#define WH_ARRIVALS_MAX 512
int wh_inbox_arrivals(wh_inbox *ib, apr_pool_t *p, const apr_time_t *times, int n,
                      apr_int64_t *positions);

/* Quarantined notifications held: not released, discarded or
 * acknowledged. 0 or -1. */
int wh_inbox_quarantine_held(wh_inbox *ib, apr_pool_t *p, apr_int64_t *n);

#endif
