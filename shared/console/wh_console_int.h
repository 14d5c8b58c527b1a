#ifndef WH_CONSOLE_INT_H
#define WH_CONSOLE_INT_H
/* The console's internals, shared by its files: the request being
 * answered (wh_cx), the page frame, and the pages. Not for the hosts:
 * they use wh_console.h. */
#include "wh_console.h"
#include "wh_console_csrf.h"
#include "wh_html.h"

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
    const char *session;         /* the session value (cookie, or new) */
    const char *new_session;     /* set: Set-Cookie it with the page */
    int can_act;                 /* actions shown: may_act, ConsoleActions */
    wh_html h;
    int status;                  /* the page's status (200) */
    wh_console_response *out;
} wh_cx;

/* The answer's parts (wh_console.c): a header; the page's status, type
 * and security headers once its markup is done; a JSON answer or error;
 * a page that only says what went wrong; 405 with Allow (json: as JSON). */
void wh_cx_header(wh_cx *x, const char *name, const char *value);
void wh_cx_finish_page(wh_cx *x);
void wh_cx_json_answer(wh_cx *x, int status, const char *json);
void wh_cx_json_error(wh_cx *x, int status, const char *code, const char *message);
void wh_cx_error_page(wh_cx *x, int status, const char *code, const char *message);
void wh_cx_not_allowed(wh_cx *x, const char *allow, int json);
/* The session cookie's name (__Host- over https). */
const char *wh_cx_cookie_name(const wh_cx *x);

/* The inbox, opened on first use; NULL: unavailable. */
wh_inbox *wh_cx_inbox(wh_cx *x);

/* base + path (a literal of this source, starting with '/') + "/" +
 * %-encoded segment (when seg is not NULL): a URL for href/action. */
const char *wh_cx_url(wh_cx *x, const char *path, const char *seg);

/* The page frame: <head>, the navigation (active: "overview", "events",
 * "payments", "dead", "quarantine"), then the page's own markup, then
 * wh_cx_page_end. */
void wh_cx_page_begin(wh_cx *x, const char *title, const char *active);
void wh_cx_page_end(wh_cx *x);
/* A notice box; kind "ok", "warn" or "error"; text is escaped. */
void wh_cx_notice(wh_cx *x, const char *kind, const char *text);
/* An action's form: POST to base + /actions/<action>, the token for
 * scope, hidden name=value, and a button labelled label. */
void wh_cx_action_form(wh_cx *x, const char *action, const char *scope,
                       const char *name, const char *value, const char *label);
/* A time as "2026-11-22 14:05:09 UTC" (escaped), "-" for 0. */
void wh_cx_time(wh_cx *x, apr_time_t t);
/* A <a href> to base + path + "/" + seg with the text shown (escaped). */
void wh_cx_link(wh_cx *x, const char *path, const char *seg, const char *text);
/* The page's "done" message from the query (after an action). */
void wh_cx_done_message(wh_cx *x);
/* A query parameter of this request (decoded), or NULL. */
const char *wh_cx_param(wh_cx *x, const char *name);

/* The pages (wh_console_pages.c, wh_console_overview.c). */
void wh_cx_overview(wh_cx *x);
void wh_cx_events(wh_cx *x);
void wh_cx_event(wh_cx *x, const char *id);
void wh_cx_payments(wh_cx *x);
void wh_cx_payment(wh_cx *x, const char *id);
void wh_cx_dead(wh_cx *x);
void wh_cx_quarantine(wh_cx *x);
void wh_cx_quarantined(wh_cx *x, const char *id);

/* A bar chart as inline SVG (wh_console_chart.c): counts[0..n) oldest
 * first, one bar each, labels[i] for its tooltip (escaped); a caption
 * above (escaped). per: the unit the height is in ("per minute"). */
void wh_cx_chart(wh_cx *x, const char *caption, const double *values, int n,
                 const char *const *labels, const char *first_label,
                 const char *last_label);

/* The stylesheet and the icon (wh_console_assets.c): body, its type and
 * its ETag (a quoted hash of the content). NULL for an unknown name. */
typedef struct {
    const char *body;
    apr_size_t len;
    const char *type;
    const char *etag;
} wh_cx_asset;
const wh_cx_asset *wh_cx_asset_get(apr_pool_t *p, const char *name);

#endif
