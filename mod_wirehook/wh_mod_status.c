/* wirehook's counters in mod_status (`/server-status`, `?auto`).
 *
 * What is counted, per configuration (one WirehookConfig file, named by its
 * absolute path): every POST wirehook answered, by what the sender was
 * told -- accepted, duplicate, or the error code (every code of
 * shared/verify/wh_verdict.h a notification can get; a code this table does not
 * know is counted as "other", never lost) -- and for the inbox handler
 * what the inbox did (stored, duplicate, unavailable). Beside them: the
 * replay store's fill against its capacity, when the store can tell.
 * Listing requests (GET) are not counted. And the time each counted
 * answer took, from the request's arrival: a histogram on the buckets of
 * shared/metrics/wh_metrics.h, shown only by the metrics
 * (wh_mod_metrics.c).
 *
 * Where the numbers live: one anonymous shared-memory segment (mmap
 * MAP_SHARED, inherited through fork) that the parent creates in the
 * post_config of its first configuration, in s->process->pool -- the pool
 * of the parent process itself, not pconf -- so every child of every
 * generation adds to the same numbers, and a graceful restart
 * (`apachectl graceful`, SIGUSR1) or a plain restart (`apachectl restart`,
 * SIGHUP) keeps them: the parent survives both, re-runs post_config and
 * finds the segment again through the pool's userdata. `apachectl stop`
 * and `start` make a new parent: the counters start from zero, and
 * `WirehookCountersSince` says when they did.
 *
 * A configuration keeps its slot (and its numbers) across generations:
 * post_config finds the slot whose path is the configuration's. One new
 * to httpd's configuration takes a free slot, or, once all
 * WH_STATS_MAX_CONFIGS are taken, the slot of one no longer named by a
 * WirehookConfig (zeroed first); past that it has no counters (logged at
 * startup). The slot number is the configuration's index in the ?auto
 * keys, so it stays the same while the configuration is in use; a first
 * start numbers the configurations in the order of their paths. (A slot
 * handed to a new configuration while children of the previous
 * generation still finish their requests may get a few of the old one's
 * last counts.)
 *
 * Beside each slot's totals, the same answers by the minute for the
 * console's charts of refusals over time (wh_console_ring.h: the last
 * hour by the minute, the last day by ten minutes, fixed in size), in
 * the segment after the slots. The segment is anonymous memory the
 * kernel gives zeroed: only the header and the slots are cleared at
 * its creation, so a ring takes memory only once its configuration
 * counts.
 *
 * The request path pays one relaxed atomic add on a 64-bit counter, and
 * two compare-and-swaps on its minute's and ten minutes' cells: no
 * lock, no system call. The status hook reads the counters without a lock
 * too (each read is atomic; a page is not a snapshot across counters).
 * The CGI has no shared memory and counts nothing (docs/monitoring.md).
 *
 * ?auto format (one "Key: value" line each, as mod_status's own and
 * mod_proxy_balancer's lines; apache_exporter ignores keys it does not
 * know), documented in docs/monitoring.md:
 *   WirehookCountersSince: <unix time the counters started at zero>
 *   WirehookSites: <number of configurations counted>
 *   WirehookSite[i]Config: <absolute path of the WirehookConfig file>
 *   WirehookSite[i]Accepted: n
 *   WirehookSite[i]Duplicate: n
 *   WirehookSite[i]Rejected[<code>]: n      (each code, and "other")
 *   WirehookSite[i]InboxStored / InboxDuplicate / InboxUnavailable: n
 *   WirehookSite[i]ReplayStore: <ReplayCache provider>
 *   WirehookSite[i]ReplayLive / ReplayCapacity: n   (when known)
 *   WirehookSite[i]ForwardState: not started | started | unavailable
 *   WirehookSite[i]ForwardLagSeconds / ForwardQueued / ForwardRetrying /
 *     ForwardDead / ForwardUnqueued      (with ForwardUrl, once wirehook
 *                                         forward has run)
 * (The keys say Site for a configuration: they predate the word, and
 * scrapers parse them.)
 */
#include "verify/wh_version.h"
#include "wh_mod_status.h"
#include "wh_mod_replay.h"
#include "wh_mod_config_inbox.h"
#include "forward/wh_forward_queue.h"
#include "console/wh_console.h"
#include "console/wh_console_ring.h"
#include "metrics/wh_metrics.h"

#include "http_core.h"
#include "http_protocol.h"
#include "mod_status.h"
#include <apr_shm.h>
#include <apr_strings.h>
#include <apr_time.h>
#include <stdatomic.h>
#include <stdlib.h>

/* A counter shared between processes must be lock-free: a lock-based
 * atomic (libatomic's fallback) keeps its lock in process memory. Where
 * 64-bit atomics are not lock-free (some 32-bit ARM), counters are
 * unsigned long and wrap at 2^32. */
#if ATOMIC_LLONG_LOCK_FREE == 2
typedef atomic_ullong wh_counter;
#elif ATOMIC_LONG_LOCK_FREE == 2
typedef atomic_ulong wh_counter;
#else
#error "mod_wirehook's status counters need lock-free atomics"
#endif

#define WH_STATS_KEY       "wirehook-status-shm"
#define WH_STATS_MAGIC     0x57485354u          /* "WHST" */
#define WH_STATS_LAYOUT    3u                   /* 2: + latency, 3: + rings */
#define WH_STATS_MAX_CONFIGS 256
#define WH_STATS_PATH_MAX  1024

/* The codes a notification can be refused with: the counted ones of
 * WH_CODES (shared/verify/wh_verdict.h), in its order. */
#define WH_STATS_IF_1(x) x,
#define WH_STATS_IF_0(x)
#define WH_STATS_CODE(name, code, counted) WH_STATS_IF_##counted(WH_CODE_##name)
static const char *const wh_stats_codes[] = { WH_CODES(WH_STATS_CODE) };
#define WH_STATS_NCODES \
    ((int)(sizeof(wh_stats_codes) / sizeof(wh_stats_codes[0])))

/* Counter indexes in a slot. */
enum {
    WH_STAT_ACCEPTED = 0,
    WH_STAT_DUPLICATE,
    WH_STAT_CODE0,                                  /* wh_stats_codes[0] */
    WH_STAT_OTHER = WH_STAT_CODE0 + WH_STATS_NCODES, /* unknown code */
    WH_STAT_INBOX_STORED,
    WH_STAT_INBOX_DUPLICATE,
    WH_STAT_INBOX_UNAVAILABLE,
    WH_STAT_COUNT
};

/* One configuration's counters. Aligned to a cache line so two
 * configurations' counters never share one (children counting for
 * different configurations would bounce it). */
struct wh_mod_stats_slot {
    _Alignas(64) wh_counter n[WH_STAT_COUNT];
    /* verification latency: one count per bucket (not cumulative), and
     * their sum in microseconds */
    wh_counter latency[WH_METRICS_LATENCY_BUCKETS];
    wh_counter latency_sum_us;
    /* written by the parent in post_config only */
    unsigned int in_use;
    unsigned int generation;            /* last generation configuring it */
    char path[WH_STATS_PATH_MAX];
};
typedef struct wh_mod_stats_slot wh_stats_slot;

/* The segment. The header says what layout the module that created it
 * used: a graceful restart onto an upgraded mod_wirehook.so with another
 * layout gets a new segment instead of misreading the old one. */
typedef struct {
    unsigned int magic;
    unsigned int layout;
    unsigned int max_configs;
    unsigned int slot_size;
    unsigned int ncounters;
    unsigned int generation;            /* post_config runs so far */
    apr_time_t started;                 /* when the counters were zero */
    apr_size_t ring_size;               /* each slot's ring, after slot[] */
    wh_stats_slot slot[WH_STATS_MAX_CONFIGS];
} wh_stats_shm;

/* Each slot's ring, cache-line aligned, after the segment's struct. */
static apr_size_t ring_stride(void)
{
    return (wh_ring_size() + 63) & ~(apr_size_t)63;
}

static wh_console_ring *slot_ring(wh_stats_shm *shm, const wh_stats_slot *slot)
{
    if (!shm || !shm->ring_size)
        return NULL;
    return (wh_console_ring *)((char *)(shm + 1) + ring_stride() * (apr_size_t)(slot - shm->slot));
}

/* This generation's view, set by the parent in post_config and inherited
 * by the children it forks. */
static wh_stats_shm *stats_shm;
typedef struct {
    wh_mod_config *config;
    int index;                          /* slot, -1: no counters */
} wh_status_row;
static wh_status_row *status_rows;
static int status_nrows;

/* ----------------------------------------------------- request path --- */

static int stat_index(const char *code)
{
    static const char *const accepted = WH_CODE_ACCEPTED;
    static const char *const duplicate = WH_CODE_DUPLICATE;
    /* the callers pass the WH_CODE_* arrays themselves (a verdict's code
     * is one), so a pointer usually matches first */
    if (code == accepted)
        return WH_STAT_ACCEPTED;
    if (code == duplicate)
        return WH_STAT_DUPLICATE;
    for (int i = 0; i < WH_STATS_NCODES; i++)
        if (code == wh_stats_codes[i])
            return WH_STAT_CODE0 + i;
    if (strcmp(code, accepted) == 0)
        return WH_STAT_ACCEPTED;
    if (strcmp(code, duplicate) == 0)
        return WH_STAT_DUPLICATE;
    for (int i = 0; i < WH_STATS_NCODES; i++)
        if (strcmp(code, wh_stats_codes[i]) == 0)
            return WH_STAT_CODE0 + i;
    return WH_STAT_OTHER;
}

static void stat_add(const wh_mod_config *config, int i)
{
    if (config != NULL && config->stats != NULL) {
        atomic_fetch_add_explicit(&config->stats->n[i], 1,
                                  memory_order_relaxed);
        /* answers (the inbox's own counts are not) by the minute too */
        if (i <= WH_STAT_OTHER)
            wh_ring_add(slot_ring(stats_shm, config->stats), i, apr_time_now());
    }
}

void wh_mod_stats_verdict(const wh_mod_config *config, const char *code)
{
    if (code != NULL)
        stat_add(config, stat_index(code));
}

void wh_mod_stats_inbox(const wh_mod_config *config, wh_inbox_result res)
{
    switch (res) {
    case WH_INBOX_STORED:
        stat_add(config, WH_STAT_INBOX_STORED);
        stat_add(config, WH_STAT_ACCEPTED);
        break;
    case WH_INBOX_DUPLICATE:
        stat_add(config, WH_STAT_INBOX_DUPLICATE);
        stat_add(config, WH_STAT_DUPLICATE);
        break;
    default:
        stat_add(config, WH_STAT_INBOX_UNAVAILABLE);
        stat_add(config, stat_index(WH_CODE_INBOX_UNAVAILABLE));
        break;
    }
}

/* 1 when resp is the 200 {"status":"<code>",...} of an ack. */
static int acked_as(const wh_response *resp, const char *code)
{
    const char *s = resp->body ? strstr(resp->body, code) : NULL;
    return s && s > resp->body && s[-1] == '"' && s[strlen(code)] == '"';
}

void wh_mod_stats_latency(const wh_mod_config *config, const request_rec *r)
{
    apr_interval_time_t took;

    if (config == NULL || config->stats == NULL)
        return;
    took = apr_time_now() - r->request_time;
    if (took < 0)
        took = 0;                   /* the clock stepped back */
    atomic_fetch_add_explicit(&config->stats->latency[wh_metrics_latency_bucket(took)], 1,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&config->stats->latency_sum_us, (apr_uint64_t)took,
                              memory_order_relaxed);
}

void wh_mod_stats_verified(const wh_mod_config *config, const request_rec *r, int rc)
{
    const wh_mod_state *st = wh_mod_state_of(r);

    /* no state: httpd answered (an error reading the body), wirehook gave
     * no verdict; the inbox's POST is observed by its handler, after the
     * store */
    if (st == NULL || (rc == OK && st->phase == WH_ST_INBOX))
        return;
    if (rc == OK || rc == DONE)
        wh_mod_stats_latency(config, r);
}

void wh_mod_stats_endpoint(const wh_mod_config *config, const wh_verdict *v,
                           const wh_response *resp)
{
    if (!v->ok)
        wh_mod_stats_verdict(config, v->code);
    else if (resp->status != 200)
        wh_mod_stats_inbox(config, WH_INBOX_UNAVAILABLE);
    else if (acked_as(resp, WH_CODE_DUPLICATE))
        wh_mod_stats_inbox(config, WH_INBOX_DUPLICATE);
    else
        wh_mod_stats_inbox(config, WH_INBOX_STORED);
}

/* ------------------------------------------------------- post_config --- */

/* Rings need lock-free 64-bit atomics, and the answers in the console's
 * order: accepted, duplicate, each counted code, other (one list,
 * WH_CODES, makes both). */
static int rings_kept(void)
{
    return wh_ring_kept() && wh_ring_answers() == WH_STAT_OTHER + 1;
}

static wh_stats_shm *stats_segment(server_rec *s)
{
    apr_pool_t *pp = s->process->pool;
    void *data = NULL;
    apr_pool_userdata_get(&data, WH_STATS_KEY, pp);
    wh_stats_shm *shm = data;
    if (shm && shm->magic == WH_STATS_MAGIC && shm->layout == WH_STATS_LAYOUT
        && shm->max_configs == WH_STATS_MAX_CONFIGS
        && shm->slot_size == sizeof(wh_stats_slot)
        && shm->ncounters == WH_STAT_COUNT
        && shm->ring_size == (rings_kept() ? wh_ring_size() : 0))
        return shm;
    if (shm)
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, WHLOGNO(00969)
                     "status counters: the segment of the previous "
                     "generation has another layout (mod_wirehook was "
                     "upgraded): the counters start again from zero");

    /* Anonymous (no file): shared with every child forked from now on.
     * Its cleanup is APR's own, so nothing in the process pool points
     * into this module, which httpd unloads at each restart. */
    apr_shm_t *seg = NULL;
    apr_size_t align = _Alignof(wh_stats_shm);
    apr_size_t rings = rings_kept() ? ring_stride() * WH_STATS_MAX_CONFIGS : 0;
    apr_status_t rv = apr_shm_create(&seg, sizeof(wh_stats_shm) + align + rings,
                                     NULL, pp);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, rv, s, WHLOGNO(00967)
                     "status counters: cannot create a shared memory "
                     "segment of %" APR_SIZE_T_FMT " bytes: no wirehook "
                     "counters in server-status", sizeof(wh_stats_shm));
        return NULL;
    }
    /* APR's segment starts after its own size word: aligned for any
     * scalar, not to the cache line the slots are aligned to */
    apr_uintptr_t base = (apr_uintptr_t)apr_shm_baseaddr_get(seg);
    shm = (wh_stats_shm *)((base + align - 1) & ~(apr_uintptr_t)(align - 1));
    memset(shm, 0, sizeof(*shm));
    shm->magic = WH_STATS_MAGIC;
    shm->layout = WH_STATS_LAYOUT;
    shm->max_configs = WH_STATS_MAX_CONFIGS;
    shm->slot_size = sizeof(wh_stats_slot);
    shm->ncounters = WH_STAT_COUNT;
    shm->ring_size = rings ? wh_ring_size() : 0;
    shm->started = apr_time_now();
    apr_pool_userdata_set(shm, WH_STATS_KEY, apr_pool_cleanup_null, pp);
    return shm;
}

static void slot_reset(wh_stats_slot *slot, const char *path,
                       unsigned int gen)
{
    for (int i = 0; i < WH_STAT_COUNT; i++)
        atomic_store_explicit(&slot->n[i], 0, memory_order_relaxed);
    for (int i = 0; i < WH_METRICS_LATENCY_BUCKETS; i++)
        atomic_store_explicit(&slot->latency[i], 0, memory_order_relaxed);
    atomic_store_explicit(&slot->latency_sum_us, 0, memory_order_relaxed);
    wh_ring_clear(slot_ring(stats_shm, slot));
    apr_cpystrn(slot->path, path, sizeof(slot->path));
    slot->in_use = 1;
    slot->generation = gen;
}

/* A slot for a configuration that has none yet: a free one, else the one
 * left longest ago by a configuration no longer in use; -1 when all are
 * taken. */
static int slot_take(wh_stats_shm *shm, unsigned int gen)
{
    int stale = -1;
    for (int i = 0; i < WH_STATS_MAX_CONFIGS; i++) {
        const wh_stats_slot *sl = &shm->slot[i];
        if (!sl->in_use)
            return i;
        if (sl->generation != gen
            && (stale < 0 || sl->generation < shm->slot[stale].generation))
            stale = i;
    }
    return stale;
}

static int row_by_path(const void *a, const void *b)
{
    const wh_status_row *x = a, *y = b;
    return strcmp(x->config->path, y->config->path);
}

static int row_by_index(const void *a, const void *b)
{
    const wh_status_row *x = a, *y = b;
    if (x->index != y->index)
        return x->index < 0 ? 1 : y->index < 0 ? -1 : x->index - y->index;
    return strcmp(x->config->path, y->config->path);
}

static int status_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    status_rows = NULL;
    status_nrows = 0;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    apr_hash_t *configs = wh_mod_configs(pconf);
    int n = (int)apr_hash_count(configs);
    if (n == 0)
        return OK;
    stats_shm = stats_segment(s);

    wh_status_row *rows = apr_pcalloc(pconf, sizeof(*rows) * (size_t)n);
    int k = 0;
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, configs); hi;
         hi = apr_hash_next(hi)) {
        rows[k].config = apr_hash_this_val(hi);
        rows[k].index = -1;
        k++;
    }
    /* new configurations take slots in path order: a first start numbers
     * them so */
    qsort(rows, (size_t)n, sizeof(*rows), row_by_path);

    wh_stats_shm *shm = stats_shm;
    unsigned int gen = shm ? ++shm->generation : 0;
    for (int pass = 0; shm && pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            wh_mod_config *config = rows[i].config;
            if (rows[i].index >= 0)
                continue;
            if (strlen(config->path) >= WH_STATS_PATH_MAX)
                continue;
            int slot = -1;
            if (pass == 0) {
                /* the configuration's own slot of an earlier generation */
                for (int j = 0; j < WH_STATS_MAX_CONFIGS; j++)
                    if (shm->slot[j].in_use
                        && strcmp(shm->slot[j].path, config->path) == 0) {
                        slot = j;
                        shm->slot[j].generation = gen;
                        break;
                    }
            }
            else {
                slot = slot_take(shm, gen);
                if (slot >= 0)
                    slot_reset(&shm->slot[slot], config->path, gen);
            }
            if (slot >= 0) {
                rows[i].index = slot;
                config->stats = &shm->slot[slot];
            }
        }
    }
    for (int i = 0; shm && i < n; i++) {
        if (rows[i].index >= 0)
            continue;
        const char *why =
            strlen(rows[i].config->path) >= WH_STATS_PATH_MAX
                ? apr_psprintf(ptemp, "a path of %d bytes or more",
                               WH_STATS_PATH_MAX)
                : apr_psprintf(ptemp, "more than %d configurations",
                               WH_STATS_MAX_CONFIGS);
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00968)
                     "WirehookConfig %s: no status counters (%s)",
                     rows[i].config->path, why);
    }
    qsort(rows, (size_t)n, sizeof(*rows), row_by_index);
    status_rows = rows;
    status_nrows = n;
    return OK;
}

/* ------------------------------------------------------------ console --- */

static apr_uint64_t get(const wh_stats_slot *slot, int i);

/* The answer counter i stands for, as the console and the metrics name
 * it: accepted, duplicate, a code of WH_CODES, other. */
static const char *answer_code(int i)
{
    return i == WH_STAT_ACCEPTED ? WH_CODE_ACCEPTED
           : i == WH_STAT_DUPLICATE ? WH_CODE_DUPLICATE
           : i == WH_STAT_OTHER ? "other" : wh_stats_codes[i - WH_STAT_CODE0];
}

int wh_mod_stats_counts(const wh_mod_config *config, apr_pool_t *p,
                        apr_array_header_t **counts, apr_time_t *since)
{
    if (!config || !config->stats || !stats_shm)
        return -1;
    *counts = apr_array_make(p, WH_STAT_OTHER + 1, sizeof(wh_console_count));
    for (int i = WH_STAT_ACCEPTED; i <= WH_STAT_OTHER; i++) {
        wh_console_count *c = apr_array_push(*counts);
        c->code = answer_code(i);
        c->n = get(config->stats, i);
    }
    *since = stats_shm->started;
    return 0;
}

const wh_console_ring *wh_mod_stats_ring(const wh_mod_config *config)
{
    return config && config->stats ? slot_ring(stats_shm, config->stats) : NULL;
}

/* ------------------------------------------------------------ metrics --- */

static apr_uint64_t load(const wh_counter *c)
{
    /* atomic_load of a const object is fine in C17, not in C11 */
    return (apr_uint64_t)atomic_load_explicit((wh_counter *)c, memory_order_relaxed);
}

int wh_mod_stats_nconfigs(void)
{
    return status_nrows;
}

wh_mod_config *wh_mod_stats_config(int i)
{
    return i >= 0 && i < status_nrows ? status_rows[i].config : NULL;
}

apr_time_t wh_mod_stats_since(void)
{
    return stats_shm ? stats_shm->started : 0;
}

int wh_mod_stats_metrics(const wh_mod_config *config, apr_pool_t *p, wh_metrics_config *m)
{
    const wh_stats_slot *slot = config ? config->stats : NULL;
    wh_metrics_answer *a;

    m->counted = 0;
    if (!slot || !stats_shm)
        return -1;
    /* accepted, duplicate, each code of WH_CODES a notification can be
     * refused with, other: the counters' own order */
    a = apr_palloc(p, sizeof(*a) * (WH_STAT_OTHER + 1));
    for (int i = WH_STAT_ACCEPTED; i <= WH_STAT_OTHER; i++) {
        a[i].code = answer_code(i);
        a[i].n = load(&slot->n[i]);
    }
    m->answers = a;
    m->nanswers = WH_STAT_OTHER + 1;
    m->inbox_stored = load(&slot->n[WH_STAT_INBOX_STORED]);
    m->inbox_duplicate = load(&slot->n[WH_STAT_INBOX_DUPLICATE]);
    m->inbox_unavailable = load(&slot->n[WH_STAT_INBOX_UNAVAILABLE]);
    for (int i = 0; i < WH_METRICS_LATENCY_BUCKETS; i++)
        m->latency[i] = load(&slot->latency[i]);
    m->latency_sum_us = load(&slot->latency_sum_us);
    m->counted = 1;
    return 0;
}

/* ------------------------------------------------------- status hook --- */

static apr_uint64_t get(const wh_stats_slot *slot, int i)
{
    return load(&slot->n[i]);
}

/* The counter's name: its ?auto key after "WirehookSite[i]", and its
 * label on the HTML page. */
static void stat_names(int i, const char **key, const char **label)
{
    switch (i) {
    case WH_STAT_ACCEPTED:
        *key = "Accepted"; *label = "accepted"; return;
    case WH_STAT_DUPLICATE:
        *key = "Duplicate"; *label = "duplicate"; return;
    case WH_STAT_OTHER:
        *key = "Rejected[other]"; *label = "other error code"; return;
    case WH_STAT_INBOX_STORED:
        *key = "InboxStored"; *label = "inbox: stored"; return;
    case WH_STAT_INBOX_DUPLICATE:
        *key = "InboxDuplicate"; *label = "inbox: duplicate"; return;
    case WH_STAT_INBOX_UNAVAILABLE:
        *key = "InboxUnavailable"; *label = "inbox: unavailable"; return;
    default:
        *key = NULL;        /* Rejected[code] */
        *label = wh_stats_codes[i - WH_STAT_CODE0];
        return;
    }
}

/* `wirehook forward`'s progress, for a configuration whose inbox it forwards:
 * read from the inbox database (the forwarder is a process of its own), on
 * this child's connection to it. Only the status page pays for it. */
typedef enum {
    WH_FWD_NONE,                        /* no ForwardUrl, or no inbox */
    WH_FWD_UNAVAILABLE,
    WH_FWD_NOT_STARTED,
    WH_FWD_KNOWN
} wh_fwd_state;

static wh_fwd_state forward_status(request_rec *r, wh_mod_config *config,
                                   wh_fq_counts *out)
{
    wh_inbox *ib;

    memset(out, 0, sizeof(*out));
    if (!config->cfg->forward_url || !config->cfg->inbox_params)
        return WH_FWD_NONE;
    if ((ib = wh_mod_inbox_get(r, config)) == NULL)
        return WH_FWD_UNAVAILABLE;
    switch (wh_fq_status(r->pool, ib, config->cfg, out)) {
    case 1:
        return WH_FWD_KNOWN;
    case 0:
        return WH_FWD_NOT_STARTED;
    default:
        return WH_FWD_UNAVAILABLE;
    }
}

/* The age of the oldest event stored but not yet forwarded (or dead). */
static double forward_lag(const wh_fq_counts *s)
{
    apr_time_t now = apr_time_now();
    return s->oldest && s->oldest < now
               ? (double)(now - s->oldest) / APR_USEC_PER_SEC : 0.0;
}

static void status_short(request_rec *r, const wh_status_row *row)
{
    const wh_stats_slot *slot = row->config->stats;
    int x = row->index;
    ap_rprintf(r, "WirehookSite[%d]Config: %s\n", x, row->config->path);
    for (int i = 0; i < WH_STAT_COUNT; i++) {
        const char *key, *label;
        stat_names(i, &key, &label);
        if (key)
            ap_rprintf(r, "WirehookSite[%d]%s: %" APR_UINT64_T_FMT "\n", x,
                       key, get(slot, i));
        else
            ap_rprintf(r, "WirehookSite[%d]Rejected[%s]: %" APR_UINT64_T_FMT
                       "\n", x, wh_stats_codes[i - WH_STAT_CODE0],
                       get(slot, i));
    }
    const wh_mod_replay *rp = row->config->replay;
    apr_uint64_t live = 0, cap = 0;
    if (rp) {
        ap_rprintf(r, "WirehookSite[%d]ReplayStore: %s\n", x,
                   wh_mod_replay_provider(rp));
        if (wh_mod_replay_fill(rp, &live, &cap) == 0)
            ap_rprintf(r, "WirehookSite[%d]ReplayLive: %" APR_UINT64_T_FMT
                       "\nWirehookSite[%d]ReplayCapacity: %"
                       APR_UINT64_T_FMT "\n", x, live, x, cap);
        else
            ap_rprintf(r, "WirehookSite[%d]ReplayState: %s\n", x,
                       wh_mod_replay_health(rp, r->pool) == 0 ? "ok"
                                                              : "unavailable");
    }
    wh_fq_counts fs;
    switch (forward_status(r, row->config, &fs)) {
    case WH_FWD_NONE:
        break;
    case WH_FWD_UNAVAILABLE:
        ap_rprintf(r, "WirehookSite[%d]ForwardState: unavailable\n", x);
        break;
    case WH_FWD_NOT_STARTED:
        ap_rprintf(r, "WirehookSite[%d]ForwardState: not started\n", x);
        break;
    case WH_FWD_KNOWN:
        ap_rprintf(r, "WirehookSite[%d]ForwardState: started\n"
                   "WirehookSite[%d]ForwardLagSeconds: %.1f\n"
                   "WirehookSite[%d]ForwardQueued: %" APR_INT64_T_FMT "\n"
                   "WirehookSite[%d]ForwardRetrying: %" APR_INT64_T_FMT "\n"
                   "WirehookSite[%d]ForwardDead: %" APR_INT64_T_FMT "\n"
                   "WirehookSite[%d]ForwardUnqueued: %" APR_INT64_T_FMT "\n",
                   x, x, forward_lag(&fs), x, fs.waiting + fs.ready, x,
                   fs.retrying, x, fs.dead, x, fs.unqueued);
        break;
    }
}

static void status_html(request_rec *r, const wh_status_row *row, int flags)
{
    const wh_stats_slot *slot = row->config->stats;
    int table = !(flags & AP_STATUS_NOTABLE);
    ap_rprintf(r, "<h3>Configuration %d: %s</h3>\n", row->index,
               ap_escape_html(r->pool, row->config->path));
    if (table)
        ap_rputs("<table border=\"0\"><tr><th>answer</th>"
                 "<th>count</th></tr>\n", r);
    for (int i = 0; i < WH_STAT_COUNT; i++) {
        const char *key, *label;
        stat_names(i, &key, &label);
        if (table)
            ap_rprintf(r, "<tr><td>%s</td><td>%" APR_UINT64_T_FMT
                       "</td></tr>\n", label, get(slot, i));
        else
            ap_rprintf(r, "%s: %" APR_UINT64_T_FMT "<br />\n", label,
                       get(slot, i));
    }
    if (table)
        ap_rputs("</table>\n", r);
    const wh_mod_replay *rp = row->config->replay;
    apr_uint64_t live = 0, cap = 0;
    if (rp) {
        const char *spec = ap_escape_html(r->pool,
                                          wh_mod_replay_provider(rp));
        if (wh_mod_replay_fill(rp, &live, &cap) == 0)
            ap_rprintf(r, "<p>replay store %s: %" APR_UINT64_T_FMT " of %"
                       APR_UINT64_T_FMT " entries</p>\n", spec, live, cap);
        else
            ap_rprintf(r, "<p>replay store %s: %s</p>\n", spec,
                       wh_mod_replay_health(rp, r->pool) == 0
                       ? "answers (shared: fill not counted)"
                       : "does not answer");
    }
    wh_fq_counts fs;
    switch (forward_status(r, row->config, &fs)) {
    case WH_FWD_NONE:
        break;
    case WH_FWD_UNAVAILABLE:
        ap_rputs("<p>forwarding: the inbox database did not answer</p>\n", r);
        break;
    case WH_FWD_NOT_STARTED:
        ap_rputs("<p>forwarding: wirehook forward has not run on this inbox "
                 "yet</p>\n", r);
        break;
    case WH_FWD_KNOWN:
        ap_rprintf(r, "<p>forwarding: lag %.1f s, %" APR_INT64_T_FMT " queued, %"
                   APR_INT64_T_FMT " retrying, %" APR_INT64_T_FMT " dead, %"
                   APR_INT64_T_FMT " not yet queued</p>\n", forward_lag(&fs),
                   fs.waiting + fs.ready, fs.retrying, fs.dead, fs.unqueued);
        break;
    }
}

static int wh_status_hook(request_rec *r, int flags)
{
    if (status_nrows == 0)
        return OK;
    int shown = 0;
    for (int i = 0; i < status_nrows; i++)
        shown += status_rows[i].index >= 0;
    if (flags & AP_STATUS_SHORT) {
        ap_rprintf(r, "WirehookVersion: %s\n", wh_version());
        if (stats_shm)
            ap_rprintf(r, "WirehookCountersSince: %" APR_TIME_T_FMT "\n",
                       apr_time_sec(stats_shm->started));
        ap_rprintf(r, "WirehookSites: %d\n", shown);
        for (int i = 0; i < status_nrows; i++)
            if (status_rows[i].index >= 0)
                status_short(r, &status_rows[i]);
        return OK;
    }
    ap_rprintf(r, "<hr />\n<h2>wirehook</h2>\n<p>mod_wirehook %s</p>\n",
               ap_escape_html(r->pool, wh_version()));
    if (stats_shm) {
        char since[APR_RFC822_DATE_LEN];
        apr_rfc822_date(since, stats_shm->started);
        ap_rprintf(r, "<p>Counters since %s (the last start of httpd; "
                   "graceful restarts keep them).</p>\n", since);
    }
    else {
        ap_rputs("<p>No counters: the shared memory segment could not be "
                 "created (see the error log).</p>\n", r);
    }
    for (int i = 0; i < status_nrows; i++) {
        if (status_rows[i].index >= 0)
            status_html(r, &status_rows[i], flags);
        else
            ap_rprintf(r, "<h3>%s</h3>\n<p>no counters (see the error "
                       "log)</p>\n",
                       ap_escape_html(r->pool, status_rows[i].config->path));
    }
    return OK;
}

void wh_mod_status_register(void)
{
    ap_hook_post_config(status_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    APR_OPTIONAL_HOOK(ap, status_hook, wh_status_hook, NULL, NULL,
                      APR_HOOK_MIDDLE);
}
