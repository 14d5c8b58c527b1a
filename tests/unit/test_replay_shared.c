/* The replay stores several servers share, each against a real server on
 * loopback: redis (WH_TEST_REDIS=host:port), memcached
 * (WH_TEST_MEMCACHE=host:port), PostgreSQL (WH_TEST_REPLAY_PG=conninfo
 * of a scratch database) and MariaDB (WH_TEST_MYSQL_CONNINFO, apr_dbd's
 * mysql parameters of a scratch database). A suite whose variable is
 * unset is reported skipped: tests/integration/test_replay_stores.sh
 * starts the first three servers and runs them, test_replay_mysql.sh
 * MariaDB. The same cases run on each store (but the values mod_socache
 * wrote, which only redis and memcached can hold):
 *
 *   a claim, then IN_PROGRESS for every other holder, DUPLICATE once
 *   confirmed; forget and renew only the holder's own claim; a claim
 *   nobody renews lapses after its lease, a renewed one holds; a claim
 *   whose reply was lost reads as its holder's when tried again; an
 *   emptied store (no epoch marker) answers PREDATES for what it cannot
 *   judge, and says it was emptied once; `replay init` marks a store new
 *   only when it has no marker; 8 threads claiming the same 150 ids at
 *   once: exactly one FIRST per id; a server that cannot be reached is an
 *   ERROR, not a FIRST. */
#include "wh_test.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_memcache.h"
#include "replay/wh_replay_mysql.h"
#include "replay/wh_replay_pgsql.h"
#include "replay/wh_replay_redis.h"
#include "replay/wh_replay_store.h"
#include <apr_dbd.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <hiredis/hiredis.h>
#include <libmemcached/memcached.h>
#include <stdio.h>

#define P() wh_test_pool()
#define SEC(n) apr_time_from_sec(n)
#define TOL 300

typedef enum { K_REDIS, K_MEMCACHE, K_PGSQL, K_MYSQL } kind;
static kind current;

/* The server each suite runs against, started by test_replay_stores.sh. */
static const wh_test_need needs[] = {
    [K_REDIS] = { "WH_TEST_REDIS", "a redis server (host:port)",
                  "test_replay_stores.sh" },
    [K_MEMCACHE] = { "WH_TEST_MEMCACHE", "a memcached (host:port)",
                     "test_replay_stores.sh" },
    [K_PGSQL] = { "WH_TEST_REPLAY_PG", "a scratch PostgreSQL database",
                  "test_replay_stores.sh" },
};

static const char *env_of(kind k)
{
    /* MariaDB's suite is a database twin (WH_TEST_SUITE_MYSQL): the
     * variable is the one every MySQL twin reads */
    return getenv(k == K_MYSQL ? "WH_TEST_MYSQL_CONNINFO" : needs[k].env);
}

static int is_sql(void)
{
    return current == K_PGSQL || current == K_MYSQL;
}

static void split(const char *hp, char **host, int *port)
{
    const char *c = strrchr(hp, ':');
    *host = apr_pstrmemdup(P(), hp, c ? (apr_size_t)(c - hp) : strlen(hp));
    *port = c ? atoi(c + 1) : 0;
}

/* The store under test, opened in p (or, with a dead address, one that
 * cannot be reached). */
static wh_replay_store *open_store(apr_pool_t *p, int unreachable)
{
    wh_replay_store *st = NULL;
    const char *err, *target = env_of(current);
    char *host;
    int port;

    if (current == K_PGSQL) {
        const char *ci = unreachable ? "host=127.0.0.1 port=1 dbname=x user=x "
                                       "password=topsecret connect_timeout=2"
                                     : target;
        err = wh_replay_pgsql_open(p, ci, 4, SEC(3), &st);
    }
    else if (current == K_MYSQL) {
        const char *params = unreachable ? "host=127.0.0.1 port=1 user=x "
                                           "pass=topsecret dbname=x"
                                         : target;
        err = wh_replay_mysql_open(p, params, 4, SEC(3), &st);
    }
    else {
        split(target, &host, &port);
        if (unreachable)
            port = 1;
        err = current == K_REDIS
              ? wh_replay_redis_open(p, host, port, 4, SEC(3), &st)
              : wh_replay_memcache_open(p, host, port, 4, SEC(3), &st);
    }
    if (err)
        fprintf(stderr, "\n  open: %s\n", err);
    CU_ASSERT_PTR_NULL(err);
    return st;
}

/* A statement on the database under test, on a connection of its own:
 * the rows it changed, or -1. With value, the first cell of its first
 * row (a query) in the test pool instead. */
static int sql_run(const char *q, const char **value)
{
    const apr_dbd_driver_t *drv;
    apr_dbd_t *h;
    const char *err;
    int n = -1;

    apr_dbd_init(P());
    CU_ASSERT_FATAL(apr_dbd_get_driver(P(), current == K_MYSQL ? "mysql" : "pgsql",
                                       &drv) == APR_SUCCESS);
    CU_ASSERT_FATAL(apr_dbd_open_ex(drv, P(), env_of(current), &h, &err) == APR_SUCCESS);
    if (value) {
        apr_dbd_results_t *res = NULL;
        apr_dbd_row_t *row = NULL;
        *value = NULL;
        if (apr_dbd_select(drv, P(), h, &res, q, 0) == 0) {
            n = 0;
            while (apr_dbd_get_row(drv, P(), res, &row, -1) == 0)
                if (!*value) {
                    const char *v = apr_dbd_get_entry(drv, row, 0);
                    *value = apr_pstrdup(P(), v ? v : "NULL");
                }
        }
    }
    else if (apr_dbd_query(drv, h, &n, q) != 0)
        n = -1;
    apr_dbd_close(drv, h);
    return n;
}

static int sql_exec(const char *q)
{
    return sql_run(q, NULL);
}

static const char *sql_value(const char *q)
{
    const char *v = NULL;
    CU_ASSERT(sql_run(q, &v) >= 0);
    return v ? v : "";
}

/* Empties the whole store behind wirehook's back (a flushed or restarted
 * server, a truncated table). */
static void flush_store(void)
{
    if (current == K_REDIS) {
        char *host;
        int port;
        redisContext *c;
        redisReply *r;
        split(env_of(current), &host, &port);
        c = redisConnect(host, port);
        CU_ASSERT_FATAL(c && !c->err);
        r = redisCommand(c, "FLUSHALL");
        CU_ASSERT(r && r->type == REDIS_REPLY_STATUS);
        freeReplyObject(r);
        redisFree(c);
    }
    else if (current == K_MEMCACHE) {
        char *host;
        int port;
        memcached_st *mc = memcached_create(NULL);
        split(env_of(current), &host, &port);
        memcached_server_add(mc, host, (in_port_t)port);
        CU_ASSERT_EQUAL(memcached_flush(mc, 0), MEMCACHED_SUCCESS);
        memcached_free(mc);
    }
    else {
        /* the table exists once a store has connected; a fresh database
         * has nothing to empty */
        (void)sql_exec("DELETE FROM wh_replay");
    }
}

/* Writes a raw value under an id's key, as mod_socache's providers did. */
static void put_raw(const char *id, const char *value)
{
    const char *key = wh_replay_net_key(P(), id);
    char *host;
    int port;

    split(env_of(current), &host, &port);
    if (current == K_REDIS) {
        redisContext *c = redisConnect(host, port);
        redisReply *r = redisCommand(c, "SET %s %s EX 600", key, value);
        freeReplyObject(r);
        redisFree(c);
    }
    else {
        memcached_st *mc = memcached_create(NULL);
        memcached_server_add(mc, host, (in_port_t)port);
        memcached_set(mc, key, strlen(key), value, strlen(value), 600, 0);
        memcached_free(mc);
    }
}

static apr_uint32_t seq;
static const char *fresh_id(void)
{
    return apr_psprintf(P(), "%08x-0000-4000-8000-%012" APR_UINT64_T_HEX_FMT,
                        (unsigned)getpid(), (apr_uint64_t)(++seq) << 8 | (apr_uint64_t)(apr_time_now() & 0xff));
}

static wh_claim_result claim_as(wh_replay_store *st, const char *id,
                                const char *holder, apr_time_t signed_at,
                                apr_interval_time_t lease, wh_claim_info *info)
{
    wh_claim c = { id, holder, signed_at, TOL, 600, lease };
    wh_claim_info ignored;
    return st->ops->claim(st, P(), &c, info ? info : &ignored);
}

/* A store marked new (judges everything now), as `wirehook replay init`
 * leaves a new one. */
static wh_replay_store *new_store(apr_pool_t *p)
{
    wh_replay_store *st;
    apr_time_t since = -1;
    const char *err = NULL;

    flush_store();
    st = open_store(p, 0);
    CU_ASSERT_FATAL(st != NULL);
    if (is_sql()) {
        /* the table a first connection creates is new; after a flush its
         * marker went too, and init writes one saying new */
        CU_ASSERT(st->ops->init(st, P(), &since, &err) >= 0);
    }
    else
        CU_ASSERT_EQUAL(st->ops->init(st, P(), &since, &err), 1);
    return st;
}

static void test_claim_confirm_duplicate(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    wh_claim_info info;
    const char *id = fresh_id(), *err = NULL;
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, P());
    st = new_store(p);
    CU_ASSERT_EQUAL(claim_as(st, id, "a.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), &info), WH_CLAIM_IN_PROGRESS);
    /* when the claim lapses unless renewed (the 503's Retry-After when
     * sooner than a copy waits anyway): redis and the databases say;
     * libmemcached cannot read an expiry */
    if (current == K_MEMCACHE) {
        CU_ASSERT_EQUAL(info.retry_in, 0);
    }
    else {
        CU_ASSERT(info.retry_in > 0 && info.retry_in <= SEC(60));
    }
    CU_ASSERT_EQUAL(claim_as(st, id, "c.9", now, SEC(60), NULL), WH_CLAIM_IN_PROGRESS);
    CU_ASSERT_EQUAL(st->ops->confirm(st, P(), id, "a.1", 600, &err), 0);
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), NULL), WH_CLAIM_DUPLICATE);
    /* a confirmed id is not a claim: neither renewed nor forgotten */
    CU_ASSERT_EQUAL(st->ops->renew(st, P(), id, "a.1", SEC(60), &err), 0);
    CU_ASSERT_EQUAL(st->ops->forget(st, P(), id, "a.1", &err), 0);
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), NULL), WH_CLAIM_DUPLICATE);
    CU_ASSERT_EQUAL(st->ops->health(st, P(), &err), 0);
    apr_pool_destroy(p);
}

static void test_forget_and_renew_only_the_holders(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    const char *id = fresh_id(), *err = NULL;
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, P());
    st = new_store(p);
    CU_ASSERT_EQUAL(claim_as(st, id, "a.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(st->ops->forget(st, P(), id, "b.1", &err), 0);
    CU_ASSERT_EQUAL(st->ops->renew(st, P(), id, "b.1", SEC(60), &err), 0);
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), NULL), WH_CLAIM_IN_PROGRESS);
    CU_ASSERT_EQUAL(st->ops->renew(st, P(), id, "a.1", SEC(60), &err), 1);
    CU_ASSERT_EQUAL(st->ops->forget(st, P(), id, "a.1", &err), 1);
    /* forgotten: the bank's retry is delivered */
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(st->ops->renew(st, P(), id, "a.1", SEC(60), &err), 0);
    CU_ASSERT_EQUAL(st->ops->renew(st, P(), id, "b.1", SEC(60), &err), 1);
    /* the same holder again (its first reply was lost): its own claim */
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    apr_pool_destroy(p);
}

/* A claim nobody renews lapses after its lease (by the store's clock); a
 * renewed one holds past it. */
static void test_lease_lapses_unless_renewed(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    const char *lapsing = fresh_id(), *kept = fresh_id(), *err = NULL;
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, P());
    st = new_store(p);
    CU_ASSERT_EQUAL(claim_as(st, lapsing, "a.1", now, SEC(1), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(claim_as(st, kept, "a.2", now, SEC(1), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(st->ops->renew(st, P(), kept, "a.2", SEC(120), &err), 1);
    /* memcached counts whole seconds: past two of them for sure */
    apr_sleep(SEC(3));
    CU_ASSERT_EQUAL(claim_as(st, lapsing, "b.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(claim_as(st, kept, "b.2", now, SEC(60), NULL), WH_CLAIM_IN_PROGRESS);
    /* the lapsed holder's late forget leaves the new claim alone */
    CU_ASSERT_EQUAL(st->ops->forget(st, P(), lapsing, "a.1", &err), 0);
    CU_ASSERT_EQUAL(claim_as(st, lapsing, "c.1", now, SEC(60), NULL), WH_CLAIM_IN_PROGRESS);
    apr_pool_destroy(p);
}

/* A store emptied behind wirehook's back remembers nothing from before:
 * what was signed before it began + TimestampTolerance is answered
 * PREDATES (a held id is still held), and the emptying is reported once. */
static void test_emptied_store(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    wh_claim_info info;
    const char *id = fresh_id(), *err = NULL;
    apr_time_t now = apr_time_now(), since = -1;

    apr_pool_create(&p, P());
    st = new_store(p);
    CU_ASSERT_EQUAL(claim_as(st, id, "a.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    flush_store();
    CU_ASSERT_EQUAL(claim_as(st, id, "b.1", now, SEC(60), &info), WH_CLAIM_PREDATES);
    CU_ASSERT_EQUAL(info.emptied, 1);
    CU_ASSERT(info.since >= now - SEC(5));
    CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "b.2", now, SEC(60), &info), WH_CLAIM_PREDATES);
    CU_ASSERT_EQUAL(info.emptied, 0);
    /* signed later than the new memory began + tolerance: judged */
    CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "b.3", now + SEC(TOL + 60), SEC(60), &info),
                    WH_CLAIM_FIRST);
    /* init leaves a marker that is there alone */
    CU_ASSERT_EQUAL(st->ops->init(st, P(), &since, &err), 0);
    CU_ASSERT(since > 0);
    apr_pool_destroy(p);
}

/* Claims racing on the same ids from several threads: exactly one FIRST
 * per id (each thread a holder of its own, connections shared). */
#define RACE_THREADS 8
#define RACE_IDS 150

typedef struct {
    wh_replay_store *st;
    const char **ids;
    int me;
    int first[RACE_IDS];
    int errors;
} racer;

static void *APR_THREAD_FUNC race(apr_thread_t *t, void *data)
{
    racer *r = data;
    apr_pool_t *p;
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, NULL);
    for (int i = 0; i < RACE_IDS; i++) {
        wh_claim c = { r->ids[i], apr_psprintf(p, "r%d.%d", r->me, i), now, TOL, 600, SEC(60) };
        wh_claim_info info;
        wh_claim_result res = r->st->ops->claim(r->st, p, &c, &info);
        r->first[i] = res == WH_CLAIM_FIRST;
        r->errors += res == WH_CLAIM_ERROR;
        apr_pool_clear(p);
    }
    apr_pool_destroy(p);
    (void)t;
    return NULL;
}

/* RACE_THREADS threads claim every one of ids at once: no error, and each
 * id FIRST for exactly one of them. */
static void race_all(wh_replay_store *st, const char **ids)
{
    racer *rs = apr_pcalloc(P(), sizeof(*rs) * RACE_THREADS);
    apr_thread_t *th[RACE_THREADS];
    int errors = 0, bad = 0;

    for (int k = 0; k < RACE_THREADS; k++) {
        rs[k].st = st;
        rs[k].ids = ids;
        rs[k].me = k;
        CU_ASSERT_FATAL(apr_thread_create(&th[k], NULL, race, &rs[k], P()) == APR_SUCCESS);
    }
    for (int k = 0; k < RACE_THREADS; k++) {
        apr_status_t rv;
        apr_thread_join(&rv, th[k]);
        errors += rs[k].errors;
    }
    for (int i = 0; i < RACE_IDS; i++) {
        int n = 0;
        for (int k = 0; k < RACE_THREADS; k++)
            n += rs[k].first[i];
        bad += n != 1;
    }
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_racing_claims_one_first(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    const char *ids[RACE_IDS];

    apr_pool_create(&p, P());
    st = new_store(p);
    for (int i = 0; i < RACE_IDS; i++)
        ids[i] = fresh_id();
    race_all(st, ids);
    apr_pool_destroy(p);
}

static void test_unreachable_is_an_error(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    wh_claim_info info;
    const char *err = NULL;

    apr_pool_create(&p, P());
    st = open_store(p, 1);
    CU_ASSERT_FATAL(st != NULL);
    CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "a.1", apr_time_now(), SEC(60), &info),
                    WH_CLAIM_ERROR);
    CU_ASSERT_PTR_NOT_NULL(info.err);
    CU_ASSERT(!contains(info.err, "topsecret"));
    CU_ASSERT_EQUAL(st->ops->health(st, P(), &err), -1);
    CU_ASSERT_EQUAL(st->ops->confirm(st, P(), fresh_id(), "a.1", 600, &err), -1);
    apr_pool_destroy(p);
}

/* Ids and claims mod_socache_redis/memcache wrote stay what they were:
 * "1" a duplicate, "P" (no holder) a delivery under way. (redis and
 * memcached only: mod_socache has no PostgreSQL provider.) */
static void test_values_of_mod_socache(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    const char *done = fresh_id(), *claimed = fresh_id();
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, P());
    st = new_store(p);
    put_raw(done, "1");
    put_raw(claimed, "P");
    CU_ASSERT_EQUAL(claim_as(st, done, "a.1", now, SEC(60), NULL), WH_CLAIM_DUPLICATE);
    CU_ASSERT_EQUAL(claim_as(st, claimed, "a.2", now, SEC(60), NULL), WH_CLAIM_IN_PROGRESS);
    apr_pool_destroy(p);
}

/* ---- the SQL stores' own ------------------------------------------- */

/* redis, on a connection of the test's own: how often EVALSHA has run,
 * after killing every other client's connection when kill. */
static long long redis_evalshas(int kill)
{
    char *host, *at;
    int port;
    long long n = -1;
    redisContext *c;
    redisReply *r;

    split(env_of(current), &host, &port);
    c = redisConnect(host, port);
    CU_ASSERT_FATAL(c && !c->err);
    if (kill) {
        r = redisCommand(c, "CLIENT KILL TYPE normal SKIPME yes");
        CU_ASSERT(r && r->type == REDIS_REPLY_INTEGER && r->integer >= 1);
        freeReplyObject(r);
    }
    r = redisCommand(c, "INFO commandstats");
    CU_ASSERT_FATAL(r && r->type == REDIS_REPLY_STRING);
    if ((at = strstr(r->str, "cmdstat_evalsha:calls=")) != NULL)
        n = atoll(at + strlen("cmdstat_evalsha:calls="));
    freeReplyObject(r);
    redisFree(c);
    return n;
}

/* A connection opened after another of the process read the epoch marker
 * claims at once, naming that marker: one script, not a look to learn the
 * marker and then the claim (a claim sent on a connection opened while
 * the store stalled is a claim, made when the store runs again, and so
 * released then like any other). */
static void test_new_connection_claims_at_once(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    apr_time_t now = apr_time_now();
    long long before;

    apr_pool_create(&p, P());
    st = new_store(p);
    CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "a.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    /* the store's connections are cut: the next claim finds its own
     * broken and runs on a fresh one */
    before = redis_evalshas(1);
    CU_ASSERT_FATAL(before >= 0);
    CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "a.2", now, SEC(60), NULL), WH_CLAIM_FIRST);
    CU_ASSERT_EQUAL(redis_evalshas(0) - before, 1);
    apr_pool_destroy(p);
}

/* Threads racing to take over the same lapsed claims (a dead server's):
 * one FIRST per id, the takeover being one statement like the claim. */
static void test_racing_takeovers_one_first(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    const char *ids[RACE_IDS];
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, P());
    st = new_store(p);
    for (int i = 0; i < RACE_IDS; i++) {
        ids[i] = fresh_id();
        CU_ASSERT_EQUAL(claim_as(st, ids[i], "dead.1", now, apr_time_from_msec(300),
                                 NULL), WH_CLAIM_FIRST);
    }
    apr_sleep(SEC(1));
    race_all(st, ids);
    apr_pool_destroy(p);
}

/* A table dropped behind wirehook's back comes back with a marker saying
 * "from now", not "new" (its ids went with it); the versioned schema is
 * kept; ids past their window are purged as new claims come. */
static void test_dropped_table_and_purge(void)
{
    apr_pool_t *p;
    wh_replay_store *st;
    wh_claim_info info;
    const char *err = NULL;
    apr_time_t now = apr_time_now();

    apr_pool_create(&p, P());
    st = new_store(p);
    CU_ASSERT_PTR_NOT_NULL(st);
    CU_ASSERT_EQUAL(sql_exec("DROP TABLE wh_replay"), 0);
    apr_pool_destroy(p);
    apr_pool_create(&p, P());
    st = open_store(p, 0);
    CU_ASSERT_FATAL(st != NULL);
    CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "a.1", now, SEC(60), &info),
                    WH_CLAIM_PREDATES);
    CU_ASSERT(info.since >= now - SEC(5));
    ASSERT_STR(sql_value("SELECT value FROM wh_replay_meta WHERE name = 'version'"), "1");
    CU_ASSERT(strncmp(sql_value("SELECT holder FROM wh_replay WHERE id = "
                                "'wirehook:epoch'"), "since=0 ", 8) != 0);

    /* 40 ids confirmed for a second; 32 claims later (two purges of this
     * connection) they are gone, and the live ones stay */
    apr_pool_destroy(p);
    flush_store();
    apr_pool_create(&p, P());
    st = open_store(p, 0);
    CU_ASSERT_FATAL(st != NULL);
    CU_ASSERT(st->ops->init(st, P(), &now, &err) >= 0);
    now = apr_time_now();
    for (int i = 0; i < 40; i++) {
        const char *id = fresh_id();
        CU_ASSERT_EQUAL(claim_as(st, id, "a.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
        CU_ASSERT_EQUAL(st->ops->confirm(st, P(), id, "a.1", 1, &err), 0);
    }
    apr_sleep(SEC(2));
    for (int i = 0; i < 32; i++)
        CU_ASSERT_EQUAL(claim_as(st, fresh_id(), "b.1", now, SEC(60), NULL), WH_CLAIM_FIRST);
    /* the marker, the 32 claims, and none of the expired */
    ASSERT_STR(sql_value("SELECT COUNT(*) FROM wh_replay"), "33");
    apr_pool_destroy(p);
}

/* One suite per store; the cases look at `current`, set by the suite's
 * own wrappers. */
#define STORE_WRAPPERS(name, k)                                             \
    static void name##_set(void) { current = k; }                          \
    static void name##_1(void) { name##_set(); test_claim_confirm_duplicate(); } \
    static void name##_2(void) { name##_set(); test_forget_and_renew_only_the_holders(); } \
    static void name##_3(void) { name##_set(); test_lease_lapses_unless_renewed(); } \
    static void name##_4(void) { name##_set(); test_emptied_store(); }     \
    static void name##_5(void) { name##_set(); test_racing_claims_one_first(); } \
    static void name##_6(void) { name##_set(); test_unreachable_is_an_error(); }
#define STORE_CASES(name)                                                   \
        { "claim, in progress for others, duplicate once confirmed", name##_1 }, \
        { "forget and renew only the holder's claim", name##_2 },           \
        { "a claim lapses after its lease unless renewed", name##_3 },      \
        { "an emptied store answers what it cannot judge 503", name##_4 },  \
        { "racing claims: exactly one first per id", name##_5 },            \
        { "an unreachable store is an error", name##_6 },
#define SOCACHE_WRAPPER(name)                                               \
    static void name##_7(void) { name##_set(); test_values_of_mod_socache(); }
#define SOCACHE_CASE(name)                                                  \
        { "values written through mod_socache keep their meaning", name##_7 },

STORE_WRAPPERS(replay_redis, K_REDIS)
SOCACHE_WRAPPER(replay_redis)
static void replay_redis_8(void) { replay_redis_set(); test_new_connection_claims_at_once(); }
static const wh_test_case replay_redis_cases[] = {
    STORE_CASES(replay_redis) SOCACHE_CASE(replay_redis)
    { "a new connection's first claim is a claim", replay_redis_8 },
    { NULL, NULL }
};
WH_TEST_SUITE_NEEDS(replay_redis, replay_redis_cases, needs[K_REDIS])

STORE_WRAPPERS(replay_memcache, K_MEMCACHE)
SOCACHE_WRAPPER(replay_memcache)
static const wh_test_case replay_memcache_cases[] = {
    STORE_CASES(replay_memcache) SOCACHE_CASE(replay_memcache) { NULL, NULL }
};
WH_TEST_SUITE_NEEDS(replay_memcache, replay_memcache_cases, needs[K_MEMCACHE])

STORE_WRAPPERS(replay_pgsql, K_PGSQL)
static const wh_test_case replay_pgsql_cases[] = {
    STORE_CASES(replay_pgsql) { NULL, NULL }
};
WH_TEST_SUITE_NEEDS(replay_pgsql, replay_pgsql_cases, needs[K_PGSQL])

STORE_WRAPPERS(replay_mysql, K_MYSQL)
static void replay_mysql_8(void) { replay_mysql_set(); test_racing_takeovers_one_first(); }
static void replay_mysql_9(void) { replay_mysql_set(); test_dropped_table_and_purge(); }
static const wh_test_case replay_mysql_cases[] = {
    STORE_CASES(replay_mysql)
    { "racing takeovers of lapsed claims: one first per id", replay_mysql_8 },
    { "a dropped table remembers from now; expired ids purged", replay_mysql_9 },
    { NULL, NULL }
};
WH_TEST_SUITE_MYSQL(replay_mysql, replay_mysql_cases, "test_replay_mysql.sh")
