#ifndef WH_REPLAY_LMDB_H
#define WH_REPLAY_LMDB_H
/* The replay store wirehook keeps itself (ReplayCache lmdb, the default):
 * notificationIds in an LMDB file, a memory-mapped B-tree that every
 * process and every httpd generation opening the file shares. Why LMDB
 * rather than a mod_socache provider: shmcb forgets at every restart and
 * evicts when full; mod_socache_dbm opens, writes, syncs and closes its
 * Berkeley DB file for every id (two fdatasync calls per notification,
 * under a global mutex). LMDB records an id in one short write
 * transaction (its own process-shared robust mutex; no open, no close),
 * never evicts (a full map refuses), and its pages live in the page cache
 * the moment they are written, so a killed process, a killed httpd, a
 * graceful or a full restart lose nothing.
 *
 * Commits are not synced (MDB_NOSYNC): only the machine going down can
 * lose ids, and then the file cannot be trusted (LMDB's integrity without
 * syncs depends on write order). A state file beside it records the boot
 * it was last used in and whether its last user stopped cleanly (synced):
 * after a reboot without a clean stop the file is discarded and the store
 * remembers only from its new start (the host refuses what it cannot
 * judge, wh_replay_predates).
 *
 * Files: PATH (the data), PATH-lock (LMDB's lock file), PATH-state.
 * No httpd headers: the CGI, the CLI and the unit tests can use it. */
#include <apr_pools.h>
#include <apr_time.h>

/* The map's default and smallest sizes. The file is sparse: it takes
 * disk for the ids it holds (about 100 bytes each) and a reserve ahead
 * of them (wh_replay_lmdb.c, "disk space for the map"). 128 MiB holds
 * about 1.3 million ids: 2,200 notifications/s over a 600 s ReplayWindow. */
#define WH_REPLAY_LMDB_DEFAULT_SIZE ((apr_size_t)128 << 20)
#define WH_REPLAY_LMDB_MIN_SIZE ((apr_size_t)64 << 10)
/* Map bytes per held id, for the capacity the startup log states: one
 * B-tree entry (about 54 bytes) in pages partly full, LMDB's free pages
 * and the expired ids not swept yet (see bench/method.md). */
#define WH_REPLAY_LMDB_BYTES_PER_ID 100
/* Longest id stored (LMDB keys are at most 511 bytes; ids are UUIDs). */
#define WH_REPLAY_LMDB_ID_MAX 128

typedef struct wh_replay_lmdb wh_replay_lmdb;

typedef enum {
    WH_LMDB_FIRST = 0,   /* recorded now: deliver */
    WH_LMDB_DUPLICATE,   /* held, and live */
    WH_LMDB_REFUSED,     /* absent, and the caller did not allow adding */
    WH_LMDB_FULL,        /* absent, and the map has no room: nothing was
                            evicted, nothing recorded */
    WH_LMDB_ERROR,
    WH_LMDB_IN_PROGRESS  /* held by a delivery still under way: neither
                            delivered again nor a duplicate yet */
} wh_lmdb_result;

/* A process that holds claims, told apart from a later process given
 * the same pid: its start time and the boot it runs in. */
typedef struct {
    apr_int64_t pid;
    apr_uint64_t start;  /* start time in clock ticks after boot (0: unknown) */
    apr_uint64_t boot;   /* a hash of the kernel's boot id (0: unknown) */
} wh_replay_process;

/* Who records an id for a delivery under way (see wh_replay_lmdb_claim).
 * A claim holds while its process runs, however long its delivery takes;
 * claims written before start times were recorded (a process alone) hold
 * at most lease. */
typedef struct {
    wh_replay_process self;
    apr_interval_time_t lease;
    /* whether a claim's process still runs; NULL: wh_replay_process_alive */
    int (*alive)(const wh_replay_process *holder);
} wh_replay_owner;

/* This process as an owner (reads its start time and the boot id: once
 * per process, not per claim). */
void wh_replay_owner_self(wh_replay_owner *o, apr_interval_time_t lease);

/* 1 while the process h names runs: same boot, pid alive (kill(pid, 0);
 * EPERM is alive), and, where both are known, the same start time (a pid
 * handed to a new process is not the claim's). */
int wh_replay_process_alive(const wh_replay_process *h);
/* The start time of pid (field 22 of /proc/PID/stat). 0, or -1. */
int wh_replay_process_start(apr_int64_t pid, apr_uint64_t *start);

/* ---- the state file and the rule that trusts a store ---------------- */
typedef struct {
    char boot[64];       /* the kernel's boot id when written ("": unknown) */
    int clean;           /* 1: its last user synced it and stopped */
    apr_time_t since;    /* when the store's memory began (0: known new) */
} wh_replay_lmdb_state;

const char *wh_replay_lmdb_state_encode(apr_pool_t *p,
                                        const wh_replay_lmdb_state *st);
/* 0 on a well-formed state, -1 otherwise (treated as no state). */
int wh_replay_lmdb_state_decode(const char *text, apr_size_t len,
                                wh_replay_lmdb_state *st);

typedef enum {
    WH_LMDB_TRUST_NEW,      /* no file, nothing ever recorded: since 0 */
    WH_LMDB_TRUST_KEEP,     /* the file holds everything: its own since */
    WH_LMDB_TRUST_LOST,     /* no file, but there was one (or it lived in
                               RAM): remembers from now */
    WH_LMDB_TRUST_DISCARD   /* a file that cannot be trusted (the machine
                               went down without a clean stop, or no
                               readable state): removed, remembers from now */
} wh_lmdb_trust;

/* The rule, pure: st is the state file's content (NULL: none or
 * unreadable), data_exists whether PATH exists, on_ram_fs whether a
 * missing file may have been lost (its directory is a RAM file system a
 * reboot empties, or another store held ids before it), boot_now the
 * kernel's boot id ("" unknown). Sets *since. */
wh_lmdb_trust wh_replay_lmdb_trust(const wh_replay_lmdb_state *st,
                                   int data_exists, int on_ram_fs,
                                   const char *boot_now, apr_time_t now,
                                   apr_time_t *since);

/* The kernel's boot id into buf ("" where there is none). */
void wh_replay_lmdb_boot_id(char *buf, apr_size_t len);

/* NULL, or why a map of map_size bytes cannot be used. */
const char *wh_replay_lmdb_size_error(apr_pool_t *p, apr_size_t map_size);

/* ---- the host's lifecycle ------------------------------------------- */

/* Before the workers start (httpd's parent, as root): applies the rule,
 * removes an untrusted file, creates the store (mode 0600) and writes the
 * state as "in use". predecessor: another replay store held ids before
 * this one (a missing file is then lost, not new). *since: when the
 * store's memory began; *trust: which case applied. NULL or the error. */
const char *wh_replay_lmdb_prepare(apr_pool_t *p, const char *path,
                                   apr_size_t map_size, apr_time_t now,
                                   int predecessor, apr_time_t *since,
                                   wh_lmdb_trust *trust);

/* At a clean stop, once no worker writes: syncs the file to disk and
 * marks the state clean (trusted after a reboot). NULL or the error. */
const char *wh_replay_lmdb_mark_clean(apr_pool_t *p, const char *path,
                                      apr_size_t map_size);

/* Opens the store in a worker process, after fork (an LMDB environment is
 * never carried across one). The file must exist: a missing one is an
 * error, never a new empty store. Closed when p is cleared. */
const char *wh_replay_lmdb_open(apr_pool_t *p, const char *path,
                                apr_size_t map_size, wh_replay_lmdb **out);

/* Records id until expires unless it is held and live (an expired entry
 * counts as absent). may_add 0: only looks (DUPLICATE or REFUSED). Each
 * call also purges a few expired ids, so the store holds about
 * rate × window ids. *err: why, for FULL and ERROR.
 *
 * With an owner, the id is recorded as a delivery under way, claimed by
 * owner->self, until wh_replay_lmdb_confirm() confirms it. Until
 * then a lookup answers IN_PROGRESS, not DUPLICATE: the delivery may still
 * fail, and a copy answered "duplicate" meanwhile would be lost. A claim
 * holds while its process runs, past its expiry too (an application that
 * takes longer than anything expected is still delivering); a claim whose
 * process is gone (a full restart or a crash killed the handler, or its
 * pid now names another process) is taken over: the copy is delivered.
 * The sweep never removes a claim whose process runs. */
wh_lmdb_result wh_replay_lmdb_add(wh_replay_lmdb *db, const char *id,
                                  apr_time_t now, apr_time_t expires,
                                  int may_add, const char **err);
wh_lmdb_result wh_replay_lmdb_claim(wh_replay_lmdb *db, const char *id,
                                    apr_time_t now, apr_time_t expires,
                                    int may_add, const wh_replay_owner *owner,
                                    const char **err);

/* The delivery claimed by pid succeeded: id is a duplicate until the
 * later of its claim's expiry and expires. Nothing changes when id is
 * absent or claimed by another (its claim was taken over). 0, or -1 with
 * *err. */
int wh_replay_lmdb_confirm(wh_replay_lmdb *db, const char *id,
                           apr_int64_t pid, apr_time_t expires,
                           const char **err);

/* Forgets id (the application failed: the bank's retry is delivered).
 * 0: removed or absent; -1 with *err. */
int wh_replay_lmdb_remove(wh_replay_lmdb *db, const char *id,
                          const char **err);

/* ids held (expired ones not yet purged included), bytes of the map in
 * use, and its size. 0, or -1. */
int wh_replay_lmdb_usage(wh_replay_lmdb *db, apr_uint64_t *ids,
                         apr_uint64_t *used, apr_uint64_t *size);

/* The lock and state files of the store at path. */
const char *wh_replay_lmdb_lockfile(apr_pool_t *p, const char *path);
const char *wh_replay_lmdb_statefile(apr_pool_t *p, const char *path);

#endif
