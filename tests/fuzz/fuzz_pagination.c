/* Fuzz target: the list endpoint's query-string parser,
 * wh_pagination_parse(), under the default limits and under tight ones.
 *
 * Input: byte 0 picks the limits (even: defaults 25/100, odd: 1/1 with
 * bit 1 choosing 10000/10000), the rest is the raw query string (up to the
 * first NUL, as a host passes r->args or QUERY_STRING).
 * Invariants: on success 0 <= offset and 1 <= limit <= ListMaxLimit; on
 * failure a non-empty reason. */
#include "fuzz_common.h"
#include "config/wh_config_load.h"
#include "inbox/wh_inbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    wh_config *cfg;
    wh_page_query q;
    const char *why, *query;

    if (size < 1)
        return 0;
    p = wh_fuzz_pool();
    cfg = wh_config_create(p);
    if (data[0] & 1) {
        cfg->list_default_limit = (data[0] & 2) ? 10000 : 1;
        cfg->list_max_limit = cfg->list_default_limit;
    }
    query = wh_fuzz_cstr(p, data + 1, size - 1);
    memset(&q, 0, sizeof q);
    why = wh_pagination_parse(p, query, cfg, &q);
    if (why) {
        WH_FUZZ_ASSERT(*why != '\0');
    } else {
        WH_FUZZ_ASSERT(q.offset >= 0);
        WH_FUZZ_ASSERT(q.limit >= 1 && q.limit <= cfg->list_max_limit);
    }
    /* NULL means "no query string" to every host */
    why = wh_pagination_parse(p, NULL, cfg, &q);
    if (!why)
        WH_FUZZ_ASSERT(q.offset == 0 && q.limit == cfg->list_default_limit);
    apr_pool_destroy(p);
    return 0;
}
