/* What every replay store shares: the providers' specs (one server, its
 * port; pgsql with its own conninfo or the inbox's; a conninfo's password
 * never shown), the keys and values of the shared stores (as
 * mod_socache's redis and memcache providers wrote them), holder tokens,
 * the network file systems a store file is refused on, and the renewer
 * that keeps running deliveries' claims (here with a store that counts
 * what it is asked; the real stores' renewals are test_replay_shared's). */
#include "wh_test.h"
#include "replay/wh_replay.h"
#include "verify/wh_fs.h"
#include "replay/wh_replay_mysql.h"
#include "replay/wh_replay_pgsql.h"
#include "replay/wh_replay_renew.h"
#include "replay/wh_replay_store.h"
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <unistd.h>

#define P() wh_test_pool()

static void test_shared_specs(void)
{
    wh_replay_model m;

    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "redis", "127.0.0.1:6379", &m));
    CU_ASSERT(m.shared && m.uses_marker && m.survives_restart);
    ASSERT_STR(m.host, "127.0.0.1");
    CU_ASSERT_EQUAL(m.port, 6379);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "memcache", "cache.example.com:11211", &m));
    CU_ASSERT(m.shared);
    ASSERT_STR(m.host, "cache.example.com");
    CU_ASSERT_EQUAL(m.port, 11211);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "redis", "[::1]:6380", &m));
    ASSERT_STR(m.host, "::1");
    CU_ASSERT_EQUAL(m.port, 6380);
    /* one server, a port, a host */
    CU_ASSERT(contains(wh_replay_model_make(P(), "memcache", "a:1,b:2", &m), "one server"));
    CU_ASSERT(contains(wh_replay_model_make(P(), "redis", NULL, &m), "redis:127.0.0.1:6379"));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", "host", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", ":6379", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", "host:", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", "host:0", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", "host:65536", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", "host:63x", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "redis", "user@host:6379", &m));
    /* pgsql: the inbox's database, or a conninfo of its own */
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "pgsql", NULL, &m));
    CU_ASSERT(m.shared && m.uses_marker);
    CU_ASSERT_PTR_NULL(m.conninfo);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "pgsql", "host=db dbname=x", &m));
    ASSERT_STR(m.conninfo, "host=db dbname=x");
    /* mysql: the same, with apr_dbd's mysql parameters */
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "mysql", NULL, &m));
    CU_ASSERT(m.shared && m.uses_marker && m.survives_restart);
    CU_ASSERT_PTR_NULL(m.conninfo);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "mysql", "host=db dbname=x", &m));
    ASSERT_STR(m.conninfo, "host=db dbname=x");
    /* one machine's stores are not shared */
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "lmdb", NULL, &m));
    CU_ASSERT(!m.shared);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "dbm", NULL, &m));
    CU_ASSERT(!m.shared);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "shmcb", NULL, &m));
    CU_ASSERT(!m.shared);
    CU_ASSERT(contains(wh_replay_model_make(P(), "dc", "x", &m), "pgsql"));
    CU_ASSERT(contains(wh_replay_model_make(P(), "dc", "x", &m), "mysql"));
}

/* The mysql store's connections never reconnect by themselves (a new
 * session would lack its settings and statements) and count the rows a
 * statement changed, whatever the parameters say: what it adds comes
 * last, and the driver takes a key's last value. */
static void test_mysql_params(void)
{
    ASSERT_STR(wh_replay_mysql_params(P(), "host=db pass=x reconnect=1 "
                                      "flags=CLIENT_FOUND_ROWS"),
               "host=db pass=x reconnect=1 flags=CLIENT_FOUND_ROWS "
               "reconnect=0 flags=none");
    CU_ASSERT_PTR_NULL(wh_replay_mysql_params(P(), NULL));
}

/* A conninfo's password never reaches a log line. */
static void test_spec_display_hides_passwords(void)
{
    const char *d;

    ASSERT_STR(wh_replay_spec_display(P(), NULL, NULL), "lmdb:");
    ASSERT_STR(wh_replay_spec_display(P(), "redis", "h:1"), "redis:h:1");
    ASSERT_STR(wh_replay_spec_display(P(), "pgsql", NULL), "pgsql:");
    d = wh_replay_spec_display(P(), "pgsql", "host=db password=s3cret dbname=x");
    ASSERT_STR(d, "pgsql:host=db password=*** dbname=x");
    d = wh_replay_spec_display(P(), "pgsql", "password = 'a b\\' c' user=u PASSWORD=x");
    CU_ASSERT(!contains(d, "a b") && !contains(d, "=x"));
    CU_ASSERT(contains(d, "user=u"));
    d = wh_replay_spec_display(P(), "pgsql", "postgresql://u:s3cret@db/x");
    ASSERT_STR(d, "pgsql:postgresql://u:***@db/x");
    d = wh_replay_spec_display(P(), "pgsql", "password=");
    CU_ASSERT(contains(d, "password=***"));
    /* many keys: the output grows, and stays whole */
    d = wh_replay_spec_display(P(), "pgsql", "password=a password=b password=c password=d");
    ASSERT_STR(d, "pgsql:password=*** password=*** password=*** password=***");
    /* mysql: apr_dbd's driver reads "pass" (or any key it begins with),
     * values end at " \r\n\t;|,": every value but those known to name
     * no secret is hidden */
    ASSERT_STR(wh_replay_spec_display(P(), "mysql", NULL), "mysql:");
    d = wh_replay_spec_display(P(), "mysql", "host=db port=3306 user=u "
                               "pass=s3cret dbname=x");
    ASSERT_STR(d, "mysql:host=db port=3306 user=u pass=*** dbname=x");
    d = wh_replay_spec_display(P(), "mysql", "host=db;pass=s3cret,user=u");
    ASSERT_STR(d, "mysql:host=db;pass=***,user=u");
    d = wh_replay_spec_display(P(), "mysql", "p=s3cret|PASS = s3cret\tPa=a=b");
    CU_ASSERT(!contains(d, "s3cret") && !contains(d, "a=b"));
    d = wh_replay_spec_display(P(), "mysql", "host=db pass=");
    ASSERT_STR(d, "mysql:host=db pass=");
    d = wh_replay_spec_display(P(), "mysql", "=s3cret pass=a pass=b pass=c");
    ASSERT_STR(d, "mysql:=*** pass=*** pass=*** pass=***");
}

static void test_keys_and_values(void)
{
    int mine = 7;

    /* as httpd's mod_socache_redis/memcache wrote the epoch marker */
    ASSERT_STR(wh_replay_net_key(P(), WH_REPLAY_MARKER_KEY),
               "wirehook-replay:77697265686f6f6b3a65706f6368");
    ASSERT_STR(wh_replay_net_key(P(), "Ab"), "wirehook-replay:4162");
    ASSERT_STR(wh_replay_net_claim_value(P(), "h1.2"), "Ph1.2");
    CU_ASSERT_EQUAL(wh_replay_net_state("1", 1, "h", &mine), WH_NET_CONFIRMED);
    CU_ASSERT_EQUAL(mine, 0);
    CU_ASSERT_EQUAL(wh_replay_net_state("Ph1.2", 5, "h1.2", &mine), WH_NET_CLAIMED);
    CU_ASSERT_EQUAL(mine, 1);
    CU_ASSERT_EQUAL(wh_replay_net_state("Ph1.2", 5, "h1.3", &mine), WH_NET_CLAIMED);
    CU_ASSERT_EQUAL(mine, 0);
    CU_ASSERT_EQUAL(wh_replay_net_state("Ph1.2", 5, "h1.", &mine), WH_NET_CLAIMED);
    CU_ASSERT_EQUAL(mine, 0);
    /* mod_socache's claim had no holder: nobody's */
    CU_ASSERT_EQUAL(wh_replay_net_state("P", 1, "", &mine), WH_NET_CLAIMED);
    CU_ASSERT_EQUAL(mine, 0);
    CU_ASSERT_EQUAL(wh_replay_net_state("P", 1, NULL, &mine), WH_NET_CLAIMED);
    CU_ASSERT_EQUAL(wh_replay_net_state("0", 1, NULL, &mine), WH_NET_FREE);
    CU_ASSERT_EQUAL(wh_replay_net_state(NULL, 0, NULL, &mine), WH_NET_FREE);
    CU_ASSERT_EQUAL(wh_replay_net_held(WH_NET_CONFIRMED), WH_CLAIM_DUPLICATE);
    CU_ASSERT_EQUAL(wh_replay_net_held(WH_NET_CLAIMED), WH_CLAIM_IN_PROGRESS);
}

static void test_holders_are_unique(void)
{
    wh_replay_holders a, b;
    const char *a1, *a2, *b1;

    CU_ASSERT_PTR_NULL(wh_replay_holders_init(&a));
    CU_ASSERT_PTR_NULL(wh_replay_holders_init(&b));
    a1 = wh_replay_holder_next(P(), &a);
    a2 = wh_replay_holder_next(P(), &a);
    b1 = wh_replay_holder_next(P(), &b);
    CU_ASSERT(strcmp(a1, a2) != 0);
    CU_ASSERT(strcmp(a1, b1) != 0);
    CU_ASSERT(strlen(a1) <= WH_REPLAY_HOLDER_MAX);
    CU_ASSERT_EQUAL(strlen(a.prefix), 16);
}

static void test_network_file_systems(void)
{
    CU_ASSERT(contains(wh_fs_network_type(0x6969), "NFS"));
    CU_ASSERT(contains(wh_fs_network_type(0xFF534D42UL), "CIFS"));
    CU_ASSERT(contains(wh_fs_network_type(0xFE534D42UL), "SMB2"));
    CU_ASSERT(contains(wh_fs_network_type(0x517B), "SMB"));
    CU_ASSERT_PTR_NULL(wh_fs_network_type(0xEF53));      /* ext4 */
    CU_ASSERT_PTR_NULL(wh_fs_network_type(0x58465342));  /* xfs */
    CU_ASSERT_PTR_NULL(wh_fs_network_type(0x01021994));  /* tmpfs */
    /* this machine's /tmp and a path not made yet (its directory) */
    CU_ASSERT_PTR_NULL(wh_fs_network("/tmp"));
    CU_ASSERT_PTR_NULL(wh_fs_network("/tmp/not-there-yet/replay"));
    CU_ASSERT_PTR_NULL(wh_fs_network(""));
}

/* ---- the renewer, with a store that counts ------------------------- */

typedef struct {
    apr_thread_mutex_t *mu;
    int renews;
    int refuse;              /* renew answers 0 (not the holder's any more) */
    int fail;                /* renew answers -1 */
    const char *last_holder;
    apr_interval_time_t last_lease;
} counting;

static int counting_renew(wh_replay_store *st, apr_pool_t *p, const char *id,
                          const char *holder, apr_interval_time_t lease,
                          const char **err)
{
    counting *c = st->impl;
    (void)id;
    apr_thread_mutex_lock(c->mu);
    c->renews++;
    c->last_holder = apr_pstrdup(P(), holder);
    c->last_lease = lease;
    apr_thread_mutex_unlock(c->mu);
    (void)p;
    if (c->fail) {
        *err = "unreachable";
        return -1;
    }
    return c->refuse ? 0 : 1;
}

static int renews_of(counting *c)
{
    int n;
    apr_thread_mutex_lock(c->mu);
    n = c->renews;
    apr_thread_mutex_unlock(c->mu);
    return n;
}

static const wh_replay_store_ops counting_ops = {
    "counting", NULL, NULL, NULL, counting_renew, NULL, NULL, NULL
};

static int log_lines;
static void count_log(void *baton, wh_log_level level, const char *msg)
{
    (void)baton;
    (void)level;
    if (contains(msg, "notificationId=n"))
        log_lines++;
}

static void test_renewer_passes(void)
{
    apr_pool_t *p;
    counting c = { NULL, 0, 0, 0, NULL, 0 };
    wh_replay_store st = { &counting_ops, &c };
    wh_replay_renewer *rn = NULL;
    wh_replay_open *o1, *o2, *o3;
    wh_logger lg = { count_log, NULL };
    int lost, failed;
    char long_id[WH_REPLAY_NET_ID_MAX + 2];

    apr_pool_create(&p, P());
    apr_thread_mutex_create(&c.mu, APR_THREAD_MUTEX_DEFAULT, p);
    CU_ASSERT_PTR_NULL(wh_replay_renewer_create(p, &lg, &rn));
    CU_ASSERT_FATAL(rn != NULL);
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, &lost, &failed), 0);
    o1 = wh_replay_renewer_add(rn, &st, "n1", "h.1", apr_time_from_sec(120));
    o2 = wh_replay_renewer_add(rn, &st, "n2", "h.2", apr_time_from_sec(120));
    o3 = wh_replay_renewer_add(rn, &st, "n3", "h.3", apr_time_from_sec(120));
    CU_ASSERT(o1 && o2 && o3);
    CU_ASSERT_EQUAL(wh_replay_renewer_open_count(rn), 3);
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, &lost, &failed), 3);
    CU_ASSERT_EQUAL(c.renews, 3);
    CU_ASSERT_EQUAL(c.last_lease, apr_time_from_sec(120));
    wh_replay_renewer_remove(rn, o2);
    CU_ASSERT_EQUAL(wh_replay_renewer_open_count(rn), 2);
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, &lost, &failed), 2);
    CU_ASSERT_EQUAL(c.renews, 5);
    /* a removed entry is reused, not leaked */
    o2 = wh_replay_renewer_add(rn, &st, "n4", "h.4", apr_time_from_sec(120));
    CU_ASSERT_EQUAL(wh_replay_renewer_open_count(rn), 3);
    /* a claim no longer its holder's, still open: lost, and said so */
    c.refuse = 1;
    log_lines = 0;
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, &lost, &failed), 0);
    CU_ASSERT_EQUAL(lost, 3);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(log_lines, 3);
    /* a store that cannot be reached: failed, tried again next pass */
    c.refuse = 0;
    c.fail = 1;
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, &lost, &failed), 0);
    CU_ASSERT_EQUAL(failed, 3);
    c.fail = 0;
    wh_replay_renewer_remove(rn, o1);
    wh_replay_renewer_remove(rn, o2);
    wh_replay_renewer_remove(rn, o3);
    CU_ASSERT_EQUAL(wh_replay_renewer_open_count(rn), 0);
    /* ids and holders too long to copy are not taken */
    memset(long_id, 'x', sizeof(long_id) - 1);
    long_id[sizeof(long_id) - 1] = '\0';
    CU_ASSERT_PTR_NULL(wh_replay_renewer_add(rn, &st, long_id, "h",
                                             apr_time_from_sec(120)));
    CU_ASSERT_PTR_NULL(wh_replay_renewer_add(rn, &st, "n", "",
                                             apr_time_from_sec(120)));
    /* nor a claim without a lease */
    CU_ASSERT_PTR_NULL(wh_replay_renewer_add(rn, &st, "n", "h", 0));
    apr_pool_destroy(p);
}

/* Each claim is renewed for the lease it was made with (ReplayLease of
 * its store), whatever the other claims' leases. */
static void test_renewer_keeps_each_lease(void)
{
    apr_pool_t *p;
    counting c = { NULL, 0, 0, 0, NULL, 0 };
    wh_replay_store st = { &counting_ops, &c };
    wh_replay_renewer *rn = NULL;
    wh_replay_open *o;

    apr_pool_create(&p, P());
    apr_thread_mutex_create(&c.mu, APR_THREAD_MUTEX_DEFAULT, p);
    CU_ASSERT_PTR_NULL(wh_replay_renewer_create(p, NULL, &rn));
    CU_ASSERT_FATAL(rn != NULL);
    o = wh_replay_renewer_add(rn, &st, "n1", "h.1", apr_time_from_sec(10));
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, NULL, NULL), 1);
    CU_ASSERT_EQUAL(c.last_lease, apr_time_from_sec(10));
    wh_replay_renewer_remove(rn, o);
    /* the entry reused for another claim takes that claim's lease */
    CU_ASSERT_PTR_NOT_NULL(wh_replay_renewer_add(rn, &st, "n2", "h.2",
                                                 apr_time_from_sec(3600)));
    CU_ASSERT_EQUAL(wh_replay_renewer_pass(rn, NULL, NULL), 1);
    CU_ASSERT_EQUAL(c.last_lease, apr_time_from_sec(3600));
    ASSERT_STR(c.last_holder, "h.2");
    apr_pool_destroy(p);
}

/* The thread renews every period until its pool goes, which stops it. */
static void test_renewer_thread(void)
{
    apr_pool_t *p;
    counting c = { NULL, 0, 0, 0, NULL, 0 };
    wh_replay_store st = { &counting_ops, &c };
    wh_replay_renewer *rn = NULL;

    apr_pool_create(&p, P());
    apr_thread_mutex_create(&c.mu, APR_THREAD_MUTEX_DEFAULT, P());
    CU_ASSERT_PTR_NULL(wh_replay_renewer_create(p, NULL, &rn));
    CU_ASSERT_FATAL(rn != NULL);
    CU_ASSERT_PTR_NOT_NULL(wh_replay_renewer_add(rn, &st, "n1", "h.1",
                                                 apr_time_from_sec(3)));
    CU_ASSERT_PTR_NULL(wh_replay_renewer_start(rn, apr_time_from_msec(20)));
    /* at least two passes, waited for with a bound */
    for (int i = 0; i < 1000 && renews_of(&c) < 2; i++)
        apr_sleep(apr_time_from_msec(10));
    CU_ASSERT(renews_of(&c) >= 2);
    CU_ASSERT(wh_replay_renewer_passes(rn) >= 2);
    ASSERT_STR(c.last_holder, "h.1");
    apr_pool_destroy(p);                      /* joins the thread */
    {
        int after = renews_of(&c);
        apr_sleep(apr_time_from_msec(60));
        CU_ASSERT_EQUAL(renews_of(&c), after);
    }
}

static const wh_test_case cases[] = {
    { "specs of the shared stores", test_shared_specs },
    { "a conninfo's password is never shown", test_spec_display_hides_passwords },
    { "mysql: no reconnection, rows changed counted", test_mysql_params },
    { "keys and values as mod_socache wrote them", test_keys_and_values },
    { "holder tokens are unique", test_holders_are_unique },
    { "network file systems are told apart", test_network_file_systems },
    { "renewer: each pass renews every open claim", test_renewer_passes },
    { "renewer: each claim renewed for its own lease", test_renewer_keeps_each_lease },
    { "renewer: the thread renews until its pool goes", test_renewer_thread },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_store, cases)
