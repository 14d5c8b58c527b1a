#ifndef WH_SCHEMA_TREE_H
#define WH_SCHEMA_TREE_H
#include <apr_pools.h>
#include <apr_tables.h>
#include <json-c/json.h>
#include "verify/wh_schema.h"

/* The test oracle (tests/oracle/wh_schema_tree.c): the tree-based
 * validator wirehook used before shared/verify/wh_schema.c checked the
 * schema in the same pass as the JSON. Never linked into wirehook itself;
 * the schema tests and the fuzz_oracle target hold the one pass to its
 * answers.
 *
 * Validates a parsed notification against the spec. Appends every problem
 * (wh_problem, JSON pointer + reason) to problems, and fills what it can
 * of facts (strings copied into p). Returns the number of problems. */
int wh_schema_tree_validate(apr_pool_t *p, json_object *root,
                            const wh_schema_opts *opts,
                            apr_array_header_t *problems, wh_facts *facts);

#endif
