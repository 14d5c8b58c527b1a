#ifndef WH_CONSOLE_CSRF_H
#define WH_CONSOLE_CSRF_H
/* What makes a console action a request the operator meant: a session
 * cookie (random, HttpOnly, SameSite=Strict) and, in each form, a token
 * tied to that session, the user and the action:
 *   token = HMAC-SHA256(K, session NUL user NUL scope), 64 hex digits
 *   K     = HMAC-SHA256(first signing secret, "wirehook console csrf v1")
 * so the token says nothing about the secret, a page's tokens are good
 * for that user's session only, and a token for one action is no token
 * for another. Tokens are compared in constant time. Besides the token
 * every action must come from the console's own origin (Origin header). */
#include <apr_pools.h>
#include "verify/wh_config.h"

#define WH_CSRF_KEY_LEN 32
typedef struct {
    unsigned char key[WH_CSRF_KEY_LEN];
    int ok;                      /* 0: no key (no signing secret) */
} wh_csrf_key;

/* K from cfg's first signing secret. 0, or -1 (key->ok stays 0). */
int wh_csrf_key_derive(const wh_config *cfg, wh_csrf_key *key);

/* A new session value: 32 random bytes as 64 lowercase hex digits, or
 * NULL when the random generator failed. */
const char *wh_csrf_session_new(apr_pool_t *p);

/* The value of cookie `name` in a Cookie header when it is a session
 * value (64 lowercase hex digits), else NULL. */
const char *wh_csrf_session_from_cookie(apr_pool_t *p, const char *cookie_header,
                                        const char *name);

/* The token for (session, user, scope); NULL without a key or session. */
const char *wh_csrf_token(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                          const char *user, const char *scope);

/* 1 when token is the token for (session, user, scope), else 0. */
int wh_csrf_check(apr_pool_t *p, const wh_csrf_key *key, const char *session,
                  const char *user, const char *scope, const char *token);

/* 1 when an Origin header names the request's own origin: scheme "://"
 * host, where host is the Host header as sent; case-insensitive, a
 * default port (:80 for http, :443 for https) written or left out alike.
 * "null", an absent or any other origin is 0. */
int wh_csrf_same_origin(apr_pool_t *p, const char *origin, const char *scheme,
                        const char *host);

#endif
