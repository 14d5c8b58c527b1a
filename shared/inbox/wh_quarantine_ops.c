/* Reading the quarantine, checking a quarantined body again with the
 * configuration of today, and what an operator does with one: release,
 * discard, acknowledge. */
#include "wh_quarantine_ops.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include "verify/wh_schema.h"

#include <apr_escape.h>
#include <json-c/json.h>
#include <apr_strings.h>
#include <string.h>

#define WH_Q_COLS                                                             \
    "SELECT id, received_at, code, message, details, notification_id,"        \
    " released_at, released_event_id, resolution, resolved_at, resolved_by,"  \
    " length(body)"
#define WH_Q_COLS_PG                                                          \
    "SELECT id, received_at, code, message, details, notification_id,"        \
    " released_at, released_event_id, resolution, resolved_at, resolved_by,"  \
    " octet_length(body)"
#define WH_Q_NCOLS 12
#define WH_Q_SQL_LIST                                                         \
    " FROM wh_quarantine WHERE id > %lld ORDER BY id LIMIT %d"
/* Newest first from before (2^63 - 1: the newest): the key's range. */
#define WH_Q_SQL_NEWEST " FROM wh_quarantine WHERE id < %lld"
#define WH_Q_SQL_HELD " AND released_at IS NULL AND resolved_at IS NULL"
#define WH_Q_SQL_DESC " ORDER BY id DESC LIMIT %d"
/* The body is a blob: as hex, the one form both engines give as text. */
#define WH_Q_SQL_GET WH_Q_COLS ", hex(body) FROM wh_quarantine WHERE id = %lld"
#define WH_Q_SQL_GET_PG                                                       \
    WH_Q_COLS_PG ", encode(body, 'hex') FROM wh_quarantine WHERE id = %lld"

/* MySQL reads SQLite's text: length() and hex() of a blob count and
 * spell bytes there too. */
static const wh_inbox_stmt st_list = {
    WH_Q_COLS WH_Q_SQL_LIST, WH_Q_COLS_PG WH_Q_SQL_LIST, NULL };
static const wh_inbox_stmt st_newest = {
    WH_Q_COLS WH_Q_SQL_NEWEST WH_Q_SQL_DESC, WH_Q_COLS_PG WH_Q_SQL_NEWEST WH_Q_SQL_DESC,
    NULL };
static const wh_inbox_stmt st_newest_held = {
    WH_Q_COLS WH_Q_SQL_NEWEST WH_Q_SQL_HELD WH_Q_SQL_DESC,
    WH_Q_COLS_PG WH_Q_SQL_NEWEST WH_Q_SQL_HELD WH_Q_SQL_DESC, NULL };
static const wh_inbox_stmt st_get = { WH_Q_SQL_GET, WH_Q_SQL_GET_PG, NULL };
/* The bodies of a JSON array of ids, those small enough to check again. */
static const wh_inbox_stmt st_bodies = {
    "SELECT id, hex(body) FROM wh_quarantine WHERE id IN"
    " (" WH_SQL_IDS ") AND length(body) <= %d",
    "SELECT id, encode(body, 'hex') FROM wh_quarantine WHERE id IN"
    " (" WH_SQL_IDS_PG ") AND octet_length(body) <= %d",
    "SELECT id, hex(body) FROM wh_quarantine WHERE id IN"
    " (" WH_SQL_IDS_MY ") AND length(body) <= %d" };
static const wh_inbox_stmt st_event_of = {
    "SELECT id FROM wh_events WHERE notification_id = %s", NULL, NULL };
/* Only a row still in quarantine: the first release wins. */
static const wh_inbox_stmt st_mark = {
    "UPDATE wh_quarantine SET released_at = %lld, released_event_id = %lld"
    " WHERE id = %lld AND released_at IS NULL", NULL, NULL };
/* Only a held row (an acknowledged one may still be discarded). */
static const wh_inbox_stmt st_acknowledge = {
    "UPDATE wh_quarantine SET resolution = 'acknowledged', resolved_at = %lld,"
    " resolved_by = %s WHERE id = %lld AND released_at IS NULL"
    " AND resolved_at IS NULL", NULL, NULL };
static const wh_inbox_stmt st_discard = {
    "UPDATE wh_quarantine SET resolution = 'discarded', resolved_at = %lld,"
    " resolved_by = %s, body = X'' WHERE id = %lld AND released_at IS NULL"
    " AND (resolution IS NULL OR resolution = 'acknowledged')",
    "UPDATE wh_quarantine SET resolution = 'discarded', resolved_at = %lld,"
    " resolved_by = %s, body = ''::bytea WHERE id = %lld AND released_at IS NULL"
    " AND (resolution IS NULL OR resolution = 'acknowledged')", NULL };

static void row(const wh_inbox_rows *r, int i, wh_quarantined *q)
{
    memset(q, 0, sizeof(*q));
    q->id = wh_cell_num(WH_ROW_CELL(r, i, 0));
    q->received_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(r, i, 1));
    q->code = WH_ROW_CELL(r, i, 2);
    q->message = wh_cell_opt(WH_ROW_CELL(r, i, 3));
    q->details = WH_ROW_CELL(r, i, 4);
    q->notification_id = wh_cell_opt(WH_ROW_CELL(r, i, 5));
    q->released_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(r, i, 6));
    q->released_event_id = wh_cell_num(WH_ROW_CELL(r, i, 7));
    q->resolution = wh_cell_opt(WH_ROW_CELL(r, i, 8));
    q->resolved_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(r, i, 9));
    q->resolved_by = wh_cell_opt(WH_ROW_CELL(r, i, 10));
    q->stored_len = (apr_size_t)wh_cell_num(WH_ROW_CELL(r, i, 11));
    q->releasable = -1;
}

const char *wh_quarantine_first_problem(apr_pool_t *p, const wh_quarantined *q)
{
    json_object *arr = q->details ? json_tokener_parse(q->details) : NULL, *f = NULL, *pr = NULL;
    const char *out = q->message;

    if (arr && json_object_is_type(arr, json_type_array) && json_object_array_length(arr) > 0) {
        json_object *first = json_object_array_get_idx(arr, 0);
        json_object_object_get_ex(first, "field", &f);
        json_object_object_get_ex(first, "problem", &pr);
        if (pr)
            out = apr_pstrcat(p, f && *json_object_get_string(f) ? json_object_get_string(f)
                                                                 : "/",
                              ": ", json_object_get_string(pr), NULL);
    }
    if (arr)
        json_object_put(arr);
    return out;
}

int wh_quarantine_list(wh_inbox *ib, apr_pool_t *p, apr_int64_t after_id, int limit,
                       apr_array_header_t **rows)
{
    const void *args[2] = { &after_id, &limit };
    wh_inbox_rows found;

    *rows = apr_array_make(p, 8, sizeof(wh_quarantined));
    if (wh_inbox_db_query(ib, p, "quarantine list", &st_list, args, limit, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++)
        row(&found, i, apr_array_push(*rows));
    return 0;
}

int wh_quarantine_newest(wh_inbox *ib, apr_pool_t *p, apr_int64_t before_id,
                         int held_only, int limit, apr_array_header_t **rows)
{
    apr_int64_t before = before_id > 0 ? before_id : APR_INT64_MAX;
    const void *args[2] = { &before, &limit };
    wh_inbox_rows found;

    *rows = apr_array_make(p, 8, sizeof(wh_quarantined));
    if (wh_inbox_db_query(ib, p, "quarantine list", held_only ? &st_newest_held : &st_newest,
                          args, limit, &found) != 0)
        return -1;
    for (int i = 0; i < found.nrows; i++)
        row(&found, i, apr_array_push(*rows));
    return 0;
}

/* The blob's hex (what both engines give as text) back to its bytes,
 * NUL-terminated for convenience; len counts the bytes, NULs included. */
static int unhex(apr_pool_t *p, const char *hex, const char **out, apr_size_t *len)
{
    apr_size_t n = hex ? strlen(hex) : 0;
    char *b = apr_palloc(p, n / 2 + 1);

    *len = 0;
    if (n && apr_unescape_hex(b, hex, (apr_ssize_t)n, 0, len) != APR_SUCCESS)
        return -1;
    b[*len] = '\0';
    *out = b;
    return 0;
}

int wh_quarantine_get(wh_inbox *ib, apr_pool_t *p, apr_int64_t id,
                      wh_quarantined *out)
{
    const void *args[1] = { &id };
    wh_inbox_rows found;

    if (wh_inbox_db_query(ib, p, "quarantine show", &st_get, args, 1, &found) != 0)
        return -1;
    if (!found.nrows)
        return 0;
    row(&found, 0, out);
    return unhex(p, WH_ROW_CELL(&found, 0, WH_Q_NCOLS), &out->body, &out->body_len) == 0
               ? 1 : -1;
}

int wh_quarantine_recheck(wh_inbox *ib, apr_pool_t *p, const wh_config *cfg,
                          apr_array_header_t *rows)
{
    apr_int64_t *held = apr_palloc(p, sizeof(*held) * (apr_size_t)(rows->nelts + 1));
    int n = 0, max = WH_QUARANTINE_RECHECK_MAX;
    const char *ids;
    wh_inbox_rows found;

    for (int i = 0; i < rows->nelts; i++) {
        const wh_quarantined *q = &APR_ARRAY_IDX(rows, i, wh_quarantined);
        if (WH_QUARANTINE_HELD(q))
            held[n++] = q->id;
    }
    if (!n)
        return 0;
    ids = wh_cell_ids(p, held, n);
    {
        const void *args[2] = { ids, &max };
        if (wh_inbox_db_query(ib, p, "quarantine bodies", &st_bodies, args, n, &found) != 0)
            return -1;
    }
    for (int k = 0; k < found.nrows; k++) {
        apr_int64_t id = wh_cell_num(WH_ROW_CELL(&found, k, 0));
        const char *body;
        apr_size_t len;
        if (unhex(p, WH_ROW_CELL(&found, k, 1), &body, &len) != 0)
            continue;
        for (int i = 0; i < rows->nelts; i++) {
            wh_quarantined *q = &APR_ARRAY_IDX(rows, i, wh_quarantined);
            wh_verdict v;
            if (q->id != id)
                continue;
            wh_quarantine_check(p, cfg, body, len, &v);
            q->releasable = v.ok;
        }
    }
    return 0;
}

typedef struct {
    apr_int64_t id, at;
    const char *by, *resolution;
    int n;
} resolve_ctx;

static int resolve(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    resolve_ctx *c = baton;
    const void *args[3] = { &c->at, c->by, &c->id };
    int discard = strcmp(c->resolution, WH_QUARANTINE_DISCARD) == 0, rv;

    if ((rv = wh_inbox_db_exec(ib, p, discard ? &st_discard : &st_acknowledge, &c->n,
                               args)) != 0)
        return wh_inbox_db_fail(ib, p, discard ? "discarding a quarantined body"
                                               : "acknowledging a quarantined body", rv);
    return WH_TXN_COMMIT;
}

wh_resolve_result wh_quarantine_resolve(wh_inbox *ib, apr_pool_t *p, apr_int64_t id,
                                        const char *resolution, const char *by,
                                        apr_time_t now)
{
    resolve_ctx c = { id, (apr_int64_t)now, by ? by : "-", resolution, 0 };
    wh_quarantined q;
    int found;

    if (!resolution || (strcmp(resolution, WH_QUARANTINE_DISCARD) != 0
                        && strcmp(resolution, WH_QUARANTINE_ACKNOWLEDGE) != 0))
        return WH_RESOLVE_UNAVAILABLE;
    if (wh_inbox_db_txn(ib, p, "quarantine resolution", resolve, &c) != WH_DB_OK)
        return WH_RESOLVE_UNAVAILABLE;
    if (c.n)
        return WH_RESOLVE_DONE;
    found = wh_quarantine_get(ib, p, id, &q);
    return found < 0 ? WH_RESOLVE_UNAVAILABLE : found ? WH_RESOLVE_NOT_HELD
                                                      : WH_RESOLVE_NOT_FOUND;
}

void wh_quarantine_check(apr_pool_t *p, const wh_config *cfg, const char *body,
                         apr_size_t len, wh_verdict *v)
{
    wh_schema_opts opts = { cfg->unknown_status_reject };
    const char *why;
    int problems;

    wh_verdict_init(v, p);
    problems = wh_schema_check(p, body ? body : "", len, &opts, v->details,
                               &v->facts, &why);
    if (problems == WH_SCHEMA_NOT_JSON) {
        wh_verdict_fail(v, 400, WH_CODE_INVALID_JSON, why);
        return;
    }
    if (problems > 0) {
        wh_verdict_fail(v, 400, WH_CODE_SCHEMA_VIOLATION,
                        "the notification does not match the schema");
        return;
    }
    v->ok = 1;
    v->status = 200;
    v->code = WH_CODE_ACCEPTED;
}

typedef struct {
    apr_int64_t id, event_id, at;
    const char *nid;
    int marked;
} mark_ctx;

static int mark(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    mark_ctx *m = baton;
    const void *a1[1] = { m->nid };
    const void *a2[3] = { &m->at, &m->event_id, &m->id };
    const char *v = NULL;
    int rv;

    if ((rv = wh_inbox_db_value(ib, p, &st_event_of, a1, &v)) != 0)
        return wh_inbox_db_fail(ib, p, "finding the released event", rv);
    /* a tombstone (wh_inbox_sql.h): the purged event it stands for */
    m->event_id = wh_cell_num(v) < 0 ? -wh_cell_num(v) : wh_cell_num(v);
    if (m->event_id <= 0)
        return wh_inbox_db_fail(ib, p, "finding the released event", -1);
    if ((rv = wh_inbox_db_exec(ib, p, &st_mark, &m->marked, a2)) != 0)
        return wh_inbox_db_fail(ib, p, "marking the quarantine row released", rv);
    return WH_TXN_COMMIT;
}

wh_release_result wh_quarantine_release(wh_inbox *ib, apr_pool_t *p,
                                        const wh_config *cfg, apr_int64_t id,
                                        apr_time_t now, wh_verdict *v,
                                        apr_int64_t *event_id)
{
    wh_quarantined q;
    mark_ctx m;
    wh_inbox_result stored;
    int found = wh_quarantine_get(ib, p, id, &q);

    *event_id = 0;
    wh_verdict_init(v, p);
    if (found < 0)
        return WH_RELEASE_UNAVAILABLE;
    if (!found)
        return WH_RELEASE_NOT_FOUND;
    if (q.released_at) {
        *event_id = q.released_event_id;
        return WH_RELEASE_ALREADY;
    }
    if (q.resolution && strcmp(q.resolution, WH_QUARANTINE_DISCARD) == 0)
        return WH_RELEASE_DISCARDED;
    wh_quarantine_check(p, cfg, q.body, q.body_len, v);
    if (!v->ok)
        return WH_RELEASE_INVALID;
    memset(&m, 0, sizeof(m));
    m.id = id;
    m.at = (apr_int64_t)now;
    m.nid = v->facts.notification_id;
    /* The inbox's own store, then the mark. A crash between the two leaves
     * the row in quarantine with its event stored: releasing it again finds
     * the notificationId there and only marks it. */
    stored = wh_inbox_store(ib, p, &v->facts, q.body, q.body_len, now, NULL);
    if (stored != WH_INBOX_STORED && stored != WH_INBOX_DUPLICATE)
        return WH_RELEASE_UNAVAILABLE;
    if (wh_inbox_db_txn(ib, p, "quarantine release", mark, &m) != WH_DB_OK)
        return WH_RELEASE_UNAVAILABLE;
    *event_id = m.event_id;
    if (!m.marked)
        return WH_RELEASE_ALREADY;
    return stored == WH_INBOX_STORED ? WH_RELEASE_STORED : WH_RELEASE_DUPLICATE;
}
