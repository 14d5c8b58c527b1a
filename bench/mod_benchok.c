/* mod_benchok: the handlers the module benchmark measures against.
 *
 * `SetHandler benchok` is the minimal handler put behind mod_wirehook (and
 * measured alone as the baseline): it reads the whole request body, as any
 * webhook application must, and answers 200 with a 12-byte JSON body.
 *
 * `SetHandler benchfloor` is the least any verifying receiver must do,
 * inside httpd: the same body read, then HMAC-SHA256 over method + URL +
 * body + timestamp compared in constant time with X-Signature, and the
 * body through json_tokener_parse() (tree freed). No Basic auth, no
 * strictness, no schema, no replay check, no facts. A request whose
 * signature does not match gets 403, so a misconfigured floor cannot
 * pass for a fast one. Its ratio to benchok bounds what any module built
 * on OpenSSL and json-c can reach on the machine, so it calls json-c the
 * cheapest way there is (floor_json.h). Bench-only: never installed. */
#include "httpd.h"
#include "http_config.h"
#include "http_protocol.h"
#include "util_filter.h"

#include <apr_strings.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "floor_json.h"
#include "floor_mac.h"

#define BENCHOK_READ 8192
#define BENCHFLOOR_MAX (64 * 1024)

module AP_MODULE_DECLARE_DATA benchok_module;

typedef struct {
    const char *secret;
    EVP_MAC_CTX *keyed; /* created in child_init, duplicated per request */
} floor_conf;

static void *create_server(apr_pool_t *p, server_rec *s)
{
    (void)s;
    return apr_pcalloc(p, sizeof(floor_conf));
}

static const char *set_secret(cmd_parms *cmd, void *dcfg, const char *arg)
{
    floor_conf *fc = ap_get_module_config(cmd->server->module_config,
                                          &benchok_module);
    (void)dcfg;
    fc->secret = arg;
    return NULL;
}

static const command_rec benchok_cmds[] = {
    AP_INIT_TAKE1("BenchFloorSecret", set_secret, NULL, RSRC_CONF,
                  "signing secret the benchfloor handler verifies with"),
    {NULL}
};

static apr_status_t free_ctx(void *ctx)
{
    EVP_MAC_CTX_free(ctx);
    return APR_SUCCESS;
}

static void floor_child_init(apr_pool_t *pchild, server_rec *s)
{
    floor_conf *fc = ap_get_module_config(s->module_config, &benchok_module);
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    EVP_MAC *mac;

    if (!fc->secret || !(mac = EVP_MAC_fetch(NULL, "HMAC", NULL)))
        return;
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    fc->keyed = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (fc->keyed && !EVP_MAC_init(fc->keyed, (const unsigned char *)fc->secret,
                                   strlen(fc->secret), params)) {
        EVP_MAC_CTX_free(fc->keyed);
        fc->keyed = NULL;
    }
    if (fc->keyed)
        apr_pool_cleanup_register(pchild, fc->keyed, free_ctx, apr_pool_cleanup_null);
}

/* Reads the body: into buf when given (at most max bytes), else counted
 * and dropped (buf NULL, max 0). Returns its length, or -1. */
static long read_body(request_rec *r, char *buf, long max)
{
    char scratch[BENCHOK_READ];
    long n, total = 0;

    if (ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK) != OK)
        return -1;
    if (!ap_should_client_block(r))
        return 0;
    for (;;) {
        if (buf && total >= max)
            return -1;
        n = buf ? ap_get_client_block(r, buf + total, (apr_size_t)(max - total))
                : ap_get_client_block(r, scratch, sizeof scratch);
        if (n <= 0)
            return n < 0 ? -1 : total;
        total += n;
    }
}

static int floor_verify(request_rec *r, floor_conf *fc, const char *body, long len)
{
    const char *host = apr_table_get(r->headers_in, "Host");
    const char *url = apr_pstrcat(r->pool, "http://", host ? host : "",
                                  r->unparsed_uri, NULL);

    return fc->keyed
           && floor_mac_matches(EVP_MAC_CTX_dup(fc->keyed), r->method, url, body,
                                (size_t)len, apr_table_get(r->headers_in, "X-Timestamp"),
                                apr_table_get(r->headers_in, "X-Signature"));
}

static int benchok_handler(request_rec *r)
{
    int is_floor;
    long len;

    if (!r->handler)
        return DECLINED;
    is_floor = strcmp(r->handler, "benchfloor") == 0;
    if (!is_floor && strcmp(r->handler, "benchok") != 0)
        return DECLINED;
    if (is_floor) {
        floor_conf *fc = ap_get_module_config(r->server->module_config,
                                              &benchok_module);
        char *body = apr_palloc(r->pool, BENCHFLOOR_MAX + 1);

        if ((len = read_body(r, body, BENCHFLOOR_MAX)) < 0)
            return HTTP_BAD_REQUEST;
        body[len] = '\0';
        if (!floor_verify(r, fc, body, len))
            return HTTP_FORBIDDEN;
        if (floor_json_parse(body) < 0)
            return HTTP_BAD_REQUEST;
    } else if (read_body(r, NULL, 0) < 0) {
        return HTTP_BAD_REQUEST;
    }
    ap_set_content_type(r, "application/json");
    ap_rputs("{\"ok\":true}\n", r);
    return OK;
}

static void benchok_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_child_init(floor_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(benchok_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

module AP_MODULE_DECLARE_DATA benchok_module = {
    STANDARD20_MODULE_STUFF, NULL, NULL, create_server, NULL, benchok_cmds,
    benchok_hooks
#if defined(AP_MODULE_FLAG_ALWAYS_MERGE)
    , AP_MODULE_FLAG_NONE
#endif
};
