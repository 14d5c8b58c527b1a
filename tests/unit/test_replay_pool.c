/* The shared stores' connection pool (wh_replay_pool.h), with connections
 * that count what is asked of them, so every rule is tried without a
 * server: a connection is opened on first use and kept; one an operation
 * broke is closed, and the operation runs once more on a fresh one, but
 * never a third time; a failure that spoils nothing is not repeated; a
 * connection that cannot be opened is not tried again before the
 * back-off, and the pool says how long that is; the claim's answer and
 * its retry_in come through; a claim sent whose answer never came is
 * lost (and one found again by the next try is not, nor a mere look
 * before a claim); an operation a
 * silent server never answers is cut after the timeout when the client
 * cannot bound its wait itself (a real socket here). */
#include "wh_test.h"
#include "replay/wh_replay_pool.h"
#include <apr_strings.h>
#include <sys/socket.h>
#include <unistd.h>

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

static const wh_replay_pool_ops fake_ops = { fake_open, fake_close, NULL };

/* A server in the test pool: the pools made on it are cleared with the
 * test pool, after the test, and close their connections on it then. */
static fake_server *server(int refuse)
{
    fake_server *s = apr_pcalloc(P(), sizeof(*s));
    s->refuse = refuse;
    return s;
}

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
    fake_server *s = server(0);
    wh_replay_pool *pl = new_pool(s, apr_time_from_sec(60));
    fake_op op = { 7, 0, 0, { 0 } };
    const char *err = NULL;

    CU_ASSERT_EQUAL(s->opens, 0);                      /* nothing before use */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 7);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 7);
    CU_ASSERT_EQUAL(s->opens, 1);
    CU_ASSERT_EQUAL(op.on[1], op.on[0]);
    CU_ASSERT_EQUAL(s->closes, 0);
    CU_ASSERT_EQUAL(wh_replay_pool_retry_in(pl, apr_time_now()), 0);
}

static void test_broken_once_more_on_a_fresh_one(void)
{
    fake_server *s = server(0);
    wh_replay_pool *pl = new_pool(s, apr_time_from_sec(60));
    fake_op bad = { -1, 1, 0, { 0 } }, spoil_only = { 3, 1, 0, { 0 } };
    fake_op fails = { -1, 0, 0, { 0 } };
    const char *err = NULL;

    /* a failure that spoils the connection: closed, once more on a fresh
     * one, and no third time */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &bad, &err), -1);
    CU_ASSERT_EQUAL(bad.runs, 2);
    CU_ASSERT_NOT_EQUAL(bad.on[1], bad.on[0]);
    CU_ASSERT_EQUAL(s->closes, 2);
    ASSERT_STR(err, "the operation failed");
    /* an answer on a connection that broke afterwards is still the
     * answer; the connection goes */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &spoil_only, &err), 3);
    CU_ASSERT_EQUAL(spoil_only.runs, 1);
    CU_ASSERT_EQUAL(s->closes, 3);
    /* a failure that spoils nothing is the store's word: not repeated */
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &fails, &err), -1);
    CU_ASSERT_EQUAL(fails.runs, 1);
    CU_ASSERT_EQUAL(s->closes, 3);
}

static void test_back_off_after_a_failed_open(void)
{
    fake_server *s = server(1);
    wh_replay_pool *pl = new_pool(s, apr_time_from_sec(60));
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
    s->refuse = 0;
    err = NULL;
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), -1);
    ASSERT_STR(err, "no connection to the fake: refused by the test");
    CU_ASSERT_EQUAL(s->opens, 0);
    CU_ASSERT_EQUAL(wh_replay_pool_retry_in(pl, apr_time_now() + apr_time_from_sec(61)), 0);
}

static void test_back_off_ends(void)
{
    fake_server *s = server(1);
    wh_replay_pool *pl = new_pool(s, apr_time_from_msec(20));
    fake_op op = { 1, 0, 0, { 0 } };
    const char *err = NULL;

    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), -1);
    s->refuse = 0;
    /* at least the back-off later (a lower bound): tried again */
    apr_sleep(apr_time_from_msec(40));
    CU_ASSERT_EQUAL(wh_replay_pool_retry_in(pl, apr_time_now()), 0);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 1);
    CU_ASSERT_EQUAL(s->opens, 1);
}

/* A server that answers nothing: the operation breaks its connection
 * after waiting out the pool's timeout (the client's own, as hiredis's). */
static int run_silent(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    fake_op *op = baton;
    (void)p;
    op->runs++;
    apr_sleep(apr_time_from_msec(60));
    ((fake_conn *)conn)->base.broken = 1;
    *err = "Resource temporarily unavailable";
    return -1;
}

/* A connection broken by a reply that never came: not tried again on a
 * fresh one, and until the back-off ends every operation fails at once,
 * on the connections open too; then they are tried again. */
static void test_silent_server_backs_off(void)
{
    fake_server *s = server(0);
    wh_replay_pool *pl = NULL;
    fake_op quiet = { -1, 1, 0, { 0 } }, op = { 5, 0, 0, { 0 } };
    const char *err = NULL;

    CU_ASSERT_PTR_NULL(wh_replay_pool_create(P(), &fake_ops, s, "no connection to "
                                             "the fake", 2, apr_time_from_msec(50),
                                             apr_time_from_msec(200), &pl));
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 5);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_silent, &quiet, &err), -1);
    CU_ASSERT_EQUAL(quiet.runs, 1);
    /* the connection open before is not used either */
    op.runs = 0;
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), -1);
    CU_ASSERT_EQUAL(op.runs, 0);
    ASSERT_STR(err, "no connection to the fake: no answer within 0 s");
    CU_ASSERT(wh_replay_pool_retry_in(pl, apr_time_now()) > 0);
    /* at least the back-off later (a lower bound): tried again */
    apr_sleep(apr_time_from_msec(250));
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, P(), run_fake, &op, &err), 5);
    CU_ASSERT_EQUAL(op.runs, 1);
}

typedef struct {
    wh_claim_result res;
    int breaks;
    int runs;
    int looks;                /* all it sends is a look, never a claim */
} fake_claim;

static wh_claim_result claim_fake(void *conn, apr_pool_t *p, void *baton,
                                  const wh_claim *c, wh_claim_info *info)
{
    fake_claim *k = baton;
    (void)p;
    (void)c;
    k->runs++;
    info->looking = k->looks;
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
    fake_server *s = server(0);
    wh_replay_pool *pl = new_pool(s, apr_time_from_sec(60));
    fake_claim first = { WH_CLAIM_FIRST, 0, 0, 0 }, held = { WH_CLAIM_IN_PROGRESS, 0, 0, 0 };
    fake_claim lost = { WH_CLAIM_ERROR, 1, 0, 0 };
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
    s->refuse = 1;
    lost.runs = 0;
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &lost, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(lost.runs, 0);
    ASSERT_STR(info.err, "no connection to the fake: refused by the test");
    CU_ASSERT(info.retry_in > 0 && info.retry_in <= apr_time_from_sec(60));
}

/* A claim that breaks its connection on the first try, then answers
 * `then` on the second. */
typedef struct {
    wh_claim_result then;
    int runs;
} flaky_claim;

static wh_claim_result claim_flaky(void *conn, apr_pool_t *p, void *baton,
                                   const wh_claim *c, wh_claim_info *info)
{
    flaky_claim *k = baton;
    (void)p;
    (void)c;
    if (k->runs++ == 0) {
        ((fake_conn *)conn)->base.broken = 1;
        info->err = "no reply";
        return WH_CLAIM_ERROR;
    }
    return k->then;
}

/* A claim is lost when it was sent and no answer came back: what the
 * store did with it is unknown, and nobody delivers under it. */
static void test_lost_claims(void)
{
    fake_server *s = server(0);
    wh_replay_pool *pl = new_pool(s, apr_time_from_sec(60));
    fake_claim timeout = { WH_CLAIM_ERROR, 1, 0, 0 }, refused = { WH_CLAIM_ERROR, 0, 0, 0 };
    fake_claim held = { WH_CLAIM_IN_PROGRESS, 0, 0, 0 };
    fake_claim looked = { WH_CLAIM_ERROR, 1, 0, 1 };
    flaky_claim found = { WH_CLAIM_FIRST, 0 }, other = { WH_CLAIM_IN_PROGRESS, 0 };
    flaky_claim gone = { WH_CLAIM_ERROR, 0 };
    wh_claim c = { "id", "h.1", 0, 300, 600, apr_time_from_sec(120) };
    wh_claim_info info;

    /* both tries' answers lost */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &timeout, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(info.lost, 1);
    /* all that went out unanswered was a look (a connection that had not
     * read the epoch marker): nothing can have been claimed */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &looked, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(looked.runs, 2);
    CU_ASSERT_EQUAL(info.lost, 0);
    /* the second try answered with the first's claim, its holder's own:
     * the delivery goes ahead, nothing is lost */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_flaky, &found, &c, &info),
                    WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(info.lost, 0);
    /* the second try found another holder's: the first may still land */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_flaky, &other, &c, &info),
                    WH_CLAIM_IN_PROGRESS);
    CU_ASSERT_EQUAL(info.lost, 1);
    /* the first lost, the second refused by the store: lost */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_flaky, &gone, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(info.lost, 1);
    /* the store's own word, on a connection that stays: nothing lost */
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &refused, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(info.lost, 0);
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &held, &c, &info),
                    WH_CLAIM_IN_PROGRESS);
    CU_ASSERT_EQUAL(info.lost, 0);
    /* never sent (no connection): nothing lost */
    s->refuse = 1;
    timeout.runs = 0;
    pl = new_pool(s, apr_time_from_sec(60));
    CU_ASSERT_EQUAL(wh_replay_pool_claim(pl, P(), claim_fake, &timeout, &c, &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_EQUAL(timeout.runs, 0);
    CU_ASSERT_EQUAL(info.lost, 0);
}

/* ---- the watch: a server that does not answer ------------------------ */

/* Connections with a real socket (one end of a pair: the other end is a
 * server that never answers), which the pool watches. */
typedef struct {
    wh_replay_conn base;
    int fds[2];
} sock_conn;

static int sock_opens, sock_closes;

static apr_status_t sock_open(void *params, void **conn, char *why,
                              apr_size_t why_len)
{
    sock_conn *c = calloc(1, sizeof(*c));
    (void)params;
    (void)why;
    (void)why_len;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, c->fds) != 0) {
        free(c);
        return APR_EGENERAL;
    }
    sock_opens++;
    *conn = c;
    return APR_SUCCESS;
}

static void sock_close(void *params, void *conn)
{
    sock_conn *c = conn;
    (void)params;
    close(c->fds[0]);
    close(c->fds[1]);
    free(c);
    sock_closes++;
}

static int sock_fd(void *params, void *conn)
{
    (void)params;
    return ((sock_conn *)conn)->fds[0];
}

static const wh_replay_pool_ops sock_ops = { sock_open, sock_close, sock_fd };

/* Sends a request and waits for the reply as a client that cannot time
 * out would; answer: the "server" replies first. */
static int ask(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    sock_conn *c = conn;
    int answer = *(int *)baton;
    char b;
    (void)p;
    if (write(c->fds[0], "q", 1) != 1 || read(c->fds[1], &b, 1) != 1
        || (answer && write(c->fds[1], "a", 1) != 1))
        return -1;
    if (read(c->fds[0], &b, 1) != 1) {    /* blocks until shut down */
        c->base.broken = 1;
        *err = "connection closed";
        return -1;
    }
    return 7;
}

/* An operation the server does not answer is cut after the timeout (and
 * once more on a fresh connection), and says why; one it answers is not,
 * and its connection is kept. */
static void test_silent_server_is_cut(void)
{
    wh_replay_pool *pl = NULL;
    int answer = 1, silent = 0, slot;
    const char *err = NULL;
    apr_pool_t *p;

    apr_pool_create(&p, P());
    sock_opens = sock_closes = 0;
    CU_ASSERT_PTR_NULL(wh_replay_pool_create(p, &sock_ops, NULL, "no connection "
                                             "to the fake", 2,
                                             apr_time_from_msec(200),
                                             apr_time_from_msec(200), &pl));
    CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, p, ask, &answer, &err), 7);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, p, ask, &answer, &err), 7);
    CU_ASSERT_EQUAL(sock_opens, 1);
    CU_ASSERT_EQUAL(sock_closes, 0);
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, p, ask, &silent, &err), -1);
    CU_ASSERT(contains(err, "no answer within"));
    CU_ASSERT_EQUAL(sock_opens, 1);           /* cut, and not tried again */
    CU_ASSERT_EQUAL(sock_closes, 1);
    /* the server answers again (after the back-off): a fresh connection */
    apr_sleep(apr_time_from_msec(250));
    CU_ASSERT_EQUAL(wh_replay_pool_run(pl, p, ask, &answer, &err), 7);
    CU_ASSERT_EQUAL(sock_opens, 2);
    /* a watch that ends in time is not cut; no socket, no watch */
    slot = wh_replay_pool_watch(pl, 0);
    CU_ASSERT(slot >= 0);
    CU_ASSERT_EQUAL(wh_replay_pool_unwatch(pl, slot), 0);
    CU_ASSERT_EQUAL(wh_replay_pool_watch(pl, -1), -1);
    CU_ASSERT_EQUAL(wh_replay_pool_unwatch(pl, -1), 0);
    apr_pool_destroy(p);                      /* stops the watcher */
    CU_ASSERT_EQUAL(sock_closes, 2);
}

static const wh_test_case cases[] = {
    { "a connection is opened on first use and kept", test_kept_and_reused },
    { "a broken connection: once more on a fresh one", test_broken_once_more_on_a_fresh_one },
    { "a failed open: a back-off, and how long", test_back_off_after_a_failed_open },
    { "the back-off ends", test_back_off_ends },
    { "claims through the pool", test_claims },
    { "a claim sent without an answer is lost", test_lost_claims },
    { "a server that does not answer is cut after the timeout", test_silent_server_is_cut },
    { "a reply that never came: no second try, a back-off", test_silent_server_backs_off },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_pool, cases)
