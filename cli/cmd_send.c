/* wirehook send: sign and POST notifications exactly as the bank would.
 *
 *   wirehook send --config F --url URL [--user U:PASS]
 *                 [--sample STATUS | BODY_FILE | -] [--count N]
 *                 [--concurrency C] [options]
 *
 * The config file gives the signing secret (the first one in
 * SigningSecretFile, or --secret-index), the header names, the timestamp
 * unit and SignedUrl. Every request gets a fresh timestamp; with --sample
 * every request is also a fresh notification (new random UUID v4
 * notificationId, eventDateTime now). One output line per response:
 * "<status> <body>". Exit 0 when every response was 2xx, 1 otherwise,
 * 2 on usage errors. The secret is never printed. */
#include "commands.h"
#include "cli_util.h"
#include "config/wh_config_load.h"
#include "verify/wh_signature.h"
#include "verify/wh_verify.h"
#include <apr_uri.h>
#include <apr_uuid.h>

#include <apr_strings.h>
#include <apr_general.h>
#include <apr_time.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEND_USAGE                                                          \
    "send --config F --url URL [--user U:PASS] [--sample STATUS | BODY_FILE|-]\n" \
    "                     [--count N] [--concurrency C] [--timestamp TS] [--method M]\n" \
    "                     [--header 'K: V']... [--content-type CT] [--signed-url URL]\n" \
    "                     [--secret-index N] [--timeout SEC] [--cacert FILE] [--insecure]\n" \
    "                     [--quiet]"

#define SEND_MAX_RESPONSE (1024 * 1024)

typedef struct {
    const wh_config *cfg;
    const wh_secret *secret;
    const char *url;           /* requested */
    const char *signed_url;    /* signed */
    const char *method;
    const char *userpwd;
    const char *content_type;
    const char *fixed_ts;      /* --timestamp */
    const char *cacert;        /* --cacert: trust this CA bundle */
    int insecure;              /* --insecure: skip TLS verification */
    apr_array_header_t *headers; /* extra "K: V" */
    const char *sample_status; /* --sample */
    const char *body;          /* BODY_FILE bytes */
    apr_size_t body_len;
    long timeout;
    int quiet;
} send_opts;

typedef struct {
    int index;
    char *body;                /* malloc'd request body (--sample) or NULL */
    const char *body_ptr;
    apr_size_t body_len;
    struct curl_slist *hdrs;
    char *resp;
    size_t resp_len;
    char errbuf[CURL_ERROR_SIZE];
    CURL *easy;
} transfer;

/* ------------------------------------------------------------ bodies --- */

/* A fresh notificationId per request: APR's UUIDs are unique across
 * processes and time, which is all the replay checks need. */
static void new_notification_id(char out[APR_UUID_FORMATTED_LENGTH + 1])
{
    apr_uuid_t u;
    apr_uuid_get(&u);
    apr_uuid_format(out, &u);
}

static json_object *jstr(const char *s)
{
    return json_object_new_string(s);
}

static json_object *address(const char *line, const char *city,
                            const char *state, const char *zip)
{
    json_object *a = json_object_new_object();
    json_object_object_add(a, "addressLine", jstr(line));
    json_object_object_add(a, "city", jstr(city));
    json_object_object_add(a, "state", jstr(state));
    json_object_object_add(a, "postalCode", jstr(zip));
    return a;
}

/* A fresh notification with the shared sample's values (see
 * samples/wire-status-complete.json), a new id, eventDateTime now and the
 * given status. Returns malloc'd JSON. */
static char *sample_body(const char *status, apr_size_t *len)
{
    char id[APR_UUID_FORMATTED_LENGTH + 1], when[32];
    apr_time_exp_t tm;
    apr_size_t n;
    new_notification_id(id);
    apr_time_exp_gmt(&tm, apr_time_now());
    apr_strftime(when, &n, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);

    json_object *root = json_object_new_object();
    json_object_object_add(root, "notificationId", jstr(id));
    json_object_object_add(root, "eventType", jstr("wire.status"));
    json_object_object_add(root, "eventDateTime", jstr(when));

    json_object *info = json_object_new_object();
    json_object_object_add(info, "paymentId", jstr("WP-2026-000481"));
    json_object_object_add(info, "status", jstr(status));
    json_object *exc = json_object_new_array();
    if (strcmp(status, "Exception") == 0 || strcmp(status, "Error") == 0
        || strcmp(status, "Reject") == 0) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "exceptionCode", jstr("BEN-ACCT"));
        json_object_object_add(e, "exceptionDescription",
                               jstr("Beneficiary account closed"));
        json_object_array_add(exc, e);
    }
    json_object_object_add(info, "exceptionInfo", exc);
    json_object_object_add(info, "IMAD", jstr("20261122MMQFMP9K000481"));
    json_object_object_add(info, "OMAD", jstr("20261122QMGFNP31000977"));

    json_object *wire = json_object_new_object();
    json_object_object_add(wire, "paymentAmount", jstr("15250.00"));
    json_object_object_add(wire, "referenceId", jstr("Not Provided"));
    json_object_object_add(wire, "endToEndId",
                           jstr("5b2f0c1e-7d4a-4c1b-9e8f-0a1b2c3d4e5f"));
    json_object *orig = json_object_new_object();
    json_object_object_add(orig, "accountNumber", jstr("4400123456789"));
    json_object_object_add(orig, "accountType", jstr("D"));
    json_object_object_add(orig, "name", jstr("Northwind Traders LLC"));
    json_object_object_add(orig, "wireCompanyId", jstr("NWT001"));
    json_object_object_add(orig, "wireCompanyName", jstr("Northwind Traders"));
    json_object *inst = json_object_new_object();
    json_object_object_add(inst, "name", jstr("Example Savings Bank"));
    json_object_object_add(inst, "routingNumber", jstr("121000358"));
    json_object_object_add(inst, "address",
                           address("1 Market St", "San Francisco", "CA",
                                   "94105"));
    json_object *ben = json_object_new_object();
    json_object_object_add(ben, "accountNumber", jstr("000123456789"));
    json_object_object_add(ben, "accountType", jstr("D"));
    json_object_object_add(ben, "name", jstr("Contoso Supplies"));
    json_object_object_add(ben, "address",
                           address("400 Harbor Way", "Oakland", "CA",
                                   "94607"));
    json_object_object_add(ben, "institutionInfo", inst);
    json_object *ow = json_object_new_object();
    json_object_object_add(ow, "wireInfo", wire);
    json_object_object_add(ow, "originatorInfo", orig);
    json_object_object_add(ow, "beneficiaryInfo", ben);
    json_object_object_add(ow, "remittanceInformation",
                           jstr("INV 2026-1107 net 30"));
    json_object_object_add(info, "originalWire", ow);

    json_object *data = json_object_new_object();
    json_object_object_add(data, "wireEventInfo", info);
    json_object_object_add(root, "data", data);

    const char *s = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *out = strdup(s ? s : "{}");
    json_object_put(root);
    *len = out ? strlen(out) : 0;
    return out;
}

/* ------------------------------------------------------------ curl --- */

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    transfer *t = userdata;
    size_t n = size * nmemb;
    if (t->resp_len + n > SEND_MAX_RESPONSE)
        n = SEND_MAX_RESPONSE - t->resp_len;   /* keep the start, drop the rest */
    if (n) {
        char *grown = realloc(t->resp, t->resp_len + n + 1);
        if (grown == NULL)
            return 0;
        t->resp = grown;
        memcpy(t->resp + t->resp_len, ptr, n);
        t->resp_len += n;
        t->resp[t->resp_len] = '\0';
    }
    return size * nmemb;
}

/* 1 when one of the extra headers names `name` (the caller then does not
 * add its own: --header overrides). */
static int overridden(const send_opts *o, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->headers->nelts; i++) {
        const char *h = APR_ARRAY_IDX(o->headers, i, const char *);
        if (strncasecmp(h, name, n) == 0 && (h[n] == ':' || h[n] == ';'))
            return 1;
    }
    return 0;
}

static struct curl_slist *add_header(struct curl_slist *l, apr_pool_t *p,
                                     const char *name, const char *value)
{
    return curl_slist_append(l, apr_pstrcat(p, name, ": ", value, NULL));
}

static transfer *start_transfer(CURLM *multi, const send_opts *o, int index,
                                apr_pool_t *p)
{
    transfer *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->index = index;
    if (o->sample_status) {
        t->body = sample_body(o->sample_status, &t->body_len);
        t->body_ptr = t->body ? t->body : "";
    }
    else {
        t->body_ptr = o->body;
        t->body_len = o->body_len;
    }

    const char *ts = o->fixed_ts;
    if (ts == NULL) {
        apr_time_t now = apr_time_now();
        ts = o->cfg->timestamp_unit == WH_TS_MILLISECONDS
                 ? apr_psprintf(p, "%" APR_INT64_T_FMT,
                                (apr_int64_t)apr_time_as_msec(now))
                 : apr_psprintf(p, "%" APR_INT64_T_FMT,
                                (apr_int64_t)apr_time_sec(now));
    }
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[65];
    if (wh_signature_compute(o->secret->key, o->secret->len, o->method,
                             o->signed_url, t->body_ptr, t->body_len, ts,
                             raw) != 0) {
        free(t->body);
        free(t);
        return NULL;
    }
    wh_signature_hex(raw, hex);

    if (!overridden(o, "Content-Type"))
        t->hdrs = add_header(t->hdrs, p, "Content-Type", o->content_type);
    if (!overridden(o, o->cfg->timestamp_header))
        t->hdrs = add_header(t->hdrs, p, o->cfg->timestamp_header, ts);
    if (!overridden(o, o->cfg->signature_header))
        t->hdrs = add_header(t->hdrs, p, o->cfg->signature_header, hex);
    t->hdrs = curl_slist_append(t->hdrs, "Expect:");
    for (int i = 0; i < o->headers->nelts; i++)
        t->hdrs = curl_slist_append(t->hdrs,
                                    APR_ARRAY_IDX(o->headers, i, const char *));

    CURL *e = curl_easy_init();
    if (e == NULL) {
        curl_slist_free_all(t->hdrs);
        free(t->body);
        free(t);
        return NULL;
    }
    t->easy = e;
    curl_easy_setopt(e, CURLOPT_URL, o->url);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, o->method);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->body_ptr);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                     (curl_off_t)t->body_len);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->hdrs);
    if (o->userpwd) {
        curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(e, CURLOPT_USERPWD, o->userpwd);
    }
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, o->timeout);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "wirehook-send/1");
    if (o->cacert)
        curl_easy_setopt(e, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (curl_multi_add_handle(multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        curl_slist_free_all(t->hdrs);
        free(t->body);
        free(t);
        return NULL;
    }
    return t;
}

/* "<status> <body>" on one line: newlines inside the body become spaces. */
static void print_result(const transfer *t, long status, CURLcode res)
{
    if (res != CURLE_OK) {
        printf("000 error: %s\n", t->errbuf[0] ? t->errbuf
                                                : curl_easy_strerror(res));
        return;
    }
    size_t n = t->resp_len;
    while (n && (t->resp[n - 1] == '\n' || t->resp[n - 1] == '\r'
                 || t->resp[n - 1] == ' '))
        n--;
    printf("%03ld ", status);
    for (size_t i = 0; i < n; i++) {
        char c = t->resp[i];
        putchar(c == '\n' || c == '\r' ? ' ' : c);
    }
    putchar('\n');
}

static void finish_transfer(CURLM *multi, transfer *t)
{
    curl_multi_remove_handle(multi, t->easy);
    curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->hdrs);
    free(t->body);
    free(t->resp);
    free(t);
}

/* Runs count requests, at most conc at a time. Returns the number that were
 * not answered 2xx. */
static int run_all(const send_opts *o, int count, int conc, apr_pool_t *p)
{
    CURLM *multi = curl_multi_init();
    if (multi == NULL) {
        fprintf(stderr, "wirehook send: cannot initialise libcurl\n");
        return count;
    }
    int next = 0, inflight = 0, bad = 0, ok = 0;
    apr_pool_t *sub;
    apr_pool_create(&sub, p);
    while (next < count || inflight > 0) {
        while (inflight < conc && next < count) {
            /* curl copies what it keeps: sub only holds temporaries */
            transfer *t = start_transfer(multi, o, next, sub);
            apr_pool_clear(sub);
            next++;
            if (t == NULL) {
                if (!o->quiet)
                    printf("000 error: cannot prepare the request\n");
                bad++;
                continue;
            }
            inflight++;
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            char *priv = NULL;
            long status = 0;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
            transfer *t = (transfer *)priv;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE,
                              &status);
            CURLcode res = msg->data.result;
            if (!o->quiet)
                print_result(t, status, res);
            if (res == CURLE_OK && status >= 200 && status <= 299)
                ok++;
            else
                bad++;
            finish_transfer(multi, t);
            inflight--;
        }
        if (inflight > 0)
            curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    fflush(stdout);
    apr_pool_destroy(sub);
    curl_multi_cleanup(multi);
    if (count > 1)
        fprintf(stderr, "wirehook send: %d sent, %d answered 2xx, %d not\n",
                count, ok, bad);
    return bad;
}

/* ------------------------------------------------------------ main --- */

static int parse_positive(const char *s, int max, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* The URL the receiver will check, built by the same core function the
 * module and the CGI use, from the URL we are about to request. */
static const char *url_as_signed(apr_pool_t *p, const wh_config *cfg,
                                 const char *url)
{
    apr_uri_t u;
    if (cfg->signed_url || apr_uri_parse(p, url, &u) != APR_SUCCESS || !u.hostname)
        return cfg->signed_url ? cfg->signed_url : url;
    const char *host = u.port_str ? apr_pstrcat(p, u.hostname, ":", u.port_str, NULL)
                                  : u.hostname;
    const char *path = apr_uri_unparse(p, &u, APR_URI_UNP_OMITSITEPART);
    return wh_request_url(p, cfg, u.scheme, host, *path ? path : "/");
}

int wh_cmd_send(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "config", 'c', 1, "wirehook configuration file" },
        { "url", 'u', 1, "URL to POST to" },
        { "user", 'U', 1, "Basic credentials user:password" },
        { "sample", 'S', 1, "send a fresh sample notification with STATUS" },
        { "count", 'n', 1, "number of requests (1)" },
        { "concurrency", 'C', 1, "requests in flight at once (1)" },
        { "timestamp", 't', 1, "timestamp header value (now)" },
        { "method", 'm', 1, "HTTP method (POST)" },
        { "header", 'H', 1, "extra header 'Name: value' (repeatable)" },
        { "content-type", 'T', 1, "Content-Type (application/json)" },
        { "signed-url", 's', 1, "sign this URL instead of --url" },
        { "secret-index", 'i', 1, "sign with the Nth secret of the file (1)" },
        { "timeout", 'w', 1, "seconds per request (30)" },
        { "cacert", 'A', 1, "CA bundle to trust for https URLs" },
        { "insecure", 'k', 0, "do not verify the server's TLS certificate" },
        { "quiet", 'q', 0, "print nothing; the exit status tells" },
        { NULL, 0, 0, NULL }
    };
    send_opts o;
    const char *config = NULL, *arg, *err, *input = NULL;
    int count = 1, conc = 1, secret_index = 1, timeout = 30, ch;
    apr_status_t rv;

    memset(&o, 0, sizeof(o));
    o.method = "POST";
    o.content_type = "application/json";
    o.headers = apr_array_make(p, 4, sizeof(const char *));

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " SEND_USAGE "\n\n"
               "Signs and POSTs notifications as the bank does: Content-Type\n"
               "application/json, Basic auth, the timestamp header (seconds, or\n"
               "milliseconds with TimestampUnit milliseconds) and the HMAC-SHA256\n"
               "signature header named in the config. The first secret of\n"
               "SigningSecretFile signs; SignedUrl, when set, is the signed URL.\n"
               "--sample STATUS builds a fresh notification per request (new\n"
               "notificationId, eventDateTime now); a BODY_FILE (or - for stdin) is\n"
               "sent as is, N times. Prints one line per response: <status> <body>.\n"
               "--header overrides the generated header of the same name.\n"
               "--cacert FILE trusts a private CA for https URLs; --insecure skips\n"
               "certificate checks (testing only).\n"
               "Exit 0 when every response was 2xx, 1 otherwise, 2 on usage errors.\n");
        return 0;
    }
    apr_getopt_t *os = wh_cli_getopt(p, argc, argv, opts);
    if (!os)
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 'c': config = arg; break;
        case 'u': o.url = arg; break;
        case 'U': o.userpwd = arg; break;
        case 'S': o.sample_status = arg; break;
        case 'n':
            if (parse_positive(arg, 1000000, &count))
                return wh_cli_usage(SEND_USAGE);
            break;
        case 'C':
            if (parse_positive(arg, 1000, &conc))
                return wh_cli_usage(SEND_USAGE);
            break;
        case 't': o.fixed_ts = arg; break;
        case 'A': o.cacert = arg; break;
        case 'k': o.insecure = 1; break;
        case 'm': o.method = arg; break;
        case 'H':
            if (strchr(arg, ':') == NULL && strchr(arg, ';') == NULL)
                return wh_cli_usage(SEND_USAGE);
            APR_ARRAY_PUSH(o.headers, const char *) = arg;
            break;
        case 'T': o.content_type = arg; break;
        case 's': o.signed_url = arg; break;
        case 'i':
            if (parse_positive(arg, 1000, &secret_index))
                return wh_cli_usage(SEND_USAGE);
            break;
        case 'w':
            if (parse_positive(arg, 3600, &timeout))
                return wh_cli_usage(SEND_USAGE);
            break;
        case 'q': o.quiet = 1; break;
        }
    }
    if (rv != APR_EOF || !config || !o.url || os->argc - os->ind > 1)
        return wh_cli_usage(SEND_USAGE);
    if (os->ind < os->argc)
        input = os->argv[os->ind];
    if ((input != NULL) == (o.sample_status != NULL)) {
        fprintf(stderr, "wirehook send: give either --sample STATUS or a "
                        "BODY_FILE (- for stdin)\n");
        return wh_cli_usage(SEND_USAGE);
    }
    o.timeout = timeout;

    wh_config *cfg = NULL;
    /* the signing secret and the headers: no htpasswd (--user gives the
     * credentials) */
    if ((err = wh_config_load_parts(p, config, WH_PART_SECRETS, &cfg)) != NULL) {
        fprintf(stderr, "wirehook send: %s\n", err);
        return 1;
    }
    o.cfg = cfg;
    if (secret_index > cfg->secrets->nelts) {
        fprintf(stderr, "wirehook send: --secret-index %d: the secret file "
                        "holds %d secret(s)\n", secret_index,
                cfg->secrets->nelts);
        return 2;
    }
    o.secret = &APR_ARRAY_IDX(cfg->secrets, secret_index - 1, wh_secret);
    if (o.signed_url == NULL)
        o.signed_url = url_as_signed(p, cfg, o.url);

    if (input) {
        char *buf;
        if ((err = wh_cli_read_input(p, input, WH_CLI_MAX_INPUT, &buf,
                                     &o.body_len)) != NULL) {
            fprintf(stderr, "wirehook send: %s\n", err);
            return 1;
        }
        o.body = buf;
    }

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "wirehook send: cannot initialise libcurl\n");
        return 1;
    }
    int bad = run_all(&o, count, conc, p);
    curl_global_cleanup();
    return bad ? 1 : 0;
}
