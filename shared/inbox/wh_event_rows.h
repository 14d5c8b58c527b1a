#ifndef WH_EVENT_ROWS_H
#define WH_EVENT_ROWS_H
/* An event row (wh_inbox_views.h) as SQL selects it and as it is read
 * back: for the views that list events, the inbox's own and the forward
 * queue's (events by forwarding state). o is wh_order, e wh_events. */
#include "wh_inbox_db.h"
#include "wh_inbox_views.h"

#define WH_EVENT_ROW_COLS                                                     \
    "o.seq, e.id, e.notification_id, e.event_type, e.event_time,"            \
    " e.payment_id, e.status, e.received_at"

/* Row i of r, selected as WH_EVENT_ROW_COLS (and e.body after them, for
 * one event), into *e; its strings stay r's. */
void wh_event_row_read(const wh_inbox_rows *r, int i, wh_event_row *e);

#endif
