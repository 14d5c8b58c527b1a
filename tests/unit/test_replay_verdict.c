/* A replay store's answer to a claim as the verdict a host answers
 * (wh_replay_verdict.h): FIRST leaves it accepted; DUPLICATE is a 200 ack;
 * IN_PROGRESS a 503 delivery_in_progress to be retried in 10 s, or when the
 * claim lapses where that is sooner; PREDATES a 503 until the store judges
 * a notification signed then; FULL and ERROR a 503 with the store's own
 * time (a connection's back-off), else the default; and no store at all a
 * 503 with the default. The answers' texts and codes are the ones the bank
 * has always had. */
#include "wh_test.h"
#include "replay/wh_replay_verdict.h"
#include "verify/wh_response.h"

#define P() wh_test_pool()
#define SEC(n) apr_time_from_sec(n)
#define UNAVAILABLE "{\"error\":{\"code\":\"replay_cache_unavailable\",\"message\":" \
                    "\"replay protection is unavailable; retry later\",\"details\":[]}}"

typedef struct {
    wh_verdict v;
    wh_response r;
} answer;

/* The verdict on res for a claim signed at signed_at (tolerance 300 s),
 * and the answer built from it. */
static answer *judge(wh_claim_result res, const wh_claim_info *info,
                     apr_time_t signed_at, apr_time_t now)
{
    answer *a = apr_pcalloc(P(), sizeof(*a));
    wh_claim c = { "n-1", "h.1", signed_at, 300, 600, SEC(120) };

    wh_verdict_init(&a->v, P());
    a->v.ok = 1;                            /* verified: accepted so far */
    a->v.facts.notification_id = "n-1";
    wh_replay_verdict(&a->v, &c, res, info, now);
    wh_response_from_verdict(P(), &a->v, &a->r);
    return a;
}

static void test_first_and_duplicate(void)
{
    wh_claim_info info = { 0, 0, NULL, 0, 0, 0 };
    apr_time_t now = apr_time_now();
    answer *a = judge(WH_CLAIM_FIRST, &info, now, now);

    CU_ASSERT_TRUE(a->v.ok);
    ASSERT_STR(a->v.code, "accepted");
    a = judge(WH_CLAIM_DUPLICATE, &info, now, now);
    CU_ASSERT_FALSE(a->v.ok);
    ASSERT_STR(a->v.code, "duplicate");
    CU_ASSERT_EQUAL(a->r.status, 200);
    CU_ASSERT_EQUAL(a->r.retry_after, 0);
    ASSERT_STR(a->r.body, "{\"status\":\"duplicate\",\"notificationId\":\"n-1\"}");
}

static void test_in_progress(void)
{
    wh_claim_info info = { 0, 0, NULL, 0, 0, 0 };
    apr_time_t now = apr_time_now();
    answer *a = judge(WH_CLAIM_IN_PROGRESS, &info, now, now);

    CU_ASSERT_FALSE(a->v.ok);
    CU_ASSERT_EQUAL(a->r.status, 503);
    ASSERT_STR(a->v.code, "delivery_in_progress");
    ASSERT_STR(a->r.body, "{\"error\":{\"code\":\"delivery_in_progress\",\"message\":"
                          "\"another copy of this notification is being delivered; "
                          "retry later\",\"details\":[]}}");
    CU_ASSERT_EQUAL(a->r.retry_after, 10);
    /* a claim that lapses sooner (its holder stopped renewing it) */
    info.retry_in = apr_time_from_msec(2500);
    CU_ASSERT_EQUAL(judge(WH_CLAIM_IN_PROGRESS, &info, now, now)->r.retry_after, 3);
    /* a running delivery's lease ends later than the copy should wait */
    info.retry_in = SEC(100);
    CU_ASSERT_EQUAL(judge(WH_CLAIM_IN_PROGRESS, &info, now, now)->r.retry_after, 10);
}

static void test_predates(void)
{
    apr_time_t now = apr_time_now();
    /* the store remembers since 100 s ago: a copy signed from 200 s on is
     * judged */
    wh_claim_info info = { now - SEC(100), 0, NULL, 0, 0, 0 };
    answer *a = judge(WH_CLAIM_PREDATES, &info, now - SEC(150), now);

    CU_ASSERT_EQUAL(a->r.status, 503);
    ASSERT_STR(a->r.body, UNAVAILABLE);
    CU_ASSERT_EQUAL(a->r.retry_after, 200);
    /* the moment has just come: at once (1 s) */
    info.since = now - SEC(300);
    CU_ASSERT_EQUAL(judge(WH_CLAIM_PREDATES, &info, now - SEC(400), now)->r.retry_after, 1);
}

static void test_full_and_error(void)
{
    apr_time_t now = apr_time_now();
    wh_claim_info info = { 0, 0, "no connection to redis at 127.0.0.1:1: refused", 0, 0, 0 };
    answer *a = judge(WH_CLAIM_ERROR, &info, now, now);

    CU_ASSERT_EQUAL(a->r.status, 503);
    ASSERT_STR(a->r.body, UNAVAILABLE);        /* the store's words stay in the log */
    CU_ASSERT_EQUAL(a->r.retry_after, WH_RETRY_AFTER_UNKNOWN);
    info.retry_in = apr_time_from_msec(1200);  /* the pool's back-off */
    CU_ASSERT_EQUAL(judge(WH_CLAIM_ERROR, &info, now, now)->r.retry_after, 2);
    info.retry_in = 0;
    a = judge(WH_CLAIM_FULL, &info, now, now);
    ASSERT_STR(a->r.body, UNAVAILABLE);
    CU_ASSERT_EQUAL(a->r.retry_after, WH_RETRY_AFTER_UNKNOWN);
    info.retry_in = SEC(30);
    CU_ASSERT_EQUAL(judge(WH_CLAIM_FULL, &info, now, now)->r.retry_after, 30);
}

static void test_no_store(void)
{
    wh_verdict v;
    wh_response r;

    wh_verdict_init(&v, P());
    wh_replay_verdict_unavailable(&v);
    CU_ASSERT_FALSE(v.ok);
    wh_response_from_verdict(P(), &v, &r);
    CU_ASSERT_EQUAL(r.status, 503);
    ASSERT_STR(r.body, UNAVAILABLE);
    CU_ASSERT_EQUAL(r.retry_after, WH_RETRY_AFTER_UNKNOWN);
}

static const wh_test_case cases[] = {
    { "first: still accepted; duplicate: a 200 ack", test_first_and_duplicate },
    { "in progress: 503, back in 10 s or when the claim lapses", test_in_progress },
    { "predates: 503 until the store judges", test_predates },
    { "full, error: 503 with the store's time or the default", test_full_and_error },
    { "no store: 503 with the default", test_no_store },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_verdict, cases)
