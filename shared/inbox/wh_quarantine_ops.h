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
} wh_quarantined;

/* Rows with id > after_id, at most limit, without bodies. 0 or -1. */
int wh_quarantine_list(wh_inbox *ib, apr_pool_t *p, apr_int64_t after_id, int limit,
                       apr_array_header_t **rows);
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
    WH_RELEASE_NOT_FOUND,
    WH_RELEASE_UNAVAILABLE
} wh_release_result;

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
