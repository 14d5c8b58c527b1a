#ifndef WH_MOD_BODY_H
#define WH_MOD_BODY_H
/* The request body: read ahead, drained, kept for the handler. */
#include "wh_mod_config.h"

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
/* Before an answer given without reading the body: drains a body of at
 * most max bytes, else marks the connection to close. */
void wh_mod_drain_before_answer(request_rec *r, apr_int64_t max);
/* Hands exactly these bytes to whatever reads r's body next; returns the
 * filter state (one per request chain). */
void *wh_mod_keep_body(request_rec *r, const char *body, apr_size_t len);
/* Puts the filter with that state on r when it is not there already
 * (an internal redirect drops request-level filters). */
void wh_mod_kept_body_resume(request_rec *r, void *kept);
void wh_mod_body_register(void);

#endif
