#ifndef WH_FORWARD_QUEUE_SQL_H
#define WH_FORWARD_QUEUE_SQL_H
/* The forward queue's SQL (wh_forward_queue.c), the same text on SQLite,
 * PostgreSQL and MySQL except where a _PG or _MY variant says otherwise:
 * row locks with SKIP LOCKED, JSON arrays of ids (json_each,
 * json_array_elements, JSON_TABLE), upserts (ON CONFLICT, ON DUPLICATE
 * KEY UPDATE), and the cursor's row lock. MySQL's texts keep to what
 * MariaDB 10.6 and MySQL 8.0 both run: an UPDATE reads its own table only
 * through a derived table or a join (MySQL refuses a plain subquery).
 *
 * States are literals, not parameters, so that each engine can prove a
 * query matches a partial index's predicate. Times are apr_time_t
 * (microseconds since the epoch). */
#include "inbox/wh_inbox_sql.h"   /* WH_SQL_IDS: a JSON array of ids as rows */

/* Not part of the inbox's versioned schema (wh_meta): the forwarder and
 * `wirehook inbox` create them when missing, in one transaction. */
#define WH_FQ_SQL_SCHEMA                                                      \
    "CREATE TABLE IF NOT EXISTS wh_forward_cursor ("                          \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " last_seq BIGINT NOT NULL)",                                             \
    "INSERT INTO wh_forward_cursor (id, last_seq) VALUES (1, 0)"              \
    " ON CONFLICT (id) DO NOTHING",                                           \
    "CREATE TABLE IF NOT EXISTS wh_delivery ("                                \
    " event_id BIGINT NOT NULL PRIMARY KEY,"                                  \
    " seq BIGINT NOT NULL,"                                                   \
    " payment_id TEXT,"                                                       \
    " state INTEGER NOT NULL,"                                                \
    " attempts INTEGER NOT NULL,"                                             \
    " next_at BIGINT NOT NULL,"                                               \
    " lease_owner TEXT,"                                                      \
    " first_at BIGINT,"                                                       \
    " received_at BIGINT NOT NULL,"                                           \
    " done_at BIGINT,"                                                        \
    " http_status INTEGER,"                                                   \
    " answer TEXT,"                                                           \
    " reason TEXT)",                                                          \
    /* Only what is still open is indexed for the hot queries: the ready    \
     * events by due time (leases), the open events of a payment in order  \
     * (who is next), the dead letters by id (listing them). */            \
    "CREATE INDEX IF NOT EXISTS wh_delivery_due ON wh_delivery (next_at)"     \
    " WHERE state = 1",                                                       \
    "CREATE INDEX IF NOT EXISTS wh_delivery_open"                             \
    " ON wh_delivery (payment_id, seq) WHERE state < 3",                      \
    "CREATE INDEX IF NOT EXISTS wh_delivery_dead ON wh_delivery (event_id)"   \
    " WHERE state = 4",                                                       \
    WH_FQ_SQL_ATTEMPTS_SCHEMA,                                                \
    WH_FQ_SQL_VIEWS_SCHEMA

/* The attempt history, one row per attempt, written by the cycle that
 * records its outcome. Added after the tables above: a database made by
 * an older forwarder gets it at the next start (IF NOT EXISTS), and the
 * readers ask whether it is there. outcome: 3 forwarded, 1 retried, 4
 * dead. */
#define WH_FQ_SQL_ATTEMPTS_SCHEMA                                             \
    "CREATE TABLE IF NOT EXISTS wh_attempts ("                                \
    " event_id BIGINT NOT NULL,"                                              \
    " attempt INTEGER NOT NULL,"                                              \
    " started_at BIGINT NOT NULL,"                                            \
    " duration_ms BIGINT NOT NULL,"                                           \
    " http_status INTEGER,"                                                   \
    " answer TEXT,"                                                           \
    " outcome INTEGER NOT NULL)",                                             \
    "CREATE INDEX IF NOT EXISTS wh_attempts_event"                            \
    " ON wh_attempts (event_id, started_at)",                                 \
    WH_FQ_SQL_TOTALS_SCHEMA

/* Attempts by outcome (3 forwarded, 1 retried, 4 dead), one row each,
 * added to by the cycle that writes the attempts: the metrics' counters.
 * Counting wh_attempts instead would cost a scan of the whole history at
 * every scrape, and would go down when a purge shortens it; these only
 * grow, from zero when the table was made (a forwarder's start). */
#define WH_FQ_SQL_TOTALS_SCHEMA                                               \
    "CREATE TABLE IF NOT EXISTS wh_attempt_counts ("                          \
    " outcome INTEGER NOT NULL PRIMARY KEY,"                                  \
    " n BIGINT NOT NULL)"

/* MySQL's tables: the same columns (identifiers VARBINARY, as in the
 * inbox's schema, wh_inbox_sql.h), indexes declared in their tables and
 * without predicates (MySQL has neither CREATE INDEX IF NOT EXISTS nor
 * partial indexes): the hot queries seek on (state, ...), so what they
 * read still follows the open events and the dead letters, never the
 * events forwarded; the console's indexes (WH_FQ_SQL_VIEWS_SCHEMA) are
 * among them, a TEXT column by its first 255 characters. wh_attempts gets
 * a key of its own (servers set to require one refuse a table without). */
#define WH_FQ_MY_TABLE " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
#define WH_FQ_SQL_SCHEMA_MY                                                   \
    "CREATE TABLE IF NOT EXISTS wh_forward_cursor ("                          \
    " id INTEGER NOT NULL PRIMARY KEY,"                                       \
    " last_seq BIGINT NOT NULL)" WH_FQ_MY_TABLE,                              \
    "INSERT INTO wh_forward_cursor (id, last_seq) VALUES (1, 0)"              \
    " ON DUPLICATE KEY UPDATE id = id",                                       \
    "CREATE TABLE IF NOT EXISTS wh_delivery ("                                \
    " event_id BIGINT NOT NULL PRIMARY KEY,"                                  \
    " seq BIGINT NOT NULL,"                                                   \
    " payment_id VARBINARY(1024),"                                            \
    " state INTEGER NOT NULL,"                                                \
    " attempts INTEGER NOT NULL,"                                             \
    " next_at BIGINT NOT NULL,"                                               \
    " lease_owner VARBINARY(255),"                                            \
    " first_at BIGINT,"                                                       \
    " received_at BIGINT NOT NULL,"                                           \
    " done_at BIGINT,"                                                        \
    " http_status INTEGER,"                                                   \
    " answer TEXT,"                                                           \
    " reason TEXT,"                                                           \
    " KEY wh_delivery_due (state, next_at),"                                  \
    " KEY wh_delivery_open (payment_id, state, seq),"                         \
    " KEY wh_delivery_dead (state, event_id),"                                \
    " KEY wh_delivery_state (state, seq),"                                    \
    " KEY wh_delivery_retrying (state, lease_owner, attempts),"               \
    " KEY wh_delivery_dead_payment (state, payment_id),"                      \
    " KEY wh_delivery_dead_filter"                                            \
    " (state, reason(255), http_status, payment_id(255), done_at, event_id))" \
    WH_FQ_MY_TABLE,                                                           \
    "CREATE TABLE IF NOT EXISTS wh_attempts ("                                \
    " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"                         \
    " event_id BIGINT NOT NULL,"                                              \
    " attempt INTEGER NOT NULL,"                                              \
    " started_at BIGINT NOT NULL,"                                            \
    " duration_ms BIGINT NOT NULL,"                                           \
    " http_status INTEGER,"                                                   \
    " answer TEXT,"                                                           \
    " outcome INTEGER NOT NULL,"                                              \
    " KEY wh_attempts_event (event_id, started_at))" WH_FQ_MY_TABLE,          \
    "CREATE TABLE IF NOT EXISTS wh_attempt_counts ("                          \
    " outcome INTEGER NOT NULL PRIMARY KEY,"                                  \
    " n BIGINT NOT NULL)" WH_FQ_MY_TABLE,                                     \
    "CREATE TABLE IF NOT EXISTS wh_attempt_minutes ("                         \
    " minute BIGINT NOT NULL,"                                                \
    " outcome INTEGER NOT NULL,"                                              \
    " n BIGINT NOT NULL,"                                                     \
    " PRIMARY KEY (minute, outcome))" WH_FQ_MY_TABLE,                         \
    "CREATE TABLE IF NOT EXISTS wh_forwarders ("                              \
    " owner VARBINARY(255) NOT NULL PRIMARY KEY,"                             \
    " started_at BIGINT NOT NULL,"                                            \
    " seen_at BIGINT NOT NULL,"                                               \
    " stopped_at BIGINT)" WH_FQ_MY_TABLE

/* A JSON array as rows, MySQL's way: JSON_TABLE(doc, '$[*]' COLUMNS ...). */
#define WH_FQ_MY_JSON(cols) " FROM JSON_TABLE(%s, '$[*]' COLUMNS (" cols ")) AS j"
/* The same JSON array as WH_FQ_SQL_ATTEMPTS_ADD's. "WHERE 1 = 1" keeps
 * SQLite from reading ON CONFLICT as a join constraint. */
#define WH_FQ_SQL_TOTALS_ADD                                                  \
    "INSERT INTO wh_attempt_counts (outcome, n)"                              \
    " SELECT json_extract(value, '$[6]'), count(*) FROM json_each(%s)"        \
    " WHERE 1 = 1 GROUP BY 1"                                                 \
    " ON CONFLICT (outcome) DO UPDATE SET n = wh_attempt_counts.n + excluded.n"
#define WH_FQ_SQL_TOTALS_ADD_PG                                               \
    "INSERT INTO wh_attempt_counts (outcome, n)"                              \
    " SELECT (v->>6)::int, count(*) FROM json_array_elements(%s::json) v"     \
    " GROUP BY 1"                                                             \
    " ON CONFLICT (outcome) DO UPDATE SET n = wh_attempt_counts.n + excluded.n"
#define WH_FQ_SQL_TOTALS_ADD_MY                                               \
    "INSERT INTO wh_attempt_counts (outcome, n)"                              \
    " SELECT j.outcome, count(*)" WH_FQ_MY_JSON("outcome INT PATH '$[6]'")    \
    " GROUP BY j.outcome"                                                     \
    " ON DUPLICATE KEY UPDATE n = n + VALUES(n)"
#define WH_FQ_SQL_TOTALS "SELECT outcome, n FROM wh_attempt_counts"

/* For the console (made at a forwarder's start, like the rest; readers
 * ask whether they are there): events listed by forwarding state, newest
 * first, on (state, seq); each payment's dead letters counted in its own
 * range; the dead letters' filter columns (counted, grouped and chosen
 * from this index alone: a dead letter's row is rarely near the next); attempts by outcome per minute (wh_attempt_minutes, added to by
 * the cycle that writes the attempts, rows older than
 * WH_FQ_MINUTES_KEPT dropped by it); and each forwarder's liveness
 * (wh_forwarders: its start, its last sign of life, its clean stop).
 * The events waiting for their next attempt are counted from an index of
 * their own (WH_FQ_SQL_STATS): the state index alone reads every ready
 * row to see its attempts and lease. */
#define WH_FQ_SQL_VIEWS_SCHEMA                                                \
    "CREATE INDEX IF NOT EXISTS wh_delivery_state ON wh_delivery (state, seq)", \
    "CREATE INDEX IF NOT EXISTS wh_delivery_retrying ON wh_delivery (state)"  \
    " WHERE state = 1 AND attempts > 0 AND lease_owner IS NULL",              \
    "CREATE INDEX IF NOT EXISTS wh_delivery_dead_payment"                     \
    " ON wh_delivery (payment_id) WHERE state = 4",                           \
    "CREATE INDEX IF NOT EXISTS wh_delivery_dead_filter ON wh_delivery"       \
    " (reason, http_status, payment_id, done_at, event_id) WHERE state = 4",  \
    "CREATE TABLE IF NOT EXISTS wh_attempt_minutes ("                         \
    " minute BIGINT NOT NULL,"                                                \
    " outcome INTEGER NOT NULL,"                                              \
    " n BIGINT NOT NULL,"                                                     \
    " PRIMARY KEY (minute, outcome))",                                        \
    "CREATE TABLE IF NOT EXISTS wh_forwarders ("                              \
    " owner TEXT NOT NULL PRIMARY KEY,"                                       \
    " started_at BIGINT NOT NULL,"                                            \
    " seen_at BIGINT NOT NULL,"                                               \
    " stopped_at BIGINT)"

/* The same JSON array as WH_FQ_SQL_ATTEMPTS_ADD's, by the minute each
 * attempt started in (minutes since the epoch). */
#define WH_FQ_SQL_MINUTES_ADD                                                 \
    "INSERT INTO wh_attempt_minutes (minute, outcome, n)"                     \
    " SELECT json_extract(value, '$[2]') / 60000000,"                         \
    " json_extract(value, '$[6]'), count(*) FROM json_each(%s)"               \
    " WHERE 1 = 1 GROUP BY 1, 2"                                              \
    " ON CONFLICT (minute, outcome) DO UPDATE SET"                            \
    " n = wh_attempt_minutes.n + excluded.n"
#define WH_FQ_SQL_MINUTES_ADD_PG                                              \
    "INSERT INTO wh_attempt_minutes (minute, outcome, n)"                     \
    " SELECT (v->>2)::bigint / 60000000, (v->>6)::int, count(*)"              \
    " FROM json_array_elements(%s::json) v GROUP BY 1, 2"                     \
    " ON CONFLICT (minute, outcome) DO UPDATE SET"                            \
    " n = wh_attempt_minutes.n + excluded.n"
#define WH_FQ_SQL_MINUTES_ADD_MY                                              \
    "INSERT INTO wh_attempt_minutes (minute, outcome, n)"                     \
    " SELECT j.started DIV 60000000, j.outcome, count(*)"                     \
    WH_FQ_MY_JSON("started BIGINT PATH '$[2]', outcome INT PATH '$[6]'")      \
    " GROUP BY 1, 2 ON DUPLICATE KEY UPDATE n = n + VALUES(n)"
#define WH_FQ_SQL_MINUTES_DROP "DELETE FROM wh_attempt_minutes WHERE minute < %lld"
/* Minutes of attempt counts kept: the console's day chart and a margin. */
#define WH_FQ_MINUTES_KEPT (2 * 24 * 60)

/* A forwarder's sign of life; a clean stop says so. Rows of forwarders
 * silent for longer than WH_FQ_FORWARDERS_KEPT go. */
#define WH_FQ_SQL_ALIVE                                                       \
    "INSERT INTO wh_forwarders (owner, started_at, seen_at) VALUES (%s, %lld, %lld)" \
    " ON CONFLICT (owner) DO UPDATE SET seen_at = excluded.seen_at,"          \
    " stopped_at = NULL"
#define WH_FQ_SQL_ALIVE_MY                                                    \
    "INSERT INTO wh_forwarders (owner, started_at, seen_at) VALUES (%s, %lld, %lld)" \
    " ON DUPLICATE KEY UPDATE seen_at = VALUES(seen_at), stopped_at = NULL"
#define WH_FQ_SQL_STOPPED                                                     \
    "UPDATE wh_forwarders SET seen_at = %lld, stopped_at = %lld WHERE owner = %s"
#define WH_FQ_SQL_FORGET "DELETE FROM wh_forwarders WHERE seen_at < %lld"
#define WH_FQ_FORWARDERS_KEPT apr_time_from_sec(7 * 24 * 3600)

/* A batch of attempts in one statement: a JSON array of
 * [event_id, attempt, started_at, duration_ms, http_status, answer,
 *  outcome] (http_status 0: no answer, stored NULL). */
#define WH_FQ_SQL_ATTEMPTS_ADD                                                \
    "INSERT INTO wh_attempts (event_id, attempt, started_at, duration_ms,"    \
    " http_status, answer, outcome)"                                          \
    " SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),"       \
    " json_extract(value, '$[2]'), json_extract(value, '$[3]'),"              \
    " nullif(json_extract(value, '$[4]'), 0), json_extract(value, '$[5]'),"   \
    " json_extract(value, '$[6]') FROM json_each(%s)"
#define WH_FQ_SQL_ATTEMPTS_ADD_PG                                             \
    "INSERT INTO wh_attempts (event_id, attempt, started_at, duration_ms,"    \
    " http_status, answer, outcome)"                                          \
    " SELECT (v->>0)::bigint, (v->>1)::int, (v->>2)::bigint, (v->>3)::bigint," \
    " nullif((v->>4)::int, 0), v->>5, (v->>6)::int"                           \
    " FROM json_array_elements(%s::json) v"
#define WH_FQ_SQL_ATTEMPTS_ADD_MY                                             \
    "INSERT INTO wh_attempts (event_id, attempt, started_at, duration_ms,"    \
    " http_status, answer, outcome)"                                          \
    " SELECT j.event_id, j.attempt, j.started_at, j.duration_ms,"             \
    " nullif(j.http_status, 0), j.answer, j.outcome"                          \
    WH_FQ_MY_JSON("event_id BIGINT PATH '$[0]', attempt INT PATH '$[1]',"     \
                  " started_at BIGINT PATH '$[2]',"                           \
                  " duration_ms BIGINT PATH '$[3]',"                          \
                  " http_status INT PATH '$[4]', answer TEXT PATH '$[5]',"    \
                  " outcome INT PATH '$[6]'")
#define WH_FQ_SQL_ATTEMPTS_OF                                                 \
    "SELECT attempt, started_at, duration_ms, http_status, answer, outcome"   \
    " FROM wh_attempts WHERE event_id = %lld"                                 \
    " ORDER BY started_at DESC, attempt DESC LIMIT %d"
#define WH_FQ_SQL_ATTEMPTS_COUNT                                             \
    "SELECT count(*) FROM wh_attempts WHERE event_id = %lld"

/* The cursor, read under a lock that orders every change of states
 * (SQLite's BEGIN IMMEDIATE has it already; PostgreSQL takes the row), the
 * listing's end (events up to it may be queued), and whether committed
 * events wait for their listing position (PostgreSQL's wh_pending: the
 * sequencer is run after the cycle, so the next one queues them). */
#define WH_FQ_SQL_CURSOR                                                      \
    "SELECT last_seq, (SELECT max(seq) FROM wh_order),"                       \
    " (SELECT count(*) FROM (SELECT 1 FROM wh_pending LIMIT 1) AS x)"         \
    " FROM wh_forward_cursor WHERE id = 1"
#define WH_FQ_SQL_CURSOR_PG WH_FQ_SQL_CURSOR " FOR UPDATE"
/* MariaDB takes no lock on what the subqueries read: only the cursor's. */
#define WH_FQ_SQL_CURSOR_MY WH_FQ_SQL_CURSOR_PG
#define WH_FQ_SQL_CURSOR_SET                                                  \
    "UPDATE wh_forward_cursor SET last_seq = %lld"                            \
    " WHERE id = 1 AND last_seq = %lld"

/* Events (last, upto] into the queue. An event is ready when it has no
 * paymentId, or when it is its payment's first in this batch and no
 * earlier event of the payment is still open; else it waits. (A row
 * inserted by this statement is not seen by its own NOT EXISTS, hence the
 * row_number within the batch.) "WHERE 1 = 1" keeps SQLite from reading
 * ON CONFLICT as a join constraint. */
#define WH_FQ_INGEST(conflict)                                                \
    "INSERT INTO wh_delivery (event_id, seq, payment_id, state, attempts,"    \
    " next_at, received_at)"                                                  \
    " SELECT b.event_id, b.seq, b.payment_id,"                                \
    "  CASE WHEN b.payment_id IS NULL THEN 1"                                 \
    "   WHEN b.rn = 1 AND NOT EXISTS (SELECT 1 FROM wh_delivery x"            \
    "    WHERE x.payment_id = b.payment_id AND x.state < 3) THEN 1"           \
    "   ELSE 0 END,"                                                          \
    "  0, %lld, b.received_at"                                                \
    " FROM (SELECT o.event_id, o.seq, o.payment_id, e.received_at,"           \
    "  row_number() OVER (PARTITION BY o.payment_id ORDER BY o.seq) AS rn"    \
    "  FROM wh_order o JOIN wh_events e ON e.id = o.event_id"                 \
    "  WHERE o.seq > %lld AND o.seq <= %lld) b" conflict
#define WH_FQ_SQL_INGEST WH_FQ_INGEST(" WHERE 1 = 1 ON CONFLICT (event_id) DO NOTHING")

/* MySQL: an update of nothing where the others do nothing on a conflict
 * (its row count leaves it out). */
#define WH_FQ_SQL_INGEST_MY WH_FQ_INGEST(" ON DUPLICATE KEY UPDATE seq = wh_delivery.seq")

/* The due ready events, with what their requests need. */
#define WH_FQ_SQL_DUE                                                         \
    "SELECT d.event_id, d.attempts, d.first_at, d.received_at,"               \
    " e.notification_id, e.event_type, e.event_time, e.payment_id,"           \
    " e.status, e.body"                                                       \
    " FROM wh_delivery d JOIN wh_events e ON e.id = d.event_id"               \
    " WHERE d.state = 1 AND d.next_at <= %lld"                                \
    " ORDER BY d.next_at LIMIT %d"
/* Another forwarder's lease in progress is passed over, never waited for. */
#define WH_FQ_SQL_DUE_PG WH_FQ_SQL_DUE " FOR UPDATE OF d SKIP LOCKED"
/* MySQL leases the SQLite way (select, then lease by ids), the rows
 * locked as they are chosen and another forwarder's passed over. MariaDB
 * locks the event's row too (it has no OF), for the cycle's short
 * transaction. */
#define WH_FQ_SQL_DUE_MY WH_FQ_SQL_DUE " FOR UPDATE SKIP LOCKED"

/* A JSON array of [id, attempt] pairs, as rows. */
#define WH_FQ_PAIRS                                                           \
    "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]')"         \
    " FROM json_each(%s)"
#define WH_FQ_PAIRS_PG                                                       \
    "SELECT (v->>0)::bigint, (v->>1)::int FROM json_array_elements(%s::json) v"
#define WH_FQ_PAIRS_MY                                                        \
    "SELECT j.a, j.b" WH_FQ_MY_JSON("a BIGINT PATH '$[0]', b INT PATH '$[1]'")

/* PostgreSQL leases in one round trip: the due rows locked (another
 * forwarder's lease in progress passed over), leased, and returned with
 * what their requests need. Parameters: now, limit, now, owner, lease end. */
#define WH_FQ_SQL_LEASE_ONE_PG                                                \
    "WITH due AS (SELECT event_id FROM wh_delivery"                           \
    "  WHERE state = 1 AND next_at <= %lld ORDER BY next_at LIMIT %d"         \
    "  FOR UPDATE SKIP LOCKED),"                                              \
    " c AS (UPDATE wh_delivery d SET attempts = d.attempts + 1,"              \
    "  first_at = coalesce(d.first_at, %lld), lease_owner = %s, next_at = %lld" \
    "  FROM due WHERE d.event_id = due.event_id"                              \
    "  RETURNING d.event_id, d.attempts, d.first_at, d.received_at)"          \
    " SELECT c.event_id, c.attempts, c.first_at, c.received_at,"              \
    " e.notification_id, e.event_type, e.event_time, e.payment_id,"           \
    " e.status, e.body FROM c JOIN wh_events e ON e.id = c.event_id"

/* The lease: attempts + 1 is the new attempt, and (lease_owner, attempts)
 * its token; next_at is when the lease ends. */
#define WH_FQ_LEASE(ids)                                                      \
    "UPDATE wh_delivery SET attempts = attempts + 1,"                         \
    " first_at = coalesce(first_at, %lld), lease_owner = %s, next_at = %lld"  \
    " WHERE state = 1 AND event_id IN (" ids ")"
#define WH_FQ_SQL_LEASE WH_FQ_LEASE(WH_SQL_IDS)
#define WH_FQ_SQL_LEASE_PG WH_FQ_LEASE(WH_SQL_IDS_PG)
#define WH_FQ_SQL_LEASE_MY WH_FQ_LEASE(WH_SQL_IDS_MY)

/* Forwarded, in one statement for a batch; only events still leased to
 * this forwarder for that attempt. */
#define WH_FQ_MARK_FORWARDED(pairs)                                           \
    "UPDATE wh_delivery SET state = 3, done_at = %lld, next_at = 0,"          \
    " lease_owner = NULL, http_status = NULL, answer = NULL"                  \
    " WHERE state = 1 AND lease_owner = %s"                                   \
    " AND (event_id, attempts) IN (" pairs ")"
#define WH_FQ_SQL_FORWARDED WH_FQ_MARK_FORWARDED(WH_FQ_PAIRS)
#define WH_FQ_SQL_FORWARDED_PG WH_FQ_MARK_FORWARDED(WH_FQ_PAIRS_PG)
#define WH_FQ_SQL_FORWARDED_MY WH_FQ_MARK_FORWARDED(WH_FQ_PAIRS_MY)

/* Leases of this forwarder but the attempts it holds (pairs): due now,
 * the lease's attempt not counted, since its request never started. The
 * only leases a running forwarder does not know of are those of a cycle
 * whose commit was made but never answered (docs/forwarding.md). */
#define WH_FQ_RELEASE(pairs)                                                  \
    "UPDATE wh_delivery SET attempts = attempts - 1, next_at = %lld,"         \
    " lease_owner = NULL"                                                     \
    " WHERE state = 1 AND lease_owner = %s"                                   \
    " AND (event_id, attempts) NOT IN (" pairs ")"
#define WH_FQ_SQL_RELEASE WH_FQ_RELEASE(WH_FQ_PAIRS)
#define WH_FQ_SQL_RELEASE_PG WH_FQ_RELEASE(WH_FQ_PAIRS_PG)
#define WH_FQ_SQL_RELEASE_MY WH_FQ_RELEASE(WH_FQ_PAIRS_MY)

/* A failed attempt that will be retried: due again at next_at. */
#define WH_FQ_SQL_RETRY                                                       \
    "UPDATE wh_delivery SET next_at = %lld, lease_owner = NULL,"              \
    " http_status = %d, answer = %s"                                          \
    " WHERE event_id = %lld AND attempts = %d AND lease_owner = %s"           \
    " AND state = 1"

#define WH_FQ_SQL_DEAD                                                        \
    "UPDATE wh_delivery SET state = 4, done_at = %lld, next_at = 0,"          \
    " lease_owner = NULL, http_status = %d, answer = %s, reason = %s"         \
    " WHERE event_id = %lld AND attempts = %d AND lease_owner = %s"           \
    " AND state = 1"

/* The next waiting event of every payment whose ready event finished in
 * this batch (ids), when no other of its events is ready: the pairs
 * (payment, lowest open seq) are found first and then updated by the
 * (payment_id, seq) index. "state < 3" is spelled out beside "state = 0":
 * SQLite uses a partial index only for a query that repeats its WHERE. */
#define WH_FQ_PROMOTE(ids)                                                    \
    "UPDATE wh_delivery SET state = 1, next_at = %lld"                        \
    " WHERE state < 3 AND state = 0 AND (payment_id, seq) IN ("               \
    "  SELECT f.payment_id, (SELECT min(w.seq) FROM wh_delivery w"            \
    "   WHERE w.payment_id = f.payment_id AND w.state < 3)"                   \
    "  FROM wh_delivery f WHERE f.event_id IN (" ids ") AND f.state > 2"      \
    "  AND f.payment_id IS NOT NULL)"
#define WH_FQ_SQL_PROMOTE WH_FQ_PROMOTE(WH_SQL_IDS)
#define WH_FQ_SQL_PROMOTE_PG WH_FQ_PROMOTE(WH_SQL_IDS_PG)
/* MySQL: the pairs through a derived table, which it materialises before
 * the UPDATE writes (it refuses a subquery on the table it updates). */
#define WH_FQ_SQL_PROMOTE_MY                                                  \
    "UPDATE wh_delivery SET state = 1, next_at = %lld"                        \
    " WHERE state = 0 AND (payment_id, seq) IN (SELECT x.p, x.s FROM ("       \
    "  SELECT f.payment_id AS p, (SELECT min(w.seq) FROM wh_delivery w"       \
    "   WHERE w.payment_id = f.payment_id AND w.state < 3) AS s"              \
    "  FROM wh_delivery f WHERE f.event_id IN (" WH_SQL_IDS_MY ")"             \
    "  AND f.state > 2 AND f.payment_id IS NOT NULL) AS x)"

#define WH_FQ_SQL_NEXT_DUE "SELECT min(next_at) FROM wh_delivery WHERE state = 1"

#define WH_FQ_SQL_PEEK                                                        \
    "SELECT (SELECT max(seq) FROM wh_order),"                                 \
    " (SELECT last_seq FROM wh_forward_cursor WHERE id = 1),"                 \
    " (SELECT min(next_at) FROM wh_delivery WHERE state = 1)"

/* What a status page or a scrape reads, at a cost that follows the open
 * events (the backlog) and the dead letters, never the events forwarded.
 * Open events are counted and their first position found in the
 * wh_delivery_open index alone (its predicate repeated): counting the
 * waiting ones, or taking the least received_at, would look every open
 * row up in the table. The oldest open event is the first listed one
 * (positions follow arrival, but for events committed in the same
 * moments), its arrival found through the listing. */
#define WH_FQ_SQL_STATS                                                        \
    "SELECT (SELECT count(*) FROM wh_delivery WHERE state < 3)"               \
    "  - (SELECT count(*) FROM wh_delivery WHERE state = 1),"                 \
    " (SELECT count(*) FROM wh_delivery WHERE state = 1),"                    \
    " (SELECT count(*) FROM wh_delivery WHERE state = 1 AND attempts > 0"     \
    "   AND lease_owner IS NULL),"                                            \
    " (SELECT count(*) FROM wh_delivery WHERE state = 4),"                    \
    " (SELECT e.received_at FROM wh_order o JOIN wh_events e"                 \
    "   ON e.id = o.event_id WHERE o.seq ="                                   \
    "   (SELECT min(seq) FROM wh_delivery WHERE state < 3)),"                 \
    " (SELECT max(seq) FROM wh_order),"                                       \
    " (SELECT last_seq FROM wh_forward_cursor WHERE id = 1)"

/* ---- dead letters ---------------------------------------------------- */

#define WH_FQ_DEAD_COLS                                                       \
    "SELECT d.event_id, d.seq, e.notification_id, e.payment_id, e.status,"    \
    " e.event_time, d.attempts, d.received_at, d.first_at, d.done_at,"        \
    " d.http_status, d.answer, d.reason"
#define WH_FQ_SQL_DEAD_LIST                                                  \
    WH_FQ_DEAD_COLS                                                          \
    " FROM wh_delivery d JOIN wh_events e ON e.id = d.event_id"               \
    " WHERE d.state = 4 AND d.event_id > %lld ORDER BY d.event_id LIMIT %d"
#define WH_FQ_SQL_DEAD_BY_ID                                                 \
    WH_FQ_DEAD_COLS ", e.body"                                               \
    " FROM wh_delivery d JOIN wh_events e ON e.id = d.event_id"               \
    " WHERE d.state = 4 AND d.event_id = %lld"
#define WH_FQ_SQL_DEAD_BY_NID                                                \
    WH_FQ_DEAD_COLS ", e.body"                                               \
    " FROM wh_delivery d JOIN wh_events e ON e.id = d.event_id"               \
    " WHERE d.state = 4 AND e.notification_id = %s"
#define WH_FQ_SQL_DEAD_IDS                                                   \
    "SELECT event_id FROM wh_delivery WHERE state = 4 ORDER BY seq LIMIT %d"
#define WH_FQ_SQL_DEAD_IDS_PAYMENT                                            \
    "SELECT event_id FROM wh_delivery WHERE state = 4 AND payment_id = %s"    \
    " ORDER BY seq LIMIT %d"
#define WH_FQ_SQL_DEAD_COUNT_PAYMENT                                         \
    "SELECT count(*) FROM wh_delivery WHERE state = 4 AND payment_id = %s"

/* Queue rows of a JSON array of event ids. */
#define WH_FQ_STATES(ids)                                                     \
    "SELECT event_id, state, attempts, lease_owner, next_at, first_at,"       \
    " done_at, http_status, answer, reason FROM wh_delivery"                  \
    " WHERE event_id IN (" ids ")"
#define WH_FQ_SQL_STATES WH_FQ_STATES(WH_SQL_IDS)
#define WH_FQ_SQL_STATES_PG WH_FQ_STATES(WH_SQL_IDS_PG)
#define WH_FQ_SQL_STATES_MY WH_FQ_STATES(WH_SQL_IDS_MY)

/* Back in the queue with a fresh count: ready, unless an event of its
 * payment is still open (then it waits; being earlier, it is next). One
 * row per statement, in seq order, so each sees the ones before it. */
#define WH_FQ_SQL_REVIVE                                                      \
    "UPDATE wh_delivery SET state = CASE WHEN payment_id IS NOT NULL"         \
    "  AND EXISTS (SELECT 1 FROM wh_delivery x"                               \
    "   WHERE x.payment_id = wh_delivery.payment_id AND x.state < 3)"         \
    "  THEN 0 ELSE 1 END,"                                                    \
    " attempts = 0, first_at = NULL, next_at = %lld, done_at = NULL,"         \
    " lease_owner = NULL, reason = NULL"                                      \
    " WHERE event_id = %lld AND state = 4"
/* MySQL: the payment's open events through a join (each row updated once
 * however many match; none match an event without a paymentId). */
#define WH_FQ_SQL_REVIVE_MY                                                   \
    "UPDATE wh_delivery d LEFT JOIN wh_delivery x"                            \
    " ON x.payment_id = d.payment_id AND x.state < 3"                         \
    " SET d.state = CASE WHEN x.event_id IS NULL THEN 1 ELSE 0 END,"          \
    " d.attempts = 0, d.first_at = NULL, d.next_at = %lld, d.done_at = NULL," \
    " d.lease_owner = NULL, d.reason = NULL"                                  \
    " WHERE d.event_id = %lld AND d.state = 4"

#endif
