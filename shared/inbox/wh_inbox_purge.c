/* The purge (wh_inbox_purge.h): a walk over the listing from its start,
 * one transaction per batch, then the tombstones past their retention,
 * the quarantine the same way, the expired auth-cache entries, the space,
 * and the record.
 *
 * Events are taken in listing order, which is arrival order but for
 * events committed in the same moments; the walk stops at the first one
 * young enough to keep, so a purge with nothing due reads one row. A few
 * events a little older than that one may wait for the next purge. The
 * newest event always stays: SQLite gives the next arrival key and
 * position as the largest plus one, and PostgreSQL's sequencer numbers
 * from the largest position, so deleting it would give its numbers out
 * again, and a client paging by offset, or the forwarder's cursor, would
 * miss the events that took them. */
#include "wh_inbox_purge.h"
#include "wh_auth_file.h"
#include "wh_db_cells.h"
#include "wh_inbox_db.h"
#include "wh_inbox_files.h"
#include "wh_inbox_sql.h"
#include "verify/wh_duration.h"
#include <apr_general.h>
#include <apr_strings.h>
#include <string.h>

static const wh_inbox_stmt st_last_seq = {
    "SELECT coalesce(max(seq), 0) FROM wh_order", NULL, NULL };
static const wh_inbox_stmt st_walk = {
    "SELECT o.seq, o.event_id, e.received_at FROM wh_order o"
    " JOIN wh_events e ON e.id = o.event_id"
    " WHERE o.seq > %lld AND o.seq <= %lld ORDER BY o.seq LIMIT %d", NULL, NULL };
static const wh_inbox_stmt st_first_after = {
    "SELECT e.received_at FROM wh_order o JOIN wh_events e ON e.id = o.event_id"
    " WHERE o.seq > %lld ORDER BY o.seq LIMIT 1", NULL, NULL };
static const wh_inbox_stmt st_del_order = {
    "DELETE FROM wh_order WHERE event_id IN (" WH_SQL_IDS ")",
    "DELETE FROM wh_order WHERE event_id IN (" WH_SQL_IDS_PG ")",
    "DELETE FROM wh_order WHERE event_id IN (" WH_SQL_IDS_MY ")" };
/* An event becomes its tombstone: the row stays, so its notificationId
 * stays in the unique index that tells a duplicate (a store of the same
 * id meanwhile, on PostgreSQL, waits for this transaction and then finds
 * it); what it said goes. It moves to its key negated (wh_inbox_sql.h):
 * on SQLite that takes it out of its page, which gives the page back
 * (shrinking a row in place would leave each page nearly empty). */
#define WH_PURGE_TOMBSTONE                                                    \
    "UPDATE wh_events SET id = -id, body = '', event_type = NULL,"            \
    " event_time = NULL, payment_id = NULL, status = NULL,"                   \
    " event_instant = NULL WHERE id > 0 AND id IN ("
static const wh_inbox_stmt st_del_events = {
    WH_PURGE_TOMBSTONE WH_SQL_IDS ")",
    WH_PURGE_TOMBSTONE WH_SQL_IDS_PG ")",
    WH_PURGE_TOMBSTONE WH_SQL_IDS_MY ")" };
/* Tombstones, oldest first: -1, -2, ... */
static const wh_inbox_stmt st_t_walk = {
    "SELECT id, received_at FROM wh_events WHERE id < %lld"
    " ORDER BY id DESC LIMIT %d", NULL, NULL };
static const wh_inbox_stmt st_t_del = {
    "DELETE FROM wh_events WHERE id < %lld AND id >= %lld", NULL, NULL };
static const wh_inbox_stmt st_q_walk = {
    "SELECT id, received_at FROM wh_quarantine WHERE id > %lld"
    " ORDER BY id LIMIT %d", NULL, NULL };
static const wh_inbox_stmt st_q_del = {
    "DELETE FROM wh_quarantine WHERE id > %lld AND id <= %lld", NULL, NULL };
static const wh_inbox_stmt st_auth_del = {
    "DELETE FROM wh_auth_cache WHERE expires <= %lld", NULL, NULL };
static const wh_inbox_stmt st_record = {
    "INSERT INTO wh_purge (id, started_at, finished_at, events, dead_letters,"
    " quarantine, auth_cache) VALUES (1, %lld, %lld, %lld, %lld, %lld, %lld)"
    " ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at,"
    " finished_at = excluded.finished_at, events = excluded.events,"
    " dead_letters = excluded.dead_letters, quarantine = excluded.quarantine,"
    " auth_cache = excluded.auth_cache", NULL,
    "INSERT INTO wh_purge (id, started_at, finished_at, events, dead_letters,"
    " quarantine, auth_cache) VALUES (1, %lld, %lld, %lld, %lld, %lld, %lld)"
    " ON DUPLICATE KEY UPDATE started_at = VALUES(started_at),"
    " finished_at = VALUES(finished_at), events = VALUES(events),"
    " dead_letters = VALUES(dead_letters), quarantine = VALUES(quarantine),"
    " auth_cache = VALUES(auth_cache)" };
static const wh_inbox_stmt st_last_purge = {
    "SELECT started_at, finished_at, events, dead_letters, quarantine,"
    " auth_cache FROM wh_purge WHERE id = 1", NULL, NULL };

typedef enum {
    PHASE_EVENTS = 0,
    PHASE_TOMBSTONES,
    PHASE_QUARANTINE,
    PHASE_AUTH,
    PHASE_SPACE,
    PHASE_RECORD,
    PHASE_DONE
} phase;

struct wh_purge {
    wh_inbox *ib;
    const wh_config *cfg;
    wh_purge_opts o;
    phase at;
    apr_time_t started;
    apr_time_t event_cut;        /* events received before it go; 0: none */
    apr_time_t tombstone_cut;    /* tombstones of events received before it
                                    go; 0: none */
    apr_time_t quarantine_cut;
    apr_time_t dead_cut;         /* dead letters that died before it go */
    apr_int64_t after;           /* the walk's place: position or id */
    int part_done;               /* set by a transaction: the part is over */
    wh_purge_counts n;
};

/* ------------------------------------------------------------ helpers --- */

static apr_time_t cut_of(apr_time_t now, apr_int64_t seconds)
{
    return seconds > 0 ? now - apr_time_from_sec(seconds) : 0;
}

static int finish(const wh_purge *pg)
{
    return pg->o.dry_run ? WH_TXN_ROLLBACK : WH_TXN_COMMIT;
}

/* ------------------------------------------------------------- events --- */

/* The highest position this transaction may take: below the newest
 * event, and (with a forward queue) none it has not taken in. *guarded:
 * the queue set it. */
static int walk_limit(wh_purge *pg, apr_pool_t *p, apr_int64_t *limit, int *guarded)
{
    const char *v = NULL;
    apr_int64_t upto = -1;
    int rv;

    *guarded = 0;
    if (pg->o.guard && (rv = pg->o.guard->limit(pg->o.guard->ctx, pg->ib, p, &upto)) != 0)
        return wh_inbox_db_fail(pg->ib, p, "reading the forward queue's cursor", rv);
    if ((rv = wh_inbox_db_value(pg->ib, p, &st_last_seq, NULL, &v)) != 0)
        return wh_inbox_db_fail(pg->ib, p, "reading the last position", rv);
    *limit = wh_cell_num(v) - 1;
    if (upto >= 0 && upto < *limit) {
        *limit = upto;
        *guarded = 1;
    }
    return 0;
}

/* Whether the event after position `at` is old enough: the walk was held
 * back by the forward queue, not by age. */
static int old_after(wh_purge *pg, apr_pool_t *p, apr_int64_t at, int *old)
{
    const void *args[1] = { &at };
    const char *v = NULL;
    int rv = wh_inbox_db_value(pg->ib, p, &st_first_after, args, &v);

    *old = rv == 0 && v && *v && wh_cell_num(v) < pg->event_cut;
    return rv;
}

/* Deletes the events that go among ids[0..n) (their verdicts in v). */
static int delete_events(wh_purge *pg, apr_pool_t *p, const apr_int64_t *ids, int n,
                         const unsigned char *v)
{
    apr_int64_t *go = apr_palloc(p, sizeof(*go) * (apr_size_t)(n > 0 ? n : 1));
    const void *args[1];
    const char *list;
    int m = 0, dead = 0, rows = 0, rv;

    for (int i = 0; i < n; i++) {
        if (v[i] == WH_PURGE_KEEP) {
            pg->n.kept++;
            continue;
        }
        dead += v[i] == WH_PURGE_GO_DEAD;
        go[m++] = ids[i];
    }
    if (!m)
        return 0;
    list = wh_cell_ids(p, go, m);
    args[0] = list;
    if (pg->o.guard && (rv = pg->o.guard->forget(pg->o.guard->ctx, pg->ib, p, list)) != 0)
        return wh_inbox_db_fail(pg->ib, p, "purging the forward queue's rows", rv);
    if ((rv = wh_inbox_db_exec(pg->ib, p, &st_del_order, &rows, args)) != 0)
        return wh_inbox_db_fail(pg->ib, p, "purging listing positions", rv);
    if ((rv = wh_inbox_db_exec(pg->ib, p, &st_del_events, &rows, args)) != 0)
        return wh_inbox_db_fail(pg->ib, p, "purging events", rv);
    pg->n.events += rows;
    pg->n.dead_letters += dead;
    return 0;
}

static int events_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    wh_purge *pg = baton;
    int batch = pg->o.batch, guarded = 0, young = 0, n = 0, rv;
    apr_int64_t limit = 0, *ids;
    unsigned char *verdict;
    wh_inbox_rows rows;
    const void *args[3];

    (void)ib;
    if ((rv = walk_limit(pg, p, &limit, &guarded)) != 0)
        return rv;
    if (limit <= pg->after) {
        pg->part_done = 1;
        if (guarded && (rv = old_after(pg, p, pg->after > limit ? pg->after : limit,
                                       &pg->n.behind)) != 0)
            return wh_inbox_db_fail(ib, p, "reading the next event", rv);
        return WH_TXN_ROLLBACK;
    }
    args[0] = &pg->after;
    args[1] = &limit;
    args[2] = &batch;
    if ((rv = wh_inbox_db_select(ib, p, &st_walk, args, batch, &rows)) != 0)
        return wh_inbox_db_fail(ib, p, "reading the oldest events", rv);
    ids = apr_palloc(p, sizeof(*ids) * (apr_size_t)(rows.nrows > 0 ? rows.nrows : 1));
    for (int i = 0; i < rows.nrows; i++) {
        if (wh_cell_num(WH_ROW_CELL(&rows, i, 2)) >= pg->event_cut) {
            young = 1;
            break;
        }
        ids[n++] = wh_cell_num(WH_ROW_CELL(&rows, i, 1));
        pg->after = wh_cell_num(WH_ROW_CELL(&rows, i, 0));
    }
    if (young || rows.nrows < batch) {
        pg->part_done = 1;
        if (!young && guarded && (rv = old_after(pg, p, limit, &pg->n.behind)) != 0)
            return wh_inbox_db_fail(ib, p, "reading the next event", rv);
    }
    if (!n)
        return WH_TXN_ROLLBACK;
    verdict = apr_pcalloc(p, (apr_size_t)n);
    memset(verdict, WH_PURGE_GO, (apr_size_t)n);
    if (pg->o.guard && (rv = pg->o.guard->judge(pg->o.guard->ctx, ib, p, wh_cell_ids(p, ids, n),
                                                ids, n, pg->dead_cut, verdict)) != 0)
        return wh_inbox_db_fail(ib, p, "reading the forward queue's states", rv);
    if ((rv = delete_events(pg, p, ids, n, verdict)) != 0)
        return rv;
    return finish(pg);
}

/* ------------------------------------------- tombstones, quarantine --- */

/* A table purged by its keys in arrival order: walk reads (key, arrival)
 * from pg->after on, del deletes the keys in (from, to]. */
typedef struct {
    const wh_inbox_stmt *walk, *del;
    const char *reading, *purging;
} oldest_rows;

/* Rows that arrived before cut go, oldest first, a batch per call; *gone
 * counts them. */
static int oldest_txn(wh_inbox *ib, apr_pool_t *p, wh_purge *pg, const oldest_rows *t,
                      apr_time_t cut, apr_int64_t *gone)
{
    int batch = pg->o.batch, n = 0, rv;
    apr_int64_t from = pg->after, to = pg->after;
    const void *args[2] = { &pg->after, &batch };
    wh_inbox_rows rows;

    if ((rv = wh_inbox_db_select(ib, p, t->walk, args, batch, &rows)) != 0)
        return wh_inbox_db_fail(ib, p, t->reading, rv);
    pg->part_done = rows.nrows < batch;
    for (int i = 0; i < rows.nrows; i++) {
        if (wh_cell_num(WH_ROW_CELL(&rows, i, 1)) >= cut) {
            pg->part_done = 1;
            break;
        }
        to = wh_cell_num(WH_ROW_CELL(&rows, i, 0));
    }
    if (to == from)
        return WH_TXN_ROLLBACK;
    args[0] = &from;
    args[1] = &to;
    if ((rv = wh_inbox_db_exec(ib, p, t->del, &n, args)) != 0)
        return wh_inbox_db_fail(ib, p, t->purging, rv);
    pg->after = to;
    *gone += n;
    return finish(pg);
}

/* Tombstones, as the quarantine's rows: their walk goes -1, -2, ... */
static int tombstones_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    static const oldest_rows t = { &st_t_walk, &st_t_del, "reading the oldest tombstones",
                                   "purging tombstones" };
    wh_purge *pg = baton;
    return oldest_txn(ib, p, pg, &t, pg->tombstone_cut, &pg->n.tombstones);
}

static int quarantine_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    static const oldest_rows t = { &st_q_walk, &st_q_del,
                                   "reading the oldest quarantined bodies",
                                   "purging quarantined bodies" };
    wh_purge *pg = baton;
    return oldest_txn(ib, p, pg, &t, pg->quarantine_cut, &pg->n.quarantine);
}

/* --------------------------------------------------------- auth cache --- */

static int auth_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    wh_purge *pg = baton;
    apr_int64_t now = (apr_int64_t)pg->o.now;
    const void *args[1] = { &now };
    int rows = 0, rv;

    if ((rv = wh_inbox_db_exec(ib, p, &st_auth_del, &rows, args)) != 0)
        return wh_inbox_db_fail(ib, p, "purging the auth cache", rv);
    pg->n.auth_cache += rows;
    return rows ? finish(pg) : WH_TXN_ROLLBACK;
}

/* The -auth file beside an SQLite inbox (wh_auth_file.h). */
static void auth_file(wh_purge *pg, apr_pool_t *p)
{
    const char *db = wh_inbox_sqlite_file(pg->cfg);
    int n = 0, rv;

    if (!db)
        return;
    rv = wh_auth_file_purge(apr_pstrcat(p, db, WH_AUTH_FILE_SUFFIX, NULL), pg->o.now,
                            pg->o.dry_run, &n);
    if (rv != 0)
        wh_logf(wh_inbox_db_log(pg->ib), WH_LOG_WARN, "inbox: purging the auth "
                "cache's file: %s", apr_strerror(APR_FROM_OS_ERROR(rv),
                                                 apr_palloc(p, 120), 120));
    pg->n.auth_cache += n;
}

/* -------------------------------------------------------------- space --- */

/* SQLite: gives up to WH_PURGE_VACUUM_PAGES free pages back (auto_vacuum
 * incremental), and says how many are left. */
static int space_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    wh_purge *pg = baton;
    const char *mode = NULL, *before = NULL, *after = NULL, *size = NULL;
    int rv;

    if ((rv = wh_inbox_db_sql_value(ib, p, "PRAGMA auto_vacuum", &mode)) != 0
        || (rv = wh_inbox_db_sql_value(ib, p, "PRAGMA page_size", &size)) != 0
        || (rv = wh_inbox_db_sql_value(ib, p, "PRAGMA freelist_count", &before)) != 0)
        return wh_inbox_db_fail(ib, p, "reading the free pages", rv);
    pg->n.auto_vacuum = (int)wh_cell_num(mode);
    pg->n.page_size = wh_cell_num(size);
    pg->n.pages_free = wh_cell_num(before);
    if (pg->n.auto_vacuum != 2 || pg->n.pages_free == 0) {
        pg->part_done = 1;
        return WH_TXN_ROLLBACK;
    }
    /* a select, which steps the pragma to its end (one step moves one
     * page) */
    if ((rv = wh_inbox_db_sql_value(ib, p, apr_psprintf(p, "PRAGMA incremental_vacuum(%d)",
                                                         WH_PURGE_VACUUM_PAGES), NULL)) != 0
        || (rv = wh_inbox_db_sql_value(ib, p, "PRAGMA freelist_count", &after)) != 0)
        return wh_inbox_db_fail(ib, p, "giving back free pages", rv);
    pg->n.pages_freed += pg->n.pages_free - wh_cell_num(after);
    pg->part_done = wh_cell_num(after) == 0 || wh_cell_num(after) == pg->n.pages_free;
    pg->n.pages_free = wh_cell_num(after);
    return WH_TXN_COMMIT;
}

/* ------------------------------------------------------------- record --- */

static int record_txn(wh_inbox *ib, apr_pool_t *p, void *baton)
{
    wh_purge *pg = baton;
    apr_int64_t started = (apr_int64_t)pg->started, finished = (apr_int64_t)apr_time_now();
    const void *args[6] = { &started, &finished, &pg->n.events, &pg->n.dead_letters,
                            &pg->n.quarantine, &pg->n.auth_cache };
    int rows = 0, rv;

    if ((rv = wh_inbox_db_exec(ib, p, &st_record, &rows, args)) != 0)
        return wh_inbox_db_fail(ib, p, "recording the purge", rv);
    return WH_TXN_COMMIT;
}

/* -------------------------------------------------------------- steps --- */

wh_purge *wh_purge_begin(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                         const wh_purge_opts *o)
{
    wh_purge *pg = apr_pcalloc(p, sizeof(*pg));

    pg->ib = ib;
    pg->cfg = cfg;
    pg->o = *o;
    if (pg->o.batch < 1)
        pg->o.batch = WH_PURGE_BATCH;
    if (!pg->o.now)
        pg->o.now = apr_time_now();
    pg->started = apr_time_now();
    pg->event_cut = cut_of(pg->o.now, cfg->inbox_retention);
    /* no event goes: no tombstone was left */
    pg->tombstone_cut = pg->event_cut
                        ? cut_of(pg->o.now, cfg->inbox_tombstone_retention) : 0;
    pg->quarantine_cut = cut_of(pg->o.now, cfg->inbox_quarantine_retention);
    /* a dead letter is an event: it goes with the events, never before */
    pg->dead_cut = pg->event_cut ? cut_of(pg->o.now, cfg->inbox_dead_retention) : 0;
    pg->at = pg->event_cut ? PHASE_EVENTS
             : pg->quarantine_cut ? PHASE_QUARANTINE : PHASE_AUTH;
    return pg;
}

/* The part after `at` that has something to do. */
static phase next_phase(const wh_purge *pg, phase at)
{
    for (;;) {
        at++;
        if (at == PHASE_TOMBSTONES && !pg->tombstone_cut)
            continue;
        if (at == PHASE_QUARANTINE && !pg->quarantine_cut)
            continue;
        if (at == PHASE_SPACE && (pg->o.dry_run
                                  || wh_inbox_db_engine(pg->ib) != WH_INBOX_SQLITE3))
            continue;
        if (at == PHASE_RECORD && pg->o.dry_run)
            continue;
        return at;
    }
}

int wh_purge_step(wh_purge *pg, apr_pool_t *p)
{
    static const struct {
        const char *what;
        wh_inbox_fn fn;
    } parts[] = {
        [PHASE_EVENTS] = { "purging events", events_txn },
        [PHASE_TOMBSTONES] = { "purging tombstones", tombstones_txn },
        [PHASE_QUARANTINE] = { "purging the quarantine", quarantine_txn },
        [PHASE_AUTH] = { "purging the auth cache", auth_txn },
        [PHASE_SPACE] = { "giving back free pages", space_txn },
        [PHASE_RECORD] = { "recording the purge", record_txn },
    };
    wh_purge_counts was = pg->n;
    apr_int64_t was_after = pg->after;
    wh_db_outcome out;

    if (pg->at == PHASE_DONE)
        return 0;
    pg->part_done = pg->at == PHASE_AUTH || pg->at == PHASE_RECORD;
    out = wh_inbox_db_txn(pg->ib, p, parts[pg->at].what, parts[pg->at].fn, pg);
    if (out == WH_DB_UNAVAILABLE) {
        /* nothing of it happened: the next step does it again */
        pg->n = was;
        pg->after = was_after;
        return -1;
    }
    pg->n.transactions++;
    if (pg->at == PHASE_AUTH)
        auth_file(pg, p);
    if (pg->part_done) {
        pg->at = next_phase(pg, pg->at);
        pg->after = 0;
    }
    return pg->at == PHASE_DONE ? 0 : 1;
}

const wh_purge_counts *wh_purge_result(const wh_purge *pg)
{
    return &pg->n;
}

int wh_inbox_purge(wh_inbox *ib, apr_pool_t *p, const wh_config *cfg,
                   const wh_purge_opts *o, wh_purge_counts *out)
{
    apr_pool_t *scratch;
    wh_purge *pg;
    int rv;

    if (apr_pool_create(&scratch, p) != APR_SUCCESS)
        return -1;
    pg = wh_purge_begin(p, ib, cfg, o);
    do {
        apr_time_t t0 = apr_time_now();
        apr_interval_time_t took;

        apr_pool_clear(scratch);
        rv = wh_purge_step(pg, scratch);
        /* the writers waiting for the lock go first */
        took = apr_time_now() - t0;
        if (rv > 0)
            apr_sleep(took < 1000 ? 1000 : took > 50000 ? 50000 : took);
    } while (rv > 0);
    apr_pool_destroy(scratch);
    *out = pg->n;
    return rv;
}

int wh_purge_configured(const wh_config *cfg)
{
    return cfg && (cfg->inbox_retention > 0 || cfg->inbox_quarantine_retention > 0);
}

const char *wh_inbox_retention_note(apr_pool_t *p, const wh_config *cfg)
{
    const char *q, *d, *t;

    if (!cfg || !cfg->inbox_params)
        return NULL;
    if (!wh_purge_configured(cfg))
        return "InboxRetention is not set: every event, dead letter and "
               "quarantined body is kept for ever (docs/inbox.md, Retention)";
    q = cfg->inbox_quarantine_retention
        ? wh_format_duration_us(p, apr_time_from_sec(cfg->inbox_quarantine_retention))
        : "for ever";
    d = cfg->inbox_dead_retention
        ? wh_format_duration_us(p, apr_time_from_sec(cfg->inbox_dead_retention))
        : "for ever";
    t = cfg->inbox_tombstone_retention
        ? wh_format_duration_us(p, apr_time_from_sec(cfg->inbox_tombstone_retention))
        : "for ever";
    return apr_psprintf(p, "retention: events %s, dead letters %s, quarantine %s, "
                        "a purged event's notificationId (its tombstone) %s; "
                        "purged by wirehook forward and `wirehook inbox purge`",
                        cfg->inbox_retention
                        ? wh_format_duration_us(p, apr_time_from_sec(cfg->inbox_retention))
                        : "for ever", d, q, t);
}

int wh_inbox_last_purge(wh_inbox *ib, apr_pool_t *p, wh_inbox_purge_record *out)
{
    wh_inbox_rows r;

    memset(out, 0, sizeof(*out));
    if (!ib || wh_inbox_db_query(ib, p, "reading the last purge", &st_last_purge, NULL, 1,
                                 &r) != 0)
        return -1;
    if (r.nrows < 1 || r.ncols < 6)
        return 0;
    out->started_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&r, 0, 0));
    out->finished_at = (apr_time_t)wh_cell_num(WH_ROW_CELL(&r, 0, 1));
    out->events = wh_cell_num(WH_ROW_CELL(&r, 0, 2));
    out->dead_letters = wh_cell_num(WH_ROW_CELL(&r, 0, 3));
    out->quarantine = wh_cell_num(WH_ROW_CELL(&r, 0, 4));
    out->auth_cache = wh_cell_num(WH_ROW_CELL(&r, 0, 5));
    return 1;
}
