#ifndef WH_CONSOLE_CSRF_H
#define WH_CONSOLE_CSRF_H
/* What makes a console action a request the operator meant: a session
 * cookie (random, HttpOnly, SameSite=Strict) and, in each form, a token
 * tied to that session, the user, the action, its target and a time:
 *   token = EXPIRES "." HMAC-SHA256(K, "token" NUL session NUL user NUL
 *                                   action NUL target NUL EXPIRES)
 *   K     = HMAC-SHA256(first signing secret, "wirehook console csrf v1")
 * EXPIRES in Unix seconds, the MAC as 64 hex digits. So the token says
 * nothing about the secret, a page's tokens are good for that user's
 * session only, for one action on one target (an event, a payment, a
 * quarantined body, one filter of dead letters), and for
 * WH_CSRF_TOKEN_TTL after the page was made. Tokens are compared in
 * constant time. Besides the token every action must come from the
 * console's own origin (Origin header).
 *
 * After an action, the page it leads to says what was done: the notice
 * travels in the URL, sealed the same way ("notice" NUL session NUL user
 * NUL page NUL what NUL when), so nobody can make a notice appear on an
 * operator's page with a link of their own. */
#include <apr_pools.h>
#include <apr_time.h>
#include "verify/wh_config.h"

#define WH_CSRF_KEY_LEN 32
typedef struct {
    unsigned char key[WH_CSRF_KEY_LEN];
    int ok;                      /* 0: no key (no signing secret) */
} wh_csrf_key;

/* How long a page's action tokens are good for, and a notice is shown. */
#define WH_CSRF_TOKEN_TTL apr_time_from_sec(3600)
#define WH_CSRF_NOTICE_TTL apr_time_from_sec(600)

/* K from cfg's first signing secret. 0, or -1 (key->ok stays 0). */
int wh_csrf_key_derive(const wh_config *cfg, wh_csrf_key *key);

/* A new session value: 32 random bytes as 64 lowercase hex digits, or
 * NULL when the random generator failed. */
const char *wh_csrf_session_new(apr_pool_t *p);

/* The value of cookie `name` in a Cookie header when it is a session
 * value (64 lowercase hex digits), else NULL. */
const char *wh_csrf_session_from_cookie(apr_pool_t *p, const char *cookie_header,
                                        const char *name);

/* The token for (session, user, action, target), good until now +
 * WH_CSRF_TOKEN_TTL; NULL without a key or session. target NULL is "". */
const char *wh_csrf_token(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                          const char *user, const char *action, const char *target,
                          apr_time_t now);

typedef enum {
    WH_CSRF_BAD = 0,             /* not a token of this session, user,
                                    action and target */
    WH_CSRF_OK,
    WH_CSRF_EXPIRED              /* one, but past its time */
} wh_csrf_verdict;

wh_csrf_verdict wh_csrf_check(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                              const char *user, const char *action, const char *target,
                              const char *token, apr_time_t now);

/* The seal of a notice: what was done, shown on page (a console sub-path)
 * to this session's user, at `at`; 64 hex digits, or NULL. */
const char *wh_csrf_seal(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                         const char *user, const char *page, const char *what,
                         apr_time_t at);
/* 1 when seal is the seal of (session, user, page, what, at) and `at` is
 * at most WH_CSRF_NOTICE_TTL before now (and not after it), else 0. */
int wh_csrf_seal_check(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                       const char *user, const char *page, const char *what,
                       apr_time_t at, const char *seal, apr_time_t now);

/* 1 when an Origin header names the given origin: scheme "://" host,
 * host as a Host header gives it; case-insensitive, a default port (:80
 * for http, :443 for https) written or left out alike. "null", an absent
 * or any other origin is 0. */
int wh_csrf_same_origin(apr_pool_t *p, const char *origin, const char *scheme,
                        const char *host);

#endif
