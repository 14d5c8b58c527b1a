#ifndef WH_FWD_DB_H
#define WH_FWD_DB_H
/* The database calls of the delivery, payment and quarantine code: run a
 * function inside a transaction (or a read) on the inbox's database, and
 * prepared statements with apr_dbd's placeholders (%s %d %lld), the same
 * text on SQLite and PostgreSQL unless an engine-specific one is chosen
 * with wh_fwd_db_pg(). Rows come back as arrays of column strings in the
 * caller's pool (NULL for SQL NULL). */
#include <apr_pools.h>
#include <apr_tables.h>
#include "wh_inbox.h"

typedef struct wh_fwd_db wh_fwd_db;

typedef int (*wh_fwd_db_fn)(wh_fwd_db *db, apr_pool_t *p, void *baton);

/* Runs fn in a write transaction (SQLite: BEGIN IMMEDIATE, so writers
 * queue at the start; PostgreSQL: BEGIN) and commits when it returns 0;
 * rolls back otherwise. durable 0: PostgreSQL may acknowledge the commit
 * before it reaches the disk (SET LOCAL synchronous_commit = off): for
 * state that a crash may only roll back into something redone (a lease,
 * a result that then is delivered again), never lose. Returns fn's
 * result, or -1 when the database failed. */
int wh_fwd_db_write(wh_inbox *ib, apr_pool_t *p, int durable, wh_fwd_db_fn fn,
                    void *baton);
/* Runs fn outside a transaction: each statement sees what is committed. */
int wh_fwd_db_read(wh_inbox *ib, apr_pool_t *p, wh_fwd_db_fn fn, void *baton);

int wh_fwd_db_pg(const wh_fwd_db *db);

/* One statement; *nrows (may be NULL) the rows it changed. 0 or -1. */
int wh_fwd_db_exec(wh_fwd_db *db, apr_pool_t *p, const char *sql, int *nrows,
                   const void **args);
/* One query: *rows is an array of (const char **), ncols columns each. */
int wh_fwd_db_select(wh_fwd_db *db, apr_pool_t *p, const char *sql,
                     const void **args, int ncols, apr_array_header_t **rows);
/* The first column of the first row (NULL when none) of a query. */
int wh_fwd_db_value(wh_fwd_db *db, apr_pool_t *p, const char *sql,
                    const void **args, const char **out);

/* Runs the listing sequencer (PostgreSQL: numbers committed events in
 * wh_pending into wh_order) so that a read in wh_order sees every
 * committed event. */
int wh_fwd_db_sequence(wh_inbox *ib, apr_pool_t *p);

/* Until the inbox's own internal API is there (storage-v3.md): gives ib
 * a connection of the delivery code's own, from cfg. */
const char *wh_fwd_db_bind(apr_pool_t *p, wh_inbox *ib, const wh_config *cfg,
                           const wh_logger *log);

#endif
