#ifndef WH_CONSOLE_INT_H
#define WH_CONSOLE_INT_H
/* The console's internals, shared by its files: the request being
 * answered (wh_cx), the page frame and its parts, the actions and the
 * pages. Not for the hosts: they use wh_console.h. */
#include "wh_console.h"
#include "wh_console_csrf.h"
#include "wh_html.h"
#include "inbox/wh_inbox_views.h"
#include "forward/wh_forward_queue.h"

/* A page's size bound, and how much of one value (a body) it shows. */
#define WH_CX_PAGE_MAX (4 * 1024 * 1024)
#define WH_CX_BODY_SHOWN (256 * 1024)
/* Rows a console page shows when not told (and at most). */
#define WH_CX_ROWS 50
#define WH_CX_ROWS_MAX 200
/* A form or a query is small: an id, a filter and a token. */
#define WH_CX_FORM_MAX 4096
/* Attempts shown for one event (the latest ones). */
#define WH_CX_ATTEMPTS 100

struct wh_console {
    const wh_config *cfg;
    wh_csrf_key key;
};

/* One request being answered. */
typedef struct {
    wh_console *c;
    const wh_console_request *req;
    apr_pool_t *p;
    wh_console_inbox_fn get;
    void *get_ctx;
    wh_inbox *ib;
    int ib_asked;
    wh_fq *fq;                   /* the forward queue, once attached */
    int fq_asked, fq_rc;
    const char *session;         /* the session value (cookie, or new) */
    const char *new_session;     /* set: Set-Cookie it with the page */
    int can_act;                 /* actions shown: may_act, ConsoleActions */
    wh_html h;
    int status;                  /* the page's status (200) */
    int answered;                /* a page answered otherwise (303) */
    wh_console_response *out;
} wh_cx;

/* ---- answers (wh_console.c) ----------------------------------------- */

/* A header; the page's status, type and security headers once its markup
 * is done; a JSON answer or error; a page that only says what went wrong;
 * 405 with Allow (json: as JSON); 303 to a URL. */
void wh_cx_header(wh_cx *x, const char *name, const char *value);
void wh_cx_finish_page(wh_cx *x);
void wh_cx_json_answer(wh_cx *x, int status, const char *json);
void wh_cx_json_error(wh_cx *x, int status, const char *code, const char *message);
void wh_cx_error_page(wh_cx *x, int status, const char *code, const char *message);
void wh_cx_not_allowed(wh_cx *x, const char *allow, int json);
void wh_cx_see_other(wh_cx *x, const char *url);
/* The session cookie's name: __Host- when the console is reached over
 * https (its own scheme, or ConsoleOrigin's). */
const char *wh_cx_cookie_name(const wh_cx *x);
/* The origin actions must come from: ConsoleOrigin, else the request's
 * own scheme and Host. */
int wh_cx_same_origin(wh_cx *x);

/* The inbox, opened on first use; NULL: unavailable. */
wh_inbox *wh_cx_inbox(wh_cx *x);
/* The forward queue, attached on first use: 1 *d set, 0 no forwarder has
 * run on this inbox, -1 unavailable. */
int wh_cx_queue(wh_cx *x, wh_fq **d);

/* base + path (a literal of this source, starting with '/') + "/" +
 * %-encoded segment (when seg is not NULL): a URL for href/action. */
const char *wh_cx_url(wh_cx *x, const char *path, const char *seg);
/* A query parameter of this request (decoded), or NULL. */
const char *wh_cx_param(wh_cx *x, const char *name);
/* The same when it is a filter value (1 to 128 bytes of UTF-8 text
 * without control characters, spaces around it dropped), else NULL. */
const char *wh_cx_filter(wh_cx *x, const char *name);
/* The limit a page was asked for, WH_CX_ROWS by default. */
int wh_cx_rows(wh_cx *x);
/* A time a person typed: RFC 3339, or "YYYY-MM-DD HH:MM[:SS]" in UTC.
 * 0 with *t, or -1. */
int wh_cx_parse_time(wh_cx *x, const char *v, apr_time_t *t);
/* "?a=1&b=2" of the non-NULL name=value pairs (values %-encoded), ""
 * when none; names[] ends with NULL. */
const char *wh_cx_query(wh_cx *x, const char *const *names, const char *const *values);
const char *wh_cx_num(wh_cx *x, apr_int64_t n);

/* ---- the frame and its parts (wh_console.c) ------------------------- */

/* The page frame: <head>, the navigation and the find box (active:
 * "overview", "events", "payments", "dead", "quarantine"), then the
 * page's own markup, then wh_cx_page_end. */
void wh_cx_page_begin(wh_cx *x, const char *title, const char *active);
void wh_cx_page_end(wh_cx *x);
/* A notice box; kind "ok", "warn" or "error"; text is escaped. */
void wh_cx_notice(wh_cx *x, const char *kind, const char *text);
/* A time as "2026-11-22 14:05:09 UTC" (escaped), "-" for 0. */
void wh_cx_time(wh_cx *x, apr_time_t t);
/* A <a href> to base + path + "/" + seg with the text shown (escaped). */
void wh_cx_link(wh_cx *x, const char *path, const char *seg, const char *text);
/* <a href=url>label</a>, or the label dimmed when url is NULL. */
void wh_cx_pager_link(wh_cx *x, const char *label, const char *url);
/* The page's body says the inbox is unavailable (503); a page's 404. */
void wh_cx_unavailable(wh_cx *x);
void wh_cx_not_found(wh_cx *x, const char *what);
/* A <dt>term</dt><dd>value</dd> of a facts list (a dim "-" for NULL). */
void wh_cx_dl_row(wh_cx *x, const char *term, const char *value);
/* Table cells: a value (a dim "-" for NULL), a link. */
void wh_cx_cell(wh_cx *x, const char *v);
void wh_cx_cell_link(wh_cx *x, const char *path, const char *seg, const char *text);
/* A labelled text field of a GET filter form. */
void wh_cx_field(wh_cx *x, const char *name, const char *label, const char *value,
                 const char *placeholder);
/* A labelled <select> of a GET filter form: values[i] shown as
 * labels[i], n of them, the first an "any" with value "". */
void wh_cx_select(wh_cx *x, const char *name, const char *label, const char *current,
                  const char *const *values, const char *const *labels, int n);

/* An action's form: POST to base + /actions/<action>, its token bound
 * to the action and the target "name=value", hidden name=value (and
 * back=page when set), and a button labelled label (css: its class). */
void wh_cx_action_form(wh_cx *x, const char *action, const char *name,
                       const char *value, const char *label, const char *back,
                       const char *css);

/* A forwarding state's badge (WH_FQ_*, -1 not queued yet). */
void wh_cx_state_badge(wh_cx *x, int state, int leased, int attempts);
/* The queue states of rows (by event id) as a hash id -> wh_fq_state,
 * or NULL when no forwarder has run or the database failed. */
apr_hash_t *wh_cx_states(wh_cx *x, const apr_int64_t *ids, int n);

/* ---- notices after an action (wh_console.c) -------------------------- */

/* The URL of the page path [+ "/" + seg] (as wh_cx_url) carrying a
 * notice sealed for it: what was done (done, a word of this source) and
 * n. */
const char *wh_cx_done_url(wh_cx *x, const char *path, const char *seg, const char *done,
                           apr_int64_t n);
/* The notice of this request's URL, shown when its seal is this
 * session's, this user's, for this page, and recent; else nothing. */
void wh_cx_done_message(wh_cx *x);

/* ---- actions (wh_console_actions.c) --------------------------------- */

void wh_cx_action(wh_cx *x, const char *name);

/* ---- the pages ------------------------------------------------------- */

void wh_cx_overview(wh_cx *x);                   /* wh_console_overview.c */
void wh_cx_find(wh_cx *x);                       /* wh_console_events.c */
void wh_cx_events(wh_cx *x);
void wh_cx_event(wh_cx *x, const char *id);
void wh_cx_payments(wh_cx *x);                   /* wh_console_payments.c */
void wh_cx_payment(wh_cx *x, const char *id);
void wh_cx_dead(wh_cx *x);                       /* wh_console_dead.c */
void wh_cx_dead_retry(wh_cx *x);
void wh_cx_quarantine(wh_cx *x);                 /* wh_console_quarantine.c */
void wh_cx_quarantined(wh_cx *x, const char *id);

/* ---- charts (wh_console_chart.c) ------------------------------------ */

/* A series of a stacked bar chart: its name (escaped) and its css class
 * (a literal: s0 .. s7), values[bin]. */
typedef struct {
    const char *name;
    const char *css;
    const double *values;
} wh_cx_series;

/* A stacked bar chart as inline SVG, nbins bins oldest first, each
 * bins[b] long starting at start + b * step: a caption (escaped), the
 * unit of the values, time ticks every tick_every bins labelled with the
 * date where it changes, the last bin labelled "now". */
void wh_cx_chart(wh_cx *x, const char *caption, const char *unit,
                 const wh_cx_series *series, int nseries, int nbins, apr_time_t start,
                 apr_interval_time_t step, int tick_every);

/* ---- assets (wh_console_assets.c) ------------------------------------ */

/* The stylesheet and the icon: body, its type and its ETag (a quoted
 * hash of the content). NULL for an unknown name. */
typedef struct {
    const char *body;
    apr_size_t len;
    const char *type;
    const char *etag;
} wh_cx_asset;
const wh_cx_asset *wh_cx_asset_get(apr_pool_t *p, const char *name);

#endif
