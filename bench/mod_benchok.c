/* mod_benchok: the minimal handler the module benchmark puts behind
 * mod_wirehook (and measures alone as the baseline). `SetHandler benchok`
 * reads the whole request body, as any webhook application must, and
 * answers 200 with a 12-byte JSON body. Bench-only: never installed. */
#include "httpd.h"
#include "http_config.h"
#include "http_protocol.h"
#include "util_filter.h"

#define BENCHOK_READ 8192

static int benchok_handler(request_rec *r)
{
    char buf[BENCHOK_READ];
    long n;
    apr_off_t total = 0;
    int rc;

    if (!r->handler || strcmp(r->handler, "benchok") != 0)
        return DECLINED;
    if ((rc = ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK)) != OK)
        return rc;
    if (ap_should_client_block(r)) {
        while ((n = ap_get_client_block(r, buf, sizeof buf)) > 0)
            total += n;
        if (n < 0)
            return HTTP_BAD_REQUEST;
    }
    ap_set_content_type(r, "application/json");
    ap_rputs(total >= 0 ? "{\"ok\":true}\n" : "{}\n", r);
    return OK;
}

static void benchok_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_handler(benchok_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

module AP_MODULE_DECLARE_DATA benchok_module = {
    STANDARD20_MODULE_STUFF, NULL, NULL, NULL, NULL, NULL, benchok_hooks
#if defined(AP_MODULE_FLAG_ALWAYS_MERGE)
    , AP_MODULE_FLAG_NONE
#endif
};
