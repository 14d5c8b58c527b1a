#ifndef WH_FORWARD_PURGE_H
#define WH_FORWARD_PURGE_H
/* What the forward queue tells the inbox's purge (inbox/wh_inbox_purge.h):
 * an event goes only once the forwarder is done with it, and its rows in
 * the queue (wh_delivery, the attempt history wh_attempts) go with it. */
#include "inbox/wh_inbox_purge.h"

/* The guard for ib's purge: *out NULL when no forwarder has run on this
 * inbox and cfg forwards nothing (nothing to wait for); a guard that
 * keeps every event when cfg has ForwardUrl but no forwarder has made its
 * queue yet (they are all still to forward); otherwise the queue's: an
 * event goes when it is beyond nothing the queue has taken in, and it was
 * forwarded, or is a dead letter past InboxDeadLetterRetention. NULL, or
 * why not (the database did not answer). */
const char *wh_fq_purge_guard(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                              const wh_purge_guard **out);

#endif
