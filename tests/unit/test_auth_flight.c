/* One password check per credential at a time: waiters take the leader's
 * answer; other credentials and other user tables do not wait. */
#include "wh_test.h"
#include "verify/wh_auth.h"
#include "verify/wh_auth_flight.h"
#include <apr_base64.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <string.h>

#define BCRYPT_BANK "$2y$05$umVYsjMBR4WkQjhq.K6vgumvD/Sz/SHDIlSfY6m0ur.ry9WM/2QGW"  /* s3cret pass */
#define THREADS 8

typedef struct {
    wh_auth_flights *f;
    unsigned char key[WH_AUTH_FLIGHT_KEY_LEN];
    unsigned generation;
    wh_flight_role role;
    int ok;
    const char *user;
    apr_pool_t *p;       /* the thread's own: pools are not shared */
} joiner;

static void *APR_THREAD_FUNC join_thread(apr_thread_t *t, void *data)
{
    joiner *j = data;
    wh_auth_flight *mine = NULL;
    (void)t;
    j->role = wh_auth_flights_join(j->f, j->key, j->generation, j->p, &j->ok,
                                   &j->user, &mine);
    if (j->role == WH_FLIGHT_LEAD)       /* not expected: land it anyway */
        wh_auth_flights_land(j->f, mine, 0, NULL);
    return NULL;
}

/* Until n requests wait (bounded: a stuck waiter fails the case). */
static int waiters_reach(wh_auth_flights *f, unsigned n)
{
    for (int i = 0; i < 2000; i++) {
        if (wh_auth_flights_waiters(f) >= n)
            return 1;
        apr_sleep(apr_time_from_msec(5));
    }
    return 0;
}

/* A leader holds a flight; one waiter joins; the leader lands ok/user. */
static joiner *waited_answer(int ok, const char *user)
{
    wh_auth_flights *f = wh_auth_flights_create(wh_test_pool());
    joiner *j = apr_pcalloc(wh_test_pool(), sizeof(*j));
    wh_auth_flight *mine = NULL;
    apr_thread_t *th;
    apr_status_t st;
    int lok = 0;
    const char *luser = NULL;

    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    memset(j->key, 0x5a, sizeof(j->key));
    j->f = f;
    j->generation = 3;
    apr_pool_create_unmanaged_ex(&j->p, NULL, NULL);
    CU_ASSERT_EQUAL(wh_auth_flights_join(f, j->key, 3, wh_test_pool(), &lok, &luser, &mine),
                    WH_FLIGHT_LEAD);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
    CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th, NULL, join_thread, j, wh_test_pool()),
                          APR_SUCCESS);
    CU_ASSERT(waiters_reach(f, 1));
    wh_auth_flights_land(f, mine, ok, user);
    apr_thread_join(&st, th);
    CU_ASSERT_EQUAL(wh_auth_flights_waiters(f), 0);
    j->user = j->user ? apr_pstrdup(wh_test_pool(), j->user) : NULL;
    apr_pool_destroy(j->p);
    return j;
}

static void test_waiter_takes_the_success(void)
{
    joiner *j = waited_answer(1, "bank");
    CU_ASSERT_EQUAL(j->role, WH_FLIGHT_SHARED);
    CU_ASSERT_EQUAL(j->ok, 1);
    CU_ASSERT_STRING_EQUAL(j->user, "bank");
}

static void test_waiter_takes_the_failure(void)
{
    joiner *j = waited_answer(0, NULL);
    CU_ASSERT_EQUAL(j->role, WH_FLIGHT_SHARED);
    CU_ASSERT_EQUAL(j->ok, 0);
    CU_ASSERT_PTR_NULL(j->user);
}

/* Another key, or the same key against another version of the user
 * table, is a check of its own; a landed flight is not joined. */
static void test_only_the_same_check_is_shared(void)
{
    wh_auth_flights *f = wh_auth_flights_create(wh_test_pool());
    unsigned char a[WH_AUTH_FLIGHT_KEY_LEN], b[WH_AUTH_FLIGHT_KEY_LEN];
    wh_auth_flight *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;
    const char *user = NULL;
    int ok = 0;

    memset(a, 1, sizeof(a));
    memset(b, 1, sizeof(b));
    b[31] = 2;
    CU_ASSERT_EQUAL(wh_auth_flights_join(f, a, 1, wh_test_pool(), &ok, &user, &m1), WH_FLIGHT_LEAD);
    CU_ASSERT_EQUAL(wh_auth_flights_join(f, b, 1, wh_test_pool(), &ok, &user, &m2), WH_FLIGHT_LEAD);
    CU_ASSERT_EQUAL(wh_auth_flights_join(f, a, 2, wh_test_pool(), &ok, &user, &m3), WH_FLIGHT_LEAD);
    wh_auth_flights_land(f, m1, 1, "bank");
    wh_auth_flights_land(f, m2, 0, NULL);
    wh_auth_flights_land(f, m3, 0, NULL);
    CU_ASSERT_EQUAL(wh_auth_flights_join(f, a, 1, wh_test_pool(), &ok, &user, &m4), WH_FLIGHT_LEAD);
    wh_auth_flights_land(f, m4, 1, "bank");
}

/* Past the table's room a check goes alone; a landed slot is free again. */
static void test_full_table_checks_alone(void)
{
    wh_auth_flights *f = wh_auth_flights_create(wh_test_pool());
    wh_auth_flight *mine[64];
    unsigned char k[WH_AUTH_FLIGHT_KEY_LEN];
    const char *user = NULL;
    int ok = 0, led = 0;
    wh_flight_role r = WH_FLIGHT_LEAD;

    memset(k, 0, sizeof(k));
    for (led = 0; led < 63; led++) {
        k[0] = (unsigned char)led;
        r = wh_auth_flights_join(f, k, 1, wh_test_pool(), &ok, &user, &mine[led]);
        if (r != WH_FLIGHT_LEAD)
            break;
    }
    CU_ASSERT_EQUAL(r, WH_FLIGHT_ALONE);
    CU_ASSERT(led >= 1 && led < 63);
    CU_ASSERT_PTR_NULL(mine[led]);
    wh_auth_flights_land(f, mine[0], 1, "bank");
    k[0] = 200;
    CU_ASSERT_EQUAL(wh_auth_flights_join(f, k, 1, wh_test_pool(), &ok, &user, &mine[led]),
                    WH_FLIGHT_LEAD);
    wh_auth_flights_land(f, mine[led], 1, "bank");
    for (int i = 1; i < led; i++)
        wh_auth_flights_land(f, mine[i], 1, "bank");
    /* the NULL an alone check holds is no flight: landing it does nothing */
    wh_auth_flights_land(f, NULL, 1, "bank");
    wh_auth_flights_land(NULL, NULL, 1, "bank");
}

/* Through the cache: many requests with the same credential at once, on
 * an empty cache, cost one password check (whichever way each finds the
 * answer: waiting on the check, or the cache it filled). */
typedef struct {
    wh_auth_cache *c;
    apr_hash_t *users;
    const char *header;
    wh_auth_result r;
    apr_pool_t *p;
} checker;

static void *APR_THREAD_FUNC check_thread(apr_thread_t *t, void *data)
{
    checker *k = data;
    const char *user = NULL;
    (void)t;
    k->r = wh_auth_check(k->p, k->users, k->c, k->header, apr_time_now(), &user);
    return NULL;
}

static void test_a_burst_costs_one_check(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    apr_hash_t *users = apr_hash_make(wh_test_pool());
    checker k[THREADS];
    apr_thread_t *th[THREADS];
    apr_status_t st;
    char enc[64];

    apr_hash_set(users, "bank", APR_HASH_KEY_STRING, BCRYPT_BANK);
    apr_base64_encode(enc, "bank:s3cret pass", (int)strlen("bank:s3cret pass"));
    for (int i = 0; i < THREADS; i++) {
        k[i].c = c;
        k[i].users = users;
        k[i].header = apr_pstrcat(wh_test_pool(), "Basic ", enc, NULL);
        k[i].r = WH_AUTH_MISSING;
        apr_pool_create_unmanaged_ex(&k[i].p, NULL, NULL);
    }
    for (int i = 0; i < THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th[i], NULL, check_thread, &k[i],
                                                wh_test_pool()), APR_SUCCESS);
    for (int i = 0; i < THREADS; i++) {
        apr_thread_join(&st, th[i]);
        CU_ASSERT_EQUAL(k[i].r, WH_AUTH_OK);
        apr_pool_destroy(k[i].p);
    }
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(c), 1);
}

static const wh_test_case cases[] = {
    { "a waiter takes the leader's success", test_waiter_takes_the_success },
    { "a waiter takes the leader's failure", test_waiter_takes_the_failure },
    { "only the same credential and table are shared", test_only_the_same_check_is_shared },
    { "a full table: checks go alone", test_full_table_checks_alone },
    { "a burst on an empty cache: one password check", test_a_burst_costs_one_check },
    { NULL, NULL }
};
WH_TEST_SUITE(auth_flight, cases)
