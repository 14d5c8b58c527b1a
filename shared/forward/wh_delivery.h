#ifndef WH_DELIVERY_H
#define WH_DELIVERY_H
/* The delivery state of wirehook forward, kept in the inbox database next
 * to the events, so that a forwarder killed at any moment loses nothing
 * and several forwarders (PostgreSQL) share the work without delivering
 * one event twice at once.
 *
 * wh_forward_cursor (one row): every event whose listing position
 * (wh_order.seq) is at most last_seq has a wh_delivery row. seq is given
 * in commit order, so nothing committed later can get a smaller one.
 *
 * wh_delivery, one row per event: state
 *   0 waiting    an earlier event of the same payment is not finished yet
 *   1 ready      the head of its payment (or without one): due at next_at;
 *                while leased (lease_owner set) next_at is the lease's end
 *   3 delivered  a 2xx arrived
 *   4 dead       rejected (4xx), or given up (ForwardMaxAttempts/-MaxAge)
 * At most one event per payment is ready; when it is delivered or dead,
 * the next waiting one (lowest seq) becomes ready in the same
 * transaction. */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "verify/wh_config.h"
#include "wh_forward.h"
#include "inbox/wh_inbox.h"

#define WH_DLV_WAITING   0
#define WH_DLV_READY     1
#define WH_DLV_DELIVERED 3
#define WH_DLV_DEAD      4

/* How many events one transaction moves from the inbox into the queue. */
#define WH_DLV_INGEST_BATCH 1000
/* How much of an answer (or transport error) a row keeps. */
#define WH_DLV_KEEP_ANSWER 1024

typedef struct wh_delivery wh_delivery;

/* Creates the tables if needed (CREATE ... IF NOT EXISTS). owner names
 * this process in leases (host:pid:random). NULL or an error. */
const char *wh_delivery_open(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                             const char *owner, wh_delivery **out);

/* An event claimed for one attempt. */
typedef struct {
    wh_fwd_event ev;             /* ev.attempt: this attempt's number */
    apr_time_t first_at;         /* first attempt's start (this one's if
                                    it is the first) */
    apr_time_t received_at;      /* when the inbox stored it */
} wh_dlv_claim;

/* The end of one attempt. */
typedef struct {
    apr_int64_t event_id;
    int attempt;                 /* the claim's ev.attempt: the lease token */
    int state;                   /* WH_DLV_READY (retry), _DELIVERED, _DEAD */
    apr_time_t next_at;          /* READY: the next attempt */
    int http_status;             /* 0: no answer */
    const char *answer;          /* bounded: status text, body prefix or
                                    transport error */
    const char *reason;          /* DEAD: why */
    /* For the attempt history (wh_attempts): when the attempt started
     * (0: not recorded) and how long it took. */
    apr_time_t started_at;
    apr_int64_t duration_ms;
} wh_dlv_outcome;

/* What one cycle did. */
typedef struct {
    int recorded;                /* outcomes written */
    int lost;                    /* outcomes whose lease had passed to
                                    another forwarder (not written) */
    int ingested;                /* events moved into the queue */
    int backlog;                 /* events are left to queue: claim again */
    apr_array_header_t *claims;  /* of wh_dlv_claim, in p */
    apr_time_t next_due;         /* the earliest next_at of a ready event
                                    left unclaimed, 0: none */
} wh_dlv_cycle;

/* One transaction: records outcomes (promoting the next event of each
 * finished payment), moves up to WH_DLV_INGEST_BATCH new events into the
 * queue, then claims up to claim_max due ready events with a lease of
 * lease_ms. 0, or -1 when the database failed (nothing of it happened). */
int wh_delivery_cycle(wh_delivery *d, apr_pool_t *p,
                      const apr_array_header_t *outcomes, int claim_max,
                      apr_int64_t lease_ms, apr_time_t now, wh_dlv_cycle *out);

/* A cheap read: is there work? *new_events: the inbox holds events not
 * yet queued; *next_due: the earliest next_at of a ready event, or 0
 * when there is none. 0 or -1. */
int wh_delivery_peek(wh_delivery *d, apr_pool_t *p, int *new_events,
                     apr_time_t *next_due);

typedef struct {
    apr_int64_t waiting;         /* behind an earlier event of a payment */
    apr_int64_t ready;           /* heads, due now or later, or in flight */
    apr_int64_t retrying;        /* ready with at least one failed attempt */
    apr_int64_t dead;
    apr_time_t oldest;           /* received_at of the oldest undelivered
                                    (waiting or ready) event; 0: none */
    apr_int64_t unqueued;        /* stored but not yet queued */
} wh_dlv_stats;

int wh_delivery_stats(wh_delivery *d, apr_pool_t *p, wh_dlv_stats *out);

/* The same for a reader that is not the forwarder (mod_status): reads the
 * stats only when a forwarder has ever run on this inbox (its tables
 * exist), and never creates anything. 1: *out filled; 0: no forwarder has
 * run yet; -1: the database failed. */
int wh_delivery_status(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                       wh_dlv_stats *out);

/* ---- dead letters (wirehook inbox dead ...) ------------------------- */

typedef struct {
    apr_int64_t event_id;
    apr_int64_t seq;
    const char *notification_id;
    const char *payment_id;
    const char *status;
    const char *event_time;
    int attempts;
    apr_time_t received_at;
    apr_time_t first_at;
    apr_time_t dead_at;
    int http_status;             /* of the last answer, 0: none */
    const char *answer;          /* bounded prefix of the last answer */
    const char *reason;
    const char *body;            /* show only */
} wh_dlv_dead;

/* Dead letters by event id, after_id exclusive, at most limit. */
int wh_delivery_dead_list(wh_delivery *d, apr_pool_t *p, apr_int64_t after_id,
                          int limit, apr_array_header_t **rows);
/* id: the event id or the notificationId. 1 found, 0 not found, -1. */
int wh_delivery_dead_get(wh_delivery *d, apr_pool_t *p, const char *id,
                         wh_dlv_dead *out);
/* Puts dead letters back in the queue (attempts start again): one (id as
 * in dead_get) or, with id NULL, all of them. *n: how many. 0 or -1. */
int wh_delivery_dead_retry(wh_delivery *d, apr_pool_t *p, const char *id,
                           apr_time_t now, int *n);
/* The same for every dead letter of one payment, in listing order. */
int wh_delivery_dead_retry_payment(wh_delivery *d, apr_pool_t *p,
                                   const char *payment_id, apr_time_t now, int *n);
/* How many dead letters payment_id has. 0 or -1. */
int wh_delivery_dead_count_payment(wh_delivery *d, apr_pool_t *p,
                                   const char *payment_id, apr_int64_t *n);

/* ---- readers that are not the forwarder (the console) ---------------- */

/* The delivery state of an inbox for a reader: creates nothing and
 * changes nothing about the inbox's connection (wh_delivery_open makes
 * its commits relaxed, which only the forwarder's own inbox may be).
 * 1 with *out when a forwarder has ever run on this inbox, 0 when none
 * has (no tables: nothing to show, nothing to retry), -1 on failure. */
int wh_delivery_attach(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                       wh_delivery **out);

/* One event's place in the queue. */
typedef struct {
    apr_int64_t event_id;
    int state;                   /* WH_DLV_*; -1: not queued yet */
    int attempts;
    int leased;                  /* an attempt is in flight */
    apr_time_t next_at;          /* READY: due (leased: the lease's end) */
    apr_time_t first_at, done_at;
    int http_status;             /* of the last failed answer, 0: none */
    const char *answer;          /* bounded prefix of it */
    const char *reason;          /* DEAD: why */
} wh_dlv_state;

/* The states of the events ids[0..n) (at most 1000): an array of
 * wh_dlv_state, one per queued event, in no order. 0 or -1. */
int wh_delivery_states(wh_delivery *d, apr_pool_t *p, const apr_int64_t *ids,
                       int n, apr_array_header_t **out);

/* The attempt history (wh_attempts): every attempt the forwarder made,
 * kept in the same transaction as its outcome. */
typedef struct {
    int attempt;                 /* its number (a dead letter put back
                                    starts again from 1) */
    apr_time_t started_at;
    apr_int64_t duration_ms;
    int http_status;             /* 0: no answer */
    const char *answer;          /* bounded: status text, body prefix or
                                    transport error */
    int outcome;                 /* WH_DLV_DELIVERED, _READY (retried),
                                    _DEAD */
} wh_dlv_attempt;

/* The latest attempts at event_id, newest first, at most limit. *total:
 * how many there are. 0 or -1. */
int wh_delivery_attempts(wh_delivery *d, apr_pool_t *p, apr_int64_t event_id,
                         int limit, apr_array_header_t **out, apr_int64_t *total);

#endif
