/* The inbox's versioned schema: created on first use, upgraded in place
 * when an older wirehook made it, refused when a newer one did. Runs on a
 * fresh connection, mutex held (wh_inbox_conn.c). */
#include "wh_inbox_db.h"
#include "wh_inbox_sql.h"
#include <apr_strings.h>

/* Schema creation can race another process doing the same (PostgreSQL
 * reports a duplicate catalog row to the loser); the loser re-reads the
 * version and finds the winner's tables. */
#define WH_SCHEMA_ATTEMPTS 5

static const char *const schema_v1[] = { WH_SQL_SCHEMA_V1 };
static const char *const upgrade_v2[] = { WH_SQL_UPGRADE_V2 };

static const wh_inbox_stmt st_bump = {
    "UPDATE wh_counter SET last_value = last_value + 1 WHERE id = %d", NULL };
static const wh_inbox_stmt st_counter = {
    "SELECT last_value FROM wh_counter WHERE id = %d", NULL };

static int read_version(wh_inbox *ib, apr_pool_t *p, apr_int64_t *version)
{
    const char *v = NULL;
    int rv = wh_inbox_db_sql_value(ib, p, WH_SQL_SCHEMA_VERSION, &v);
    if (rv != 0)
        return rv;
    *version = v ? apr_atoi64(v) : 0;
    return 0;
}

static int run_all(wh_inbox *ib, const char *const *sql, apr_size_t n)
{
    int rv = 0;
    for (apr_size_t i = 0; rv == 0 && i < n; i++)
        rv = wh_inbox_db_sql(ib, sql[i]);
    return rv;
}

wh_conn_status wh_inbox_schema_ensure(wh_inbox *ib, apr_pool_t *p, const char **why)
{
    int rv = 0;
    const char *begin = wh_inbox_db_engine(ib) == WH_INBOX_SQLITE3 ? "BEGIN IMMEDIATE"
                                                                   : "BEGIN";

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
        if (attempt == WH_SCHEMA_ATTEMPTS - 1)
            break;
        /* Missing or older: create/upgrade in one transaction so a
         * half-made schema is never seen, then loop to re-read the
         * version. */
        if (attempt > 0)
            apr_sleep(apr_time_from_msec(50 * attempt));
        if ((rv = wh_inbox_db_sql(ib, begin)) != 0)
            continue;
        /* A database without version 1 gets it first; every upgrade
         * after it is idempotent (IF NOT EXISTS, a version-guarded
         * UPDATE), so a racing process that upgraded first is harmless. */
        if (version < 1)
            rv = run_all(ib, schema_v1, sizeof(schema_v1) / sizeof(schema_v1[0]));
        if (rv == 0)
            rv = run_all(ib, upgrade_v2, sizeof(upgrade_v2) / sizeof(upgrade_v2[0]));
        if (rv == 0 && (rv = wh_inbox_db_sql(ib, "COMMIT")) == 0)
            continue;
        *why = apr_psprintf(p, "creating the schema: %s", wh_inbox_db_error(ib, p, rv));
        (void)wh_inbox_db_sql(ib, "ROLLBACK");
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
