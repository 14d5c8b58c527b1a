#ifndef WH_PAGINATION_H
#define WH_PAGINATION_H
/* Strict offset/limit query parsing for every list the inbox serves (the
 * listing of events, the payments view). wh_pagination_parse (wh_inbox.h)
 * is the events listing's: offset, limit, paymentId, status,
 * notificationId. */
#include "wh_inbox.h"

/* Filters a list accepts besides offset and limit. */
#define WH_PAGE_PAYMENT_ID 1u
#define WH_PAGE_STATUS     2u
#define WH_PAGE_NOTIFICATION_ID 4u

/* As wh_pagination_parse, accepting only the filters in `allowed`; any
 * other parameter is an error naming the ones known. */
const char *wh_pagination_parse_filters(apr_pool_t *p, const char *query,
                                         const wh_config *cfg, unsigned allowed,
                                         wh_page_query *out);

/* A filter value, or an id taken from a path: 1 to 128 bytes of UTF-8
 * without control characters (anything else could never be stored, and
 * PostgreSQL would refuse it as text). NULL with *out = value, or the
 * problem, naming `name`. */
const char *wh_page_filter_value(apr_pool_t *p, const char *name,
                                 const char *value, const char **out);

#endif
