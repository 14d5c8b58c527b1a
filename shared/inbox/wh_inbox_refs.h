#ifndef WH_INBOX_REFS_H
#define WH_INBOX_REFS_H
/* The wire's references (endToEndId, IMAD, OMAD) of each payment, in
 * wh_payment_refs: kept by the store transaction, filled from the stored
 * bodies when a database is upgraded to schema version 4, so that
 * wh_inbox_find finds a payment by the reference the bank's support
 * quotes. Inside a unit of work (wh_inbox_db.h). */
#include "wh_inbox_db.h"

/* The references of n events' facts, each for its event's payment_id
 * (none without one): each (reference, kind, payment) once, every writer
 * taking them in one order. A reference that no search could ask for
 * (empty, longer than a filter value, control characters) is not kept.
 * 0 or the driver's code. */
int wh_inbox_refs_add(wh_inbox *ib, apr_pool_t *p, const wh_facts *const *facts, int n);

/* Every stored event's references, read from its body, chunk by chunk:
 * memory stays bounded whatever the inbox's size. 0 or the failure. */
int wh_inbox_refs_fill(wh_inbox *ib, apr_pool_t *p);

#endif
