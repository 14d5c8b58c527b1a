/* bench_gen: pre-signs webhook requests for wrk (bench/signed.lua).
 *
 * wrk's LuaJIT has no HMAC, and the module's replay store rejects a
 * notificationId it has seen, so every request is generated here: the
 * shared sample with a fresh notificationId and eventDateTime, the
 * timestamp header taken now, signed with the first secret of the secrets
 * file by the same wh_signature_compute() that `wirehook sign` uses. The
 * Lua script assembles each request from the fixed parts and one line of
 * the list, and sends each line at most once.
 *
 *   bench_gen --sample F --secrets F --user U --password P
 *             --host HOST:PORT --path /v1/sink --count N --out DIR
 *
 * DIR/head  "POST path HTTP/1.1 ... X-Timestamp: "  (fixed headers)
 * DIR/b1 b2 b3  the body around the id and the date-time
 * DIR/ping  an unsigned GET /ping, sent once the list is used up
 * DIR/list  N lines "timestamp id datetime signature"
 * The signed URL is "http://" HOST:PORT path, as mod_wirehook and
 * wirehook.cgi rebuild it from the request when SignedUrl is unset. */
#include "bench_util.h"
#include "verify/wh_config.h"
#include "verify/wh_signature.h"

#include <apr_base64.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_ID "8cefee42-cb39-4479-b7fd-b8a358aeb002"
#define MAX_COUNT 5000000L

static void spill(apr_pool_t *p, const char *dir, const char *name,
                  const char *data, apr_size_t len)
{
    const char *path = apr_pstrcat(p, dir, "/", name, NULL);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
        bench_die("cannot write", path);
}

int main(int argc, const char *const *argv)
{
    const char *sample_path = NULL, *secrets_path = NULL, *user = NULL,
               *password = NULL, *host = NULL, *path = NULL, *out = NULL;
    long count = 0, lead = 0;
    apr_pool_t *p;
    apr_array_header_t *secrets;
    const wh_secret *key;
    apr_size_t len, id_off, dt_off;
    char *body, *auth, *dt_key;
    const char *err, *plain, *url, *head, *ts, *id_at;
    char datetime[21];
    time_t now;
    struct tm tm;
    FILE *list;

    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS)
        return 1;
    apr_pool_create(&p, NULL);
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--sample")) sample_path = v;
        else if (!strcmp(k, "--secrets")) secrets_path = v;
        else if (!strcmp(k, "--user")) user = v;
        else if (!strcmp(k, "--password")) password = v;
        else if (!strcmp(k, "--host")) host = v;
        else if (!strcmp(k, "--path")) path = v;
        else if (!strcmp(k, "--count")) count = atol(v);
        else if (!strcmp(k, "--out")) out = v;
        /* sign this many seconds ahead (at most TimestampTolerance): a
         * store that began just now (shmcb after a start) judges only
         * notifications signed TimestampTolerance after it began */
        else if (!strcmp(k, "--lead")) lead = atol(v);
        else bench_die("unknown option", k);
    }
    if (!sample_path || !secrets_path || !user || !password || !host || !path || !out ||
        count < 1 || count > MAX_COUNT || lead < 0 || lead > 86400)
        bench_die("usage: bench_gen --sample F --secrets F --user U --password P "
            "--host H:P --path /p --count N --out DIR [--lead SECONDS]", NULL);
    if ((err = wh_secrets_load(p, secrets_path, &secrets)) != NULL)
        bench_die("secrets", err);
    key = &APR_ARRAY_IDX(secrets, 0, wh_secret);

    body = bench_slurp(p, sample_path, &len);
    id_at = strstr(body, SAMPLE_ID);
    dt_key = strstr(body, "\"eventDateTime\"");
    if (!id_at || !dt_key || !(dt_key = strchr(dt_key + 15, '"')))
        bench_die("sample lacks notificationId/eventDateTime", NULL);
    id_off = (apr_size_t)(id_at - body);
    dt_off = (apr_size_t)(dt_key + 1 - body);
    if (dt_off < id_off + 36 || dt_off + 20 > len || body[dt_off + 20] != '"')
        bench_die("sample layout: expected notificationId before a 20-character eventDateTime", NULL);

    plain = apr_pstrcat(p, user, ":", password, NULL);
    auth = apr_palloc(p, (apr_size_t)apr_base64_encode_len((int)strlen(plain)));
    apr_base64_encode(auth, plain, (int)strlen(plain));
    head = apr_psprintf(p, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\n"
                        "Content-Type: application/json\r\nContent-Length: %lu\r\n"
                        "X-Timestamp: ", path, host, auth, (unsigned long)len);
    spill(p, out, "head", head, strlen(head));
    spill(p, out, "b1", body, id_off);
    spill(p, out, "b2", body + id_off + 36, dt_off - id_off - 36);
    spill(p, out, "b3", body + dt_off + 20, len - dt_off - 20);
    {
        const char *ping = apr_psprintf(p, "GET /ping HTTP/1.1\r\nHost: %s\r\n\r\n", host);
        spill(p, out, "ping", ping, strlen(ping));
    }

    now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(datetime, sizeof datetime, "%Y-%m-%dT%H:%M:%SZ", &tm);
    ts = apr_psprintf(p, "%ld", (long)now + lead);
    url = apr_pstrcat(p, "http://", host, path, NULL);
    list = fopen(apr_pstrcat(p, out, "/list", NULL), "w");
    if (!list)
        bench_die("cannot write", "list");
    /* two sets made in the same second (the probes of two receivers
     * sharing one replay memory) must not share ids */
    srand((unsigned)now ^ (unsigned)count ^ ((unsigned)getpid() << 16));
    for (long i = 0; i < count; i++) {
        static const char hex[] = "0123456789abcdef";
        unsigned char raw[WH_SIG_RAW_LEN];
        char id[37], sig[65];

        for (int k = 0; k < 36; k++)
            id[k] = hex[(unsigned)rand() & 15];
        id[8] = id[13] = id[18] = id[23] = '-';
        id[14] = '4';
        snprintf(id + 24, 13, "%012lx", (unsigned long)i);
        memcpy(body + id_off, id, 36);
        memcpy(body + dt_off, datetime, 20);
        if (wh_signature_compute(key->key, key->len, "POST", url, body, len, ts, raw) != 0)
            bench_die("signing failed", NULL);
        wh_signature_hex(raw, sig);
        fprintf(list, "%s %s %s %s\n", ts, id, datetime, sig);
    }
    if (fclose(list) != 0)
        bench_die("cannot write", "list");
    printf("generated %ld signed requests for %s (body %lu bytes)\n", count, url,
           (unsigned long)len);
    apr_pool_destroy(p);
    apr_terminate();
    return 0;
}
