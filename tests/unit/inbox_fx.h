#ifndef INBOX_FX_H
#define INBOX_FX_H
/* The inbox suites' fixture (test_inbox*.c): a fresh SQLite file in a
 * temp directory, or, with ix_use_pg set, a scratch PostgreSQL database
 * named by WH_TEST_PG_CONNINFO, or, with ix_use_mysql set, a scratch
 * MariaDB database named by WH_TEST_MYSQL_CONNINFO (apr_dbd's mysql
 * parameters), whose tables are dropped first. */
#include "wh_test.h"
#include "inbox/wh_inbox.h"
#include "inbox/wh_inbox_sql.h"
#include <apr_dbd.h>

/* Which engine the current case runs on (set by the suite wrappers):
 * SQLite unless one of these is set. */
extern int ix_use_pg;
extern int ix_use_mysql;
/* The engine's own SQL for a test's query: SQLite's, PostgreSQL's or
 * MySQL's (the raw connections of this fixture let MySQL read || as
 * concatenation, as the others do). */
#define IX_SQL(sq, pg, my) (ix_use_mysql ? (my) : ix_use_pg ? (pg) : (sq))

/* X-macro helpers for suites that run each case test_<name> on both
 * engines: CASES(IX_SQ_WRAP) and CASES(IX_PG_WRAP) define sq_<name> and
 * pg_<name>; IX_SQ_ROW / IX_PG_ROW are their wh_test_case rows. */
#define IX_SQ_WRAP(name, title)                                               \
    static void sq_##name(void) { ix_use_pg = 0; test_##name(); }
#define IX_PG_WRAP(name, title)                                               \
    static void pg_##name(void) { ix_use_pg = 1; test_##name(); ix_use_pg = 0; }
#define IX_MY_WRAP(name, title)                                               \
    static void my_##name(void) { ix_use_mysql = 1; test_##name(); ix_use_mysql = 0; }
#define IX_SQ_ROW(name, title) { title, sq_##name },
#define IX_PG_ROW(name, title) { title, pg_##name },
#define IX_MY_ROW(name, title) { title, my_##name },

typedef struct {
    const char *dir;
    const char *path;
    wh_config *cfg;
    wh_inbox *ib;
    char log[8192];
} fx;

void ix_capture_log(void *baton, wh_log_level level, const char *msg);
/* A fresh database, not opened yet. */
fx *ix_make(void);
wh_inbox *ix_open_in(fx *f, apr_pool_t *p);
/* A fresh database, opened in the test pool. */
fx *ix_opened(void);
wh_facts ix_facts(const char *id, const char *payment, const char *status);
/* A canonical notificationId from a number. */
const char *ix_nid(int i);
/* A body whose bytes would not survive re-serialization. */
const char *ix_body(const char *id, const char *payment, const char *status);
wh_inbox_result ix_store(fx *f, const char *id, const char *payment,
                         const char *status, apr_int64_t *seq);
const char *ix_list(fx *f, apr_int64_t offset, int limit, const char *payment,
                    const char *status);

typedef struct {
    int n;
    const char *ids[128];
    const char *offset;
    int more;
} page;
page ix_parse_page(const char *json);

/* A second, independent connection for inspecting or locking. */
apr_dbd_t *ix_raw_open(fx *f, const apr_dbd_driver_t **drv);
const char *ix_raw_value(const apr_dbd_driver_t *drv, apr_dbd_t *h, const char *sql);
/* The first cell of sql on a connection of its own, or NULL. */
const char *ix_query(fx *f, const char *sql);
/* Runs sql on a connection of its own; 0 or the driver's error. */
int ix_exec(fx *f, const char *sql);

#endif
