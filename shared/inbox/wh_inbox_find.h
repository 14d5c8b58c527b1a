#ifndef WH_INBOX_FIND_H
#define WH_INBOX_FIND_H
/* Finding what an operator has at hand, by exact match: a notificationId
 * (the event), a paymentId, or one of the wire's references the bank's
 * support quotes, endToEndId, IMAD or OMAD (the payments whose events
 * carry it). One query of index seeks (wh_events' unique
 * notification_id, wh_payments' key, wh_payment_refs' key): as fast as a
 * page whatever the inbox's size. */
#include <apr_pools.h>
#include <apr_tables.h>
#include "wh_inbox.h"

/* What matched. */
typedef enum {
    WH_FOUND_NOTIFICATION = 0,   /* event_id: the event (payment_id its
                                    payment, or NULL) */
    WH_FOUND_PAYMENT,            /* payment_id */
    WH_FOUND_END_TO_END_ID,      /* payment_id: a payment of events
                                    carrying it */
    WH_FOUND_IMAD,
    WH_FOUND_OMAD
} wh_found_kind;

typedef struct {
    wh_found_kind kind;
    apr_int64_t event_id;        /* WH_FOUND_NOTIFICATION only */
    const char *payment_id;
} wh_found;

/* At most this many hits (a reference shared by more payments is
 * said to be, not listed whole). */
#define WH_FIND_MAX 50

/* The name of what matched ("notificationId", "IMAD", ...). */
const char *wh_found_name(wh_found_kind kind);

/* The hits for value (a filter value: 1 to 128 bytes of UTF-8 without
 * control characters, else nothing matches) into *hits (of wh_found,
 * at most WH_FIND_MAX, the event first), *more when there were others.
 * 0, or -1 when the inbox is unavailable. */
int wh_inbox_find(wh_inbox *ib, apr_pool_t *p, const char *value,
                  apr_array_header_t **hits, int *more);

#endif
