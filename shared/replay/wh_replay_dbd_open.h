#ifndef WH_REPLAY_DBD_OPEN_H
#define WH_REPLAY_DBD_OPEN_H
/* apr_dbd_open_ex with a deadline, for a driver that cannot bound its own
 * wait. apr_dbd's mysql driver (apr-util 1.6) takes no connect or read
 * timeout, and MariaDB's client waits for the server's greeting for as
 * long as the server is silent: a stopped or frozen server accepts the
 * connection in its kernel and never greets it. No socket exists to watch
 * until the driver returns one, so the attempt runs in a thread of its
 * own, and the caller waits for it until the deadline only.
 *
 * An attempt the caller gave up on runs on and closes what it opens when
 * the server answers at last. At most one such attempt per opener is
 * left running: until it ends every further attempt fails at once, so a
 * server that stays silent costs one waiting thread, not one per try. */
#include <apr_dbd.h>
#include <apr_pools.h>
#include <apr_time.h>

typedef struct wh_dbd_opener wh_dbd_opener;

/* An opener living until p is cleared (an attempt still running then
 * finishes alone). NULL, or why not. */
const char *wh_dbd_opener_create(apr_pool_t *p, wh_dbd_opener **out);

/* apr_dbd_open_ex(drv, cp, params) within timeout. cp must be a pool of
 * its own (apr_pool_create(&cp, NULL)): an attempt given up on takes it
 * and destroys it when it ends, and the caller must not touch it then.
 *   APR_SUCCESS  *h open, cp still the caller's;
 *   APR_TIMEUP   no answer in time: cp is the attempt's now;
 *   APR_EBUSY    an attempt given up on earlier has not ended: cp stays
 *                the caller's, nothing was tried;
 *   other        the driver's failure, *err (in cp) says why (never the
 *                parameters); cp stays the caller's. */
apr_status_t wh_dbd_open_within(wh_dbd_opener *o, const apr_dbd_driver_t *drv,
                                apr_pool_t *cp, const char *params,
                                apr_interval_time_t timeout, apr_dbd_t **h,
                                const char **err);

#endif
