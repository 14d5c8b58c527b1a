#ifndef WH_INBOX_MYSQL_H
#define WH_INBOX_MYSQL_H
/* A MariaDB or MySQL connection for the inbox, through apr_dbd's mysql
 * driver (APR-util 1.6): what the driver is given, an open bounded in
 * time, and the session every connection starts with. Works on the
 * driver's handle alone; wh_inbox_conn.c drives it. */
#include "wh_inbox_db.h"
#include "wh_inbox_settings.h"

/* The oldest servers the inbox's SQL runs on: SELECT ... FOR UPDATE SKIP
 * LOCKED (the forward queue's leases) and JSON_TABLE (batches of ids).
 * Only MariaDB runs in the test suites. */
#define WH_MARIADB_MIN_MAJOR 10
#define WH_MARIADB_MIN_MINOR 6
#define WH_MYSQL_MIN_MAJOR 8
#define WH_MYSQL_MIN_MINOR 0

/* The largest field the driver returns whole: it reads each column into
 * a buffer of min(the column's declared size, fldsz) + 1 bytes and cuts
 * a longer value short without a word. A body is at most MaxBodySize's
 * upper bound (64 MiB) and a quarantined one is read as hex, twice that.
 * A buffer is only reserved, not touched beyond the value it holds. */
#define WH_MYSQL_FIELD_MAX (2UL * 64 * 1024 * 1024 + 16)

/* The parameters apr_dbd's driver is given: the configured ones (checked
 * by wh_parse_mysql_params), with the driver's automatic reconnect off (it
 * would lose the session's settings and a transaction unseen; the inbox
 * reconnects itself) and fields as large as WH_MYSQL_FIELD_MAX. */
const char *wh_mysql_driver_params(apr_pool_t *p, const char *params);

/* apr_dbd_open_ex, given up after timeout_s: APR-util 1.6's driver has no
 * connect timeout (it ignores connecttimeout=), and libmariadb would wait
 * for an unreachable host or a server that accepts and never greets for
 * minutes, with every request of the process queued behind it. The open
 * runs in a thread of its own; one that outlives the wait closes what it
 * opened and frees itself. On success *handle lives in *handle_pool,
 * which the caller destroys after closing the handle. *err (in p) says
 * why not, without the parameters. */
apr_status_t wh_mysql_open(const apr_dbd_driver_t *driver, const char *params,
                           int timeout_s, apr_pool_t *p, apr_dbd_t **handle,
                           apr_pool_t **handle_pool, const char **err);

/* VERSION()'s answer: NULL when the inbox runs on it, else why (naming
 * what it needs). *mariadb tells MariaDB from MySQL. */
const char *wh_mysql_version_check(apr_pool_t *p, const char *version, int *mariadb);

/* The GRANT a user needs for the inbox (CURRENT_USER() is "user@host"). */
const char *wh_mysql_grant(apr_pool_t *p, const char *database, const char *current_user);

/* 1 for the server's "access denied" errors, which wh_mysql_grant's
 * statement cures. */
int wh_mysql_denied(int code);

/* The session on a fresh handle: the server's version checked, utf8mb4,
 * strict SQL mode, READ COMMITTED (read-only for a reader), bounded lock
 * waits and statements, and a warning when the server does not make each
 * commit durable. *grant gets wh_mysql_grant's statement for this user.
 * OK, DOWN, or FATAL for a server this wirehook cannot use. */
wh_conn_status wh_mysql_session(const wh_inbox_settings *s, apr_pool_t *p,
                                apr_dbd_t *handle, const char **grant,
                                const char **why);

/* The AUTO_INCREMENT value the handle's last INSERT made, as the
 * client read it from the server's OK packet (mysql_insert_id, looked up
 * in the client apr_dbd's driver loaded): SELECT LAST_INSERT_ID() without
 * the round trip. 0 when the client's function cannot be found. */
apr_int64_t wh_mysql_insert_id(const apr_dbd_driver_t *driver, apr_dbd_t *handle);

/* What a reader's session becomes when it may write (and back). */
#define WH_MYSQL_SQL_READ_WRITE "SET SESSION TRANSACTION READ WRITE"

#endif
