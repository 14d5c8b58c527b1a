#ifndef WH_INBOX_SQL_H
#define WH_INBOX_SQL_H
/* The inbox's schema and its constants, in one place so that it is
 * visibly the same text for SQLite and PostgreSQL. Private to the inbox's
 * files (wh_inbox_*.c) and their unit tests; each statement lives in the
 * file that runs it (wh_inbox_db.h).
 *
 * Placeholders are apr_dbd's (%s text, %d int, %lld 64-bit, %pDb blob);
 * apr_dbd_prepare() rewrites them to "?" for SQLite and "$n" for
 * PostgreSQL. Only types both engines accept are used: INTEGER, BIGINT,
 * TEXT and BYTEA (SQLite gives BYTEA numeric affinity, which leaves a bound
 * blob untouched), except where a table's key differs: SQLite's INTEGER
 * PRIMARY KEY is the row's own key (one B-tree fewer to write per
 * commit), PostgreSQL's INTEGER is 32 bits, so those keys are INTEGER on
 * SQLite and BIGINT on PostgreSQL.
 *
 * Version 3 separates an event's arrival key (wh_events.id, increasing,
 * gaps allowed) from its listing position (wh_order.seq, 1, 2, 3 ... in
 * commit order, no gaps): see README.md here, "The database". */
#include "wh_inbox.h"

/* 1: events, quarantine, counters. 2: + wh_auth_cache. 3: arrival key
 * and listing order apart (wh_order, wh_pending), wh_payments,
 * event_instant, quarantine release columns. 4: + wh_purge, the last
 * purge (wh_inbox_purge.c). 5: the console's finding and acting:
 * wh_payment_refs, status filters whatever the case, payments by latest
 * activity, a quarantined body discarded or acknowledged. */
#define WH_INBOX_SCHEMA_VERSION 5
/* A number as SQL text (the version row MySQL's schema writes). */
#define WH_SQL_TEXT_(n) #n
#define WH_SQL_TEXT(n) WH_SQL_TEXT_(n)

/* Counter rows in wh_counter: 1 numbered events up to version 2 (kept,
 * unused, in upgraded databases); 2 numbers quarantined bodies; 3 is
 * MySQL's sequencer lock (a row lock, for PostgreSQL's advisory lock). */
#define WH_COUNTER_EVENTS     1
#define WH_COUNTER_QUARANTINE 2
#define WH_COUNTER_SEQUENCER  "3"

/* PostgreSQL advisory lock keys (transaction-scoped): the sequencer that
 * numbers committed events, and schema creation/upgrades. Arbitrary
 * constants ("whorder", "whschem" in ASCII). */
#define WH_PG_LOCK_SEQUENCER "33610350098408818"
#define WH_PG_LOCK_SCHEMA    "33610367026881901"

/* Lock waits are bounded: a writer waits at most about this long for the
 * write lock (SQLite busy wait, PostgreSQL lock_timeout) and then the
 * request is answered 503 instead of hanging. */
#define WH_INBOX_LOCK_WAIT_MS 5000

/* SQLite: a process leaving with wh_inbox_release_for_exit closes its
 * connection normally (the last one out checkpoints and removes the WAL)
 * once the WAL file is larger than this, about a dozen stored
 * notifications; below it, it leaves without closing. The next process
 * re-reads what is left, while a checkpoint costs copying the pages and a
 * database fsync: a smaller bound checkpoints at every exit, and SQLite's
 * own 4 MiB threshold, which one-connection processes never reset, lets
 * the re-reading dominate (bench/method.md). */
#define WH_INBOX_EXIT_WAL_MAX (512 * 1024)

/* Longest a single PostgreSQL or MySQL statement may run
 * (statement_timeout, max_statement_time), or
 * the write lock's wait when that is longer: what the inbox and the
 * forwarder run is short but for its lock waits. A schema upgrade lifts
 * it for its own transaction (wh_inbox_schema.c). */
#define WH_INBOX_STATEMENT_TIMEOUT_MS 5000
/* PostgreSQL: a statement whose answer has not come this long after the
 * statement timeout has a silent server (stopped, frozen, cut off), and
 * its connection is shut down (wh_inbox_db_awaiting). */
#define WH_INBOX_SILENCE_MARGIN_MS 2000
/* PostgreSQL: libpq's connect_timeout, in seconds, for an InboxParams
 * without one: a connection to a silent server is bounded too. */
#define WH_INBOX_CONNECT_TIMEOUT_S 3

/* The schema, statement by statement (apr_dbd_query runs one at a time on
 * PostgreSQL's simple protocol just as well, but one per call keeps error
 * messages precise). Versions 1 and 2 are history: what older wirehooks
 * created, for the upgrade and its tests. Version 1. */
#define WH_SQL_SCHEMA_V1                                                      \
    "CREATE TABLE IF NOT EXISTS wh_meta ("                                    \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " schema_version INTEGER NOT NULL)",                                      \
    "CREATE TABLE IF NOT EXISTS wh_counter ("                                 \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " last_value BIGINT NOT NULL)",                                           \
    "CREATE TABLE IF NOT EXISTS wh_events ("                                  \
    " seq BIGINT NOT NULL PRIMARY KEY,"                                       \
    " notification_id TEXT NOT NULL UNIQUE,"                                  \
    " event_type TEXT,"                                                       \
    " event_time TEXT,"                                                       \
    " payment_id TEXT,"                                                       \
    " status TEXT,"                                                           \
    " received_at BIGINT NOT NULL,"                                           \
    " body TEXT NOT NULL)",                                                   \
    "CREATE INDEX IF NOT EXISTS wh_events_payment"                            \
    " ON wh_events (payment_id, seq)",                                        \
    "CREATE INDEX IF NOT EXISTS wh_events_status ON wh_events (status, seq)", \
    "CREATE INDEX IF NOT EXISTS wh_events_type"                               \
    " ON wh_events (event_type, seq)",                                        \
    "CREATE INDEX IF NOT EXISTS wh_events_time ON wh_events (event_time)",    \
    "CREATE TABLE IF NOT EXISTS wh_quarantine ("                              \
    " id BIGINT NOT NULL PRIMARY KEY,"                                        \
    " received_at BIGINT NOT NULL,"                                           \
    " code TEXT NOT NULL,"                                                    \
    " message TEXT,"                                                          \
    " details TEXT NOT NULL,"                                                 \
    " notification_id TEXT,"                                                  \
    " body BYTEA NOT NULL)",                                                  \
    "INSERT INTO wh_counter (id, last_value) VALUES (1, 0)"                   \
    " ON CONFLICT (id) DO NOTHING",                                           \
    "INSERT INTO wh_counter (id, last_value) VALUES (2, 0)"                   \
    " ON CONFLICT (id) DO NOTHING",                                           \
    "INSERT INTO wh_meta (id, schema_version) VALUES (1, 1)"                  \
    " ON CONFLICT (id) DO NOTHING"

/* Version 1 -> 2, in the same transaction as version 1 on a new database.
 * wh_auth_cache is wirehook.cgi's cache of successful Basic-auth checks
 * (one CGI process per request has no memory of its own): the key is an
 * HMAC keyed by a secret derived from the signing secret, never the
 * credential or a plain hash of it (see wh_auth.h), so the table is no
 * shortcut past bcrypt. user_name, not "user": a reserved word in
 * PostgreSQL. expires is apr_time_t (microseconds since the epoch). */
#define WH_SQL_UPGRADE_V2                                                     \
    "CREATE TABLE IF NOT EXISTS wh_auth_cache ("                              \
    " cache_key TEXT NOT NULL PRIMARY KEY,"                                   \
    " user_name TEXT NOT NULL,"                                               \
    " expires BIGINT NOT NULL)",                                              \
    "UPDATE wh_meta SET schema_version = 2"                                   \
    " WHERE id = 1 AND schema_version = 1"

/* ---- version 3 -------------------------------------------------------
 * A step's text on SQLite and on PostgreSQL; NULL skips it there. */
typedef struct {
    const char *sqlite;
    const char *pg;
} wh_schema_step;
#define WH_BOTH(sql) { sql, sql }

/* The tables and indexes of version 3 that are new in it (a new database
 * gets them with the rest below; an upgrade after moving wh_events).
 * wh_order: listing position -> event, with copies of the filter columns
 * so a filtered page is one index range. wh_pending: committed events the
 * sequencer has not numbered yet (PostgreSQL). wh_payments: each
 * payment's current state, kept by the store transaction. */
#define WH_SQL_V3_NEW                                                         \
    { "CREATE TABLE IF NOT EXISTS wh_order ("                                 \
      " seq INTEGER NOT NULL PRIMARY KEY,"                                    \
      " event_id BIGINT NOT NULL UNIQUE,"                                     \
      " payment_id TEXT,"                                                     \
      " status TEXT)",                                                        \
      "CREATE TABLE IF NOT EXISTS wh_order ("                                 \
      " seq BIGINT NOT NULL PRIMARY KEY,"                                     \
      " event_id BIGINT NOT NULL UNIQUE,"                                     \
      " payment_id TEXT,"                                                     \
      " status TEXT)" },                                                      \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_order_payment"                     \
            " ON wh_order (payment_id, seq)"),                                \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_order_status"                      \
            " ON wh_order (status, seq)"),                                    \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_events_history"                    \
            " ON wh_events (payment_id, event_instant, id)"),                 \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_pending ("                         \
            " event_id BIGINT NOT NULL PRIMARY KEY)"),                        \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_payments ("                        \
            " payment_id TEXT NOT NULL PRIMARY KEY,"                          \
            " status TEXT NOT NULL,"                                          \
            " event_instant BIGINT,"                                          \
            " event_time TEXT,"                                               \
            " event_id BIGINT NOT NULL,"                                      \
            " notification_id TEXT NOT NULL,"                                 \
            " events BIGINT NOT NULL,"                                        \
            " updated_at BIGINT NOT NULL)"),                                  \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_payments_status"                   \
            " ON wh_payments (status, payment_id)")

/* A new database, version 3 at once. */
#define WH_SQL_SCHEMA_V3                                                      \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_meta ("                            \
            " id INTEGER NOT NULL PRIMARY KEY,"                               \
            " schema_version INTEGER NOT NULL)"),                             \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_counter ("                         \
            " id INTEGER NOT NULL PRIMARY KEY,"                               \
            " last_value BIGINT NOT NULL)"),                                  \
    { "CREATE TABLE IF NOT EXISTS wh_events ("                                \
      " id INTEGER NOT NULL PRIMARY KEY,"                                     \
      " notification_id TEXT NOT NULL UNIQUE,"                                \
      " event_type TEXT,"                                                     \
      " event_time TEXT,"                                                     \
      " payment_id TEXT,"                                                     \
      " status TEXT,"                                                         \
      " event_instant BIGINT,"                                                \
      " received_at BIGINT NOT NULL,"                                         \
      " body TEXT NOT NULL)",                                                 \
      "CREATE TABLE IF NOT EXISTS wh_events ("                                \
      " id BIGINT NOT NULL PRIMARY KEY,"                                      \
      " notification_id TEXT NOT NULL UNIQUE,"                                \
      " event_type TEXT,"                                                     \
      " event_time TEXT,"                                                     \
      " payment_id TEXT,"                                                     \
      " status TEXT,"                                                         \
      " event_instant BIGINT,"                                                \
      " received_at BIGINT NOT NULL,"                                         \
      " body TEXT NOT NULL)" },                                               \
    { NULL, "CREATE SEQUENCE IF NOT EXISTS wh_event_ids" },                   \
    WH_SQL_V3_NEW,                                                            \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_quarantine ("                      \
            " id BIGINT NOT NULL PRIMARY KEY,"                                \
            " received_at BIGINT NOT NULL,"                                   \
            " code TEXT NOT NULL,"                                            \
            " message TEXT,"                                                  \
            " details TEXT NOT NULL,"                                         \
            " notification_id TEXT,"                                          \
            " body BYTEA NOT NULL,"                                           \
            " released_at BIGINT,"                                            \
            " released_event_id BIGINT)"),                                    \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_auth_cache ("                      \
            " cache_key TEXT NOT NULL PRIMARY KEY,"                           \
            " user_name TEXT NOT NULL,"                                       \
            " expires BIGINT NOT NULL)"),                                     \
    WH_BOTH("INSERT INTO wh_counter (id, last_value) VALUES (2, 0)"           \
            " ON CONFLICT (id) DO NOTHING"),                                  \
    WH_BOTH("INSERT INTO wh_meta (id, schema_version) VALUES (1, 3)"          \
            " ON CONFLICT (id) DO NOTHING")

/* Version 2 -> 3, first part: wh_events keyed by id (= the old seq, so
 * every stored event keeps its position and every offset its meaning),
 * wh_order filled with the same numbers. SQLite rebuilds the table (its
 * key becomes the row's own key); PostgreSQL renames the column in place
 * and continues the numbers with a sequence. The indexes no query uses
 * any more go. */
#define WH_SQL_UPGRADE_V3_MOVE                                                \
    WH_BOTH("DROP INDEX IF EXISTS wh_events_payment"),                        \
    WH_BOTH("DROP INDEX IF EXISTS wh_events_status"),                         \
    WH_BOTH("DROP INDEX IF EXISTS wh_events_type"),                           \
    WH_BOTH("DROP INDEX IF EXISTS wh_events_time"),                           \
    { "CREATE TABLE wh_events_v3 ("                                           \
      " id INTEGER NOT NULL PRIMARY KEY,"                                     \
      " notification_id TEXT NOT NULL UNIQUE,"                                \
      " event_type TEXT,"                                                     \
      " event_time TEXT,"                                                     \
      " payment_id TEXT,"                                                     \
      " status TEXT,"                                                         \
      " event_instant BIGINT,"                                                \
      " received_at BIGINT NOT NULL,"                                         \
      " body TEXT NOT NULL)",                                                 \
      NULL },                                                                 \
    { "INSERT INTO wh_events_v3 (id, notification_id, event_type,"            \
      " event_time, payment_id, status, received_at, body)"                   \
      " SELECT seq, notification_id, event_type, event_time, payment_id,"     \
      " status, received_at, body FROM wh_events",                            \
      NULL },                                                                 \
    { "DROP TABLE wh_events", NULL },                                         \
    { "ALTER TABLE wh_events_v3 RENAME TO wh_events", NULL },                 \
    { NULL, "ALTER TABLE wh_events RENAME COLUMN seq TO id" },                \
    { NULL, "ALTER TABLE wh_events ADD COLUMN event_instant BIGINT" },        \
    { NULL, "CREATE SEQUENCE IF NOT EXISTS wh_event_ids" },                   \
    { NULL, "SELECT setval('wh_event_ids',"                                   \
            " (SELECT coalesce(max(id), 0) + 1 FROM wh_events), false)" },    \
    WH_SQL_V3_NEW,                                                            \
    WH_BOTH("INSERT INTO wh_order (seq, event_id, payment_id, status)"        \
            " SELECT id, id, payment_id, status FROM wh_events"),             \
    WH_BOTH("ALTER TABLE wh_quarantine ADD COLUMN released_at BIGINT"),       \
    WH_BOTH("ALTER TABLE wh_quarantine ADD COLUMN released_event_id BIGINT")

/* Version 2 -> 3, last part, once event_instant is filled (in C, row by
 * row: SQL cannot parse RFC 3339 offsets the same way on both engines):
 * each payment's state from its events, the latest by (event_instant,
 * id) with unknown instants first, as the store transaction keeps it. */
#define WH_SQL_UPGRADE_V3_FINISH                                              \
    WH_BOTH("INSERT INTO wh_payments (payment_id, status, event_instant,"     \
            " event_time, event_id, notification_id, events, updated_at)"     \
            " SELECT payment_id, status, event_instant, event_time, id,"      \
            " notification_id, n, last_at FROM (SELECT payment_id, status,"   \
            " event_instant, event_time, id, notification_id,"                \
            " count(*) OVER (PARTITION BY payment_id) AS n,"                  \
            " max(received_at) OVER (PARTITION BY payment_id) AS last_at,"    \
            " row_number() OVER (PARTITION BY payment_id ORDER BY"            \
            " event_instant DESC NULLS LAST, id DESC) AS rn FROM wh_events"   \
            " WHERE payment_id IS NOT NULL AND status IS NOT NULL) AS x"      \
            " WHERE rn = 1"),                                                 \
    WH_BOTH("UPDATE wh_meta SET schema_version = 3"                           \
            " WHERE id = 1 AND schema_version = 2")

/* Version 3 -> 4, and the last steps of a new database (made as version
 * 3, then this): wh_purge, one row (id 1) once a purge has run, what it
 * did and when, for the console and the metrics. */
#define WH_SQL_UPGRADE_V4                                                     \
    WH_BOTH("CREATE TABLE IF NOT EXISTS wh_purge ("                           \
            " id INTEGER NOT NULL PRIMARY KEY,"                               \
            " started_at BIGINT NOT NULL,"                                    \
            " finished_at BIGINT NOT NULL,"                                   \
            " events BIGINT NOT NULL,"                                        \
            " dead_letters BIGINT NOT NULL,"                                  \
            " quarantine BIGINT NOT NULL,"                                    \
            " auth_cache BIGINT NOT NULL)"),                                  \
    WH_BOTH("UPDATE wh_meta SET schema_version = 4"                           \
            " WHERE id = 1 AND schema_version = 3")

/* ---- version 5 -------------------------------------------------------
 * Run after version 4's step, on a new database and on an upgraded one; then the references are filled
 * from the stored bodies (in C, like event_instant) and the version set.
 *
 * Status filters match whatever the case (ASCII letters at least; each
 * engine's lower() on both sides): the (status, ...) indexes become
 * (lower(status), ...) ones. Payments are listed by latest activity
 * (updated_at, the newest event's arrival). wh_order keeps each event's
 * arrival beside its position, so that times become positions by
 * bisecting that narrow table alone (a wh_events row is mostly its
 * body: one page read a probe). wh_payment_refs: the wire's
 * references of each payment's events (kind 1 endToEndId, 2 IMAD, 3
 * OMAD), each pair once, so that a reference the bank's support quotes
 * finds its payment with one index seek; a payment's events mostly
 * repeat them, so a store usually only looks them up. A quarantined
 * body an operator dealt with without releasing it: resolution
 * 'discarded' (its bytes dropped) or 'acknowledged' (kept), when and by
 * whom; neither counts as held any more. */
#define WH_SQL_V5                                                             \
    WH_BOTH("ALTER TABLE wh_order ADD COLUMN received_at BIGINT"),            \
    WH_BOTH("UPDATE wh_order SET received_at = (SELECT e.received_at"         \
            " FROM wh_events e WHERE e.id = wh_order.event_id)"),             \
    WH_BOTH("DROP INDEX IF EXISTS wh_order_status"),                          \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_order_status_ci"                   \
            " ON wh_order (lower(status), seq)"),                             \
    WH_BOTH("DROP INDEX IF EXISTS wh_payments_status"),                       \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_payments_status_ci"                \
            " ON wh_payments (lower(status), payment_id)"),                   \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_payments_recent"                   \
            " ON wh_payments (updated_at, payment_id)"),                      \
    WH_BOTH("CREATE INDEX IF NOT EXISTS wh_payments_status_recent"            \
            " ON wh_payments (lower(status), updated_at, payment_id)"),       \
    { "CREATE TABLE IF NOT EXISTS wh_payment_refs ("                          \
      " ref TEXT NOT NULL,"                                                   \
      " kind INTEGER NOT NULL,"                                               \
      " payment_id TEXT NOT NULL,"                                            \
      " PRIMARY KEY (ref, kind, payment_id)) WITHOUT ROWID",                  \
      "CREATE TABLE IF NOT EXISTS wh_payment_refs ("                          \
      " ref TEXT NOT NULL,"                                                   \
      " kind INTEGER NOT NULL,"                                               \
      " payment_id TEXT NOT NULL,"                                            \
      " PRIMARY KEY (ref, kind, payment_id))" },                              \
    WH_BOTH("ALTER TABLE wh_quarantine ADD COLUMN resolution TEXT"),          \
    WH_BOTH("ALTER TABLE wh_quarantine ADD COLUMN resolved_at BIGINT"),       \
    WH_BOTH("ALTER TABLE wh_quarantine ADD COLUMN resolved_by TEXT")

#define WH_SQL_V5_DONE                                                        \
    WH_BOTH("UPDATE wh_meta SET schema_version = 5"                           \
            " WHERE id = 1 AND schema_version = 4")

/* A JSON array of ids (one parameter) as rows, in each dialect. */
#define WH_SQL_IDS "SELECT value FROM json_each(%s)"
#define WH_SQL_IDS_PG "SELECT json_array_elements_text(%s::json)::bigint"
#define WH_SQL_IDS_MY "SELECT j.v FROM JSON_TABLE(%s, '$[*]' COLUMNS (v BIGINT PATH '$')) AS j"

/* A reference's kind in wh_payment_refs. */
#define WH_REF_END_TO_END_ID 1
#define WH_REF_IMAD 2
#define WH_REF_OMAD 3

/* A purged event's tombstone (wh_inbox_purge.c): its wh_events row moved
 * to the arrival key negated, holding the notificationId and the arrival
 * time alone (the body empty, the facts NULL). Tombstones sort apart from
 * events, and the next arrival key (the largest + 1) is not theirs. A
 * reader of wh_events that does not come through wh_order or the forward
 * queue (a tombstone has no row in either) leaves them out with this. */
#define WH_SQL_NOT_TOMBSTONE(id_col) id_col " > 0"

#define WH_SQL_SCHEMA_VERSION "SELECT schema_version FROM wh_meta WHERE id = 1"

/* ---- MySQL: the current version, made as such ---------------------------
 * There is no older MySQL inbox, so no upgrade. The same tables with
 * MySQL's words: every index in its table (MySQL has no CREATE INDEX IF
 * NOT EXISTS); keys compared or indexed are VARBINARY, byte for byte as on
 * the other engines (a utf8mb4 collation would fold case or pad trailing
 * spaces), bounded because an InnoDB index entry holds at most 3072
 * bytes: a paymentId, status or eventType above WH_MY_KEY's bound is a
 * store that fails (503, logged), as one above about 2700 bytes is on
 * PostgreSQL; bodies and messages are utf8mb4 text; the arrival key is
 * AUTO_INCREMENT. InnoDB is named: with NO_ENGINE_SUBSTITUTION (the
 * session's sql_mode) a server without it refuses rather than making
 * tables that cannot roll back. DDL commits by itself in MySQL, so the
 * schema is made statement by statement, each idempotent, and the version
 * row comes last: a schema cut short reads as none yet and is made again.
 * status_ci: WH_MY_STATUS_IS. A purged event's tombstone keeps its row at
 * the arrival key negated, below every AUTO_INCREMENT value. */
#define WH_MY_TABLE " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
#define WH_MY_KEY "VARBINARY(1024)"
#define WH_MY_ID "VARBINARY(255)"
#define WH_MY_STATUS_CI                                                       \
    " status_ci " WH_MY_KEY " AS (lower(convert(status USING utf8mb4))) STORED,"
#define WH_SQL_SCHEMA_MYSQL                                                \
    "CREATE TABLE IF NOT EXISTS wh_meta ("                                    \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " schema_version INTEGER NOT NULL)" WH_MY_TABLE,                          \
    "CREATE TABLE IF NOT EXISTS wh_counter ("                                 \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " last_value BIGINT NOT NULL)" WH_MY_TABLE,                               \
    "CREATE TABLE IF NOT EXISTS wh_events ("                                  \
    " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"                         \
    " notification_id " WH_MY_ID " NOT NULL,"                                 \
    " event_type " WH_MY_KEY ","                                              \
    " event_time " WH_MY_KEY ","                                              \
    " payment_id " WH_MY_KEY ","                                              \
    " status " WH_MY_KEY ","                                                  \
    " event_instant BIGINT,"                                                  \
    " received_at BIGINT NOT NULL,"                                           \
    " body LONGTEXT NOT NULL,"                                                \
    " UNIQUE KEY wh_events_notification (notification_id),"                   \
    " KEY wh_events_history (payment_id, event_instant, id))" WH_MY_TABLE,    \
    "CREATE TABLE IF NOT EXISTS wh_order ("                                   \
    " seq BIGINT NOT NULL PRIMARY KEY,"                                       \
    " event_id BIGINT NOT NULL,"                                              \
    " payment_id " WH_MY_KEY ","                                              \
    " status " WH_MY_KEY ","                                                  \
    " received_at BIGINT,"                                                    \
    WH_MY_STATUS_CI                                                           \
    " UNIQUE KEY wh_order_event (event_id),"                                  \
    " KEY wh_order_payment (payment_id, seq),"                                \
    " KEY wh_order_status_ci (status_ci, seq))" WH_MY_TABLE,                  \
    "CREATE TABLE IF NOT EXISTS wh_pending ("                                 \
    " event_id BIGINT NOT NULL PRIMARY KEY)" WH_MY_TABLE,                     \
    "CREATE TABLE IF NOT EXISTS wh_payments ("                                \
    " payment_id " WH_MY_KEY " NOT NULL PRIMARY KEY,"                         \
    " status " WH_MY_KEY " NOT NULL,"                                         \
    " event_instant BIGINT,"                                                  \
    " event_time " WH_MY_KEY ","                                              \
    " event_id BIGINT NOT NULL,"                                              \
    " notification_id " WH_MY_ID " NOT NULL,"                                 \
    " events BIGINT NOT NULL,"                                                \
    " updated_at BIGINT NOT NULL,"                                            \
    WH_MY_STATUS_CI                                                           \
    " KEY wh_payments_status_ci (status_ci, payment_id),"                     \
    " KEY wh_payments_recent (updated_at, payment_id),"                       \
    " KEY wh_payments_status_recent (status_ci, updated_at, payment_id))"     \
    WH_MY_TABLE,                                                              \
    "CREATE TABLE IF NOT EXISTS wh_payment_refs ("                            \
    " ref " WH_MY_KEY " NOT NULL,"                                            \
    " kind INTEGER NOT NULL,"                                                 \
    " payment_id " WH_MY_KEY " NOT NULL,"                                     \
    " PRIMARY KEY (ref, kind, payment_id))" WH_MY_TABLE,                      \
    "CREATE TABLE IF NOT EXISTS wh_quarantine ("                              \
    " id BIGINT NOT NULL PRIMARY KEY,"                                        \
    " received_at BIGINT NOT NULL,"                                           \
    " code " WH_MY_ID " NOT NULL,"                                            \
    " message MEDIUMTEXT,"                                                    \
    " details MEDIUMTEXT NOT NULL,"                                           \
    " notification_id MEDIUMTEXT,"                                            \
    " body LONGBLOB NOT NULL,"                                                \
    " released_at BIGINT,"                                                    \
    " released_event_id BIGINT,"                                              \
    " resolution " WH_MY_ID ","                                               \
    " resolved_at BIGINT,"                                                    \
    " resolved_by MEDIUMTEXT)" WH_MY_TABLE,                                   \
    "CREATE TABLE IF NOT EXISTS wh_auth_cache ("                              \
    " cache_key " WH_MY_ID " NOT NULL PRIMARY KEY,"                           \
    " user_name " WH_MY_KEY " NOT NULL,"                                      \
    " expires BIGINT NOT NULL)" WH_MY_TABLE,                                  \
    "CREATE TABLE IF NOT EXISTS wh_purge ("                                   \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " started_at BIGINT NOT NULL,"                                            \
    " finished_at BIGINT NOT NULL,"                                           \
    " events BIGINT NOT NULL,"                                                \
    " dead_letters BIGINT NOT NULL,"                                          \
    " quarantine BIGINT NOT NULL,"                                            \
    " auth_cache BIGINT NOT NULL)" WH_MY_TABLE,                               \
    "INSERT INTO wh_counter (id, last_value) VALUES (2, 0)"                   \
    " ON DUPLICATE KEY UPDATE id = id",                                       \
    "INSERT INTO wh_counter (id, last_value) VALUES (" WH_COUNTER_SEQUENCER   \
    ", 0) ON DUPLICATE KEY UPDATE id = id",                                   \
    "INSERT INTO wh_meta (id, schema_version) VALUES (1, "                    \
    WH_SQL_TEXT(WH_INBOX_SCHEMA_VERSION) ") ON DUPLICATE KEY UPDATE id = id"

/* For unit tests: lowers the bounded lock wait of an open inbox (applies
 * from the next connection; the current one is reopened). */
void wh_inbox_set_lock_wait_ms(wh_inbox *ib, int ms);
/* For tests: the retry interval after a failed connection (0: every use
 * tries again). */
void wh_inbox_set_retry_interval(wh_inbox *ib, apr_interval_time_t t);
/* For tests: 0 stops stores from running PostgreSQL's sequencer after
 * their commit, as a crash between the two would; listings still run it. */
void wh_inbox_set_sequencer(wh_inbox *ib, int on);

#endif
