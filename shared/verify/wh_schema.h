#ifndef WH_SCHEMA_H
#define WH_SCHEMA_H
#include <apr_pools.h>
#include <apr_tables.h>
#include <json-c/json.h>
#include "wh_verdict.h"

typedef struct {
    int unknown_status_reject;   /* UnknownStatus reject */
} wh_schema_opts;

/* Validates a parsed notification against the spec. Appends every problem
 * (wh_problem, JSON pointer + reason) to problems, and fills what it can
 * of facts (strings copied into p). Returns the number of problems. */
int wh_schema_validate(apr_pool_t *p, json_object *root,
                       const wh_schema_opts *opts,
                       apr_array_header_t *problems, wh_facts *facts);

/* The wire's references (endToEndId, IMAD, OMAD) of a parsed
 * notification into facts (copied into p; NULL when absent). */
void wh_schema_references(apr_pool_t *p, json_object *root, wh_facts *facts);

/* 1 when status is one of Review, Send Ready, Reject, Error, Exception,
 * Complete (exact, case-sensitive). */
int wh_schema_status_known(const char *status);

/* base + "/" + name, escaped per RFC 6901 (~ as ~0, / as ~1). */
const char *wh_schema_pointer_append(apr_pool_t *p, const char *base,
                                     const char *name);

#endif
