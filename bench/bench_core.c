/* bench_core: throughput of the core verdict (Basic auth, timestamp, HMAC,
 * strict JSON, schema) on the shared sample notification, single thread,
 * against a floor: the same bytes through only OpenSSL HMAC-SHA256 (a
 * keyed context duplicated, a constant-time compare: floor_mac.h) plus one
 * json-c parse, made the cheapest way (floor_json.h). Also the uncached
 * Basic-auth path (bcrypt on every request), bcrypt alone, and the heap a
 * request's pool holds once it is verified.
 *
 * Every request is distinct, as a bank would send them: a fresh
 * notificationId and eventDateTime in the body, a timestamp taken when the
 * set is generated, and its own signature. The core keeps no replay state,
 * so the set is cycled.
 *
 * Output: "key value" lines (read by bench/run.sh), nothing else on stdout.
 *
 *   bench_core --sample F --htpasswd F --user U --password P
 *              [--seconds S] [--rounds R] [--uncached N]
 *   bench_core ... --only floor|cached --iterations N   (for callgrind:
 *              exactly N operations inside run_floor()/run_core())
 */
#include "verify/wh_auth.h"
#include "bench_util.h"
#include "floor_json.h"
#include "floor_mac.h"
#include "config/wh_config_load.h"
#include "verify/wh_signature.h"
#include "verify/wh_verify.h"

#include <apr_base64.h>
#include <apr_general.h>
#include <apr_md5.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <json-c/json.h>
#include <malloc.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_REQ 1024
#define SECRET "bench-signing-secret-0123456789abcdef"
#define URL "http://127.0.0.1/v1/wires"
#define SAMPLE_ID "8cefee42-cb39-4479-b7fd-b8a358aeb002"
#define MAX_ROUNDS 20

typedef struct {
    char *body;
    apr_size_t body_len;
    const char *ts;
    const char *sig;
    unsigned char sig_raw[WH_SIG_RAW_LEN];
    apr_table_t *headers;
} bench_req;

typedef struct {
    const char *sample, *htpasswd, *user, *password, *only;
    double seconds;
    int rounds, uncached, iterations;
} options;

static bench_req reqs[N_REQ];
static EVP_MAC *mac_impl;
static EVP_MAC_CTX *mac_ctx;
static volatile unsigned long sink;

static const char *table_header(void *ctx, const char *name)
{
    return apr_table_get((apr_table_t *)ctx, name);
}

/* A random v4-shaped UUID, 36 characters, as the bank's ids are. */
static void fresh_uuid(char out[37], unsigned seq)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 36; i++)
        out[i] = hex[(unsigned)rand() & 15];
    out[8] = out[13] = out[18] = out[23] = '-';
    out[14] = '4';
    /* the sequence in the last group keeps the ids of one run distinct */
    snprintf(out + 28, 9, "%08x", seq);
}

/* The sample with its notificationId and eventDateTime replaced in place
 * (same lengths, so the body size never changes). */
static void make_requests(apr_pool_t *p, const char *sample, apr_size_t len,
                          const char *user, const char *password)
{
    const char *id_at = strstr(sample, SAMPLE_ID);
    const char *dt_at = strstr(sample, "\"eventDateTime\"");
    const char *auth_plain = apr_pstrcat(p, user, ":", password, NULL);
    char *auth = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)strlen(auth_plain)));
    time_t t = time(NULL);
    char datetime[21];
    struct tm tm;

    if (!id_at || !dt_at || !(dt_at = strchr(dt_at + 15, '"')))
        bench_die("sample lacks notificationId/eventDateTime", NULL);
    dt_at++;
    apr_base64_encode(auth, auth_plain, (int)strlen(auth_plain));
    gmtime_r(&t, &tm);
    strftime(datetime, sizeof datetime, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (strncmp(dt_at + 19, "Z\"", 2) != 0)
        bench_die("sample eventDateTime is not YYYY-MM-DDThh:mm:ssZ", NULL);
    srand(12345);
    for (unsigned i = 0; i < N_REQ; i++) {
        bench_req *r = &reqs[i];
        char id[37], hex[65];
        r->body = apr_pmemdup(p, sample, len + 1);
        r->body_len = len;
        fresh_uuid(id, i);
        memcpy(r->body + (id_at - sample), id, 36);
        memcpy(r->body + (dt_at - sample), datetime, 20);
        r->ts = apr_psprintf(p, "%ld", (long)t);
        if (wh_signature_compute((const unsigned char *)SECRET, strlen(SECRET), "POST",
                                 URL, r->body, r->body_len, r->ts, r->sig_raw) != 0)
            bench_die("signing failed", NULL);
        wh_signature_hex(r->sig_raw, hex);
        r->sig = apr_pstrdup(p, hex);
        r->headers = apr_table_make(p, 8);
        apr_table_set(r->headers, "Host", "127.0.0.1");
        apr_table_set(r->headers, "Authorization", apr_pstrcat(p, "Basic ", auth, NULL));
        apr_table_set(r->headers, "Content-Type", "application/json");
        apr_table_set(r->headers, "Content-Length", apr_psprintf(p, "%lu", (unsigned long)len));
        apr_table_set(r->headers, "X-Timestamp", r->ts);
        apr_table_set(r->headers, "X-Signature", r->sig);
    }
}

/* ---- the floor: HMAC-SHA256 + compare + one json-c parse -------------- */

/* The floor's verification is the module floor's (floor_mac.h): a context
 * keyed once, duplicated per request, as the core does with its secrets. */
static void floor_one(const bench_req *r)
{
    long members;

    if (!floor_mac_matches(EVP_MAC_CTX_dup(mac_ctx), "POST", URL, r->body, r->body_len,
                           r->ts, r->sig))
        bench_die("floor signature mismatch", NULL);
    if ((members = floor_json_parse(r->body)) < 0)
        bench_die("floor: sample is not JSON", NULL);
    sink += (unsigned long)members;
}

/* ---- the core ---------------------------------------------------------- */

static void core_one(wh_verifier *vf, apr_pool_t *p, const bench_req *r)
{
    wh_request req;
    wh_verdict v;

    apr_pool_clear(p);
    memset(&req, 0, sizeof req);
    req.method = "POST";
    req.url = URL;
    req.header = table_header;
    req.header_ctx = r->headers;
    req.body = r->body;
    req.body_len = r->body_len;
    req.now = apr_time_now();
    wh_verdict_init(&v, p);
    if (wh_verify(vf, &req, &v, p) != 200 || !v.ok)
        bench_die("core rejected a valid request", v.message ? v.message : v.code);
    sink += (unsigned long)v.facts.status_known;
}

/* noinline: callgrind --toggle-collect names these two. */
__attribute__((noinline)) static void run_floor(unsigned long n, unsigned long start)
{
    for (unsigned long i = 0; i < n; i++)
        floor_one(&reqs[(start + i) % N_REQ]);
}

__attribute__((noinline)) static void run_core(wh_verifier *vf, apr_pool_t *p,
                                               unsigned long n, unsigned long start)
{
    for (unsigned long i = 0; i < n; i++)
        core_one(vf, p, &reqs[(start + i) % N_REQ]);
}

/* Operations per second over about `seconds`, in batches of 64. */
static double rate_floor(double seconds)
{
    unsigned long n = 0;
    double t0 = bench_now(), t;
    do {
        run_floor(64, n);
        n += 64;
        t = bench_now() - t0;
    } while (t < seconds);
    return (double)n / t;
}

static double rate_core(wh_verifier *vf, apr_pool_t *p, double seconds)
{
    unsigned long n = 0;
    double t0 = bench_now(), t;
    do {
        run_core(vf, p, 64, n);
        n += 64;
        t = bench_now() - t0;
    } while (t < seconds);
    return (double)n / t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* Heap held by one verified request: a fresh allocator and pool (so no
 * recycled nodes hide the cost), verify, measure before destroying. */
static size_t request_heap(wh_verifier *vf)
{
    apr_allocator_t *alloc;
    apr_pool_t *p;
    size_t before, after;

    before = heap_in_use();
    if (apr_allocator_create(&alloc) != APR_SUCCESS ||
        apr_pool_create_ex(&p, NULL, NULL, alloc) != APR_SUCCESS)
        bench_die("pool", NULL);
    apr_allocator_owner_set(alloc, p);
    core_one(vf, p, &reqs[7]);
    after = heap_in_use();
    apr_pool_destroy(p);
    return after > before ? after - before : 0;
}

static wh_verifier *make_verifier(apr_pool_t *p, const options *o, apr_int64_t ttl)
{
    wh_config *cfg = wh_config_create(p);
    wh_secret *s;
    const char *err;

    cfg->secrets = apr_array_make(p, 1, sizeof(wh_secret));
    s = apr_array_push(cfg->secrets);
    s->key = (const unsigned char *)SECRET;
    s->len = strlen(SECRET);
    wh_secret_prepare(p, s); /* as SigningSecretFile's loader does */
    if ((err = wh_htpasswd_load(p, o->htpasswd, &cfg->users)) != NULL)
        bench_die("htpasswd", err);
    cfg->auth_cache_ttl = ttl;
    return wh_verifier_create(p, cfg, NULL);
}

static void parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->seconds = 1.0;
    o->rounds = 5;
    o->uncached = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--sample")) o->sample = v;
        else if (!strcmp(k, "--htpasswd")) o->htpasswd = v;
        else if (!strcmp(k, "--user")) o->user = v;
        else if (!strcmp(k, "--password")) o->password = v;
        else if (!strcmp(k, "--seconds")) o->seconds = atof(v);
        else if (!strcmp(k, "--rounds")) o->rounds = atoi(v);
        else if (!strcmp(k, "--uncached")) o->uncached = atoi(v);
        else if (!strcmp(k, "--only")) o->only = v;
        else if (!strcmp(k, "--iterations")) o->iterations = atoi(v);
        else bench_die("unknown option", k);
    }
    if (!o->sample || !o->htpasswd || !o->user || !o->password)
        bench_die("usage: bench_core --sample F --htpasswd F --user U --password P "
            "[--seconds S] [--rounds R] [--uncached N] [--only floor|cached --iterations N]", NULL);
    if (o->rounds < 1 || o->rounds > MAX_ROUNDS)
        o->rounds = 5;
    if (o->seconds <= 0 || o->seconds > 60)
        o->seconds = 1.0;
    if (o->uncached < 1 || o->uncached > 1000)
        o->uncached = 10;
}

int main(int argc, char **argv)
{
    apr_pool_t *root, *rp;
    options o;
    apr_size_t len;
    char *sample;
    wh_verifier *cached, *uncached;
    double floor_r[MAX_ROUNDS], core_r[MAX_ROUNDS], pair_r[MAX_ROUNDS], t0, t_unc, t_bcrypt;
    const char *hash;

    parse_args(argc, argv, &o);
    if (apr_app_initialize(&argc, (const char *const **)&argv, NULL) != APR_SUCCESS ||
        apr_pool_create(&root, NULL) != APR_SUCCESS || apr_pool_create(&rp, root) != APR_SUCCESS)
        bench_die("APR init failed", NULL);
    mac_impl = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (!mac_impl || !(mac_ctx = EVP_MAC_CTX_new(mac_impl)))
        bench_die("OpenSSL HMAC unavailable", NULL);
    {
        char digest[] = "SHA256";
        OSSL_PARAM params[2] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
            OSSL_PARAM_construct_end()
        };
        if (!EVP_MAC_init(mac_ctx, (const unsigned char *)SECRET, strlen(SECRET), params))
            bench_die("OpenSSL HMAC unavailable", NULL);
    }

    sample = bench_slurp(root, o.sample, &len);
    make_requests(root, sample, len, o.user, o.password);
    cached = make_verifier(root, &o, 60);
    uncached = make_verifier(root, &o, 0);

    /* warm-up, outside run_floor()/run_core() so that callgrind's
     * --toggle-collect counts only the measured operations: the first
     * request pays bcrypt once and fills the auth cache */
    for (unsigned i = 0; i < N_REQ; i++) {
        floor_one(&reqs[i]);
        core_one(cached, rp, &reqs[i]);
    }

    if (o.only) {
        unsigned long n = o.iterations > 0 ? (unsigned long)o.iterations : 1000;
        if (!strcmp(o.only, "floor"))
            run_floor(n, 0);
        else if (!strcmp(o.only, "cached"))
            run_core(cached, rp, n, 0);
        else
            bench_die("--only takes floor or cached", NULL);
        printf("only %s %lu\n", o.only, n);
        return 0;
    }

    /* interleaved rounds, so drift (thermal, neighbours) hits both alike */
    for (int i = 0; i < o.rounds; i++) {
        floor_r[i] = rate_floor(o.seconds);
        core_r[i] = rate_core(cached, rp, o.seconds);
        pair_r[i] = core_r[i] / floor_r[i];
    }

    t0 = bench_now();
    run_core(uncached, rp, (unsigned long)o.uncached, 0);
    t_unc = (bench_now() - t0) / o.uncached;

    hash = apr_hash_get(wh_verifier_config(cached)->users, o.user, APR_HASH_KEY_STRING);
    if (!hash)
        bench_die("user not in htpasswd", o.user);
    t0 = bench_now();
    for (int i = 0; i < o.uncached; i++)
        if (apr_password_validate(o.password, hash) != APR_SUCCESS)
            bench_die("password does not match the htpasswd hash", NULL);
    t_bcrypt = (bench_now() - t0) / o.uncached;

    printf("body_bytes %lu\n", (unsigned long)len);
    printf("floor_ops_per_sec %.0f\n", median(floor_r, o.rounds));
    printf("core_cached_ops_per_sec %.0f\n", median(core_r, o.rounds));
    /* each round's own ratio: a slow spell of a shared machine then
     * weighs on one round's pair, not on one side's median */
    printf("core_floor_ratio %.3f\n", median(pair_r, o.rounds));
    printf("core_uncached_ops_per_sec %.2f\n", 1.0 / t_unc);
    printf("bcrypt_ms %.3f\n", t_bcrypt * 1e3);
    printf("uncached_ms %.3f\n", t_unc * 1e3);
    printf("auth_cache_hits %lu\n", wh_auth_cache_hits(wh_verifier_auth_cache(cached)));
    printf("auth_cache_misses %lu\n", wh_auth_cache_misses(wh_verifier_auth_cache(cached)));
    printf("request_heap_bytes %lu\n", (unsigned long)request_heap(cached));
    printf("rounds %d\nround_seconds %.2f\n", o.rounds, o.seconds);
    EVP_MAC_CTX_free(mac_ctx);
    EVP_MAC_free(mac_impl);
    apr_pool_destroy(root);
    apr_terminate();
    return 0;
}
