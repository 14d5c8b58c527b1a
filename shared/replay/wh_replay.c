/* Replay protection's guarantees and admission rules (see wh_replay.h). */
#include "wh_replay.h"
#include "wh_replay_lmdb.h"
#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>
#include <strings.h>

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

/* "host:port", "[v6]:port": one server (several, comma-separated, as
 * mod_socache's providers took them, would spread the ids over servers
 * whose restarts the one epoch marker cannot see). */
static const char *host_port(apr_pool_t *p, const char *provider,
                             const char *args, const char **host, int *port)
{
    const char *colon, *c;
    apr_int64_t n = 0;

    if (!args || !*args)
        return apr_psprintf(p, "%s: needs the server, as in %s:127.0.0.1:%s",
                            provider, provider,
                            strcmp(provider, "redis") == 0 ? "6379" : "11211");
    if (strchr(args, ','))
        return apr_psprintf(p, "%s: one server only (with several, a restart "
                            "of one would lose its ids unnoticed)", provider);
    colon = strrchr(args, ':');
    if (!colon || colon == args || colon[1] == '\0')
        return apr_psprintf(p, "%s: the server must be HOST:PORT", provider);
    for (c = colon + 1; *c; c++) {
        if (!apr_isdigit(*c) || (n = n * 10 + (*c - '0')) > 65535)
            return apr_psprintf(p, "%s: the port must be a number from 1 to "
                                "65535", provider);
    }
    if (n < 1)
        return apr_psprintf(p, "%s: the port must be a number from 1 to 65535",
                            provider);
    if (args[0] == '[') {
        if (colon[-1] != ']' || colon - args < 3)
            return apr_psprintf(p, "%s: an IPv6 server is [ADDRESS]:PORT", provider);
        *host = apr_pstrmemdup(p, args + 1, (apr_size_t)(colon - args - 2));
    }
    else
        *host = apr_pstrmemdup(p, args, (apr_size_t)(colon - args));
    for (c = *host; *c; c++)
        if (apr_isspace(*c) || *c == '/' || *c == '@')
            return apr_psprintf(p, "%s: the server must be HOST:PORT", provider);
    *port = (int)n;
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
    if (strcmp(m->provider, "dbm") == 0) {
        m->survives_restart = 1;
        m->uses_marker = 1;
        return NULL;
    }
    if (strcmp(m->provider, "memcache") == 0 || strcmp(m->provider, "redis") == 0) {
        m->survives_restart = 1;
        m->uses_marker = 1;
        m->shared = 1;
        return host_port(p, m->provider, args, &m->host, &m->port);
    }
    if (strcmp(m->provider, "pgsql") == 0 || strcmp(m->provider, "mysql") == 0) {
        m->survives_restart = 1;
        m->uses_marker = 1;
        m->shared = 1;
        m->conninfo = args;
        return NULL;
    }
    return apr_psprintf(p, "provider '%s' makes no promise wirehook can rely "
                        "on: use lmdb (the default), dbm, shmcb, memcache, "
                        "redis, pgsql or mysql", m->provider);
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
            p, "shared by every server naming it (claims are memcached's "
            "atomic add); capacity and eviction are memcached's: run it with "
            "-M so that a full cache refuses (answered 503) instead of "
            "evicting; survives httpd restarts; a restarted or flushed "
            "memcached is detected and answered 503 for %" APR_INT64_T_FMT
            " s (a new one: wirehook replay init)", tolerance_sec);
    if (strcmp(m->provider, "pgsql") == 0)
        return apr_psprintf(
            p, "shared by every server naming the database (claims are "
            "INSERT ... ON CONFLICT DO NOTHING, expiries by the database's "
            "clock); no fixed capacity, evicts nothing, expired ids purged as "
            "new ones come; survives restarts of httpd and of PostgreSQL; an "
            "emptied table is detected and answered 503 for %" APR_INT64_T_FMT
            " s", tolerance_sec);
    if (strcmp(m->provider, "mysql") == 0)
        return apr_psprintf(
            p, "shared by every server naming the database (claims are "
            "INSERT ... ON DUPLICATE KEY UPDATE, expiries by the database's "
            "clock); no fixed capacity, evicts nothing, expired ids purged as "
            "new ones come; survives restarts of httpd and of the MySQL "
            "server (durably with innodb_flush_log_at_trx_commit = 1); an "
            "emptied table is detected and answered 503 for %" APR_INT64_T_FMT
            " s", tolerance_sec);
    return apr_psprintf(
        p, "shared by every server naming it (claims are SET NX PX in one "
        "script); capacity and eviction are the server's: set "
        "maxmemory-policy noeviction so that a full store refuses (answered "
        "503) instead of evicting, and appendonly yes to keep ids across a "
        "restart of the server; survives httpd restarts; a flushed or emptied "
        "server is detected and answered 503 for %" APR_INT64_T_FMT " s (a "
        "new one: wirehook replay init)", tolerance_sec);
}

/* Masks the value of every password=... of a key=value conninfo, and the
 * password of a postgresql:// URI. */
static const char *mask_conninfo(apr_pool_t *p, const char *ci)
{
    apr_size_t n = strlen(ci);
    /* each password key (9 bytes at least) grows by 3 bytes at most */
    char *out = apr_palloc(p, 2 * n + 4), *o = out;
    const char *c = ci;

    if (strncmp(ci, "postgres://", 11) == 0 || strncmp(ci, "postgresql://", 13) == 0) {
        const char *start = strstr(ci, "://") + 3;
        const char *at = strchr(start, '@'), *colon = strchr(start, ':');
        if (at && colon && colon < at)
            return apr_pstrcat(p, apr_pstrmemdup(p, ci, (apr_size_t)(colon - ci + 1)),
                               "***", at, NULL);
        return ci;
    }
    while (*c) {
        const char *key = c;
        int is_pw;
        while (*c && !apr_isspace(*c) && *c != '=')
            c++;
        is_pw = (apr_size_t)(c - key) == 8 && strncasecmp(key, "password", 8) == 0;
        memcpy(o, key, (apr_size_t)(c - key));
        o += c - key;
        while (apr_isspace(*c))
            *o++ = *c++;
        if (*c != '=')
            continue;
        *o++ = *c++;
        while (apr_isspace(*c))
            *o++ = *c++;
        {
            const char *v = c;
            if (*c == '\'') {
                for (c++; *c && *c != '\''; c++)
                    if (*c == '\\' && c[1])
                        c++;
                if (*c)
                    c++;
            }
            else
                while (*c && !apr_isspace(*c))
                    c++;
            if (is_pw) {
                memcpy(o, "***", 3);
                o += 3;
            }
            else {
                memcpy(o, v, (apr_size_t)(c - v));
                o += c - v;
            }
        }
        while (apr_isspace(*c))
            *o++ = *c++;
    }
    *o = '\0';
    return out;
}

/* apr_dbd's mysql parameters as its driver reads them (each '=' ends a
 * key of letters before it, a value runs to one of " \r\n\t;|,"; a key
 * is matched by its first letters, so "p=" is a password too), with the
 * value of every key but those that name no secret replaced by "***". */
static const char *mask_mysql_params(apr_pool_t *p, const char *params)
{
    static const char *const shown[] = {
        "host", "port", "user", "dbname", "sock", "flags", "fldsz", "group",
        "reconnect", "connecttimeout", "readtimeout", "writetimeout", NULL
    };
    apr_size_t n = strlen(params);
    /* each value at most grows to "***" */
    char *out = apr_palloc(p, 2 * n + 4), *o = out;
    const char *from = params, *eq;

    for (eq = strchr(params, '='); eq; eq = strchr(eq, '=')) {
        const char *k = eq, *v = eq + 1, *end;
        apr_size_t klen = 0;
        int secret = 1;

        while (k > params && apr_isspace(k[-1]))
            k--;
        while (k > params && apr_isalpha(k[-1])) {
            k--;
            klen++;
        }
        for (int i = 0; klen && shown[i]; i++)
            if (strlen(shown[i]) == klen && strncasecmp(shown[i], k, klen) == 0)
                secret = 0;
        while (apr_isspace(*v))
            v++;
        end = v + strcspn(v, " \r\n\t;|,");
        memcpy(o, from, (apr_size_t)(v - from));
        o += v - from;
        if (secret && end > v) {
            memcpy(o, "***", 3);
            o += 3;
        }
        else {
            memcpy(o, v, (apr_size_t)(end - v));
            o += end - v;
        }
        from = eq = end;
        if (!*eq)
            break;
    }
    strcpy(o, from);
    return out;
}

const char *wh_replay_spec_display(apr_pool_t *p, const char *provider,
                                   const char *args)
{
    const char *name = provider ? provider : "lmdb";
    if (!args)
        return apr_pstrcat(p, name, ":", NULL);
    if (strcmp(name, "pgsql") == 0)
        return apr_pstrcat(p, name, ":", mask_conninfo(p, args), NULL);
    if (strcmp(name, "mysql") == 0)
        return apr_pstrcat(p, name, ":", mask_mysql_params(p, args), NULL);
    return apr_pstrcat(p, name, ":", args, NULL);
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

apr_time_t wh_replay_ledger_room_at(const wh_replay_ledger *l,
                                    unsigned partition, apr_time_t now)
{
    const ledger_slot *s = &l->slots[(apr_size_t)(partition % l->partitions)
                                     * WH_LEDGER_BUCKETS];
    apr_int64_t oldest = -1;

    for (int i = 0; i < WH_LEDGER_BUCKETS; i++)
        if (s[i].count && bucket_live(l, s[i].bucket, now)
            && (oldest < 0 || s[i].bucket < oldest))
            oldest = s[i].bucket;
    return oldest < 0 ? 0 : apr_time_from_sec((oldest + 1) * l->width + l->window);
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
