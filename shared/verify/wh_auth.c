#include "wh_auth.h"
#include "wh_auth_flight.h"
#include "wh_signature.h"   /* wh_hmac_sha256, wh_signature_hex */
#include <apr_base64.h>
#include <apr_lib.h>
#include <apr_md5.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <string.h>

/* Context string of the second-level store's key derivation. */
#define WH_AUTH_STORE_LABEL "wirehook auth cache v1"

/* Longer Authorization values are refused outright: no real Basic
 * credential needs more, and it bounds the decode buffer. */
#define WH_AUTH_MAX_HEADER 4096

typedef struct {
    unsigned char key[SHA256_DIGEST_LENGTH];
    apr_time_t expires;              /* 0: empty slot */
    /* the version of the user table the check ran against (wh_creds.h):
     * a lookup against another version misses, so a user removed or a
     * password changed in a re-read file is never let in from here */
    unsigned generation;
    char user[WH_AUTH_MAX_USER + 1];
} cache_slot;

struct wh_auth_cache {
    apr_time_t ttl;
    unsigned n;
    cache_slot *slots;
    apr_thread_mutex_t *lock;
    wh_auth_flights *flights;        /* checks under way, shared by waiters */
    unsigned long hits;
    unsigned long misses;
    /* second level (wh_auth_cache_set_store) */
    int has_store;
    wh_auth_store store;
    unsigned char store_key[SHA256_DIGEST_LENGTH];
    unsigned long store_hits;
    unsigned long password_checks;
    unsigned long decoy_checks;
};

/* SHA-256 fetched once per process: a fetch by name per call takes
 * OpenSSL's provider-store lock, which every httpd worker thread contends
 * for. (HMAC is wh_signature.c's, which fetches once too.) */
static EVP_MD *sha256_md;
static pthread_once_t fetch_once = PTHREAD_ONCE_INIT;

static void fetch_sha256(void)
{
    sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static int sha256(const void *data, size_t len, unsigned char out[SHA256_DIGEST_LENGTH])
{
    pthread_once(&fetch_once, fetch_sha256);
    if (sha256_md)
        return EVP_Digest(data, len, out, NULL, sha256_md, NULL) ? 0 : -1;
    return SHA256(data, len, out) ? 0 : -1;
}

wh_auth_cache *wh_auth_cache_create(apr_pool_t *p, apr_int64_t ttl_seconds,
                                    unsigned max_entries)
{
    wh_auth_cache *c = apr_pcalloc(p, sizeof(*c));
    c->ttl = apr_time_from_sec(ttl_seconds);
    c->n = max_entries ? max_entries : 1;
    c->slots = apr_pcalloc(p, sizeof(cache_slot) * c->n);
    if (apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS)
        c->lock = NULL;
    c->flights = wh_auth_flights_create(p);
    return c;
}

unsigned long wh_auth_cache_hits(const wh_auth_cache *c)
{
    return c ? c->hits : 0;
}

unsigned long wh_auth_cache_misses(const wh_auth_cache *c)
{
    return c ? c->misses : 0;
}

int wh_auth_cache_set_store(wh_auth_cache *c, const wh_auth_store *store,
                            const unsigned char *secret, apr_size_t secret_len)
{
    if (!c || !store || !store->lookup || !store->store || !secret)
        return -1;
    const wh_bytes label = { WH_AUTH_STORE_LABEL, sizeof(WH_AUTH_STORE_LABEL) - 1 };
    if (wh_hmac_sha256(secret, secret_len, &label, 1, c->store_key) != 0)
        return -1;
    c->store = *store;
    c->has_store = 1;
    return 0;
}

unsigned long wh_auth_cache_store_hits(const wh_auth_cache *c)
{
    return c ? c->store_hits : 0;
}

unsigned long wh_auth_cache_password_checks(const wh_auth_cache *c)
{
    return c ? c->password_checks : 0;
}

unsigned long wh_auth_cache_decoy_checks(const wh_auth_cache *c)
{
    return c ? c->decoy_checks : 0;
}

static void count(wh_auth_cache *c, unsigned long *n)
{
    if (c && c->lock) {
        apr_thread_mutex_lock(c->lock);
        (*n)++;
        apr_thread_mutex_unlock(c->lock);
    }
}

/* The second-level key for header and the user's htpasswd hash, as hex
 * (the NUL keeps "ab"+"c" apart from "a"+"bc"). */
static int store_key_hex(const wh_auth_cache *c, const char *header,
                         const char *hash, char out[2 * SHA256_DIGEST_LENGTH + 1])
{
    unsigned char mac[WH_SIG_RAW_LEN];
    const wh_bytes parts[3] = {
        { header, strlen(header) }, { "", 1 }, { hash, strlen(hash) },
    };
    if (wh_hmac_sha256(c->store_key, sizeof(c->store_key), parts, 3, mac) != 0)
        return -1;
    wh_signature_hex(mac, out);
    return 0;
}

static int cache_enabled(const wh_auth_cache *c)
{
    return c && c->ttl > 0 && c->lock;
}

/* Direct-mapped by the digest: bounded memory, O(1), and a collision only
 * costs one more password check. */
static cache_slot *slot_for(wh_auth_cache *c, const unsigned char *key)
{
    unsigned idx = ((unsigned)key[0] << 24 | (unsigned)key[1] << 16 |
                    (unsigned)key[2] << 8 | key[3]) % c->n;
    return &c->slots[idx];
}

/* counted: a request's one look, in the hit and miss counters; a second
 * look by the same request is not counted again */
static int cache_lookup(wh_auth_cache *c, const unsigned char *key,
                        unsigned generation, apr_time_t now, apr_pool_t *p,
                        const char **user, int counted)
{
    int hit = 0;
    apr_thread_mutex_lock(c->lock);
    cache_slot *s = slot_for(c, key);
    if (s->expires > now && s->generation == generation
        && CRYPTO_memcmp(s->key, key, sizeof(s->key)) == 0) {
        *user = apr_pstrdup(p, s->user);
        hit = 1;
        /* Sliding expiry: a credential in steady use never expires all at
         * once under load, which would send every request in flight
         * through bcrypt together. The entry is for this version of the
         * user table only, so nothing is kept valid that the server
         * would now refuse. */
        s->expires = now + c->ttl;
        if (counted)
            c->hits++;
    } else if (counted) {
        c->misses++;
    }
    apr_thread_mutex_unlock(c->lock);
    return hit;
}

static void cache_store(wh_auth_cache *c, const unsigned char *key,
                        unsigned generation, apr_time_t now, const char *user)
{
    apr_thread_mutex_lock(c->lock);
    cache_slot *s = slot_for(c, key);
    memcpy(s->key, key, sizeof(s->key));
    s->generation = generation;
    apr_cpystrn(s->user, user, sizeof(s->user));
    s->expires = now + c->ttl;
    apr_thread_mutex_unlock(c->lock);
}

static int is_base64_char(char ch)
{
    return apr_isalnum(ch) || ch == '+' || ch == '/';
}

/* APR's decoder silently stops at the first bad character; validate the
 * alphabet and padding first so garbage is "malformed", not a password. */
static int valid_base64(const char *s, size_t len)
{
    size_t pad = 0;
    if (len == 0 || len % 4 != 0)
        return 0;
    while (pad < 2 && len > pad && s[len - 1 - pad] == '=')
        pad++;
    for (size_t i = 0; i < len - pad; i++)
        if (!is_base64_char(s[i]))
            return 0;
    return 1;
}

const char *wh_auth_parse_basic(apr_pool_t *p, const char *header,
                                const char **user, const char **password)
{
    const char *tok;
    size_t len;
    char *decoded, *colon;
    int dlen;

    if (!header)
        return "no Authorization header";
    if (strnlen(header, WH_AUTH_MAX_HEADER + 1) > WH_AUTH_MAX_HEADER)
        return "Authorization header too long";
    if (strncasecmp(header, "Basic", 5) != 0 || (header[5] != ' ' && header[5] != '\t'))
        return "Authorization scheme is not Basic";
    tok = header + 5;
    while (*tok == ' ' || *tok == '\t')
        tok++;
    len = strlen(tok);
    while (len > 0 && (tok[len - 1] == ' ' || tok[len - 1] == '\t'))
        len--;
    if (!valid_base64(tok, len))
        return "Basic credentials are not valid base64";
    tok = apr_pstrmemdup(p, tok, len);
    decoded = apr_palloc(p, (apr_size_t)apr_base64_decode_len(tok) + 1);
    dlen = apr_base64_decode(decoded, tok);
    if (dlen < 0 || memchr(decoded, '\0', (size_t)dlen))
        return "Basic credentials contain a NUL byte";
    decoded[dlen] = '\0';
    colon = strchr(decoded, ':');
    if (!colon)
        return "Basic credentials lack the user:password colon";
    *colon = '\0';
    *user = decoded;
    *password = colon + 1;
    return NULL;
}

/* The check itself; the caller wipes the decoded password whatever way
 * this returns. key: the header's digest, already looked up in the cache
 * and missed; NULL when the cache is off. */
static wh_auth_result check_credentials(apr_pool_t *p, apr_hash_t *users,
                                        unsigned generation,
                                        wh_auth_cache *cache, const char *header,
                                        const unsigned char *key,
                                        const char *user, const char *password,
                                        apr_time_t now, const char **user_out,
                                        int *checked)
{
    char skey[2 * SHA256_DIGEST_LENGTH + 1];
    int use_cache = key != NULL, use_store = 0;
    const char *hash;

    hash = (*user && strlen(user) <= WH_AUTH_MAX_USER && users)
               ? apr_hash_get(users, user, APR_HASH_KEY_STRING) : NULL;
    /* The second level only for a user the table knows: its hash is part
     * of the key, so an entry dies with a password change. */
    if (use_cache && hash && cache->has_store
        && store_key_hex(cache, header, hash, skey) == 0) {
        const char *stored = NULL;
        use_store = 1;
        if (cache->store.lookup(cache->store.ctx, p, skey, now, now + cache->ttl,
                                &stored)
            && stored && strcmp(stored, user) == 0) {
            count(cache, &cache->store_hits);
            cache_store(cache, key, generation, now, user);
            *user_out = user;
            return WH_AUTH_OK;
        }
    }
    if (cache)
        count(cache, &cache->password_checks);
    *checked = 1;
    if (!hash) {
        /* The same work as a wrong password for a real user, whose result
         * cannot matter: the name is unknown. */
        const char *decoy = wh_htpasswd_decoy(users);
        if (decoy) {
            (void)apr_password_validate(password, decoy);
            if (cache)
                count(cache, &cache->decoy_checks);
        }
        return WH_AUTH_FAILED;
    }
    if (apr_password_validate(password, hash) != APR_SUCCESS)
        return WH_AUTH_FAILED;
    if (use_cache)
        cache_store(cache, key, generation, now, user);
    if (use_store)
        cache->store.store(cache->store.ctx, p, skey, user, now, now + cache->ttl);
    *user_out = user;
    return WH_AUTH_OK;
}

wh_auth_result wh_auth_check_ex(apr_pool_t *p, apr_hash_t *users,
                                wh_auth_cache *cache, const char *header,
                                apr_time_t now, const char **user_out,
                                int *password_checked)
{
    return wh_auth_check_gen(p, users, 0, cache, header, now, user_out,
                             password_checked);
}

wh_auth_result wh_auth_check_gen(apr_pool_t *p, apr_hash_t *users,
                                 unsigned generation, wh_auth_cache *cache,
                                 const char *header, apr_time_t now,
                                 const char **user_out, int *password_checked)
{
    const char *user = NULL, *password = NULL;
    unsigned char key[SHA256_DIGEST_LENGTH];
    int use_cache = header != NULL && cache_enabled(cache);
    wh_auth_result result;
    int checked = 0;

    if (use_cache && sha256(header, strlen(header), key) != 0)
        use_cache = 0;
    /* The cache holds only headers that were parsed and checked when they
     * were stored, keyed by their digest byte for byte: a hit needs no
     * decoding (and leaves no decoded password in the pool to wipe). */
    if (use_cache && cache_lookup(cache, key, generation, now, p, user_out, 1)) {
        result = WH_AUTH_OK;
    } else if (wh_auth_parse_basic(p, header, &user, &password) != NULL) {
        result = WH_AUTH_MISSING;
    } else {
        wh_auth_flights *flights = use_cache ? cache->flights : NULL;
        wh_auth_flight *mine = NULL;
        int ok = 0;
        wh_flight_role role = wh_auth_flights_join(flights, key, generation, p, &ok,
                                                   user_out, &mine);
        if (role == WH_FLIGHT_SHARED) {
            result = ok ? WH_AUTH_OK : WH_AUTH_FAILED;
        } else if (use_cache && cache_lookup(cache, key, generation, now, p, user_out, 0)) {
            /* a check that landed between this request's first look at
             * the cache and its joining: its success is in the cache */
            result = WH_AUTH_OK;
            wh_auth_flights_land(flights, mine, 1, *user_out);
        } else {
            result = check_credentials(p, users, generation, cache, header,
                                       use_cache ? key : NULL, user, password,
                                       now, user_out, &checked);
            wh_auth_flights_land(flights, mine, result == WH_AUTH_OK,
                                 result == WH_AUTH_OK ? *user_out : NULL);
        }
        /* The decoded password lives in the pool; do not leave it readable. */
        OPENSSL_cleanse((void *)password, strlen(password));
    }
    if (password_checked)
        *password_checked = checked;
    return result;
}

wh_auth_result wh_auth_check(apr_pool_t *p, apr_hash_t *users,
                             wh_auth_cache *cache, const char *header,
                             apr_time_t now, const char **user_out)
{
    return wh_auth_check_ex(p, users, cache, header, now, user_out, NULL);
}
