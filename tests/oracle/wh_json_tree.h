#ifndef WH_JSON_TREE_H
#define WH_JSON_TREE_H
#include <apr_pools.h>
#include <json-c/json.h>

#define WH_JSON_MAX_DEPTH 32

/* The test oracle's strict parser (tests/oracle/wh_json_tree.c): what
 * wirehook checked bodies with before shared/verify/wh_schema.c did it in
 * one pass. Never linked into wirehook itself.
 *
 * Strictly parses buf[0..len) as exactly one JSON value: valid UTF-8, no
 * trailing bytes other than whitespace, nesting at most WH_JSON_MAX_DEPTH,
 * no NUL bytes. On success *out holds the value, released when p is
 * cleared. Returns NULL or why the body is not JSON. */
const char *wh_json_tree_parse(apr_pool_t *p, const char *buf, apr_size_t len,
                               json_object **out);

#endif
