/* Fuzz target: the one pass (wh_schema_check) against the test oracle,
 * the tree-based validator it replaced (tests/oracle/: wh_json_tree_parse
 * then wh_schema_tree_validate).
 *
 * The input is a request body byte for byte. For both UnknownStatus modes
 * the two must agree: both refuse the body as JSON, or both accept it with
 * the same problems (JSON pointer and reason) in the same order and the
 * same facts. A difference aborts with both answers, so the input that
 * shows it becomes a crash file. */
#include "fuzz_common.h"
#include "oracle/wh_json_tree.h"
#include "oracle/wh_schema_tree.h"

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const char *str_or_null(const char *s)
{
    return s ? s : "(null)";
}

static const char *facts_differ(apr_pool_t *p, const wh_facts *a,
                                const wh_facts *b)
{
    static const char *const names[] = {
        "notification_id", "event_type", "event_time", "payment_id", "status"
    };
    const char *av[] = {a->notification_id, a->event_type, a->event_time,
                        a->payment_id, a->status};
    const char *bv[] = {b->notification_id, b->event_type, b->event_time,
                        b->payment_id, b->status};

    for (int i = 0; i < 5; i++)
        if (!same_str(av[i], bv[i]))
            return apr_psprintf(p, "fact %s: one pass \"%s\", oracle \"%s\"",
                                names[i], str_or_null(av[i]), str_or_null(bv[i]));
    if (a->status_known != b->status_known)
        return apr_psprintf(p, "fact status_known: one pass %d, oracle %d",
                            a->status_known, b->status_known);
    return NULL;
}

static const char *problems_differ(apr_pool_t *p, const apr_array_header_t *a,
                                   const apr_array_header_t *b)
{
    for (int i = 0; i < a->nelts && i < b->nelts; i++) {
        const wh_problem *x = &APR_ARRAY_IDX(a, i, wh_problem);
        const wh_problem *y = &APR_ARRAY_IDX(b, i, wh_problem);
        if (!same_str(x->field, y->field) || !same_str(x->problem, y->problem))
            return apr_psprintf(p, "problem %d: one pass [%s: %s], oracle [%s: %s]",
                                i, x->field, x->problem, y->field, y->problem);
    }
    if (a->nelts != b->nelts)
        return apr_psprintf(p, "one pass lists %d problem(s), oracle %d",
                            a->nelts, b->nelts);
    return NULL;
}

/* NULL when the one pass and the oracle agree on body[0..len) under opts:
 * both refuse it as JSON, or both accept it with the same problems in the
 * same order and the same facts. Otherwise what differs. Messages for
 * bodies that are not JSON are not compared: each names the first fault it
 * meets, and the two meet faults in a different order. */
static const char *differs(apr_pool_t *p, const char *body, apr_size_t len,
                           const wh_schema_opts *opts)
{
    apr_array_header_t *mine = apr_array_make(p, 4, sizeof(wh_problem));
    apr_array_header_t *theirs = apr_array_make(p, 4, sizeof(wh_problem));
    wh_facts f1, f2;
    json_object *root = NULL;
    const char *why, *oracle_why, *d;
    int n1, n2;

    memset(&f1, 0, sizeof f1);
    memset(&f2, 0, sizeof f2);
    n1 = wh_schema_check(p, body, len, opts, mine, &f1, &why);
    oracle_why = wh_json_tree_parse(p, body, len, &root);
    if (n1 == WH_SCHEMA_NOT_JSON || oracle_why) {
        if (n1 == WH_SCHEMA_NOT_JSON && oracle_why)
            return NULL;
        return n1 == WH_SCHEMA_NOT_JSON
                   ? apr_pstrcat(p, "one pass: not JSON (", why, "), oracle: JSON", NULL)
                   : apr_pstrcat(p, "one pass: JSON, oracle: not JSON (", oracle_why,
                                 ")", NULL);
    }
    n2 = wh_schema_tree_validate(p, root, opts, theirs, &f2);
    if ((d = problems_differ(p, mine, theirs)) != NULL)
        return d;
    if (n1 != mine->nelts || n2 != theirs->nelts)
        return apr_psprintf(p, "counts: one pass %d for %d listed, oracle %d for %d",
                            n1, mine->nelts, n2, theirs->nelts);
    return facts_differ(p, &f1, &f2);
}

static void compare(apr_pool_t *p, const char *body, size_t size, int reject)
{
    wh_schema_opts opts = { reject };
    const char *d = differs(p, body, size, &opts);

    if (d) {
        fprintf(stderr, "UnknownStatus %s: %s\n", reject ? "reject" : "accept", d);
        WH_FUZZ_ASSERT(d == NULL);
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
    compare(p, body, size, 0);
    compare(p, body, size, 1);
    free(body);
    apr_pool_destroy(p);
    return 0;
}
