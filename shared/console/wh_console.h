#ifndef WH_CONSOLE_H
#define WH_CONSOLE_H
/* The operator's console, host-neutral: the module's `SetHandler
 * wirehook-console` and wirehook.cgi's /console/... call
 * wh_console_handle and copy the answer out, as they do for the inbox
 * endpoint. Plain server-rendered HTML with small SVG charts, one
 * stylesheet and one icon served from here; no script at all.
 *
 * Who may do what is the host's to decide and the console's to apply:
 * a request arrives with its user (or none, for a console the
 * configuration marks public) and whether that user may act. Readers get
 * the pages and the JSON API (GET); operators also the actions (POST),
 * which need the session cookie's token and the console's own Origin.
 *
 * Every request must name this server: a Host among its own names (the
 * host's to know: ServerName, ServerAlias, its own address) or the
 * configured public origin's (ConsoleOrigin); else 403, so a page on
 * another domain that rebinds its name to this server reads nothing.
 *
 * Resources, by sub-path (after the console's own URL):
 *   "" "/"                 overview          GET
 *   /find?q=               find by notificationId, paymentId,
 *                          endToEndId, IMAD, OMAD
 *   /events[?...]          the listing       GET (paymentId, status, state,
 *                                            from, to, before, after, limit)
 *   /events/{id}           one event         GET (its number or its
 *                                            notificationId)
 *   /payments[?...]        payments          GET (status, before, paymentId)
 *   /payments/{paymentId}  one payment       GET
 *   /dead[?...]            dead letters      GET (reason, http, payment,
 *                                            from, to, before)
 *   /dead/retry[?...]      how many a retry of them all would put back,
 *                          and its confirmation
 *   /quarantine[?...]      the quarantine    GET (all, before)
 *   /quarantine/{id}       one body          GET
 *   /actions/retry         POST event=ID | payment=PID
 *   /actions/retry-matching POST the filter, expect=N
 *   /actions/release       POST id=QID
 *   /actions/discard       POST id=QID
 *   /actions/acknowledge   POST id=QID
 *   /api/events, /api/payments, /api/payments/{id}   the inbox's JSON
 *   /assets/console.css, /assets/icon.svg            (cached, ETag) */
#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "verify/wh_config.h"
#include "verify/wh_log.h"
#include "inbox/wh_inbox.h"

/* The prefix of every action's sub-path: a host that decides operators
 * by URL (httpd's Require on a <Location>) protects base + this. */
#define WH_CONSOLE_ACTIONS "/actions"

/* What the host knows and the inbox does not (the overview shows it). */
typedef struct {
    const char *code;            /* "accepted", "duplicate" or an error code */
    apr_uint64_t n;
} wh_console_count;

typedef struct {
    const char *host;            /* "mod_wirehook", "wirehook.cgi" */
    /* the answers counted since counters_since; NULL: the host keeps no
     * counters (the page says so, and why) */
    const apr_array_header_t *counts;     /* of wh_console_count */
    apr_time_t counters_since;
    const char *no_counters;     /* why there are none */
    /* the replay store; NULL provider: the host has none (the inbox
     * decides duplicates) */
    const char *replay_provider;
    int replay_fill_known;
    apr_uint64_t replay_live, replay_capacity;
    /* the answers by the minute (wh_console_ring.h); NULL: the host keeps
     * none (the page says why: no_counters) */
    const struct wh_console_ring *ring;
} wh_console_host;

typedef struct {
    const char *method;          /* GET, HEAD, POST, ... */
    const char *base;            /* the console's URL path, no trailing '/' */
    const char *sub_path;        /* the rest of the path, %-decoded */
    const char *query;           /* raw query string or NULL */
    const char *body;            /* POST: the form */
    apr_size_t body_len;
    const char *content_type;
    const char *user;            /* the authenticated user, NULL: none */
    int may_act;                 /* the host lets this user act */
    const char *scheme;          /* "http" | "https" */
    const char *host_header;     /* Host as sent */
    int host_known;              /* the host found Host's name among the
                                    server's own (ServerName, ServerAlias,
                                    its address) */
    const char *origin;          /* Origin, NULL: absent */
    const char *fetch_site;      /* Sec-Fetch-Site, NULL: absent */
    const char *cookie;          /* Cookie, NULL: absent */
    const char *if_none_match;   /* for the assets */
    apr_time_t now;
    const wh_console_host *host;
} wh_console_request;

typedef struct {
    const char *name;
    const char *value;
} wh_console_header;

typedef struct {
    int status;
    const char *content_type;
    const char *body;            /* may hold no NUL: body_len counts */
    apr_size_t body_len;
    apr_array_header_t *headers; /* of wh_console_header, to add */
    /* An action taken or refused, or a request for another server's name,
     * for the host's log with its tag (never a token or a secret), or
     * NULL. audit_level: WH_LOG_INFO when done (to be logged whatever the
     * log level: it names the operator), WH_LOG_WARN when refused. */
    const char *audit;
    wh_log_level audit_level;
    int foreign_host;            /* refused: Host is not this server's */
} wh_console_response;

typedef struct wh_console wh_console;

/* Once per configuration (the module: per configuration; the CGI: per request).
 * NULL when the configuration has no signing secret to derive the
 * action tokens' key from (never: finalize requires one). */
wh_console *wh_console_create(apr_pool_t *p, const wh_config *cfg);

/* The inbox, asked for only when a page needs it: NULL is "unavailable"
 * (the page says so, 503). */
typedef wh_inbox *(*wh_console_inbox_fn)(void *ctx);

void wh_console_handle(wh_console *c, wh_console_inbox_fn get, void *ctx,
                       const wh_console_request *req, apr_pool_t *p,
                       wh_console_response *out);

/* 1 when sub_path is under WH_CONSOLE_ACTIONS. */
int wh_console_is_action(const char *sub_path);

#endif
