#ifndef WH_FORWARD_QUEUE_H
#define WH_FORWARD_QUEUE_H
/* The forward queue: wirehook forward's state, kept in the inbox database
 * next to the events, so that a forwarder killed at any moment loses
 * nothing and several forwarders (PostgreSQL) share the work without
 * forwarding one event twice at once. Its tables and state numbers keep
 * the names they had before the glossary (wh_delivery, 3 delivered):
 * existing inboxes hold them.
 *
 * wh_forward_cursor (one row): every event whose listing position
 * (wh_order.seq) is at most last_seq has a wh_delivery row. seq is given
 * in commit order, so nothing committed later can get a smaller one.
 *
 * wh_delivery, one row per event: state
 *   0 waiting    an earlier event of the same payment is not finished yet
 *   1 ready      the head of its payment (or without one): due at next_at;
 *                while leased (lease_owner set) next_at is the lease's end
 *   3 delivered  forwarded: a 2xx arrived
 *   4 dead       rejected (4xx), or given up (ForwardMaxAttempts/-MaxAge)
 * At most one event per payment is ready; when it is forwarded or dead,
 * the next waiting one (lowest seq) becomes ready in the same
 * transaction. */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "verify/wh_config.h"
#include "wh_forward.h"
#include "inbox/wh_inbox.h"

#define WH_FQ_WAITING   0
#define WH_FQ_READY     1
#define WH_FQ_FORWARDED 3
#define WH_FQ_DEAD      4

/* How many events one transaction moves from the inbox into the queue. */
#define WH_FQ_INGEST_BATCH 1000

typedef struct wh_fq wh_fq;

/* Creates the tables if needed (CREATE ... IF NOT EXISTS). owner names
 * this process in leases (host:pid:random). NULL or an error. */
const char *wh_fq_open(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                       const char *owner, wh_fq **out);

/* An event leased for one attempt. */
typedef struct {
    wh_fwd_event ev;             /* ev.attempt: this attempt's number */
    apr_time_t first_at;         /* first attempt's start (this one's if
                                    it is the first) */
    apr_time_t received_at;      /* when the inbox stored it */
} wh_fq_lease;

/* The end of one attempt. */
typedef struct {
    apr_int64_t event_id;
    int attempt;                 /* the lease's ev.attempt: its token */
    int state;                   /* WH_FQ_READY (retry), _FORWARDED, _DEAD */
    apr_time_t next_at;          /* READY: the next attempt */
    int http_status;             /* 0: no answer */
    const char *answer;          /* bounded: status text, body prefix or
                                    transport error */
    const char *reason;          /* DEAD: why */
    /* For the attempt history (wh_attempts): when the attempt started
     * (0: not recorded) and how long it took. */
    apr_time_t started_at;
    apr_int64_t duration_ms;
} wh_fq_outcome;

/* What one cycle did. */
typedef struct {
    int recorded;                /* outcomes written */
    int lost;                    /* outcomes whose lease had passed to
                                    another forwarder (not written) */
    int ingested;                /* events moved into the queue */
    int backlog;                 /* events are left to queue: lease again */
    apr_array_header_t *leases;  /* of wh_fq_lease, in p */
    apr_time_t next_due;         /* the earliest next_at of a ready event
                                    left unleased, 0: none */
} wh_fq_cycle_result;

/* One transaction: records outcomes (promoting the next event of each
 * finished payment), moves up to WH_FQ_INGEST_BATCH new events into the
 * queue, then leases up to lease_max due ready events for
 * lease_ms. 0, or -1 when the database failed (nothing of it happened). */
int wh_fq_cycle(wh_fq *q, apr_pool_t *p,
                const apr_array_header_t *outcomes, int lease_max,
                apr_int64_t lease_ms, apr_time_t now, wh_fq_cycle_result *out);

/* The forwarder's sign of life for the console (wh_forwarders): at its
 * start and every WH_FQ_ALIVE_EVERY while it runs, whether it has work
 * or not; stopping: it stops cleanly now. 0 or -1. */
#define WH_FQ_ALIVE_EVERY apr_time_from_sec(10)
int wh_fq_alive(wh_fq *q, apr_pool_t *p, apr_time_t started, apr_time_t now, int stopping);

/* A cheap read: is there work? *new_events: the inbox holds events not
 * yet queued; *next_due: the earliest next_at of a ready event, or 0
 * when there is none. 0 or -1. */
int wh_fq_peek(wh_fq *q, apr_pool_t *p, int *new_events,
               apr_time_t *next_due);

typedef struct {
    apr_int64_t waiting;         /* behind an earlier event of a payment */
    apr_int64_t ready;           /* heads, due now or later, or in flight */
    apr_int64_t retrying;        /* ready with at least one failed attempt */
    apr_int64_t dead;
    apr_time_t oldest;           /* received_at of the first listed
                                    unforwarded (waiting or ready) event,
                                    the oldest but for events committed
                                    in the same moments; 0: none */
    apr_int64_t unqueued;        /* stored but not yet queued */
} wh_fq_counts;

int wh_fq_stats(wh_fq *q, apr_pool_t *p, wh_fq_counts *out);

/* The same for a reader that is not the forwarder (mod_status): reads the
 * stats only when a forwarder has ever run on this inbox (its tables
 * exist), and never creates anything. 1: *out filled; 0: no forwarder has
 * run yet; -1: the database failed. */
int wh_fq_status(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                 wh_fq_counts *out);

/* Attempts by outcome since a forwarder first counted them on this
 * inbox (wh_attempt_counts, made at a forwarder's start, added to in the
 * transaction that records the attempts): only ever grow, whatever is
 * purged from the history. */
typedef struct {
    apr_int64_t forwarded;       /* a 2xx */
    apr_int64_t retried;         /* failed, tried again later */
    apr_int64_t dead;            /* failed, given up: a dead letter */
} wh_fq_totals;

/* Three rows, whatever the inbox's size. 1: *out filled; 0: no forwarder
 * has counted on this inbox yet (no table: nothing is made); -1: the
 * database failed. */
int wh_fq_attempt_totals(wh_fq *q, apr_pool_t *p, wh_fq_totals *out);

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
} wh_fq_dead;

/* Dead letters by event id, after_id exclusive, at most limit. */
int wh_fq_dead_list(wh_fq *q, apr_pool_t *p, apr_int64_t after_id,
                    int limit, apr_array_header_t **rows);
/* id: the event id or the notificationId. 1 found, 0 not found, -1. */
int wh_fq_dead_get(wh_fq *q, apr_pool_t *p, const char *id,
                   wh_fq_dead *out);
/* Puts dead letters back in the queue (attempts start again): one (id as
 * in dead_get) or, with id NULL, all of them. *n: how many. 0 or -1. */
int wh_fq_dead_retry(wh_fq *q, apr_pool_t *p, const char *id,
                     apr_time_t now, int *n);
/* The same for every dead letter of one payment, in listing order. */
int wh_fq_dead_retry_payment(wh_fq *q, apr_pool_t *p,
                             const char *payment_id, apr_time_t now, int *n);
/* How many dead letters payment_id has. 0 or -1. */
int wh_fq_dead_count_payment(wh_fq *q, apr_pool_t *p,
                             const char *payment_id, apr_int64_t *n);

/* ---- readers that are not the forwarder (the console) ---------------- */

/* The forward queue of an inbox for a reader: creates nothing and
 * changes nothing about the inbox's connection (wh_fq_open makes
 * its commits relaxed, which only the forwarder's own inbox may be).
 * 1 with *out when a forwarder has ever run on this inbox, 0 when none
 * has (no tables: nothing to show, nothing to retry), -1 on failure. */
int wh_fq_attach(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                 wh_fq **out);

/* 1 when the attempt history (wh_attempts) exists: wh_fq_open made it,
 * or wh_fq_attach found it. */
int wh_fq_has_attempts(const wh_fq *q);

/* One event's place in the queue. */
typedef struct {
    apr_int64_t event_id;
    int state;                   /* WH_FQ_*; -1: not queued yet */
    int attempts;
    int leased;                  /* an attempt is in flight */
    apr_time_t next_at;          /* READY: due (leased: the lease's end) */
    apr_time_t first_at, done_at;
    int http_status;             /* of the last failed answer, 0: none */
    const char *answer;          /* bounded prefix of it */
    const char *reason;          /* DEAD: why */
} wh_fq_state;

/* The states of the events ids[0..n) (at most 1000): an array of
 * wh_fq_state, one per queued event, in no order. 0 or -1. */
int wh_fq_states(wh_fq *q, apr_pool_t *p, const apr_int64_t *ids,
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
    int outcome;                 /* WH_FQ_FORWARDED, _READY (retried),
                                    _DEAD */
} wh_fq_attempt;

/* The latest attempts at event_id, newest first, at most limit. *total:
 * how many there are. 0 or -1. */
int wh_fq_attempts(wh_fq *q, apr_pool_t *p, apr_int64_t event_id,
                   int limit, apr_array_header_t **out, apr_int64_t *total);

#endif
