#ifndef WH_REPLAY_MYSQL_H
#define WH_REPLAY_MYSQL_H
/* ReplayCache mysql (the inbox's own MySQL or MariaDB database) and
 * mysql:PARAMS, through apr_dbd's mysql driver: a replay store several
 * servers share, for sites that run MySQL or MariaDB anyway.
 *
 * The PostgreSQL store's design (wh_replay_pgsql.h) in MySQL's words. One
 * InnoDB table, wh_replay (id, holder, expires): holder NULL is a
 * delivered id, anything else the token of the delivery claiming it;
 * expires is the end of the window or of the claim's lease in UTC by the
 * database's clock (UTC_TIMESTAMP(6)), so neither the servers' clocks nor
 * a time zone decides who holds an id. A claim is one statement,
 * INSERT ... SELECT ... ON DUPLICATE KEY UPDATE: inserted when the id is
 * absent, taken over when its row has expired, left alone when it is
 * held (the rows it reports say which), and made only while the epoch
 * marker (the row 'wirehook:epoch') is the one the claimant judged by.
 * Renewing and forgetting compare the holder in the statement itself.
 * Every statement touches one row but the purge, which every sixteenth
 * claim of a connection runs: it lists up to 64 expired ids without a
 * lock and deletes them by primary key, in key order like every other
 * statement, so that no two statements wait for each other in a circle.
 *
 * The schema is versioned (wh_replay_meta), created on first use under
 * GET_LOCK (MySQL's DDL commits at once, so the lock, not a transaction,
 * keeps two servers from creating it together); a table created new holds
 * a marker saying "new", one recreated after it was dropped a marker
 * saying "from now". Each session is READ COMMITTED in strict mode, and
 * waits for a row lock (innodb_lock_wait_timeout) and a statement
 * (max_statement_time in MariaDB, max_execution_time in MySQL) two thirds
 * of the store's timeout: a server that runs ends a statement before the
 * pool stops waiting. A confirmed id is durable before the 200 that follows as
 * InnoDB's commits are (innodb_flush_log_at_trx_commit = 1, the default).
 *
 * apr_dbd's mysql driver takes no connect or read timeout, and MariaDB's
 * client waits for a silent server for ever: a connection is opened
 * within the store's timeout (wh_replay_dbd_open.h), and an operation
 * whose server falls silent has its socket shut down by the pool
 * (wh_replay_pool.h), as libpq's is. Connections as wh_replay_redis.h. */
#include "wh_replay_store.h"
#include <apr_dbd.h>

/* The schema version this wirehook writes. */
#define WH_REPLAY_MYSQL_SCHEMA_VERSION 1

/* The parameters a store connects with: params, then what the store
 * needs of the driver whatever params say (no automatic reconnection,
 * which would lose the session's settings and prepared statements; no
 * CLIENT_FOUND_ROWS, since a claim reads the rows a statement changed).
 * In p. */
const char *wh_replay_mysql_params(apr_pool_t *p, const char *params);

/* apr_dbd's mysql driver, with the client library initialised (once, in
 * the calling thread: before any thread connects). NULL, or why not. */
const char *wh_replay_mysql_driver(apr_pool_t *p, const apr_dbd_driver_t **drv);

/* params: apr_dbd's mysql parameters (host, port, user, pass, dbname,
 * sock). NULL or the error (never the parameters). */
const char *wh_replay_mysql_open(apr_pool_t *p, const char *params,
                                 int max_conns, apr_interval_time_t timeout,
                                 wh_replay_store **out);

#endif
