/* Basic authentication: header parsing, htpasswd hash kinds, the cache of
 * successful checks. */
#include "wh_test.h"
#include "wh_auth.h"
#include <apr_strings.h>
#include <apr_base64.h>
#include <string.h>

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

static const wh_test_case cases[] = {
    { "parse Basic header", test_parse_ok },
    { "malformed Basic headers", test_parse_malformed },
    { "bcrypt, SHA1 and apr1-MD5 hashes", test_hash_kinds },
    { "wrong user or password fails", test_failures },
    { "user reported on success", test_user_reported },
    { "cache hit after success", test_cache_hits_after_success },
    { "cache never stores failures", test_cache_never_stores_failures },
    { "cache entries expire", test_cache_expires },
    { "cache expiry slides with use", test_cache_expiry_slides_with_use },
    { "cache keyed by whole header", test_cache_keyed_by_whole_header },
    { "TTL 0 disables the cache", test_cache_disabled_with_zero_ttl },
    { "cache: bcrypt runs once", test_cache_makes_bcrypt_cheap },
    { NULL, NULL }
};
WH_TEST_SUITE(auth, cases)
