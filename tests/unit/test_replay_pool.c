/* The shared stores' connection pool (wh_replay_pool.h), with connections
 * that count what is asked of them, so every rule is tried without a
 * server: a connection is opened on first use and kept; one an operation
 * broke is closed, and the operation runs once more on a fresh one, but
 * never a third time; a failure that spoils nothing is not repeated; a
 * connection that cannot be opened is not tried again before the
 * back-off, and the pool says how long that is; the claim's answer and
 * its retry_in come through. */
#include "wh_test.h"
#include "replay/wh_replay_pool.h"
#include <apr_strings.h>

#define P() wh_test_pool()

typedef struct {
    int opens, closes;
    int refuse;               /* open fails while set */
} fake_server;

typedef struct {
    wh_replay_conn base;
    int id;
} fake_conn;

static apr_status_t fake_open(void *params, void **conn, char *why,
                              apr_size_t why_len)
{
    fake_server *s = params;
    fake_conn *c;

    if (s->refuse) {
        apr_cpystrn(why, "refused by the test", why_len);
        return APR_ECONNREFUSED;
    }
    c = calloc(1, sizeof(*c));
    c->id = ++s->opens;
    *conn = c;
    return APR_SUCCESS;
}

static void fake_close(void *params, void *conn)
{
    ((fake_server *)params)->closes++;
    free(conn);
}

static const wh_replay_pool_ops fake_ops = { fake_open, fake_close };

/* What each operation does: its answer, whether it spoils the
 * connection, and the connections it ran on. */
typedef struct {
    int answer;
    int breaks;
    int runs, on[4];
} fake_op;

static int run_fake(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    fake_op *op = baton;
    fake_conn *c = conn;
    (void)p;
    if (op->runs < 4)
        op->on[op->runs] = c->id;
    op->runs++;
    if (op->breaks)
        c->base.broken = 1;
    if (op->answer < 0)
        *err = "the operation failed";
    return op->answer;
}

static wh_replay_pool *new_pool(fake_server *s, apr_interval_time_t retry)
{
    wh_replay_pool *pl = NULL;
    CU_ASSERT_PTR_NULL(wh_replay_pool_create(P(), &fake_ops, s, "no connection to "
                                             "the fake", 2, apr_time_from_sec(1),
                                             retry, &pl));
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    return pl;
}

static void test_kept_and_reused(void)
{
    fake_server s = { 0, 0, 0 };
    wh_replay_pool *pl = new_pool(&s, apr_time_from_sec(60));
    fake_op op = { 7, 0, 0, { 0 } };
    const char *err = NULL;

    CU_ASSERT_EQUAL(s.opens, 0);                      /* nothing before use */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 7);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 7);
    CU_ASSERT_EQUAL(s.opens, 1);
    CU_ASSERT_EQUAL(op.on[1], op.on[0]);
    CU_ASSERT_EQUAL(s.closes, 0);
    CU_ASSERT_EQUAL(wh_replay_pool_retry_in(pl, apr_time_now()), 0);
}

static void test_broken_once_more_on_a_fresh_one(void)
{
    fake_server s = { 0, 0, 0 };
    wh_replay_pool *pl = new_pool(&s, apr_time_from_sec(60));
    fake_op bad = { -1, 1, 0, { 0 } }, spoil_only = { 3, 1, 0, { 0 } };
    fake_op fails = { -1, 0, 0, { 0 } };
    const char *err = NULL;

    /* a failure that spoils the connection: closed, once more on a fresh
     * one, and no third time */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &bad, &err), -1);
    CU_ASSERT_EQUAL(bad.runs, 2);
    CU_ASSERT_NOT_EQUAL(bad.on[1], bad.on[0]);
    CU_ASSERT_EQUAL(s.closes, 2);
    ASSERT_STR(err, "the operation failed");
    /* an answer on a connection that broke afterwards is still the
     * answer; the connection goes */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &spoil_only, &err), 3);
    CU_ASSERT_EQUAL(spoil_only.runs, 1);
    CU_ASSERT_EQUAL(s.closes, 3);
    /* a failure that spoils nothing is the store's word: not repeated */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &fails, &err), -1);
    CU_ASSERT_EQUAL(fails.runs, 1);
    CU_ASSERT_EQUAL(s.closes, 3);
}

static void test_back_off_after_a_failed_open(void)
{
    fake_server s = { 0, 0, 1 };
    wh_replay_pool *pl = new_pool(&s, apr_time_from_sec(60));
    fake_op op = { 1, 0, 0, { 0 } };
    const char *err = NULL;
    apr_interval_time_t in;

    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), -1);
    ASSERT_STR(err, "no connection to the fake: refused by the test");
    CU_ASSERT_EQUAL(op.runs, 0);
    in = wh_replay_pool_retry_in(pl, apr_time_now());
    CU_ASSERT(in > 0 && in <= apr_time_from_sec(60));
    /* the server is back, but the back-off runs: no attempt yet, the
     * same answer at once */
    s.refuse = 0;
    err = NULL;
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), -1);
    ASSERT_STR(err, "no connection to the fake: refused by the test");
    CU_ASSERT_EQUAL(s.opens, 0);
    CU_ASSERT_EQUAL(wh_replay_pool_retry_in(pl, apr_time_now() + apr_time_from_sec(61)), 0);
}

static void test_back_off_ends(void)
{
    fake_server s = { 0, 0, 1 };
    wh_replay_pool *pl = new_pool(&s, apr_time_from_msec(20));
    fake_op op = { 1, 0, 0, { 0 } };
    const char *err = NULL;

    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), -1);
    s.refuse = 0;
    /* at least the back-off later (a lower bound): tried again */
    apr_sleep(apr_time_from_msec(40));
    CU_ASSERT_EQUAL(wh_replay_pool_retry_in(pl, apr_time_now()), 0);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 1);
    CU_ASSERT_EQUAL(s.opens, 1);
}

typedef struct {
    wh_claim_result res;
    int breaks;
    int runs;
} fake_claim;

static wh_claim_result claim_fake(void *conn, apr_pool_t *p, void *baton,
                                  const wh_claim *c, wh_claim_info *info)
{
    fake_claim *k = baton;
    (void)p;
    (void)c;
    k->runs++;
    if (k->breaks)
        ((fake_conn *)conn)->base.broken = 1;
    if (k->res == WH_CLAIM_ERROR)
        info->err = "the claim failed";
    if (k->res == WH_CLAIM_IN_PROGRESS)
        info->retry_in = apr_time_from_sec(5);
    return k->res;
}

static void test_claims(void)
{
    fake_server s = { 0, 0, 0 };
    wh_replay_pool *pl = new_pool(&s, apr_time_from_sec(60));
    fake_claim first = { WH_CLAIM_FIRST, 0, 0 }, held = { WH_CLAIM_IN_PROGRESS, 0, 0 };
    fake_claim lost = { WH_CLAIM_ERROR, 1, 0 };
    wh_claim c = { "id", "h.1", 0, 300, 600, apr_time_from_sec(120) };
    wh_claim_info info;

    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &first, &c, &info),
                    WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &held, &c, &info),
                    WH_CLAIM_IN_PROGRESS);
    CU_ASSERT_EQUAL(info.retry_in, apr_time_from_sec(5));
    /* a claim whose connection broke: once more, then the store's error,
     * with no back-off to tell (the connections opened) */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &lost, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(lost.runs, 2);
    ASSERT_STR(info.err, "the claim failed");
    CU_ASSERT_EQUAL(info.retry_in, 0);
    /* no connection: the pool's error, and when it tries again */
    s.refuse = 1;
    lost.runs = 0;
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &lost, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(lost.runs, 0);
    ASSERT_STR(info.err, "no connection to the fake: refused by the test");
    CU_ASSERT(info.retry_in > 0 && info.retry_in <= apr_time_from_sec(60));
}

static const wh_test_case cases[] = {
    { "a connection is opened on first use and kept", test_kept_and_reused },
    { "a broken connection: once more on a fresh one", test_broken_once_more_on_a_fresh_one },
    { "a failed open: a back-off, and how long", test_back_off_after_a_failed_open },
    { "the back-off ends", test_back_off_ends },
    { "claims through the pool", test_claims },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_pool, cases)
