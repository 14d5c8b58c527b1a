/* The inbox's versioned schema: created on first use, upgraded in place
 * (in one transaction) when an older wirehook made it, refused when a
 * newer one did. Runs on a fresh connection, mutex held
 * (wh_inbox_conn.c). */
#include "wh_inbox_db.h"
#include "wh_inbox_refs.h"
#include "wh_inbox_sql.h"
#include "verify/wh_datetime.h"
#include <apr_strings.h>
#include <string.h>

/* Schema creation can race another process doing the same (PostgreSQL
 * reports a duplicate catalog row to the loser); the loser re-reads the
 * version and finds the winner's tables. */
#define WH_SCHEMA_ATTEMPTS 5

static const char *const upgrade_v2[] = { WH_SQL_UPGRADE_V2 };
static const wh_schema_step schema_v3[] = { WH_SQL_SCHEMA_V3 };
static const wh_schema_step upgrade_v3_move[] = { WH_SQL_UPGRADE_V3_MOVE };
static const wh_schema_step upgrade_v3_finish[] = { WH_SQL_UPGRADE_V3_FINISH };
static const wh_schema_step upgrade_v4[] = { WH_SQL_UPGRADE_V4 };
static const wh_schema_step upgrade_v5[] = { WH_SQL_V5 };
static const wh_schema_step upgrade_v5_done[] = { WH_SQL_V5_DONE };
static const char *const schema_mysql[] = { WH_SQL_SCHEMA_MYSQL };

static const wh_inbox_stmt st_bump = {
    "UPDATE wh_counter SET last_value = last_value + 1 WHERE id = %d", NULL, NULL };
static const wh_inbox_stmt st_counter = {
    "SELECT last_value FROM wh_counter WHERE id = %d", NULL, NULL };
static const wh_inbox_stmt st_times = {
    "SELECT id, event_time FROM wh_events WHERE id > %lld"
    " AND event_time IS NOT NULL ORDER BY id LIMIT %d", NULL, NULL };
static const wh_inbox_stmt st_set_instant = {
    "UPDATE wh_events SET event_instant = %lld WHERE id = %lld", NULL, NULL };

static int read_version(wh_inbox *ib, apr_pool_t *p, apr_int64_t *version)
{
    const char *v = NULL;
    int rv = wh_inbox_db_sql_value(ib, p, WH_SQL_SCHEMA_VERSION, &v);
    if (rv != 0)
        return rv;
    *version = v ? apr_atoi64(v) : 0;
    return 0;
}

static int run_steps(wh_inbox *ib, apr_pool_t *p, const wh_schema_step *steps,
                     apr_size_t n)
{
    int pg = wh_inbox_db_engine(ib) == WH_INBOX_PGSQL, rv = 0;

    for (apr_size_t i = 0; rv == 0 && i < n; i++) {
        const char *sql = pg ? steps[i].pg : steps[i].sqlite;
        /* setval answers a row: a query on PostgreSQL's simple protocol
         * takes it as well as a statement */
        if (sql)
            rv = strncmp(sql, "SELECT", 6) == 0 ? wh_inbox_db_sql_value(ib, p, sql, NULL)
                                                : wh_inbox_db_sql(ib, sql);
    }
    return rv;
}

/* eventDateTime as an instant for every stored event, parsed by the same
 * code as the schema check (the store fills it for new events). */
static int set_instant(wh_inbox *ib, apr_pool_t *p, const wh_inbox_rows *rows, int i,
                       void *baton)
{
    const char *id = WH_ROW_CELL(rows, i, 0), *t = WH_ROW_CELL(rows, i, 1);
    apr_int64_t key = id ? apr_atoi64(id) : 0, us;
    const void *set[2] = { &us, &key };
    int n = 0;

    (void)baton;
    if (t && wh_datetime_parse(t, strlen(t), &us) == 0)
        return wh_inbox_db_exec(ib, p, &st_set_instant, &n, set);
    return 0;
}

static int fill_instants(wh_inbox *ib, apr_pool_t *p)
{
    return wh_inbox_db_walk(ib, p, &st_times, set_instant, NULL);
}

#define STEPS(a) (a), sizeof(a) / sizeof((a)[0])

/* Brings a database of version `from` (0: nothing yet) to the current
 * version inside the open transaction: a new one is made as version 3
 * was and then goes the same way as every older one. */
static int upgrade(wh_inbox *ib, apr_pool_t *p, apr_int64_t from)
{
    int rv = 0;

    if (from == 0) {
        rv = run_steps(ib, p, STEPS(schema_v3));
    } else if (from < 3) {
        if (from < 2)
            for (apr_size_t i = 0; rv == 0 && i < sizeof(upgrade_v2) / sizeof(upgrade_v2[0]); i++)
                rv = wh_inbox_db_sql(ib, upgrade_v2[i]);
        if (rv == 0)
            rv = run_steps(ib, p, STEPS(upgrade_v3_move));
        if (rv == 0)
            rv = fill_instants(ib, p);
        if (rv == 0)
            rv = run_steps(ib, p, STEPS(upgrade_v3_finish));
    }
    if (rv == 0 && from < 4)
        rv = run_steps(ib, p, STEPS(upgrade_v4));
    if (rv == 0)
        rv = run_steps(ib, p, STEPS(upgrade_v5));
    if (rv == 0 && from > 0)
        rv = wh_inbox_refs_fill(ib, p);
    if (rv == 0)
        rv = run_steps(ib, p, STEPS(upgrade_v5_done));
    return rv;
}

/* MySQL: DDL commits by itself, so no transaction holds the schema
 * together; each statement is idempotent and the version row comes last
 * (wh_inbox_sql.h), so processes making it at once, or one that stopped
 * half-way, leave the same schema. */
static wh_conn_status ensure_mysql(wh_inbox *ib, apr_pool_t *p, apr_int64_t version,
                                   const char **why)
{
    int rv = 0;

    if (version > 0) {
        *why = apr_psprintf(p, "the database has schema version %" APR_INT64_T_FMT
                            ", which no wirehook makes on MySQL", version);
        return WH_CONN_FATAL;
    }
    for (apr_size_t i = 0; rv == 0 && i < sizeof(schema_mysql) / sizeof(schema_mysql[0]);
         i++)
        rv = wh_inbox_db_sql(ib, schema_mysql[i]);
    if (rv == 0 && (rv = read_version(ib, p, &version)) == 0
        && version == WH_INBOX_SCHEMA_VERSION)
        return WH_CONN_OK;
    *why = apr_psprintf(p, "creating the schema: %s", rv ? wh_inbox_db_error(ib, p, rv)
                                                         : "the version row is missing");
    return WH_CONN_DOWN;
}

wh_conn_status wh_inbox_schema_ensure(wh_inbox *ib, apr_pool_t *p, int readonly,
                                      const char **why)
{
    int pg = wh_inbox_db_engine(ib) == WH_INBOX_PGSQL, rv = 0;

    for (int attempt = 0; attempt < WH_SCHEMA_ATTEMPTS; attempt++) {
        apr_int64_t version = 0;

        if (read_version(ib, p, &version) == 0) {
            if (version == WH_INBOX_SCHEMA_VERSION)
                return WH_CONN_OK;
            if (version > WH_INBOX_SCHEMA_VERSION) {
                *why = apr_psprintf(p, "the database has schema version %"
                                    APR_INT64_T_FMT ", newer than this "
                                    "wirehook (%d)", version,
                                    WH_INBOX_SCHEMA_VERSION);
                return WH_CONN_FATAL;
            }
        }
        if (readonly) {
            /* Never created or upgraded by a reader. */
            *why = version ? "the schema is older than this wirehook's (read-only)"
                           : "no inbox schema yet (read-only)";
            return WH_CONN_DOWN;
        }
        if (wh_inbox_db_engine(ib) == WH_INBOX_MYSQL)
            return ensure_mysql(ib, p, version, why);
        if (attempt == WH_SCHEMA_ATTEMPTS - 1)
            break;
        if (attempt > 0)
            apr_sleep(apr_time_from_msec(50 * attempt));
        /* One transaction, so a half-made schema is never seen. SQLite's
         * BEGIN IMMEDIATE and PostgreSQL's advisory lock let one process
         * at a time in; the version is then read again in there, since
         * another may have finished first. */
        if (wh_inbox_db_writer_lock(ib, p) != 0)
            return WH_CONN_DOWN;
        if ((rv = wh_inbox_db_sql(ib, pg ? "BEGIN" : "BEGIN IMMEDIATE")) != 0) {
            wh_inbox_db_writer_unlock(ib);
            continue;
        }
        if (pg)
            rv = wh_inbox_db_sql_value(ib, p, "SELECT pg_advisory_xact_lock("
                                       WH_PG_LOCK_SCHEMA ")", NULL);
        /* version 0: no wh_meta, whose SELECT would abort a PostgreSQL
         * transaction; creating is idempotent (IF NOT EXISTS) anyway */
        if (rv == 0 && version > 0)
            rv = read_version(ib, p, &version);
        /* a migration of a large inbox may take longer than any statement
         * of the running inbox: it runs, once, as long as it needs */
        if (rv == 0 && pg && version > 0 && version < WH_INBOX_SCHEMA_VERSION) {
            wh_inbox_db_unwatched(ib);
            rv = wh_inbox_db_sql(ib, "SET LOCAL statement_timeout = 0");
        }
        if (rv == 0 && version < WH_INBOX_SCHEMA_VERSION)
            rv = upgrade(ib, p, version);
        if (rv == 0)
            rv = wh_inbox_db_sql(ib, "COMMIT");
        if (rv != 0) {
            *why = apr_psprintf(p, "creating the schema: %s", wh_inbox_db_error(ib, p, rv));
            (void)wh_inbox_db_sql(ib, "ROLLBACK");
        }
        wh_inbox_db_writer_unlock(ib);
        if (rv == 0) {
            if (version > 0 && version < WH_INBOX_SCHEMA_VERSION)
                wh_logf(wh_inbox_db_log(ib), WH_LOG_INFO, "inbox: %s database upgraded "
                        "from schema version %" APR_INT64_T_FMT " to %d",
                        wh_inbox_db_driver_name(ib), version, WH_INBOX_SCHEMA_VERSION);
        }
    }
    if (!*why)
        *why = apr_psprintf(p, "creating the schema: %s", wh_inbox_db_error(ib, p, rv));
    return WH_CONN_DOWN;
}

/* The UPDATE takes the row lock that orders writers on PostgreSQL. */
int wh_inbox_counter_next(wh_inbox *ib, apr_pool_t *p, int which, apr_int64_t *out)
{
    const void *args[1] = { &which };
    const char *v = NULL;
    int nrows = 0, rv;

    if ((rv = wh_inbox_db_exec(ib, p, &st_bump, &nrows, args)) != 0)
        return rv;
    if (nrows != 1)
        return -1;   /* counter row missing: schema damaged */
    if ((rv = wh_inbox_db_value(ib, p, &st_counter, args, &v)) != 0)
        return rv;
    if (!v || !*v)
        return -1;
    *out = apr_atoi64(v);
    return *out > 0 ? 0 : -1;
}
