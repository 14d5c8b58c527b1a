#ifndef WH_QUARANTINE_OPS_H
#define WH_QUARANTINE_OPS_H
/* The quarantine, for an operator: what an authentic but invalid
 * notification was and why it was refused, and its release once the
 * configuration accepts it (wirehook inbox quarantine ...). */
#include <apr_pools.h>
#include <apr_tables.h>
#include "verify/wh_config.h"
#include "wh_inbox.h"
#include "verify/wh_verdict.h"

typedef struct {
    apr_int64_t id;
    apr_time_t received_at;
    const char *code;            /* invalid_json | schema_violation */
    const char *message;
    const char *details;         /* JSON array of {field, problem} */
    const char *notification_id; /* when one could be read, else NULL */
    const char *body;            /* get only: the bytes as received */
    apr_size_t body_len;
    apr_time_t released_at;      /* 0: still in quarantine */
    apr_int64_t released_event_id;
    /* dealt with otherwise: "discarded" (the bytes dropped) or
     * "acknowledged" (kept), when and by whom; NULL: not */
    const char *resolution;
    apr_time_t resolved_at;
    const char *resolved_by;
    apr_size_t stored_len;       /* the body's size as kept */
    /* wh_quarantine_recheck: 1 the configuration of today accepts it
     * (Release can pass), 0 it does not, -1 not checked (not held, or too
     * large to check with a page) */
    int releasable;
} wh_quarantined;

/* Held: neither released nor discarded nor acknowledged. */
#define WH_QUARANTINE_HELD(q) (!(q)->released_at && !(q)->resolution)

/* The first problem of a row's details, as "FIELD: PROBLEM" (or the
 * message when there is none), for a list. */
const char *wh_quarantine_first_problem(apr_pool_t *p, const wh_quarantined *q);

/* Rows with id > after_id, at most limit, without bodies. 0 or -1. */
int wh_quarantine_list(wh_inbox *ib, apr_pool_t *p, apr_int64_t after_id, int limit,
                       apr_array_header_t **rows);
/* The same, newest first: rows with id < before_id (0: from the
 * newest), held ones only when held_only. 0 or -1. */
int wh_quarantine_newest(wh_inbox *ib, apr_pool_t *p, apr_int64_t before_id,
                         int held_only, int limit, apr_array_header_t **rows);

/* Bodies up to this size are checked again for a list; a larger one is
 * checked when Release is asked for. */
#define WH_QUARANTINE_RECHECK_MAX (64 * 1024)

/* Checks the held rows of a list (of wh_quarantined) again with cfg,
 * setting each one's releasable. 0 or -1 (the bodies could not be read:
 * every releasable stays -1). */
int wh_quarantine_recheck(wh_inbox *ib, apr_pool_t *p, const wh_config *cfg,
                          apr_array_header_t *rows);

/* 1 found, 0 not found, -1. */
int wh_quarantine_get(wh_inbox *ib, apr_pool_t *p, apr_int64_t id,
                      wh_quarantined *out);

/* The JSON and schema checks alone, with cfg's UnknownStatus: v->ok, or
 * its code and problems; v->facts as the schema read them. */
void wh_quarantine_check(apr_pool_t *p, const wh_config *cfg, const char *body,
                         apr_size_t len, wh_verdict *v);

typedef enum {
    WH_RELEASE_STORED = 0,       /* a new event: *event_id */
    WH_RELEASE_DUPLICATE,        /* its notificationId was stored meanwhile:
                                    *event_id is that event */
    WH_RELEASE_INVALID,          /* still fails: v says why */
    WH_RELEASE_ALREADY,          /* released before (*event_id: as which) */
    WH_RELEASE_DISCARDED,        /* its bytes were discarded */
    WH_RELEASE_NOT_FOUND,
    WH_RELEASE_UNAVAILABLE
} wh_release_result;

typedef enum {
    WH_RESOLVE_DONE = 0,
    WH_RESOLVE_NOT_HELD,         /* released, discarded or acknowledged
                                    before (discarding an acknowledged
                                    one is allowed) */
    WH_RESOLVE_NOT_FOUND,
    WH_RESOLVE_UNAVAILABLE
} wh_resolve_result;

/* An operator deals with quarantined notification `id` without releasing
 * it: WH_QUARANTINE_DISCARD drops its bytes (what is kept: when it came,
 * why it was refused, its notificationId), WH_QUARANTINE_ACKNOWLEDGE
 * keeps them; either way it is no longer held, and `by` (the operator)
 * and now are kept with it. */
#define WH_QUARANTINE_DISCARD "discarded"
#define WH_QUARANTINE_ACKNOWLEDGE "acknowledged"
wh_resolve_result wh_quarantine_resolve(wh_inbox *ib, apr_pool_t *p, apr_int64_t id,
                                        const char *resolution, const char *by,
                                        apr_time_t now);

/* Checks quarantined notification `id` again with cfg and, when it
 * passes, stores it as an event received now (the inbox's own store: in
 * arrival order from now on) and marks the row released with that event.
 * The notificationId is unique in the inbox, so a release never stores a
 * body twice, even when two run at once. */
wh_release_result wh_quarantine_release(wh_inbox *ib, apr_pool_t *p,
                                        const wh_config *cfg, apr_int64_t id,
                                        apr_time_t now, wh_verdict *v,
                                        apr_int64_t *event_id);

#endif
