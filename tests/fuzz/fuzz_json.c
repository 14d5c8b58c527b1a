/* Fuzz target: the strict JSON parser and the schema validator.
 *
 * The input is a request body byte for byte. Invariants checked besides
 * "no memory error, no UB, no leak":
 *   - an accepted body is valid UTF-8 without NUL bytes;
 *   - the validator's return value equals the problems it appended, every
 *     problem has a JSON pointer ("" or starting with '/') and a reason;
 *   - the error JSON built from those problems parses again (json-c). */
#include "fuzz_common.h"
#include "verify/wh_json.h"
#include "verify/wh_schema.h"
#include "verify/wh_utf8.h"
#include "verify/wh_verdict.h"

static void validate(apr_pool_t *p, json_object *root, int reject)
{
    wh_schema_opts opts = { reject };
    wh_facts facts;
    wh_verdict v;
    int n;

    memset(&facts, 0, sizeof facts);
    wh_verdict_init(&v, p);
    n = wh_schema_validate(p, root, &opts, v.details, &facts);
    WH_FUZZ_ASSERT(n == v.details->nelts);
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
    json_object *root = NULL;
    /* An exact-size heap copy: ASan catches any read past the body. */
    char *body = malloc(size ? size : 1);
    const char *why;

    if (!body)
        abort();
    memcpy(body, data, size);
    why = wh_json_parse(p, body, size, &root);
    if (why) {
        WH_FUZZ_ASSERT(*why != '\0' && root == NULL);
    } else {
        WH_FUZZ_ASSERT(memchr(body, '\0', size) == NULL);
        WH_FUZZ_ASSERT(wh_utf8_length(body, size) >= 0);
        validate(p, root, 0);
        validate(p, root, 1);
    }
    free(body);
    apr_pool_destroy(p);
    return 0;
}
