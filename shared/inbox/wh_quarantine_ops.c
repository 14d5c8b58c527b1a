/* Reading the quarantine, and checking a quarantined body again with the
 * configuration of today. */
#include "wh_quarantine_ops.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include "verify/wh_schema.h"

#include <apr_escape.h>
#include <apr_strings.h>
#include <string.h>

#define WH_Q_COLS                                                             \
    "SELECT id, received_at, code, message, details, notification_id,"        \
    " released_at, released_event_id"
#define WH_Q_SQL_LIST                                                         \
    WH_Q_COLS " FROM wh_quarantine WHERE id > %lld ORDER BY id LIMIT %d"
/* The body is a blob: as hex, the one form both engines give as text. */
#define WH_Q_SQL_GET WH_Q_COLS ", hex(body) FROM wh_quarantine WHERE id = %lld"
#define WH_Q_SQL_GET_PG                                                       \
    WH_Q_COLS ", encode(body, 'hex') FROM wh_quarantine WHERE id = %lld"

static const wh_inbox_stmt st_list = { WH_Q_SQL_LIST, NULL, NULL };
static const wh_inbox_stmt st_get = { WH_Q_SQL_GET, WH_Q_SQL_GET_PG, NULL };
static const wh_inbox_stmt st_event_of = {
    "SELECT id FROM wh_events WHERE notification_id = %s", NULL, NULL };
/* Only a row still in quarantine: the first release wins. */
static const wh_inbox_stmt st_mark = {
    "UPDATE wh_quarantine SET released_at = %lld, released_event_id = %lld"
    " WHERE id = %lld AND released_at IS NULL", NULL, NULL };


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
    return unhex(p, WH_ROW_CELL(&found, 0, 8), &out->body, &out->body_len) == 0 ? 1 : -1;
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
    if ((m->event_id = wh_cell_num(v)) <= 0)
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
