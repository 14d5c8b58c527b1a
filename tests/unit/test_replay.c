/* Replay protection's guarantees: the providers' models, shmcb's layout,
 * the key and its partition, the rule for a store that starts empty, the
 * ledger of live ids, the epoch marker. */
#include "wh_test.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_lmdb.h"
#include <apr_strings.h>
#include <apr_uuid.h>
#include <stdlib.h>

#define P() wh_test_pool()
#define SEC(n) apr_time_from_sec(n)

static const char *uuid(void)
{
    apr_uuid_t u;
    char *s = apr_palloc(P(), APR_UUID_FORMATTED_LENGTH + 1);
    apr_uuid_get(&u);
    apr_uuid_format(s, &u);
    return s;
}

static void test_models(void)
{
    wh_replay_model m;

    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "dbm", NULL, &m));
    CU_ASSERT(m.survives_restart && m.uses_marker);
    CU_ASSERT_EQUAL(m.per_partition, 0);
    CU_ASSERT_EQUAL(m.partitions, 1);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), NULL, NULL, &m));
    ASSERT_STR(m.provider, "lmdb");                      /* the default */
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "redis", "127.0.0.1:6379", &m));
    CU_ASSERT(m.survives_restart && m.uses_marker);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "memcache", "127.0.0.1:11211", &m));
    CU_ASSERT(m.uses_marker);

    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "shmcb", NULL, &m));
    CU_ASSERT(!m.survives_restart && !m.uses_marker);
    CU_ASSERT_EQUAL(m.shm_size, WH_REPLAY_SHMCB_DEFAULT_SIZE);
    CU_ASSERT_EQUAL(m.key_len, 37);
    CU_ASSERT(m.partitions > 1 && (m.partitions & (m.partitions - 1)) == 0);
    CU_ASSERT(m.per_partition > 0);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "shmcb", "/run/x(2097152)", &m));
    CU_ASSERT_EQUAL(m.shm_size, 2097152);

    /* a provider whose promise is unknown is refused */
    CU_ASSERT(contains(wh_replay_model_make(P(), "dc", "host:port", &m), "dbm"));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "shmcb", "/x(12ab)", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "shmcb", "/x(100)", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "shmcb", "/x()", &m));
    CU_ASSERT_PTR_NOT_NULL(wh_replay_model_make(P(), "shmcb",
                                                "/x(99999999999999999999999)", &m));
}

/* The default shmcb, as mod_socache_shmcb lays it out for 37-byte keys and
 * 1-byte values. With the naive hints (id 37, object 1): 524288 - 88 bytes
 * / 38 = 13794 index slots; subcaches halved from 256 while one would get
 * fewer than twice as many slots as there are subcaches: 64 of 215 slots;
 * a subcache is 8184 bytes, 16 + 215 * 24 of them index, leaving 3008
 * bytes of data: 79 entries of 38 bytes (index slots wasted). With the
 * object hint paying for the index slot (1 + 24): 524200 / 62 = 8454
 * slots, 64 subcaches of 132, 8184 - 16 - 132 * 24 = 5000 bytes of data:
 * 131 entries, 8384 in all. */
static void test_shmcb_layout(void)
{
    unsigned subs = 0;
    apr_uint64_t per = 0;
    wh_replay_model m;

    CU_ASSERT_EQUAL(wh_replay_shmcb_layout(524288, 37, 1, 37, 1, &subs, &per), 0);
    CU_ASSERT_EQUAL(subs, 64);
    CU_ASSERT_EQUAL(per, 79);
    CU_ASSERT_EQUAL(wh_replay_shmcb_layout(524288, 37, 25, 37, 1, &subs, &per), 0);
    CU_ASSERT_EQUAL(subs, 64);
    CU_ASSERT_EQUAL(per, 131);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "shmcb", NULL, &m));
    CU_ASSERT_EQUAL(m.hint_obj_size, 25);
    CU_ASSERT_EQUAL(m.partitions, 64);
    CU_ASSERT_EQUAL(m.per_partition, 131);
    /* more memory, more ids: roughly linear */
    CU_ASSERT_EQUAL(wh_replay_shmcb_layout(8 * 524288, 37, 25, 37, 1, &subs, &per), 0);
    CU_ASSERT((apr_uint64_t)subs * per > 7 * 8384);
    /* too small to hold anything */
    CU_ASSERT_EQUAL(wh_replay_shmcb_layout(100, 37, 25, 37, 1, &subs, &per), -1);
    CU_ASSERT_EQUAL(wh_replay_shmcb_layout(524288, 0, 0, 0, 0, &subs, &per), -1);
}

/* shmcb picks a subcache by the key's first byte: the hash byte spreads
 * ids over every subcache (a bare hex UUID would use 16 values of 256). */
static void test_key_spreads_over_partitions(void)
{
    wh_replay_model m;
    unsigned counts[256] = {0}, used = 0, top = 0;
    const int n = 6400;

    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "shmcb", NULL, &m));
    for (int i = 0; i < n; i++) {
        const unsigned char *key;
        unsigned len, part;
        const char *id = uuid();
        wh_replay_key(P(), &m, id, &key, &len, &part);
        CU_ASSERT_EQUAL(len, 37);
        CU_ASSERT(memcmp(key + 1, id, 36) == 0);
        CU_ASSERT_EQUAL(part, (unsigned)(key[0] & (m.partitions - 1)));
        counts[part]++;
    }
    for (unsigned i = 0; i < m.partitions; i++) {
        used += counts[i] > 0;
        if (counts[i] > top)
            top = counts[i];
    }
    CU_ASSERT_EQUAL(used, m.partitions);
    /* 100 per partition on average; a fair spread stays well under 2x */
    CU_ASSERT(top < 2 * (unsigned)(n / (int)m.partitions));

    /* elsewhere the key is the id itself (memcached wants text) */
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "memcache", "h:1", &m));
    {
        const unsigned char *key;
        unsigned len, part;
        wh_replay_key(P(), &m, "3b241101-e2bb-4255-8caf-4136c566a962", &key, &len, &part);
        CU_ASSERT_EQUAL(len, 36);
        CU_ASSERT_EQUAL(part, 0);
        CU_ASSERT(memcmp(key, "3b241101", 8) == 0);
    }
}

static void test_predates(void)
{
    apr_time_t since = SEC(1000000);

    /* known new: judges everything */
    CU_ASSERT_FALSE(wh_replay_predates(SEC(1), 0, 300));
    /* signed before since + tolerance: it may have been accepted before */
    CU_ASSERT_TRUE(wh_replay_predates(since, since, 300));
    CU_ASSERT_TRUE(wh_replay_predates(since - SEC(200), since, 300));
    CU_ASSERT_TRUE(wh_replay_predates(since + SEC(299), since, 300));
    CU_ASSERT_FALSE(wh_replay_predates(since + SEC(300), since, 300));
    CU_ASSERT_FALSE(wh_replay_predates(since + SEC(3000), since, 300));
}

static wh_replay_ledger *ledger(unsigned parts, apr_uint64_t per, apr_int64_t window)
{
    void *mem = apr_palloc(P(), wh_replay_ledger_size(parts));
    return wh_replay_ledger_init(mem, parts, per, window, 0);
}

static void test_ledger_refuses_a_full_partition(void)
{
    wh_replay_ledger *l = ledger(4, 10, 600);
    apr_time_t t = SEC(1700000000);
    apr_uint64_t live, cap, top;

    for (int i = 0; i < 10; i++)
        CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 2, t + SEC(i)));
    CU_ASSERT_FALSE(wh_replay_ledger_admit(l, 2, t + SEC(11)));
    /* other partitions are unaffected */
    CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 1, t + SEC(11)));
    wh_replay_ledger_fill(l, t + SEC(12), &live, &cap, &top);
    CU_ASSERT_EQUAL(live, 11);
    CU_ASSERT_EQUAL(cap, 40);
    CU_ASSERT_EQUAL(top, 10);
    /* still full just before the window has passed for all ten */
    CU_ASSERT_FALSE(wh_replay_ledger_admit(l, 2, t + SEC(600)));
    /* ... and says when room comes: the oldest bucket's end + the window,
     * no earlier than its ids' true expiry, no later than the next
     * admission */
    {
        apr_time_t at = wh_replay_ledger_room_at(l, 2, t + SEC(600));
        CU_ASSERT(at >= t + SEC(600));
        CU_ASSERT(at <= t + SEC(700));
        CU_ASSERT_EQUAL(wh_replay_ledger_live(l, 2, at - 1), 10);
        CU_ASSERT(wh_replay_ledger_live(l, 2, at) < 10);
        CU_ASSERT_EQUAL(wh_replay_ledger_room_at(l, 3, t), 0);   /* empty */
    }
    /* once every id has certainly expired, the partition takes ids again */
    CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 2, t + SEC(700)));
    CU_ASSERT_EQUAL(wh_replay_ledger_live(l, 2, t + SEC(700)), 1);
}

/* The count never falls below the ids a store really holds: an id lives
 * until its store time + the window, and is counted at least that long. */
static void test_ledger_never_undercounts(void)
{
    wh_replay_ledger *l = ledger(1, 0, 600);
    apr_time_t t0 = SEC(1700000123) + 456789;

    srand(7);
    for (int i = 0; i < 3000; i++) {
        apr_time_t at = t0 + SEC(i / 3) + rand() % 1000000;
        CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 0, at));
        /* every id stored in the last window is still counted */
        if (i % 97 == 0) {
            apr_uint64_t truly = 0;
            for (int j = 0; j <= i; j++)
                if (t0 + SEC(j / 3) + apr_time_from_sec(600) > at)
                    truly++;
            CU_ASSERT(wh_replay_ledger_live(l, 0, at) >= truly);
        }
    }
    /* and ids are let go once the window (plus one bucket) has passed */
    CU_ASSERT_EQUAL(wh_replay_ledger_live(l, 0, t0 + SEC(1000 + 600 + 20)), 0);
}

static void test_ledger_clock_going_back(void)
{
    wh_replay_ledger *l = ledger(1, 5, 60);
    apr_time_t t = SEC(1700000000);

    for (int i = 0; i < 3; i++)
        CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 0, t));
    /* an earlier clock still sees the ids of the later bucket */
    CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 0, t - SEC(30)));
    CU_ASSERT_TRUE(wh_replay_ledger_admit(l, 0, t - SEC(30)));
    CU_ASSERT_FALSE(wh_replay_ledger_admit(l, 0, t - SEC(30)));
    CU_ASSERT_FALSE(wh_replay_ledger_admit(l, 0, t));
}

static void test_ledger_since(void)
{
    void *mem = apr_palloc(P(), wh_replay_ledger_size(1));
    wh_replay_ledger *l = wh_replay_ledger_init(mem, 1, 0, 600, SEC(42));
    CU_ASSERT_EQUAL(wh_replay_ledger_since(l), SEC(42));
}

static void test_marker(void)
{
    apr_time_t since = -1, set = -1;
    const char *v = wh_replay_marker_encode(P(), SEC(1700000000), SEC(1700086400));

    CU_ASSERT_EQUAL(wh_replay_marker_decode(v, strlen(v), &since, &set), 0);
    CU_ASSERT_EQUAL(since, SEC(1700000000));
    CU_ASSERT_EQUAL(set, SEC(1700086400));
    v = wh_replay_marker_encode(P(), 0, 5);
    CU_ASSERT_EQUAL(wh_replay_marker_decode(v, strlen(v), &since, &set), 0);
    CU_ASSERT_EQUAL(since, 0);
    CU_ASSERT_EQUAL(wh_replay_marker_decode("since=1", 7, &since, &set), -1);
    CU_ASSERT_EQUAL(wh_replay_marker_decode("since=1 set=", 12, &since, &set), -1);
    CU_ASSERT_EQUAL(wh_replay_marker_decode("since=1 set=2x", 14, &since, &set), -1);
    CU_ASSERT_EQUAL(wh_replay_marker_decode("1", 1, &since, &set), -1);
    CU_ASSERT_EQUAL(wh_replay_marker_decode("since=99999999999999999999 set=1",
                                            32, &since, &set), -1);
}

static void test_describe(void)
{
    wh_replay_model m;

    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "shmcb", NULL, &m));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300),
                       "holds 8384 notificationIds"));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300),
                       "does NOT survive a restart"));
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "dbm", NULL, &m));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300),
                       "survives graceful and full restarts"));
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "redis", "h:1", &m));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300),
                       "noeviction"));
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "memcache", "h:1", &m));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300), "-M"));
}

/* ReplayCache lmdb[:/path][(bytes)]: the path and the map size apart;
 * a map too small to be useful is refused at startup. */
static void test_lmdb_model(void)
{
    wh_replay_model m;
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "lmdb", NULL, &m));
    ASSERT_STR(m.path, "");
    CU_ASSERT_EQUAL(m.map_size, WH_REPLAY_LMDB_DEFAULT_SIZE);
    CU_ASSERT(m.survives_restart && !m.uses_marker);
    CU_ASSERT_EQUAL(m.per_partition, 0);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "lmdb", "/var/lib/wh/replay(1048576)", &m));
    ASSERT_STR(m.path, "/var/lib/wh/replay");
    CU_ASSERT_EQUAL(m.map_size, 1048576);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "lmdb", "/var/lib/wh/replay", &m));
    ASSERT_STR(m.path, "/var/lib/wh/replay");
    CU_ASSERT_EQUAL(m.map_size, WH_REPLAY_LMDB_DEFAULT_SIZE);
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "lmdb", "(2097152)", &m));
    ASSERT_STR(m.path, "");
    CU_ASSERT_EQUAL(m.map_size, 2097152);
    CU_ASSERT(contains(wh_replay_model_make(P(), "lmdb", "/x(1000)", &m), "too small"));
    CU_ASSERT(contains(wh_replay_model_make(P(), "lmdb", "/x(12ab)", &m), "digits in parentheses"));
    CU_ASSERT(contains(wh_replay_model_make(P(), "lmdb", "/x(99999999999999999999999)", &m), "too large"));
    CU_ASSERT_PTR_NULL(wh_replay_model_make(P(), "lmdb", NULL, &m));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300),
                       "answers 503 rather than evict"));
    CU_ASSERT(contains(wh_replay_model_describe(P(), &m, 600, 300),
                       "survives graceful and full restarts and killed processes"));
}

static const wh_test_case cases[] = {
    { "lmdb: path and map size", test_lmdb_model },
    { "each provider's promise", test_models },
    { "shmcb layout as mod_socache_shmcb computes it", test_shmcb_layout },
    { "shmcb keys spread over every subcache", test_key_spreads_over_partitions },
    { "a store that starts empty judges only what it can", test_predates },
    { "ledger refuses the id that would evict", test_ledger_refuses_a_full_partition },
    { "ledger never counts fewer ids than the store holds", test_ledger_never_undercounts },
    { "ledger with a clock going back", test_ledger_clock_going_back },
    { "ledger keeps since", test_ledger_since },
    { "epoch marker encode/decode", test_marker },
    { "startup description", test_describe },
    { NULL, NULL }
};
WH_TEST_SUITE(replay, cases)
