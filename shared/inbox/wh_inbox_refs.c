/* The wire's references of each payment (wh_inbox_refs.h). */
#include "wh_inbox_refs.h"
#include "wh_inbox_sql.h"
#include "wh_pagination.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* A payment's events mostly repeat its references: the usual store only
 * finds the keys there. A batch's references go in as few statements as
 * wh_inbox_db_exec_rows allows (on PostgreSQL and MySQL the store's
 * transaction waits on each round trip). (MySQL's INSERT IGNORE would
 * also turn a value too long into a warning and store it cut short.) */
static const wh_inbox_rows_stmt st_add = {
    { "INSERT INTO wh_payment_refs (ref, kind, payment_id) VALUES ", NULL, NULL },
    "(%s, %d, %s)",
    { " ON CONFLICT DO NOTHING", NULL, " ON DUPLICATE KEY UPDATE kind = kind" } };
static const wh_inbox_stmt st_bodies = {
    "SELECT id, payment_id, body FROM wh_events WHERE id > %lld"
    " AND payment_id IS NOT NULL ORDER BY id LIMIT %d", NULL, NULL };

/* What a search can ask for: a filter value (1 to 128 bytes of UTF-8,
 * no control characters). */
static int searchable(apr_pool_t *p, const char *ref)
{
    const char *out;
    return ref && wh_page_filter_value(p, "reference", ref, &out) == NULL;
}

typedef struct {
    const char *ref;
    int kind;
    const char *payment_id;
} ref_row;

/* Every writer takes its rows in this one order (wh_inbox_store.c says
 * why), and a row twice is one row. */
static int by_ref(const void *a, const void *b)
{
    const ref_row *x = a, *y = b;
    int c = strcmp(x->ref, y->ref);
    if (c == 0)
        c = (x->kind > y->kind) - (x->kind < y->kind);
    return c ? c : strcmp(x->payment_id, y->payment_id);
}

static int add_rows(wh_inbox *ib, apr_pool_t *p, const ref_row *rows, int n)
{
    const void **args = apr_palloc(p, sizeof(*args) * 3 * WH_INBOX_ROWS_MAX);
    int rv = 0;

    for (int i = 0; i < n && rv == 0;) {
        int k = 0;
        for (; i < n && k < WH_INBOX_ROWS_MAX; i++) {
            if (i > 0 && by_ref(&rows[i - 1], &rows[i]) == 0)
                continue;
            args[3 * k] = rows[i].ref;
            args[3 * k + 1] = &rows[i].kind;
            args[3 * k + 2] = rows[i].payment_id;
            k++;
        }
        if (k)
            rv = wh_inbox_db_exec_rows(ib, p, &st_add, k, NULL, args);
    }
    return rv;
}

int wh_inbox_refs_add(wh_inbox *ib, apr_pool_t *p, const wh_facts *const *facts, int n)
{
    ref_row *rows = apr_palloc(p, sizeof(*rows) * 3 * (apr_size_t)(n > 0 ? n : 1));
    int m = 0;

    for (int e = 0; e < n; e++) {
        const wh_facts *f = facts[e];
        const char *ref[3] = { f->end_to_end_id, f->imad, f->omad };
        static const int kind[3] = { WH_REF_END_TO_END_ID, WH_REF_IMAD, WH_REF_OMAD };

        if (!f->payment_id)
            continue;
        for (int i = 0; i < 3; i++)
            if (searchable(p, ref[i]))
                rows[m++] = (ref_row){ ref[i], kind[i], f->payment_id };
    }
    if (m > 1)
        qsort(rows, (size_t)m, sizeof(*rows), by_ref);
    return add_rows(ib, p, rows, m);
}

/* One stored event's references. Every stored body passed the checks;
 * one that no longer parses (edited by hand) simply has none. */
static int add_from_body(wh_inbox *ib, apr_pool_t *p, const wh_inbox_rows *rows, int i,
                         void *baton)
{
    const char *body = WH_ROW_CELL(rows, i, 2), *why;
    wh_facts f;
    const wh_facts *one = &f;

    (void)baton;
    memset(&f, 0, sizeof(f));
    if (!body || wh_schema_check(p, body, strlen(body), NULL, NULL, &f, &why)
                     == WH_SCHEMA_NOT_JSON)
        return 0;
    f.payment_id = WH_ROW_CELL(rows, i, 1);
    return wh_inbox_refs_add(ib, p, &one, 1);
}

int wh_inbox_refs_fill(wh_inbox *ib, apr_pool_t *p)
{
    return wh_inbox_db_walk(ib, p, &st_bodies, add_from_body, NULL);
}
