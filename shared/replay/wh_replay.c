/* Replay protection's guarantees and admission rules (see wh_replay.h). */
#include "wh_replay.h"
#include "wh_replay_lmdb.h"
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* Stored ids (notificationId: a 36-character UUID). */
#define WH_REPLAY_ID_LEN 36

/* ---- shmcb's layout ------------------------------------------------- */

/* mod_socache_shmcb.c's own structures, member for member, so that the
 * compiler gives their sizes (and alignment) exactly as httpd's build
 * does on this platform. tests/integration/test_replay.sh fills a real
 * shmcb to the capacity computed here and checks nothing was evicted. */
typedef struct {
    unsigned long stat[8];
    unsigned int subcache_num, index_num, subcache_size,
        subcache_data_offset, subcache_data_size;
} shmcb_header_mirror;
typedef struct {
    unsigned int idx_pos, idx_used, data_pos, data_used;
} shmcb_subcache_mirror;
typedef struct {
    apr_time_t expires;
    unsigned int data_pos, data_used, id_len;
    unsigned char removed;
} shmcb_index_mirror;

int wh_replay_shmcb_layout(apr_size_t shm_size, apr_size_t hint_id_len,
                           apr_size_t hint_obj_size, apr_size_t key_len,
                           apr_size_t val_len, unsigned *subcaches,
                           apr_uint64_t *per_subcache)
{
    apr_size_t header = APR_ALIGN_DEFAULT(sizeof(shmcb_header_mirror));
    apr_size_t seg, num_idx, sub_size, data_offset, data_size, by_data;
    unsigned num_sub = 256;

    *subcaches = 0;
    *per_subcache = 0;
    if (key_len + val_len == 0 || hint_id_len + hint_obj_size == 0
        || shm_size < 5 * header)
        return -1;
    seg = shm_size - header;
    num_idx = seg / (hint_obj_size + hint_id_len);
    while (num_sub > 1 && (num_idx / num_sub) < (apr_size_t)(2 * num_sub))
        num_sub /= 2;
    num_idx /= num_sub;
    if (num_idx < 5)
        return -1;
    sub_size = seg / num_sub;
    if (sub_size != APR_ALIGN_DEFAULT(sub_size))
        sub_size = APR_ALIGN_DEFAULT(sub_size) - APR_ALIGN_DEFAULT(1);
    data_offset = APR_ALIGN_DEFAULT(sizeof(shmcb_subcache_mirror))
                  + num_idx * APR_ALIGN_DEFAULT(sizeof(shmcb_index_mirror));
    if (sub_size <= data_offset)
        return -1;
    data_size = sub_size - data_offset;
    /* A store scrolls the oldest entry out when the index ring is full or
     * the data ring has less room than the new entry needs. */
    by_data = data_size / (key_len + val_len);
    *subcaches = num_sub;
    *per_subcache = by_data < num_idx ? by_data : num_idx;
    return *per_subcache > 0 ? 0 : -1;
}

/* "/path(bytes)" or "(bytes)": the size, else dflt; *path_len: the
 * bytes before "(" (the whole args without one). */
static const char *size_arg(apr_pool_t *p, const char *provider,
                            const char *args, apr_size_t dflt,
                            apr_size_t *size, apr_size_t *path_len)
{
    const char *open = args ? strrchr(args, '(') : NULL;
    apr_size_t n = 0;
    const char *c;

    *size = dflt;
    *path_len = args ? (open ? (apr_size_t)(open - args) : strlen(args)) : 0;
    if (!open)
        return NULL;
    for (c = open + 1; apr_isdigit(*c); c++) {
        if (n > ((apr_size_t)-1) / 10 - 10)
            return apr_psprintf(p, "%s: the size is too large", provider);
        n = n * 10 + (apr_size_t)(*c - '0');
    }
    if (c == open + 1 || *c != ')' || c[1] != '\0')
        return apr_psprintf(p, "%s: the size must be digits in parentheses, "
                            "as in %s:/path(1048576)", provider, provider);
    *size = n;
    return NULL;
}

const char *wh_replay_model_make(apr_pool_t *p, const char *provider,
                                 const char *args, wh_replay_model *m)
{
    memset(m, 0, sizeof(*m));
    m->provider = provider ? provider : "lmdb";
    m->args = args;
    m->partitions = 1;
    m->key_len = WH_REPLAY_ID_LEN;
    m->hint_id_len = WH_REPLAY_ID_LEN;
    m->hint_obj_size = WH_REPLAY_VALUE_LEN;

    if (strcmp(m->provider, "lmdb") == 0) {
        apr_size_t plen;
        const char *err = size_arg(p, "lmdb", args, WH_REPLAY_LMDB_DEFAULT_SIZE,
                                   &m->map_size, &plen);
        if (err)
            return err;
        if ((err = wh_replay_lmdb_size_error(p, m->map_size)) != NULL)
            return apr_pstrcat(p, "lmdb: ", err, NULL);
        m->path = apr_pstrmemdup(p, args ? args : "", plen);
        m->survives_restart = 1;
        return NULL;
    }
    if (strcmp(m->provider, "shmcb") == 0) {
        apr_size_t plen;
        const char *err = size_arg(p, "shmcb", args,
                                   WH_REPLAY_SHMCB_DEFAULT_SIZE, &m->shm_size,
                                   &plen);
        if (err)
            return err;
        m->key_len = 1 + WH_REPLAY_ID_LEN;       /* hash byte + id */
        m->hint_id_len = m->key_len;
        m->hint_obj_size = WH_REPLAY_VALUE_LEN
                           + APR_ALIGN_DEFAULT(sizeof(shmcb_index_mirror));
        if (wh_replay_shmcb_layout(m->shm_size, m->hint_id_len,
                                   m->hint_obj_size, m->key_len,
                                   WH_REPLAY_VALUE_LEN, &m->partitions,
                                   &m->per_partition) != 0)
            return apr_psprintf(p, "shmcb: %" APR_SIZE_T_FMT " bytes hold "
                                "no notificationId; give it more "
                                "(shmcb:/path(1048576))", m->shm_size);
        return NULL;
    }
    if (strcmp(m->provider, "dbm") == 0 || strcmp(m->provider, "memcache") == 0
        || strcmp(m->provider, "redis") == 0) {
        m->survives_restart = 1;
        m->uses_marker = 1;
        return NULL;
    }
    return apr_psprintf(p, "provider '%s' makes no promise wirehook can rely "
                        "on: use lmdb (the default), dbm, shmcb, memcache or redis",
                        m->provider);
}

const char *wh_replay_model_describe(apr_pool_t *p, const wh_replay_model *m,
                                     apr_int64_t window_sec,
                                     apr_int64_t tolerance_sec)
{
    if (strcmp(m->provider, "shmcb") == 0)
        return apr_psprintf(
            p, "holds %" APR_UINT64_T_FMT " notificationIds in %" APR_SIZE_T_FMT
            " bytes (%u subcaches of %" APR_UINT64_T_FMT "; a subcache that "
            "holds %" APR_UINT64_T_FMT " live ids answers 503 rather than "
            "evict one) for a ReplayWindow of %" APR_INT64_T_FMT " s; does "
            "NOT survive a restart: for %" APR_INT64_T_FMT " s after each "
            "start, notifications signed before then are answered 503",
            (apr_uint64_t)m->partitions * m->per_partition, m->shm_size,
            m->partitions, m->per_partition, m->per_partition, window_sec,
            tolerance_sec);
    if (strcmp(m->provider, "lmdb") == 0)
        return apr_psprintf(
            p, "holds up to about %" APR_UINT64_T_FMT " notificationIds in a "
            "%" APR_SIZE_T_FMT "-byte map, answers 503 rather than evict one, "
            "for a ReplayWindow of %" APR_INT64_T_FMT " s; survives graceful "
            "and full restarts and killed processes (the file stays); after "
            "the machine went down without a clean stop the file is not "
            "trusted: discarded, and notifications signed before then are "
            "answered 503 for %" APR_INT64_T_FMT " s",
            (apr_uint64_t)(m->map_size / WH_REPLAY_LMDB_BYTES_PER_ID),
            m->map_size, window_sec, tolerance_sec);
    if (strcmp(m->provider, "dbm") == 0)
        return apr_psprintf(
            p, "no fixed capacity (the file grows on disk) and evicts nothing "
            "for a ReplayWindow of %" APR_INT64_T_FMT " s; survives graceful "
            "and full restarts (the file stays); a lost or emptied file is "
            "detected and answered 503 for %" APR_INT64_T_FMT " s", window_sec,
            tolerance_sec);
    if (strcmp(m->provider, "memcache") == 0)
        return apr_psprintf(
            p, "capacity and eviction are memcached's: run it with -M so that "
            "a full cache refuses (answered 503) instead of evicting; "
            "survives httpd restarts; a restarted or flushed memcached is "
            "detected and answered 503 for %" APR_INT64_T_FMT " s",
            tolerance_sec);
    return apr_psprintf(
        p, "capacity and eviction are the server's: set maxmemory-policy "
        "noeviction so that a full store refuses (answered 503) instead of "
        "evicting, and appendonly yes to keep ids across a restart of the "
        "server; survives httpd restarts; a flushed or emptied server is "
        "detected and answered 503 for %" APR_INT64_T_FMT " s",
        tolerance_sec);
}

/* FNV-1a, then a murmur3 finaliser: every bit of the id reaches the byte
 * that picks a subcache. Not a defence: a forged id never gets this far. */
static unsigned char spread(const char *id)
{
    apr_uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)id; *c; c++) {
        h ^= *c;
        h *= 16777619u;
    }
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (unsigned char)(h & 0xff);
}

void wh_replay_key(apr_pool_t *p, const wh_replay_model *m, const char *id,
                   const unsigned char **key, unsigned *key_len,
                   unsigned *partition)
{
    apr_size_t n = strlen(id);

    if (strcmp(m->provider, "shmcb") == 0) {
        unsigned char *k = apr_palloc(p, n + 1);
        k[0] = spread(id);
        memcpy(k + 1, id, n);
        *key = k;
        *key_len = (unsigned)(n + 1);
        /* shmcb's own choice: the first byte, masked (SHMCB_MASK) */
        *partition = k[0] & (m->partitions - 1);
        return;
    }
    *key = (const unsigned char *)id;
    *key_len = (unsigned)n;
    *partition = 0;
}

int wh_replay_predates(apr_time_t signed_at, apr_time_t since,
                       apr_int64_t tolerance_sec)
{
    if (since == 0)
        return 0;
    return signed_at < since + apr_time_from_sec(tolerance_sec);
}

/* ---- the ledger ------------------------------------------------------ */

#define WH_LEDGER_BUCKETS 64

typedef struct {
    apr_int64_t bucket;          /* floor(seconds / width); -1: unused */
    apr_uint64_t count;
} ledger_slot;

struct wh_replay_ledger {
    apr_uint64_t per_partition;
    apr_int64_t window;          /* seconds */
    apr_int64_t width;           /* seconds per bucket */
    apr_time_t since;
    unsigned partitions;
    ledger_slot slots[];         /* partitions * WH_LEDGER_BUCKETS */
};

apr_size_t wh_replay_ledger_size(unsigned partitions)
{
    return sizeof(wh_replay_ledger)
           + (apr_size_t)partitions * WH_LEDGER_BUCKETS * sizeof(ledger_slot);
}

wh_replay_ledger *wh_replay_ledger_init(void *mem, unsigned partitions,
                                        apr_uint64_t per_partition,
                                        apr_int64_t window_sec,
                                        apr_time_t since)
{
    wh_replay_ledger *l = mem;
    apr_size_t n = (apr_size_t)partitions * WH_LEDGER_BUCKETS;

    l->partitions = partitions ? partitions : 1;
    l->per_partition = per_partition;
    l->window = window_sec > 0 ? window_sec : 1;
    /* Wide enough that every bucket a slot may still hold is live:
     * (BUCKETS - 1) * width > window. */
    l->width = (l->window + WH_LEDGER_BUCKETS - 3) / (WH_LEDGER_BUCKETS - 2);
    if (l->width < 1)
        l->width = 1;
    l->since = since;
    for (apr_size_t i = 0; i < n; i++) {
        l->slots[i].bucket = -1;
        l->slots[i].count = 0;
    }
    return l;
}

apr_time_t wh_replay_ledger_since(const wh_replay_ledger *l)
{
    return l->since;
}

/* Ids counted in bucket b were stored before (b + 1) * width and expire
 * at most a window later. */
static int bucket_live(const wh_replay_ledger *l, apr_int64_t b, apr_time_t now)
{
    return b >= 0 && now < apr_time_from_sec((b + 1) * l->width + l->window);
}

apr_uint64_t wh_replay_ledger_live(const wh_replay_ledger *l,
                                   unsigned partition, apr_time_t now)
{
    const ledger_slot *s = &l->slots[(apr_size_t)(partition % l->partitions)
                                     * WH_LEDGER_BUCKETS];
    apr_uint64_t live = 0;

    for (int i = 0; i < WH_LEDGER_BUCKETS; i++)
        if (bucket_live(l, s[i].bucket, now))
            live += s[i].count;
    return live;
}

int wh_replay_ledger_admit(wh_replay_ledger *l, unsigned partition,
                           apr_time_t now)
{
    apr_int64_t b = apr_time_sec(now) / l->width;
    ledger_slot *s = &l->slots[(apr_size_t)(partition % l->partitions)
                               * WH_LEDGER_BUCKETS];
    ledger_slot *slot = &s[b % WH_LEDGER_BUCKETS];

    if (l->per_partition
        && wh_replay_ledger_live(l, partition, now) >= l->per_partition)
        return 0;
    /* A slot still holding an older bucket holds only expired ids: the
     * ring spans more than a window. A newer one (the clock went back)
     * is kept and added to, which only over-counts. */
    if (slot->bucket < b) {
        slot->bucket = b;
        slot->count = 0;
    }
    slot->count++;
    return 1;
}

void wh_replay_ledger_fill(const wh_replay_ledger *l, apr_time_t now,
                           apr_uint64_t *live, apr_uint64_t *capacity,
                           apr_uint64_t *fullest)
{
    apr_uint64_t total = 0, top = 0;

    for (unsigned i = 0; i < l->partitions; i++) {
        apr_uint64_t n = wh_replay_ledger_live(l, i, now);
        total += n;
        if (n > top)
            top = n;
    }
    if (live)
        *live = total;
    if (capacity)
        *capacity = l->per_partition * l->partitions;
    if (fullest)
        *fullest = top;
}

/* ---- the epoch marker ------------------------------------------------ */

const char *wh_replay_marker_encode(apr_pool_t *p, apr_time_t since,
                                    apr_time_t set)
{
    return apr_psprintf(p, "since=%" APR_TIME_T_FMT " set=%" APR_TIME_T_FMT,
                        since, set);
}

static int decimal(const char **s, const char *end, const char *name,
                   apr_time_t *out)
{
    apr_size_t n = strlen(name);
    apr_time_t v = 0;
    const char *c = *s;

    if ((apr_size_t)(end - c) < n || memcmp(c, name, n) != 0)
        return -1;
    c += n;
    if (c == end || !apr_isdigit(*c))
        return -1;
    for (; c < end && apr_isdigit(*c); c++) {
        if (v > (APR_INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*c - '0');
    }
    *out = v;
    *s = c;
    return 0;
}

int wh_replay_marker_decode(const char *value, apr_size_t len,
                            apr_time_t *since, apr_time_t *set)
{
    const char *c = value, *end;

    if (!value)
        return -1;
    end = value + len;
    if (decimal(&c, end, "since=", since) != 0 || c == end
        || *c++ != ' ' || decimal(&c, end, "set=", set) != 0 || c != end)
        return -1;
    return 0;
}
