#ifndef WH_CONSOLE_DEAD_H
#define WH_CONSOLE_DEAD_H
/* The dead letters' filter as the console reads it, from a page's query
 * or an action's form (wh_console_dead.c). */
#include "wh_console_int.h"
#include "forward/wh_forward_views.h"

/* reason, http ("" any, "none": no answer came, else a status), payment,
 * from, to (times as wh_cx_parse_time reads them) of form (a query
 * string or a form body) into *f. 0, or -1 with *why. */
int wh_cx_dead_filter_of(wh_cx *x, const char *form, wh_fq_dead_filter *f,
                         const char **why);

/* The filter's conditions in words ("with last status 503, payment P"),
 * for a page and the log; "" when it has none. */
const char *wh_cx_dead_filter_text(wh_cx *x, const wh_fq_dead_filter *f);

#endif
