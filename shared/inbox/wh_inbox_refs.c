/* The wire's references of each payment (wh_inbox_refs.h). */
#include "wh_inbox_refs.h"
#include "wh_inbox_sql.h"
#include "wh_pagination.h"
#include "verify/wh_schema.h"

#include <apr_strings.h>
#include <string.h>

/* A payment's events mostly repeat its references: the usual store only
 * finds the keys there. All of an event's references go in one statement
 * (one round trip on PostgreSQL and MySQL, where the store's transaction
 * waits on each), of as many rows as it has references. (MySQL's INSERT
 * IGNORE would also turn a value too long into a warning and store it
 * cut short.) */
#define WH_REF_ROW "(%s, %d, %s)"
#define WH_REFS_ADD(rows)                                                     \
    { "INSERT INTO wh_payment_refs (ref, kind, payment_id) VALUES " rows      \
      " ON CONFLICT DO NOTHING", NULL,                                        \
      "INSERT INTO wh_payment_refs (ref, kind, payment_id) VALUES " rows      \
      " ON DUPLICATE KEY UPDATE kind = kind" }
static const wh_inbox_stmt st_add[3] = {
    WH_REFS_ADD(WH_REF_ROW),
    WH_REFS_ADD(WH_REF_ROW ", " WH_REF_ROW),
    WH_REFS_ADD(WH_REF_ROW ", " WH_REF_ROW ", " WH_REF_ROW),
};
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

int wh_inbox_refs_add(wh_inbox *ib, apr_pool_t *p, const char *payment_id,
                      const wh_facts *facts)
{
    const struct { const char *ref; int kind; } refs[3] = {
        { facts->end_to_end_id, WH_REF_END_TO_END_ID },
        { facts->imad, WH_REF_IMAD },
        { facts->omad, WH_REF_OMAD },
    };
    const void *args[9];
    int k = 0;

    if (!payment_id)
        return 0;
    for (int i = 0; i < 3; i++) {
        if (!searchable(p, refs[i].ref))
            continue;
        args[3 * k] = refs[i].ref;
        args[3 * k + 1] = &refs[i].kind;
        args[3 * k + 2] = payment_id;
        k++;
    }
    return k ? wh_inbox_db_exec(ib, p, &st_add[k - 1], NULL, args) : 0;
}

/* One stored event's references. Every stored body passed the checks;
 * one that no longer parses (edited by hand) simply has none. */
static int add_from_body(wh_inbox *ib, apr_pool_t *p, const wh_inbox_rows *rows, int i,
                         void *baton)
{
    const char *body = WH_ROW_CELL(rows, i, 2), *why;
    wh_facts f;

    (void)baton;
    memset(&f, 0, sizeof(f));
    if (!body || wh_schema_check(p, body, strlen(body), NULL, NULL, &f, &why)
                     == WH_SCHEMA_NOT_JSON)
        return 0;
    return wh_inbox_refs_add(ib, p, WH_ROW_CELL(rows, i, 1), &f);
}

int wh_inbox_refs_fill(wh_inbox *ib, apr_pool_t *p)
{
    return wh_inbox_db_walk(ib, p, &st_bodies, add_from_body, NULL);
}
