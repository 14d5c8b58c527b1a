/* Basic authentication: header parsing, htpasswd hash kinds, the cache of
 * successful checks. */
#include "wh_test.h"
#include "verify/wh_auth.h"
#include <apr_strings.h>
#include <apr_base64.h>
#include <string.h>
#include <openssl/sha.h>

#define BCRYPT_BANK "$2y$05$umVYsjMBR4WkQjhq.K6vgumvD/Sz/SHDIlSfY6m0ur.ry9WM/2QGW"  /* s3cret pass */
#define SHA_BANK2 "{SHA}8Wyi36Noi/CMek4hVErxW9WYy3A="                               /* pw2 */
#define APR1_BANK3 "$apr1$ZEbFN46Z$TzssS8mcSdms1pE0.iiMa0"                         /* pw3 */

static apr_hash_t *users(void)
{
    apr_hash_t *h = apr_hash_make(wh_test_pool());
    apr_hash_set(h, "bank", APR_HASH_KEY_STRING, BCRYPT_BANK);
    apr_hash_set(h, "bank2", APR_HASH_KEY_STRING, SHA_BANK2);
    apr_hash_set(h, "bank3", APR_HASH_KEY_STRING, APR1_BANK3);
    return h;
}

static const char *basic(const char *userpass)
{
    apr_pool_t *p = wh_test_pool();
    char *enc = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)strlen(userpass)));
    apr_base64_encode(enc, userpass, (int)strlen(userpass));
    return apr_pstrcat(p, "Basic ", enc, NULL);
}

static wh_auth_result check(const char *header, wh_auth_cache *cache)
{
    const char *user = NULL;
    return wh_auth_check(wh_test_pool(), users(), cache, header, apr_time_now(), &user);
}

static void test_parse_ok(void)
{
    const char *u, *pw;
    CU_ASSERT_PTR_NULL(wh_auth_parse_basic(wh_test_pool(), "Basic YmFuazpzM2NyZXQgcGFzcw==", &u, &pw));
    CU_ASSERT_STRING_EQUAL(u, "bank");
    CU_ASSERT_STRING_EQUAL(pw, "s3cret pass");
    /* Scheme is case-insensitive (RFC 7617); extra spaces tolerated. */
    CU_ASSERT_PTR_NULL(wh_auth_parse_basic(wh_test_pool(), "basic   YmFuazpzM2NyZXQgcGFzcw==  ", &u, &pw));
    CU_ASSERT_STRING_EQUAL(u, "bank");
    /* The password may itself contain colons: only the first one splits. */
    CU_ASSERT_PTR_NULL(wh_auth_parse_basic(wh_test_pool(), basic("a:b:c"), &u, &pw));
    CU_ASSERT_STRING_EQUAL(u, "a");
    CU_ASSERT_STRING_EQUAL(pw, "b:c");
}

static void test_parse_malformed(void)
{
    const char *u, *pw;
    apr_pool_t *p = wh_test_pool();
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, NULL, &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "", &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "Bearer abc", &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "Basic", &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "Basic ", &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "BasicYmFuazpw", &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "Basic !!!!", &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "Basic YmFua", &u, &pw));    /* bad length */
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, basic("nocolon"), &u, &pw));
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, "Basic YQBiOmM=", &u, &pw)); /* a\0b:c */
    char *huge = apr_palloc(p, 5000);
    memset(huge, 'A', 4999);
    huge[4999] = '\0';
    memcpy(huge, "Basic ", 6);
    CU_ASSERT_PTR_NOT_NULL(wh_auth_parse_basic(p, huge, &u, &pw));
}

static void test_hash_kinds(void)
{
    CU_ASSERT_EQUAL(check(basic("bank:s3cret pass"), NULL), WH_AUTH_OK);
    CU_ASSERT_EQUAL(check(basic("bank2:pw2"), NULL), WH_AUTH_OK);
    CU_ASSERT_EQUAL(check(basic("bank3:pw3"), NULL), WH_AUTH_OK);
}

static void test_failures(void)
{
    CU_ASSERT_EQUAL(check(basic("bank:wrong"), NULL), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(basic("bank:s3cret pas"), NULL), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(basic("nobody:s3cret pass"), NULL), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(basic(":s3cret pass"), NULL), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(basic("bank2:pw3"), NULL), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(NULL, NULL), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(check("Digest x", NULL), WH_AUTH_MISSING);
}

static void test_user_reported(void)
{
    const char *user = NULL;
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), NULL, basic("bank3:pw3"),
                                  apr_time_now(), &user), WH_AUTH_OK);
    CU_ASSERT_STRING_EQUAL(user, "bank3");
}

static void test_cache_hits_after_success(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    const char *h = basic("bank:s3cret pass");
    const char *user = NULL;
    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_misses(c), 1);
    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 1);
    /* The user comes back from the cache too. */
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, apr_time_now(), &user), WH_AUTH_OK);
    CU_ASSERT_STRING_EQUAL(user, "bank");
}

/* A hit is decided on the header's digest before any decoding: with a warm
 * cache, what the cache does not hold byte for byte is still parsed, so a
 * malformed, absent or altered header is judged as without a cache. */
static void test_cache_hit_needs_the_exact_header(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    const char *h = basic("bank:s3cret pass");
    int checked = -1;
    const char *user = NULL;

    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_check_ex(wh_test_pool(), users(), c, h, apr_time_now(), &user,
                                     &checked), WH_AUTH_OK);
    CU_ASSERT_EQUAL(checked, 0);
    CU_ASSERT_STRING_EQUAL(user, "bank");
    CU_ASSERT_EQUAL(check(NULL, c), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(check(apr_pstrcat(wh_test_pool(), h, "!", NULL), c), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(check(h + 1, c), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(check(apr_pstrcat(wh_test_pool(), "Digest", h + 5, NULL), c), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(check(basic("bank:s3cret pas"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 1);
}

static void test_cache_never_stores_failures(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    const char *h = basic("bank:wrong");
    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 0);
}

static void test_cache_expires(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    const char *h = basic("bank2:pw2"), *user;
    apr_time_t t0 = apr_time_now();
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, t0, &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, t0 + apr_time_from_sec(59), &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 1);
    /* the hit at +59 s renewed the entry until +119 s; +120 s is past it */
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, t0 + apr_time_from_sec(120), &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 1);
    CU_ASSERT_EQUAL(wh_auth_cache_misses(c), 2);
}

static void test_cache_expiry_slides_with_use(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    const char *h = basic("bank2:pw2"), *user;
    apr_time_t t0 = apr_time_now();
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, t0, &user), WH_AUTH_OK);
    /* used every 50 s: never expires */
    for (int i = 1; i <= 5; i++)
        CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h,
                                      t0 + apr_time_from_sec(50 * i), &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_misses(c), 1);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 5);
    /* idle for more than the TTL: checked again */
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h,
                                  t0 + apr_time_from_sec(250 + 61), &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_misses(c), 2);
}

static void test_cache_keyed_by_whole_header(void)
{
    /* A cached success for one password must not let another through. */
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 1);
    CU_ASSERT_EQUAL(check(basic("bank2:pw2"), c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(check(basic("bank2:pw2x"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(basic("bank3:pw3"), c), WH_AUTH_OK);   /* evicts */
    CU_ASSERT_EQUAL(check(basic("bank2:pw2"), c), WH_AUTH_OK);
}

static void test_cache_disabled_with_zero_ttl(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 0, 16);
    const char *h = basic("bank2:pw2");
    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(check(h, c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 0);
}

static void test_cache_makes_bcrypt_cheap(void)
{
    /* Not a timing assertion: the counters prove bcrypt ran once. */
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    const char *h = basic("bank:s3cret pass");
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL(check(h, c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_misses(c), 1);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(c), 49);
}

/* ------------------------------------------ second-level store --- */

/* A store shared by "processes" (separate caches): a small table. */
typedef struct {
    int n;
    char key[8][65];
    char user[8][64];
    apr_time_t expires[8];
    int lookups, stores;
} fake_store;

static int fake_lookup(void *ctx, apr_pool_t *p, const char *key, apr_time_t now,
                       apr_time_t new_expires, const char **user)
{
    fake_store *fs = ctx;
    fs->lookups++;
    for (int i = 0; i < fs->n; i++)
        if (strcmp(fs->key[i], key) == 0 && fs->expires[i] > now) {
            fs->expires[i] = new_expires;
            *user = apr_pstrdup(p, fs->user[i]);
            return 1;
        }
    return 0;
}

static void fake_put(void *ctx, apr_pool_t *p, const char *key, const char *user,
                     apr_time_t now, apr_time_t expires)
{
    fake_store *fs = ctx;
    (void)p;
    (void)now;
    fs->stores++;
    if (fs->n < 8) {
        apr_cpystrn(fs->key[fs->n], key, sizeof(fs->key[0]));
        apr_cpystrn(fs->user[fs->n], user, sizeof(fs->user[0]));
        fs->expires[fs->n++] = expires;
    }
}

static const unsigned char SECRET[] = "signing-secret-1";

/* A fresh process: its own in-process cache, the shared store. */
static wh_auth_cache *process_with(fake_store *fs, const unsigned char *secret)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);
    wh_auth_store st = { fake_lookup, fake_put, fs };
    CU_ASSERT_EQUAL(wh_auth_cache_set_store(c, &st, secret, strlen((const char *)secret)), 0);
    return c;
}

static void test_store_hit_in_a_fresh_process(void)
{
    fake_store *fs = apr_pcalloc(wh_test_pool(), sizeof(*fs));
    const char *h = basic("bank:s3cret pass"), *user = NULL;
    wh_auth_cache *first = process_with(fs, SECRET), *second;

    CU_ASSERT_EQUAL(check(h, first), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(first), 1);
    CU_ASSERT_EQUAL(fs->stores, 1);
    /* the next process finds it: no bcrypt */
    second = process_with(fs, SECRET);
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), second, h, apr_time_now(), &user),
                    WH_AUTH_OK);
    CU_ASSERT_STRING_EQUAL(user, "bank");
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(second), 0);
    CU_ASSERT_EQUAL(wh_auth_cache_store_hits(second), 1);
    /* and then its own in-process cache answers */
    CU_ASSERT_EQUAL(check(h, second), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(second), 1);
    CU_ASSERT_EQUAL(fs->lookups, 2);   /* the first process's miss, the second's hit */
}

static void test_store_miss_runs_the_check(void)
{
    fake_store *fs = apr_pcalloc(wh_test_pool(), sizeof(*fs));
    wh_auth_cache *c = process_with(fs, SECRET);
    CU_ASSERT_EQUAL(check(basic("bank2:pw2"), c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(fs->lookups, 1);
    CU_ASSERT_EQUAL(wh_auth_cache_store_hits(c), 0);
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(c), 1);
}

static void test_store_never_gets_failures(void)
{
    fake_store *fs = apr_pcalloc(wh_test_pool(), sizeof(*fs));
    wh_auth_cache *c = process_with(fs, SECRET);
    CU_ASSERT_EQUAL(check(basic("bank:wrong"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check(basic("nobody:pw"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(check("Basic !!", c), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(fs->stores, 0);
    /* an unknown user never even reaches the store */
    CU_ASSERT_EQUAL(fs->lookups, 1);
    /* a wrong password in a fresh process is refused, not served */
    CU_ASSERT_EQUAL(check(basic("bank2:pw2"), c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(check(basic("bank2:pw2x"), process_with(fs, SECRET)), WH_AUTH_FAILED);
}

static void test_store_entries_expire(void)
{
    fake_store *fs = apr_pcalloc(wh_test_pool(), sizeof(*fs));
    const char *h = basic("bank2:pw2"), *user;
    apr_time_t t0 = apr_time_now();
    wh_auth_cache *c;

    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), process_with(fs, SECRET), h, t0,
                                  &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(fs->expires[0], t0 + apr_time_from_sec(60));
    /* a use at +50 s slides it to +110 s */
    c = process_with(fs, SECRET);
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, t0 + apr_time_from_sec(50),
                                  &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_store_hits(c), 1);
    CU_ASSERT_EQUAL(fs->expires[0], t0 + apr_time_from_sec(110));
    /* idle past it: checked again */
    c = process_with(fs, SECRET);
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), users(), c, h, t0 + apr_time_from_sec(111),
                                  &user), WH_AUTH_OK);
    CU_ASSERT_EQUAL(wh_auth_cache_store_hits(c), 0);
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(c), 1);
}

static void test_store_key_is_keyed_not_plain_hash(void)
{
    fake_store *a = apr_pcalloc(wh_test_pool(), sizeof(*a));
    fake_store *b = apr_pcalloc(wh_test_pool(), sizeof(*b));
    const char *h = basic("bank2:pw2");
    unsigned char d[SHA256_DIGEST_LENGTH];
    char hex[65];

    CU_ASSERT_EQUAL(check(h, process_with(a, SECRET)), WH_AUTH_OK);
    CU_ASSERT_EQUAL(check(h, process_with(b, (const unsigned char *)"another secret")), WH_AUTH_OK);
    CU_ASSERT_EQUAL_FATAL(a->n, 1);
    CU_ASSERT_EQUAL_FATAL(b->n, 1);
    CU_ASSERT_EQUAL(strlen(a->key[0]), 64);
    SHA256((const unsigned char *)h, strlen(h), d);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", d[i]);
    CU_ASSERT_STRING_NOT_EQUAL(a->key[0], hex);
    /* the key depends on the server secret: the database alone is useless */
    CU_ASSERT_STRING_NOT_EQUAL(a->key[0], b->key[0]);
    CU_ASSERT_PTR_NULL(strstr(a->key[0], "pw2"));
}

static void test_store_entry_dies_with_password_change(void)
{
    fake_store *fs = apr_pcalloc(wh_test_pool(), sizeof(*fs));
    const char *h = basic("bank2:pw2"), *user;
    apr_hash_t *changed = users();
    wh_auth_cache *c;

    CU_ASSERT_EQUAL(check(h, process_with(fs, SECRET)), WH_AUTH_OK);
    /* the htpasswd entry changed (new password): the old one is refused */
    apr_hash_set(changed, "bank2", APR_HASH_KEY_STRING, "{SHA}0JQeaNqPOBUf+Gph/Fn3xc+fyqI=");
    c = process_with(fs, SECRET);
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), changed, c, h, apr_time_now(), &user),
                    WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(wh_auth_cache_store_hits(c), 0);
    /* the user removed: refused too */
    apr_hash_set(changed, "bank2", APR_HASH_KEY_STRING, NULL);
    CU_ASSERT_EQUAL(wh_auth_check(wh_test_pool(), changed, process_with(fs, SECRET), h,
                                  apr_time_now(), &user), WH_AUTH_FAILED);
}

static void test_store_unused_when_cache_disabled(void)
{
    fake_store *fs = apr_pcalloc(wh_test_pool(), sizeof(*fs));
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 0, 16);
    wh_auth_store st = { fake_lookup, fake_put, fs };
    wh_auth_cache_set_store(c, &st, SECRET, sizeof(SECRET) - 1);
    CU_ASSERT_EQUAL(check(basic("bank2:pw2"), c), WH_AUTH_OK);
    CU_ASSERT_EQUAL(fs->lookups + fs->stores, 0);
}

#define BCRYPT_COST6 "$2y$06$/3JpMeRHwKfAHZNnaz7lUOmWWEF54VgjNiYR.yOdog2pypiTW1j7m" /* pw6 */

static apr_hash_t *table(const char *const *user_hash)
{
    apr_hash_t *h = apr_hash_make(wh_test_pool());
    for (; *user_hash; user_hash += 2)
        apr_hash_set(h, user_hash[0], APR_HASH_KEY_STRING, user_hash[1]);
    return h;
}

/* The decoy is the most expensive hash of the file: bcrypt of the highest
 * cost before apr1-MD5 before SHA1. */
static void test_decoy_is_the_costliest_hash(void)
{
    static const char *const all[] = { "bank", BCRYPT_BANK, "bank2", SHA_BANK2,
                                       "bank3", APR1_BANK3, "b6", BCRYPT_COST6, NULL };
    static const char *const no_b6[] = { "bank", BCRYPT_BANK, "bank2", SHA_BANK2,
                                         "bank3", APR1_BANK3, NULL };
    static const char *const md5_sha[] = { "bank2", SHA_BANK2, "bank3", APR1_BANK3, NULL };
    static const char *const sha[] = { "bank2", SHA_BANK2, NULL };

    ASSERT_STR(wh_htpasswd_decoy(table(all)), BCRYPT_COST6);
    ASSERT_STR(wh_htpasswd_decoy(table(no_b6)), BCRYPT_BANK);
    ASSERT_STR(wh_htpasswd_decoy(table(md5_sha)), APR1_BANK3);
    ASSERT_STR(wh_htpasswd_decoy(table(sha)), SHA_BANK2);
    CU_ASSERT_PTR_NULL(wh_htpasswd_decoy(NULL));
    CU_ASSERT_PTR_NULL(wh_htpasswd_decoy(apr_hash_make(wh_test_pool())));
}

/* An unknown user costs what a known user with a wrong password costs: one
 * password check, against the decoy (the bcrypt hash here). */
static void test_unknown_user_pays_the_decoy_check(void)
{
    wh_auth_cache *c = wh_auth_cache_create(wh_test_pool(), 60, 16);

    CU_ASSERT_EQUAL(check(basic("bank:wrong"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(c), 1);
    CU_ASSERT_EQUAL(wh_auth_cache_decoy_checks(c), 0);
    CU_ASSERT_EQUAL(check(basic("nobody:wrong"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(c), 2);
    CU_ASSERT_EQUAL(wh_auth_cache_decoy_checks(c), 1);
    /* The decoy's own password under an unknown name still fails: the
     * decoy check's answer is never used. */
    CU_ASSERT_EQUAL(check(basic("nobody:s3cret pass"), c), WH_AUTH_FAILED);
    CU_ASSERT_EQUAL(wh_auth_cache_decoy_checks(c), 2);
    /* A malformed header names no user: refused before any check. */
    CU_ASSERT_EQUAL(check("Basic !!", c), WH_AUTH_MISSING);
    CU_ASSERT_EQUAL(wh_auth_cache_password_checks(c), 3);
}

static const wh_test_case cases[] = {
    { "parse Basic header", test_parse_ok },
    { "malformed Basic headers", test_parse_malformed },
    { "bcrypt, SHA1 and apr1-MD5 hashes", test_hash_kinds },
    { "wrong user or password fails", test_failures },
    { "user reported on success", test_user_reported },
    { "cache hit after success", test_cache_hits_after_success },
    { "cache hit needs the exact header", test_cache_hit_needs_the_exact_header },
    { "cache never stores failures", test_cache_never_stores_failures },
    { "cache entries expire", test_cache_expires },
    { "cache expiry slides with use", test_cache_expiry_slides_with_use },
    { "cache keyed by whole header", test_cache_keyed_by_whole_header },
    { "TTL 0 disables the cache", test_cache_disabled_with_zero_ttl },
    { "cache: bcrypt runs once", test_cache_makes_bcrypt_cheap },
    { "store: a fresh process hits, no bcrypt", test_store_hit_in_a_fresh_process },
    { "store: a miss runs the password check", test_store_miss_runs_the_check },
    { "store: failures never stored", test_store_never_gets_failures },
    { "store: entries expire, expiry slides", test_store_entries_expire },
    { "store: key is an HMAC under a derived key, not SHA-256", test_store_key_is_keyed_not_plain_hash },
    { "store: an entry dies with a password change", test_store_entry_dies_with_password_change },
    { "store: unused with AuthCacheTTL 0", test_store_unused_when_cache_disabled },
    { "decoy: the costliest hash of the file", test_decoy_is_the_costliest_hash },
    { "decoy: an unknown user pays a password check", test_unknown_user_pays_the_decoy_check },
    { NULL, NULL }
};
WH_TEST_SUITE(auth, cases)
