/* HMAC-SHA256 signing: the shared vectors, the RFC 4231 primitive, hex
 * decoding and secret rotation. */
#include "wh_test.h"
#include "verify/wh_signature.h"
#include <apr_strings.h>
#include <json-c/json.h>
#include <openssl/hmac.h>
#include <string.h>

static json_object *load_vectors(void)
{
    const char *path = apr_pstrcat(wh_test_pool(), wh_test_shared_dir(),
                                   "/vectors/signatures.json", NULL);
    apr_size_t len;
    char *text = wh_test_slurp(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    json_object *root = json_tokener_parse(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    return root;
}

static const char *str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static void test_shared_vectors(void)
{
    json_object *root = load_vectors(), *vectors;
    CU_ASSERT_FATAL(json_object_object_get_ex(root, "vectors", &vectors));
    size_t n = json_object_array_length(vectors);
    CU_ASSERT(n >= 7);
    for (size_t i = 0; i < n; i++) {
        json_object *vec = json_object_array_get_idx(vectors, i);
        const char *secret = str(vec, "secret"), *body = str(vec, "body");
        unsigned char raw[WH_SIG_RAW_LEN];
        char hex[65];
        CU_ASSERT_EQUAL_FATAL(wh_signature_compute((const unsigned char *)secret,
                                                   strlen(secret), str(vec, "method"),
                                                   str(vec, "url"), body, strlen(body),
                                                   str(vec, "timestamp"), raw), 0);
        wh_signature_hex(raw, hex);
        CU_ASSERT_STRING_EQUAL(hex, str(vec, "signature"));
    }
    json_object_put(root);
}

static void test_rfc4231_primitive(void)
{
    json_object *root = load_vectors(), *prims;
    CU_ASSERT_FATAL(json_object_object_get_ex(root, "hmac_primitive", &prims));
    json_object *vec = json_object_array_get_idx(prims, 0);
    const char *key = str(vec, "key"), *data = str(vec, "data");
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[65];
    /* The signed text is a plain concatenation, so the primitive is reached
     * by putting the whole message in one part and leaving the rest empty. */
    CU_ASSERT_EQUAL(wh_signature_compute((const unsigned char *)key, strlen(key), "",
                                         data, "", 0, "", raw), 0);
    wh_signature_hex(raw, hex);
    CU_ASSERT_STRING_EQUAL(hex, str(vec, "hmac_sha256"));
    json_object_put(root);
}

static void test_parts_are_concatenated(void)
{
    /* Splitting the same text differently must give the same MAC: the
     * spec's signed text has no separators. */
    unsigned char a[WH_SIG_RAW_LEN], b[WH_SIG_RAW_LEN];
    const unsigned char k[] = "k";
    wh_signature_compute(k, 1, "POST", "https://x/y", "{}", 2, "17", a);
    wh_signature_compute(k, 1, "POSThttps://x", "/y", "{}1", 3, "7", b);
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
}

static void test_body_with_nul_byte_is_signed_whole(void)
{
    unsigned char a[WH_SIG_RAW_LEN], b[WH_SIG_RAW_LEN];
    const unsigned char k[] = "k";
    wh_signature_compute(k, 1, "POST", "/", "a\0b", 3, "1", a);
    wh_signature_compute(k, 1, "POST", "/", "a\0c", 3, "1", b);
    CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
}

static void test_decode_accepts_both_cases(void)
{
    unsigned char lo[WH_SIG_RAW_LEN], up[WH_SIG_RAW_LEN];
    CU_ASSERT_EQUAL(wh_signature_decode(
        "53e1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0edb", lo), 0);
    CU_ASSERT_EQUAL(wh_signature_decode(
        "53E1D4690D93E33E24E6793E869749E6C5F7E492735886DF279287F35A4E0EDB", up), 0);
    CU_ASSERT_EQUAL(memcmp(lo, up, sizeof(lo)), 0);
    CU_ASSERT_EQUAL(lo[0], 0x53);
    CU_ASSERT_EQUAL(lo[31], 0xdb);
}

static void test_decode_rejects_bad_lengths_and_digits(void)
{
    unsigned char out[WH_SIG_RAW_LEN];
    const char *good = "53e1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0edb";
    CU_ASSERT_EQUAL(wh_signature_decode(apr_pstrndup(wh_test_pool(), good, 63), out), -1);
    CU_ASSERT_EQUAL(wh_signature_decode(apr_pstrcat(wh_test_pool(), good, "0", NULL), out), -1);
    CU_ASSERT_EQUAL(wh_signature_decode("", out), -1);
    CU_ASSERT_EQUAL(wh_signature_decode(NULL, out), -1);
    CU_ASSERT_EQUAL(wh_signature_decode(
        "g3e1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0edb", out), -1);
    CU_ASSERT_EQUAL(wh_signature_decode(
        "53e1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0ed ", out), -1);
    /* a colon-separated form, a byte above ASCII in a low digit */
    CU_ASSERT_EQUAL(wh_signature_decode(
        "53:1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0edb", out), -1);
    CU_ASSERT_EQUAL(wh_signature_decode(
        "53e1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0ed\xff", out), -1);
    /* sha256= prefixes (other vendors' style) are not this spec's format. */
    CU_ASSERT_EQUAL(wh_signature_decode(
        "sha256=53e1d4690d93e33e24e6793e869749e6c5f7e492735886df279287f35a4e0edb", out), -1);
}

static apr_array_header_t *secrets_of(const char *a, const char *b)
{
    apr_array_header_t *arr = apr_array_make(wh_test_pool(), 2, sizeof(wh_secret));
    wh_secret *s = apr_array_push(arr);
    s->key = (const unsigned char *)a;
    s->len = strlen(a);
    if (b) {
        s = apr_array_push(arr);
        s->key = (const unsigned char *)b;
        s->len = strlen(b);
    }
    return arr;
}

static void test_match_tries_every_secret(void)
{
    unsigned char sig[WH_SIG_RAW_LEN];
    wh_signature_compute((const unsigned char *)"new", 3, "POST", "/w", "{}", 2, "1", sig);
    CU_ASSERT_EQUAL(wh_signature_match(secrets_of("old", "new"), "POST", "/w", "{}", 2, "1", sig), 1);
    CU_ASSERT_EQUAL(wh_signature_match(secrets_of("new", "old"), "POST", "/w", "{}", 2, "1", sig), 0);
    CU_ASSERT_EQUAL(wh_signature_match(secrets_of("old", NULL), "POST", "/w", "{}", 2, "1", sig), -1);
}

static void test_match_detects_any_changed_part(void)
{
    unsigned char sig[WH_SIG_RAW_LEN];
    apr_array_header_t *s = secrets_of("k", NULL);
    wh_signature_compute((const unsigned char *)"k", 1, "POST", "/w", "{}", 2, "1", sig);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{}", 2, "1", sig), 0);
    CU_ASSERT_EQUAL(wh_signature_match(s, "PUT", "/w", "{}", 2, "1", sig), -1);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/x", "{}", 2, "1", sig), -1);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{ }", 3, "1", sig), -1);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{}", 2, "2", sig), -1);
    CU_ASSERT_EQUAL(wh_signature_match(NULL, "POST", "/w", "{}", 2, "1", sig), -1);
}

/* wh_secrets_load prepares every secret (a keyed context duplicated per
 * message): matching must not depend on whether a secret was prepared. */
static void test_prepared_secrets_match_alike(void)
{
    unsigned char sig[WH_SIG_RAW_LEN];
    apr_array_header_t *s = secrets_of("old", "new");
    for (int i = 0; i < s->nelts; i++)
        wh_secret_prepare(wh_test_pool(), &APR_ARRAY_IDX(s, i, wh_secret));
    CU_ASSERT_PTR_NOT_NULL(APR_ARRAY_IDX(s, 0, wh_secret).keyed);
    CU_ASSERT_PTR_NOT_NULL(APR_ARRAY_IDX(s, 1, wh_secret).keyed);
    wh_signature_compute((const unsigned char *)"new", 3, "POST", "/w", "{}", 2, "1", sig);
    /* twice: the keyed context is duplicated, never used up */
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{}", 2, "1", sig), 1);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{}", 2, "1", sig), 1);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{ }", 3, "1", sig), -1);
    wh_signature_compute((const unsigned char *)"old", 3, "POST", "/w", "{}", 2, "1", sig);
    CU_ASSERT_EQUAL(wh_signature_match(s, "POST", "/w", "{}", 2, "1", sig), 0);
}

static void test_agrees_with_openssl_oneshot(void)
{
    const char *text = "POST/w{\"a\":1}1700000000";
    unsigned char ref[32], ours[32];
    unsigned int n = 0;
    HMAC(EVP_sha256(), "secret", 6, (const unsigned char *)text, strlen(text), ref, &n);
    wh_signature_compute((const unsigned char *)"secret", 6, "POST", "/w", "{\"a\":1}", 7,
                         "1700000000", ours);
    CU_ASSERT_EQUAL(n, 32);
    CU_ASSERT_EQUAL(memcmp(ref, ours, 32), 0);
}

static const wh_test_case cases[] = {
    { "shared vectors reproduce", test_shared_vectors },
    { "RFC 4231 test case 2", test_rfc4231_primitive },
    { "signed text is a plain concatenation", test_parts_are_concatenated },
    { "body bytes after NUL are signed", test_body_with_nul_byte_is_signed_whole },
    { "hex decode: either case", test_decode_accepts_both_cases },
    { "hex decode: bad lengths and digits", test_decode_rejects_bad_lengths_and_digits },
    { "rotation: every secret tried", test_match_tries_every_secret },
    { "any changed part breaks the match", test_match_detects_any_changed_part },
    { "prepared secrets match alike", test_prepared_secrets_match_alike },
    { "agrees with OpenSSL HMAC()", test_agrees_with_openssl_oneshot },
    { NULL, NULL }
};
WH_TEST_SUITE(signature, cases)
