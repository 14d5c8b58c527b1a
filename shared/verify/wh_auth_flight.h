#ifndef WH_AUTH_FLIGHT_H
#define WH_AUTH_FLIGHT_H
/* One password check per credential at a time, within a process.
 *
 * Why: the success cache holds nothing when a process starts, after a
 * reload, or once a credential has been idle past AuthCacheTTL. The bank
 * then sends its next burst on many connections at once, every request
 * misses, and each ran its own bcrypt: sixteen connections cost sixteen
 * checks of the same password (a second of CPU at cost 10) where one
 * answers them all. Here the first request checks and the others with the
 * same Authorization value (the same digest, against the same version of
 * the user table) wait for its result and take it, success or failure:
 * the same header against the same table cannot get another answer. */
#include <apr_pools.h>
#include <openssl/sha.h>

typedef struct wh_auth_flights wh_auth_flights;
typedef struct wh_auth_flight wh_auth_flight;

#define WH_AUTH_FLIGHT_KEY_LEN SHA256_DIGEST_LENGTH   /* the header's digest */

typedef enum {
    WH_FLIGHT_ALONE,   /* check without sharing: no room, or waited too long */
    WH_FLIGHT_LEAD,    /* check, then wh_auth_flights_land() with the result */
    WH_FLIGHT_SHARED   /* another request's check answered: *ok, *user set */
} wh_flight_role;

/* NULL when the platform has no threads (then every check is alone). */
wh_auth_flights *wh_auth_flights_create(apr_pool_t *p);

/* Joins the check under way for (key, generation), waiting for its
 * result, or leads a new one (*mine set: land it whatever happens). On
 * WH_FLIGHT_SHARED, *ok says whether the credential passed and *user (in
 * p) is the user's name when it did. f may be NULL. */
wh_flight_role wh_auth_flights_join(wh_auth_flights *f,
                                    const unsigned char key[WH_AUTH_FLIGHT_KEY_LEN],
                                    unsigned generation, apr_pool_t *p, int *ok,
                                    const char **user, wh_auth_flight **mine);

/* The leader's result, handed to every request waiting on mine. */
void wh_auth_flights_land(wh_auth_flights *f, wh_auth_flight *mine, int ok,
                          const char *user);

/* Requests waiting on checks under way: for tests, which must know a
 * waiter is in before the leader lands. */
unsigned wh_auth_flights_waiters(wh_auth_flights *f);

#endif
