#ifndef WH_REPLAY_H
#define WH_REPLAY_H
/* Replay protection's promise: a notificationId accepted once is a
 * duplicate for the whole ReplayWindow, across restarts, whatever the
 * load. Hosts keep the ids in wirehook's own LMDB store (the default,
 * wh_replay_lmdb.h), a store several servers share (redis, memcached,
 * PostgreSQL: wh_replay_store.h) or an httpd mod_socache provider (dbm,
 * shmcb); this file knows what each provider can promise and supplies the
 * admission rules that keep the promise where the store alone cannot:
 *
 *   a fixed-size store (shmcb) evicts live ids when full: a ledger counts
 *     the live ids of each of its subcaches and refuses the one that would
 *     evict (the host answers 503 replay_cache_unavailable);
 *   a store that starts empty (shmcb at every restart; a flushed or
 *     restarted memcached/redis, a lost dbm file) cannot know what was
 *     accepted before it began: a notification signed too early to be
 *     judged is refused the same way (wh_replay_predates).
 *
 * Pure logic and arithmetic: no socache calls, no httpd headers. */
#include <apr_pools.h>
#include <apr_time.h>

/* The key the epoch marker is stored under: never a notificationId
 * (those are canonical UUIDs). */
#define WH_REPLAY_MARKER_KEY "wirehook:epoch"

/* shmcb's default segment, as mod_socache_shmcb.c sets it (512 KiB). */
#define WH_REPLAY_SHMCB_DEFAULT_SIZE (512 * 1024)

/* What the replay store holds per id: one byte of value ("1"). */
#define WH_REPLAY_VALUE_LEN 1

typedef struct {
    const char *provider;        /* "lmdb", "dbm", "shmcb", "memcache",
                                    "redis", "pgsql", "mysql" */
    const char *args;            /* as configured (dbm/shmcb: a path) */
    int shared;                  /* safe for several servers at once: the
                                    claim is atomic in the store itself */
    const char *host;            /* memcache, redis: the server */
    int port;
    const char *conninfo;        /* pgsql:CONNINFO, mysql:PARAMS; NULL: the
                                    inbox's */
    const char *path;            /* lmdb: the file ("": the default one) */
    apr_size_t map_size;         /* lmdb: bytes of its map */
    int survives_restart;        /* keeps its ids across httpd restarts */
    int uses_marker;             /* an epoch marker detects a store that
                                    lost everything behind httpd's back */
    unsigned partitions;         /* shmcb subcaches (a power of two); else 1 */
    apr_uint64_t per_partition;  /* ids one partition holds without
                                    evicting; 0: no fixed bound */
    apr_size_t shm_size;         /* shmcb: segment bytes */
    apr_size_t key_len;          /* bytes of a stored key */
    /* socache hints (ap_socache_hints): shmcb sizes its index ring by
     * them, so avg_obj_size also pays for an entry's index slot, which
     * balances index and data space and maximises the ids held. */
    apr_size_t hint_id_len, hint_obj_size;
} wh_replay_model;

/* Fills m for a provider and its ReplayCache arguments (args may be NULL).
 * Returns NULL or why the arguments cannot be used (a shmcb size that
 * holds no id). */
const char *wh_replay_model_make(apr_pool_t *p, const char *provider,
                                 const char *args, wh_replay_model *m);

/* The capacity of shmcb for a segment of shm_size bytes given the hints
 * hint_id_len and hint_obj_size, storing keys of key_len bytes with
 * val_len-byte values, computed as mod_socache_shmcb.c lays the segment
 * out: *subcaches (a power of two) and *per_subcache, the ids one subcache
 * holds before it scrolls the oldest out. 0, or -1 when the segment is
 * too small to be used. */
int wh_replay_shmcb_layout(apr_size_t shm_size, apr_size_t hint_id_len,
                           apr_size_t hint_obj_size, apr_size_t key_len,
                           apr_size_t val_len, unsigned *subcaches,
                           apr_uint64_t *per_subcache);

/* The spec as logs show it: "provider:args", but a pgsql conninfo's
 * password, and every value of mysql's parameters that may be a secret,
 * replaced by "***". */
const char *wh_replay_spec_display(apr_pool_t *p, const char *provider,
                                   const char *args);

/* One sentence for the startup log: capacity, eviction, restarts. */
const char *wh_replay_model_describe(apr_pool_t *p, const wh_replay_model *m,
                                     apr_int64_t window_sec,
                                     apr_int64_t tolerance_sec);

/* The key for id, in p, and the partition it lands in. For shmcb, which
 * picks a subcache by the key's first byte, the key starts with a hash
 * byte of the id: hex UUIDs alone would start with one of 16 characters
 * and leave most subcaches unused. Elsewhere the key is the id itself
 * (memcached keys must be text). */
void wh_replay_key(apr_pool_t *p, const wh_replay_model *m, const char *id,
                   const unsigned char **key, unsigned *key_len,
                   unsigned *partition);

/* 1 when a store whose memory began at since cannot judge a notification
 * signed at signed_at: one accepted before since carried a timestamp at
 * most tolerance ahead of its acceptance, so anything signed before
 * since + tolerance may have been. since 0: a store known to be new
 * (nothing was ever accepted before it), which judges everything. */
int wh_replay_predates(apr_time_t signed_at, apr_time_t since,
                       apr_int64_t tolerance_sec);

/* ---- the ledger: live ids per partition over the window -------------
 * Stores within the window are counted in time buckets per partition;
 * an id stored in a bucket is taken to live until the bucket's end plus
 * the window, so the count never falls below the ids the store really
 * holds (removals are not subtracted: shmcb keeps a removed entry's space
 * until it expires). The memory is the host's (shared memory in httpd),
 * used under the host's lock. */
typedef struct wh_replay_ledger wh_replay_ledger;

apr_size_t wh_replay_ledger_size(unsigned partitions);
/* Lays a ledger out in mem (wh_replay_ledger_size bytes, zeroed or not).
 * per_partition 0: count only, never refuse. since: when the store's
 * memory began (0: known new). */
wh_replay_ledger *wh_replay_ledger_init(void *mem, unsigned partitions,
                                        apr_uint64_t per_partition,
                                        apr_int64_t window_sec,
                                        apr_time_t since);
apr_time_t wh_replay_ledger_since(const wh_replay_ledger *l);
/* Counts one more id in partition at now and returns 1, or returns 0
 * without counting when the partition is full. */
int wh_replay_ledger_admit(wh_replay_ledger *l, unsigned partition,
                           apr_time_t now);
apr_uint64_t wh_replay_ledger_live(const wh_replay_ledger *l,
                                   unsigned partition, apr_time_t now);
/* When the partition's oldest counted ids lapse, freeing room (the time a
 * refused id may be admitted, when the partition is full at now); 0 when
 * it counts nothing live. */
apr_time_t wh_replay_ledger_room_at(const wh_replay_ledger *l,
                                    unsigned partition, apr_time_t now);
/* Totals over every partition: live ids, capacity (0: unbounded), and
 * the fullest partition's live ids. */
void wh_replay_ledger_fill(const wh_replay_ledger *l, apr_time_t now,
                           apr_uint64_t *live, apr_uint64_t *capacity,
                           apr_uint64_t *fullest);

/* ---- the epoch marker ------------------------------------------------
 * Value: "since=<µs> set=<µs>": since is when the store's memory began
 * (0: known new), set when the marker was last written (it is rewritten
 * daily so it never expires while in use). */
#define WH_REPLAY_MARKER_TTL apr_time_from_sec(20 * 86400)
#define WH_REPLAY_MARKER_REFRESH apr_time_from_sec(86400)
const char *wh_replay_marker_encode(apr_pool_t *p, apr_time_t since,
                                    apr_time_t set);
/* 0 on a well-formed value, -1 otherwise (treated as no marker). */
int wh_replay_marker_decode(const char *value, apr_size_t len,
                            apr_time_t *since, apr_time_t *set);

#endif
