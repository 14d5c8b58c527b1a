/* Fuzz target: the whole core verdict, wh_verify(), on a fuzzed request,
 * and the error response built from it.
 *
 * Input: byte 0 holds flags, the rest is a request written as
 *     METHOD \n URL \n (Name: value \n)* \n BODY
 * Repeated headers are joined with ", " as httpd does. Flags:
 *   bit 0  sign: compute the correct signature over what was parsed and
 *          set X-Signature, so the fuzzer gets past the HMAC to the body
 *   bit 1  fill in a valid Authorization, Content-Type and a fresh
 *          X-Timestamp when the input did not carry them
 *   bit 2  the host stopped reading at MaxBodySize (body_overflow)
 *   bit 3  Basic-auth cache off (AuthCacheTTL 0)
 *   bit 4  add Content-Length with the true body length when absent
 *   bit 5  UnknownStatus reject
 *   bit 6  sign with the second (rotated) secret
 *   bit 7  MaxBodySize 512 instead of the default
 * Invariants: the status is one the contract documents, ok <=> 200, an
 * accepted request is authentic and names its notification and user, 401s
 * for auth carry WWW-Authenticate, 405 carries Allow, and the error body
 * is JSON. */
#include "fuzz_common.h"
#include "config/wh_config_load.h"
#include "verify/wh_response.h"
#include "verify/wh_signature.h"
#include "verify/wh_verify.h"

#include <apr_tables.h>
#include <json-c/json.h>

#define SECRET_A "fuzz-signing-secret"
#define SECRET_B "fuzz-rotated-secret"
#define NOW_SEC 1700000000

static const char *table_header(void *ctx, const char *name)
{
    return apr_table_get((apr_table_t *)ctx, name);
}

/* Next line of [*pos, end) without its '\n' (or NULL when none is left). */
static char *next_line(apr_pool_t *p, const char **pos, const char *end)
{
    const char *nl;
    char *line;

    if (*pos >= end)
        return NULL;
    nl = memchr(*pos, '\n', (size_t)(end - *pos));
    if (!nl)
        nl = end;
    line = apr_pstrmemdup(p, *pos, (apr_size_t)(nl - *pos));
    *pos = nl < end ? nl + 1 : end;
    return line;
}

static void add_secret(apr_array_header_t *a, const char *s)
{
    wh_secret *sec = apr_array_push(a);
    sec->key = (const unsigned char *)s;
    sec->len = strlen(s);
}

static int documented_status(int s)
{
    return s == 200 || s == 400 || s == 401 || s == 405 || s == 413 || s == 415;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    const char *pos, *end, *body;
    char *line, *copy;
    unsigned flags;
    wh_config *cfg;
    wh_verifier *vf;
    apr_table_t *headers;
    wh_request req;
    wh_verdict v;
    wh_response resp;
    json_object *back;
    apr_size_t body_len;

    if (size < 1)
        return 0;
    flags = data[0];
    p = wh_fuzz_pool();

    cfg = wh_config_create(p);
    cfg->secrets = apr_array_make(p, 2, sizeof(wh_secret));
    add_secret(cfg->secrets, SECRET_A);
    add_secret(cfg->secrets, SECRET_B);
    cfg->users = apr_hash_make(p);
    apr_hash_set(cfg->users, "bank2", APR_HASH_KEY_STRING,
                 "{SHA}8Wyi36Noi/CMek4hVErxW9WYy3A="); /* pw2 */
    if (flags & 8)
        cfg->auth_cache_ttl = 0;
    if (flags & 32)
        cfg->unknown_status_reject = 1;
    if (flags & 128)
        cfg->max_body_size = 512;
    vf = wh_verifier_create(p, cfg, NULL);

    memset(&req, 0, sizeof req);
    headers = apr_table_make(p, 8);
    pos = (const char *)data + 1;
    end = (const char *)data + size;
    req.method = next_line(p, &pos, end);
    req.url = next_line(p, &pos, end);
    while ((line = next_line(p, &pos, end)) != NULL && *line) {
        char *colon = strchr(line, ':');
        char *val;
        if (!colon)
            continue;
        *colon = '\0';
        val = colon + 1;
        while (*val == ' ' || *val == '\t')
            val++;
        apr_table_merge(headers, line, val);
    }
    /* The body is binary: an exact-size heap copy so ASan sees overreads. */
    body_len = (apr_size_t)(end - pos);
    copy = malloc(body_len ? body_len : 1);
    if (!copy)
        abort();
    memcpy(copy, pos, body_len);
    body = copy;

    if (flags & 2) {
        if (!apr_table_get(headers, "Authorization"))
            apr_table_set(headers, "Authorization", "Basic YmFuazI6cHcy");
        if (!apr_table_get(headers, "Content-Type"))
            apr_table_set(headers, "Content-Type", "application/json");
        if (!apr_table_get(headers, "X-Timestamp"))
            apr_table_set(headers, "X-Timestamp", apr_itoa(p, NOW_SEC));
    }
    if ((flags & 16) && !apr_table_get(headers, "Content-Length"))
        apr_table_set(headers, "Content-Length",
                      apr_psprintf(p, "%" APR_SIZE_T_FMT, body_len));
    if ((flags & 1) && req.method && req.url) {
        unsigned char raw[WH_SIG_RAW_LEN];
        char hex[65];
        const char *ts = apr_table_get(headers, "X-Timestamp");
        const char *key = (flags & 64) ? SECRET_B : SECRET_A;
        if (wh_signature_compute((const unsigned char *)key, strlen(key),
                                 req.method, req.url, body, body_len,
                                 ts ? ts : "", raw) == 0) {
            wh_signature_hex(raw, hex);
            apr_table_set(headers, "X-Signature", hex);
        }
    }

    req.header = table_header;
    req.header_ctx = headers;
    req.body = body;
    req.body_len = body_len;
    req.body_overflow = (flags & 4) != 0;
    req.now = apr_time_from_sec(NOW_SEC);

    wh_verdict_init(&v, p);
    wh_verify(vf, &req, &v, p);

    WH_FUZZ_ASSERT(documented_status(v.status));
    WH_FUZZ_ASSERT(v.code != NULL && v.details != NULL);
    WH_FUZZ_ASSERT(v.ok == (v.status == 200));
    if (v.ok) {
        WH_FUZZ_ASSERT(v.authentic);
        WH_FUZZ_ASSERT(v.facts.notification_id && v.facts.event_type);
        WH_FUZZ_ASSERT(v.facts.user && strcmp(v.facts.user, "bank2") == 0);
        WH_FUZZ_ASSERT(!req.body_overflow && body_len <= (apr_size_t)cfg->max_body_size);
    } else {
        WH_FUZZ_ASSERT(v.message != NULL);
        if (v.status == 401 && (!strcmp(v.code, WH_CODE_AUTH_REQUIRED) ||
                                !strcmp(v.code, WH_CODE_AUTH_FAILED)))
            WH_FUZZ_ASSERT(v.www_authenticate != NULL);
        if (v.status == 405)
            WH_FUZZ_ASSERT(v.allow != NULL);
        if (v.status == 413)
            WH_FUZZ_ASSERT(v.close_connection);
        wh_response_from_verdict(p, &v, &resp);
        WH_FUZZ_ASSERT(resp.status == v.status && resp.body);
        back = json_tokener_parse(resp.body);
        WH_FUZZ_ASSERT(back != NULL);
        json_object_put(back);
    }
    free(copy);
    apr_pool_destroy(p);
    return 0;
}
