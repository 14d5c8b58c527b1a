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
 * blob untouched). No SERIAL/AUTOINCREMENT: PostgreSQL sequences skip
 * numbers on rollback and the arrival sequence must have no gaps, so the
 * numbers come from a one-row-per-counter table updated inside the
 * inserting transaction. */
#include "wh_inbox.h"

/* 1: events, quarantine, counters. 2: + wh_auth_cache. */
#define WH_INBOX_SCHEMA_VERSION 2

/* Counter rows in wh_counter. */
#define WH_COUNTER_EVENTS     1
#define WH_COUNTER_QUARANTINE 2

/* Lock waits are bounded: a writer waits at most about this long for the
 * write lock (SQLite busy wait, PostgreSQL lock_timeout) and then the
 * request is answered 503 instead of hanging. */
#define WH_INBOX_LOCK_WAIT_MS 5000

/* SQLite: a process leaving with wh_inbox_release_for_exit closes its
 * connection normally (the last one out checkpoints and removes the WAL)
 * once the WAL file is larger than this, about a dozen stored
 * notifications; below it, it leaves without closing. The next process
 * re-reads what is left, about a microsecond per 4 KiB page; a checkpoint
 * costs copying the pages and a database fsync. Measured with
 * wirehook.cgi, the CPU per request is flat from 256 KiB to 1 MiB and
 * rises on either side (checkpoints at every exit; SQLite's own 4 MiB
 * threshold, which one-connection processes never reset, lets recovery
 * dominate). */
#define WH_INBOX_EXIT_WAL_MAX (512 * 1024)

/* Longest a single PostgreSQL statement may run (statement_timeout). */
#define WH_INBOX_STATEMENT_TIMEOUT_MS 15000

/* The schema, statement by statement (apr_dbd_query runs one at a time on
 * PostgreSQL's simple protocol just as well, but one per call keeps error
 * messages precise). Version 1. */
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

#define WH_SQL_SCHEMA_VERSION "SELECT schema_version FROM wh_meta WHERE id = 1"

/* For unit tests: lowers the bounded lock wait of an open inbox (applies
 * from the next connection; the current one is reopened). */
void wh_inbox_set_lock_wait_ms(wh_inbox *ib, int ms);

#endif
