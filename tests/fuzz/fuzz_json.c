/* Fuzz target: the one pass over a body (wh_schema_check: strict JSON and
 * the schema) and the error JSON built from its problems.
 *
 * The input is a request body byte for byte. Invariants checked besides
 * "no memory error, no UB, no leak":
 *   - a body accepted as JSON is valid UTF-8 without NUL bytes;
 *   - a refused body has a reason, and problems and facts are left alone;
 *   - the return value equals the problems appended, every problem has a
 *     JSON pointer ("" or starting with '/') and a reason;
 *   - the error JSON built from those problems parses again (json-c).
 * fuzz_oracle holds the same pass to the tree-based validator it
 * replaced. */
#include "fuzz_common.h"
#include "verify/wh_schema.h"
#include "verify/wh_utf8.h"
#include "verify/wh_verdict.h"

#include <json-c/json.h>

static void check(apr_pool_t *p, const char *body, size_t size, int reject)
{
    wh_schema_opts opts = { reject };
    wh_facts facts;
    wh_verdict v;
    const char *why = NULL;
    int n;

    memset(&facts, 0, sizeof facts);
    facts.user = "fuzz";
    wh_verdict_init(&v, p);
    n = wh_schema_check(p, body, size, &opts, v.details, &facts, &why);
    if (n == WH_SCHEMA_NOT_JSON) {
        WH_FUZZ_ASSERT(why && *why && v.details->nelts == 0);
        WH_FUZZ_ASSERT(!facts.notification_id && !facts.event_type);
        return;
    }
    WH_FUZZ_ASSERT(memchr(body, '\0', size) == NULL);
    WH_FUZZ_ASSERT(wh_utf8_length(body, size) >= 0);
    WH_FUZZ_ASSERT(n == v.details->nelts && strcmp(facts.user, "fuzz") == 0);
    for (int i = 0; i < n; i++) {
        const wh_problem *pr = &APR_ARRAY_IDX(v.details, i, wh_problem);
        WH_FUZZ_ASSERT(pr->field && pr->problem && *pr->problem);
        WH_FUZZ_ASSERT(pr->field[0] == '\0' || pr->field[0] == '/');
    }
    if (n == 0) {
        WH_FUZZ_ASSERT(facts.notification_id && facts.event_type);
        if (facts.status)
            WH_FUZZ_ASSERT(facts.status_known == wh_schema_status_known(facts.status));
        if (reject && facts.status)
            WH_FUZZ_ASSERT(facts.status_known);
    } else {
        const char *js;
        json_object *back;
        wh_verdict_fail(&v, 400, WH_CODE_SCHEMA_VIOLATION, "schema");
        js = wh_verdict_error_json(p, &v);
        back = json_tokener_parse(js);
        WH_FUZZ_ASSERT(back != NULL);
        json_object_put(back);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p = wh_fuzz_pool();
    /* An exact-size heap copy: ASan catches any read past the body. */
    char *body = malloc(size ? size : 1);

    if (!body)
        abort();
    memcpy(body, data, size);
    check(p, body, size, 0);
    check(p, body, size, 1);
    free(body);
    apr_pool_destroy(p);
    return 0;
}
