/* The LMDB replay store (see wh_replay_lmdb.h).
 *
 * One database: notificationId -> expiry (apr_time_t, 8 bytes). Expired
 * ids are swept a few at a time: every insert walks on from where the
 * process's last sweep stopped, examines WH_LMDB_SWEEP_PER_ADD entries and
 * deletes the expired ones, wrapping at the end. Each entry is examined
 * once per N / SWEEP inserts, so the store holds at most about
 * (1 + 1/(SWEEP - 1)) x rate x window ids, with no second index to keep
 * in expiry order and no sweep that stalls writers. An expired entry that
 * has not been swept yet counts as absent. */
#include "wh_replay_lmdb.h"
#include "verify/wh_fs.h"
#include <apr_file_io.h>
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries examined per add: more than one, so the sweep outruns the
 * intake whatever the rate (they mostly share the cursor's leaf page). */
#define WH_LMDB_SWEEP_PER_ADD 8
#define WH_LMDB_STATE_MAX 256
/* Disk reserved past the tree's last page, in bytes (see reserve()): more
 * than any one of the store's write transactions can take there. One
 * takes a few pages on the path from the root to a leaf (a sweep's
 * deletes share their leaves), plus the record of freed pages, which is
 * at most 8 bytes per page of the map. */
#define WH_LMDB_HEADROOM(map) (((apr_uint64_t)1 << 20) + (map) / 256)

struct wh_replay_lmdb {
    MDB_env *env;
    MDB_dbi ids;
    apr_size_t map_size;
    int fd;                         /* the data file's, LMDB's own */
    apr_uint64_t psize;
    /* how far this process knows the data file's blocks to be allocated
     * (other processes may have reserved more); only touched inside a
     * write transaction, like sweep */
    apr_uint64_t reserved;
    /* where this process's sweep goes on (empty: from the first id); only
     * touched inside a write transaction, which excludes every other
     * writer, threads of this process included */
    char sweep[WH_REPLAY_LMDB_ID_MAX];
    apr_size_t sweep_len;
};

/* ---- the state file -------------------------------------------------- */

const char *wh_replay_lmdb_state_encode(apr_pool_t *p,
                                        const wh_replay_lmdb_state *st)
{
    return apr_psprintf(p, "wirehook-replay 1\nboot %s\nclean %d\nsince %"
                        APR_TIME_T_FMT "\n", st->boot[0] ? st->boot : "-",
                        st->clean ? 1 : 0, st->since);
}

/* One "name value\n" line at *t: the value into buf. */
static int state_field(const char **t, const char *end, const char *name,
                       char *buf, apr_size_t len)
{
    apr_size_t n = strlen(name);
    const char *nl;
    if ((apr_size_t)(end - *t) <= n || memcmp(*t, name, n) != 0
        || (*t)[n] != ' ')
        return -1;
    *t += n + 1;
    nl = memchr(*t, '\n', (apr_size_t)(end - *t));
    if (nl == NULL || nl == *t || (apr_size_t)(nl - *t) >= len)
        return -1;
    memcpy(buf, *t, (apr_size_t)(nl - *t));
    buf[nl - *t] = '\0';
    *t = nl + 1;
    return 0;
}

static int all_digits(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int wh_replay_lmdb_state_decode(const char *text, apr_size_t len,
                                wh_replay_lmdb_state *st)
{
    static const char magic[] = "wirehook-replay 1\n";
    const char *t, *end;
    char boot[sizeof(st->boot)], clean[4], since[24];

    memset(st, 0, sizeof(*st));
    if (text == NULL || len < sizeof(magic) - 1
        || memcmp(text, magic, sizeof(magic) - 1) != 0)
        return -1;
    t = text;
    end = text + len;
    t += sizeof(magic) - 1;
    if (state_field(&t, end, "boot", boot, sizeof(boot)) != 0
        || state_field(&t, end, "clean", clean, sizeof(clean)) != 0
        || state_field(&t, end, "since", since, sizeof(since)) != 0
        || t != end)
        return -1;
    if ((strcmp(clean, "0") != 0 && strcmp(clean, "1") != 0)
        || !all_digits(since) || strlen(since) > 18)
        return -1;
    if (strcmp(boot, "-") != 0)
        memcpy(st->boot, boot, strlen(boot) + 1);
    st->clean = clean[0] == '1';
    st->since = (apr_time_t)apr_atoi64(since);
    return 0;
}

wh_lmdb_trust wh_replay_lmdb_trust(const wh_replay_lmdb_state *st,
                                   int data_exists, int on_ram_fs,
                                   const char *boot_now, apr_time_t now,
                                   apr_time_t *since)
{
    if (!data_exists) {
        /* a first start ever, unless there was a store (its state says so)
         * or the directory forgets at every reboot */
        *since = (st || on_ram_fs) ? now : 0;
        return *since ? WH_LMDB_TRUST_LOST : WH_LMDB_TRUST_NEW;
    }
    if (st && ((st->boot[0] && boot_now && strcmp(st->boot, boot_now) == 0)
               || st->clean)) {
        /* same boot: the page cache held every write; another boot after
         * a clean stop: the file was synced */
        *since = st->since;
        return WH_LMDB_TRUST_KEEP;
    }
    *since = now;
    return WH_LMDB_TRUST_DISCARD;
}

void wh_replay_lmdb_boot_id(char *buf, apr_size_t len)
{
    buf[0] = '\0';
#if defined(__linux__)
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0) {
        buf[0] = '\0';
        return;
    }
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f')
              || buf[i] == '-')) {
            buf[0] = '\0';
            return;
        }
#endif
}

const char *wh_replay_lmdb_lockfile(apr_pool_t *p, const char *path)
{
    return apr_pstrcat(p, path, "-lock", NULL);
}

const char *wh_replay_lmdb_statefile(apr_pool_t *p, const char *path)
{
    return apr_pstrcat(p, path, "-state", NULL);
}

static int read_state(apr_pool_t *p, const char *file, wh_replay_lmdb_state *st)
{
    char buf[WH_LMDB_STATE_MAX];
    apr_file_t *f;
    apr_size_t n = sizeof(buf);
    if (apr_file_open(&f, file, APR_FOPEN_READ, 0, p) != APR_SUCCESS)
        return -1;
    apr_status_t rv = apr_file_read_full(f, buf, sizeof(buf), &n);
    apr_file_close(f);
    if (rv != APR_SUCCESS && rv != APR_EOF)
        return -1;
    if (n == sizeof(buf))
        return -1;      /* longer than any state we write */
    return wh_replay_lmdb_state_decode(buf, n, st);
}

/* Written whole or not at all: a temporary file, synced, renamed over the
 * old one, and the directory synced. */
static const char *write_state(apr_pool_t *p, const char *file,
                               const wh_replay_lmdb_state *st)
{
    const char *tmp = apr_pstrcat(p, file, ".new", NULL);
    const char *text = wh_replay_lmdb_state_encode(p, st);
    apr_size_t n = strlen(text);
    apr_file_t *f;
    apr_status_t rv = apr_file_open(&f, tmp, APR_FOPEN_WRITE | APR_FOPEN_CREATE
                                    | APR_FOPEN_TRUNCATE, APR_FPROT_UREAD
                                    | APR_FPROT_UWRITE, p);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "cannot write %s: %pm", tmp, &rv);
    rv = apr_file_write_full(f, text, n, NULL);
    if (rv == APR_SUCCESS)
        rv = apr_file_sync(f);
    apr_file_close(f);
    if (rv == APR_SUCCESS)
        rv = apr_file_rename(tmp, file, p);
    if (rv != APR_SUCCESS) {
        apr_file_remove(tmp, p);
        return apr_psprintf(p, "cannot write %s: %pm", file, &rv);
    }
    char *dir = apr_pstrdup(p, file), *slash = strrchr(dir, '/');
    if (slash) {
        *(slash == dir ? slash + 1 : slash) = '\0';
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            (void)fsync(fd);
            close(fd);
        }
    }
    return NULL;
}

const char *wh_replay_lmdb_size_error(apr_pool_t *p, apr_size_t map_size)
{
    if (map_size >= WH_REPLAY_LMDB_MIN_SIZE)
        return NULL;
    return apr_psprintf(p, "%" APR_SIZE_T_FMT " bytes is too small (at least "
                        "%" APR_SIZE_T_FMT ")", map_size,
                        WH_REPLAY_LMDB_MIN_SIZE);
}

/* ---- disk space for the map ------------------------------------------
 * The map is written through memory (MDB_WRITEMAP): a page of the file
 * gets its disk blocks when it is first written, and when the file system
 * has none left the writer gets SIGBUS, not an error; under httpd's event
 * MPM that kills every request of the child. Every page below the tree's
 * end has been written, so it has its blocks; a write transaction first
 * makes sure the blocks past the end are allocated (fallocate, which
 * answers ENOSPC instead), and refuses to write when they cannot be. */

/* Allocates [off, off + len) of the data file without changing any data:
 * fallocate(2), or, on a file system without it, zeros written there
 * (only past the tree's end, which no process reads and only the holder
 * of the writer lock writes). 0 or the errno. */
static int allocate(int fd, apr_uint64_t off, apr_uint64_t len)
{
    static const char zeros[4096];
    int rv;

#ifdef __linux__
    /* not posix_fallocate(3): glibc's fallback writes a byte into each
     * block after reading it, racing nobody here, but it hides which
     * way it went */
    do
        rv = fallocate(fd, 0, (off_t)off, (off_t)len) == 0 ? 0 : errno;
    while (rv == EINTR);
    if (rv != EOPNOTSUPP && rv != ENOSYS)
        return rv;
#endif
    for (apr_uint64_t at = off; at < off + len;) {
        apr_uint64_t n = off + len - at < sizeof(zeros) ? off + len - at : sizeof(zeros);
        ssize_t w = pwrite(fd, zeros, (size_t)n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        at += (apr_uint64_t)w;
    }
    return 0;
}

/* Inside a write transaction, before it writes: the data file's blocks
 * reach headrooms headrooms past the tree's last page (or the map's end).
 * Grows the reservation by three headrooms at a time; on a file system
 * that cannot give that much, whatever is enough. 0, or the errno
 * (ENOSPC: the transaction must not write). */
static int reserve(wh_replay_lmdb *db, int headrooms)
{
    MDB_envinfo info;
    apr_uint64_t end, map, room, want, step;
    int rv;

    if (mdb_env_info(db->env, &info) != 0)
        return EIO;
    /* the map in use: LMDB keeps a file's larger map over a smaller one
     * asked for */
    map = info.me_mapsize;
    room = WH_LMDB_HEADROOM(map);
    end = ((apr_uint64_t)info.me_last_pgno + 1) * db->psize;
    if (end >= map)
        return 0;
    want = map - end > headrooms * room ? end + headrooms * room : map;
    if (db->reserved >= want)
        return 0;
    step = map - end > 3 * room ? end + 3 * room : map;
    /* from the tree's end: this process may not know what others did */
    if (allocate(db->fd, end, step - end) == 0) {
        db->reserved = step;
        return 0;
    }
    if ((rv = allocate(db->fd, end, want - end)) == 0)
        db->reserved = want;
    return rv;
}

/* Headrooms a transaction needs: one that records an id leaves room for
 * its own pages and for the confirmation or removal that follows it, so
 * a claim made can always be confirmed or forgotten, full disk or not. */
#define WH_LMDB_NEED_ADD 2
#define WH_LMDB_NEED_CHANGE 1

static const char *no_space(int rv)
{
    return rv == ENOSPC || rv == EDQUOT
               ? "its file system is full (no disk space to reserve for the map)"
               : "reserving disk space for the map failed";
}

/* ---- the environment ------------------------------------------------- */

static apr_status_t close_store(void *data)
{
    wh_replay_lmdb *db = data;
    if (db->env) {
        mdb_env_close(db->env);
        db->env = NULL;
    }
    return APR_SUCCESS;
}

/* NOSUBDIR: PATH and PATH-lock. NOTLS: httpd's threads share reader
 * slots. WRITEMAP + NOSYNC: a commit is memory writes, no system call.
 * NORDAHEAD: ids are looked up at random. */
static const char *env_open(apr_pool_t *p, const char *path,
                            apr_size_t map_size, wh_replay_lmdb *db)
{
    MDB_txn *txn = NULL;
    MDB_stat est = { 0 };
    int rv, rc = mdb_env_create(&db->env);
    if (rc == 0)
        rc = mdb_env_set_mapsize(db->env, map_size);
    if (rc == 0)
        rc = mdb_env_set_maxdbs(db->env, 2);
    if (rc == 0)
        rc = mdb_env_open(db->env, path, MDB_NOSUBDIR | MDB_NOTLS | MDB_WRITEMAP
                          | MDB_NOSYNC | MDB_NORDAHEAD, 0600);
    if (rc == 0)
        rc = mdb_env_get_fd(db->env, &db->fd);
    if (rc == 0)
        rc = mdb_env_stat(db->env, &est);
    db->psize = est.ms_psize;
    db->reserved = 0;
    db->map_size = map_size;
    if (rc == 0)
        rc = mdb_txn_begin(db->env, NULL, 0, &txn);
    if (rc == 0 && (rc = mdb_dbi_open(txn, "ids", 0, &db->ids)) == MDB_NOTFOUND) {
        /* a new file: creating "ids" writes its first pages */
        if ((rv = reserve(db, WH_LMDB_NEED_CHANGE)) != 0) {
            mdb_txn_abort(txn);
            mdb_env_close(db->env);
            db->env = NULL;
            return apr_psprintf(p, "%s: %s", path, no_space(rv));
        }
        rc = mdb_dbi_open(txn, "ids", MDB_CREATE, &db->ids);
    }
    if (rc == 0) {
        rc = mdb_txn_commit(txn);
        txn = NULL;
    }
    if (txn)
        mdb_txn_abort(txn);
    if (rc != 0) {
        if (db->env)
            mdb_env_close(db->env);
        db->env = NULL;
        return apr_psprintf(p, "%s: %s", path, mdb_strerror(rc));
    }
    return NULL;
}

/* LMDB's lock file is a table of readers written through memory too:
 * its blocks are allocated whole before any child maps it (never zeros
 * written: older children may be using it). NULL or why not. */
static const char *reserve_lockfile(apr_pool_t *p, const char *path)
{
    const char *file = wh_replay_lmdb_lockfile(p, path);
    struct stat sb;
    int rv = 0, fd = open(file, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0)
        return apr_psprintf(p, "%s: %s", file, strerror(errno));
#ifdef __linux__
    if (fstat(fd, &sb) != 0)
        rv = errno;
    else
        do
            rv = fallocate(fd, 0, 0, sb.st_size) == 0 ? 0 : errno;
        while (rv == EINTR);
    if (rv == EOPNOTSUPP || rv == ENOSYS)
        rv = 0;
#else
    (void)sb;
#endif
    close(fd);
    return rv ? apr_psprintf(p, "%s: %s", file, no_space(rv)) : NULL;
}

static void remove_files(apr_pool_t *p, const char *path)
{
    apr_file_remove(path, p);
    apr_file_remove(wh_replay_lmdb_lockfile(p, path), p);
}

const char *wh_replay_lmdb_prepare(apr_pool_t *p, const char *path,
                                   apr_size_t map_size, apr_time_t now,
                                   int predecessor, apr_time_t *since,
                                   wh_lmdb_trust *trust)
{
    const char *statefile = wh_replay_lmdb_statefile(p, path);
    wh_replay_lmdb_state st, *stp = &st;
    struct stat sb;
    wh_replay_lmdb db = {0};
    const char *err;

    if ((err = wh_replay_lmdb_size_error(p, map_size)) != NULL)
        return apr_pstrcat(p, path, ": ", err, NULL);
    if (read_state(p, statefile, &st) != 0)
        stp = NULL;
    char boot[sizeof(st.boot)];
    wh_replay_lmdb_boot_id(boot, sizeof(boot));
    *trust = wh_replay_lmdb_trust(stp, stat(path, &sb) == 0,
                                  predecessor || wh_fs_on_ram(path),
                                  boot, now, since);
    if (*trust == WH_LMDB_TRUST_DISCARD || *trust == WH_LMDB_TRUST_LOST)
        remove_files(p, path);
    if ((err = env_open(p, path, map_size, &db)) != NULL)
        return err;
    close_store(&db);
    if ((err = reserve_lockfile(p, path)) != NULL)
        return err;

    wh_replay_lmdb_state now_st;
    memset(&now_st, 0, sizeof(now_st));
    memcpy(now_st.boot, boot, sizeof(boot));
    now_st.clean = 0;
    now_st.since = *since;
    return write_state(p, statefile, &now_st);
}

const char *wh_replay_lmdb_mark_clean(apr_pool_t *p, const char *path,
                                      apr_size_t map_size)
{
    const char *statefile = wh_replay_lmdb_statefile(p, path);
    wh_replay_lmdb_state st;
    struct stat sb;
    wh_replay_lmdb db = {0};
    const char *err;
    int rc;

    if (read_state(p, statefile, &st) != 0)
        return apr_psprintf(p, "%s: no readable state; left unclean", path);
    if (stat(path, &sb) != 0)
        return apr_psprintf(p, "%s: the store is gone; left unclean", path);
    if ((err = env_open(p, path, map_size, &db)) != NULL)
        return err;
    rc = mdb_env_sync(db.env, 1);
    close_store(&db);
    if (rc != 0)
        return apr_psprintf(p, "%s: sync failed: %s", path, mdb_strerror(rc));
    st.clean = 1;
    return write_state(p, statefile, &st);
}

const char *wh_replay_lmdb_open(apr_pool_t *p, const char *path,
                                apr_size_t map_size, wh_replay_lmdb **out)
{
    struct stat sb;
    wh_replay_lmdb *db;
    const char *err;

    *out = NULL;
    if (stat(path, &sb) != 0)
        return apr_psprintf(p, "%s: the store is missing (deleted after "
                            "startup?); restart to recreate it", path);
    db = apr_pcalloc(p, sizeof(*db));
    if ((err = env_open(p, path, map_size, db)) != NULL)
        return err;
    apr_pool_cleanup_register(p, db, close_store, apr_pool_cleanup_null);
    *out = db;
    return NULL;
}

/* ---- ids ------------------------------------------------------------- */

/* A held id's value: its expiry, and for a delivery under way (a claim)
 * the claiming process (its pid, start time and boot) and since when. A
 * confirmed id is the expiry alone, as stores written before claims
 * existed hold it; a claim written before start times were recorded is
 * the first three fields (24 bytes). */
typedef struct {
    apr_time_t expiry;
    apr_time_t since;
    apr_int64_t pid;
    apr_uint64_t start;
    apr_uint64_t boot;
} claim_value;
#define WH_LMDB_CLAIM_V1 (3 * sizeof(apr_int64_t))

static apr_time_t stored_expiry(const MDB_val *v)
{
    apr_time_t e = 0;
    if (v->mv_size >= sizeof(e))
        memcpy(&e, v->mv_data, sizeof(e));
    return e;
}

static int is_claim(const MDB_val *v, claim_value *c)
{
    if (v->mv_size != sizeof(*c) && v->mv_size != WH_LMDB_CLAIM_V1)
        return 0;
    memset(c, 0, sizeof(*c));
    memcpy(c, v->mv_data, v->mv_size);
    return 1;
}

/* The kernel's boot id, hashed (FNV-1a); 0 when unknown. */
static apr_uint64_t boot_hash_read(void)
{
    char boot[64];
    apr_uint64_t h = 14695981039346656037ULL;

    wh_replay_lmdb_boot_id(boot, sizeof(boot));
    if (!boot[0])
        return 0;
    for (const unsigned char *c = (const unsigned char *)boot; *c; c++) {
        h ^= *c;
        h *= 1099511628211ULL;
    }
    return h ? h : 1;
}

/* A process never changes boot: read once, not for every claim a writer
 * judges under the store's write lock. */
static apr_uint64_t boot_hash_value;
static pthread_once_t boot_hash_once = PTHREAD_ONCE_INIT;

static void boot_hash_init(void)
{
    boot_hash_value = boot_hash_read();
}

static apr_uint64_t boot_hash(void)
{
    (void)pthread_once(&boot_hash_once, boot_hash_init);
    return boot_hash_value;
}

int wh_replay_process_start(apr_int64_t pid, apr_uint64_t *start)
{
#if defined(__linux__)
    char path[40], buf[1024];
    const char *c;
    ssize_t n;
    int fd, field;

    if (pid <= 0 || pid > INT_MAX)
        return -1;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "pid (comm) state ppid ...": comm may hold anything, so count the
     * fields after its last ')'; starttime is field 22 */
    if ((c = strrchr(buf, ')')) == NULL)
        return -1;
    for (field = 2; *c && field < 22; c++)
        if (*c == ' ')
            field++;
    if (field != 22 || *c < '0' || *c > '9')
        return -1;
    *start = 0;
    for (; *c >= '0' && *c <= '9'; c++)
        *start = *start * 10 + (apr_uint64_t)(*c - '0');
    return 0;
#else
    (void)pid;
    (void)start;
    return -1;
#endif
}

static int pid_alive(apr_int64_t pid)
{
    /* EPERM: it runs, as another user */
    return pid > 0 && pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int wh_replay_process_alive(const wh_replay_process *h)
{
    apr_uint64_t start;

    if (!pid_alive(h->pid))
        return 0;
    if (h->boot) {
        apr_uint64_t now = boot_hash();
        if (now && now != h->boot)
            return 0;            /* written in another boot */
    }
    if (h->start && wh_replay_process_start(h->pid, &start) == 0
        && start != h->start)
        return 0;                /* the pid names another process now */
    return 1;
}

void wh_replay_owner_self(wh_replay_owner *o, apr_interval_time_t lease)
{
    memset(o, 0, sizeof(*o));
    o->self.pid = (apr_int64_t)getpid();
    if (wh_replay_process_start(o->self.pid, &o->self.start) != 0)
        o->self.start = 0;
    o->self.boot = boot_hash();
    o->lease = lease;
    o->alive = wh_replay_process_alive;
}

/* Has c's holder gone, so that its claim may be taken over (or swept)?
 * Without an owner (wh_replay_lmdb_add: a caller that claims nothing),
 * a claim holds until its expiry, as before claims were kept by their
 * process. */
static int claim_lapsed(const claim_value *c, const wh_replay_owner *owner,
                        apr_time_t now)
{
    wh_replay_process holder = { c->pid, c->start, c->boot };

    if (owner == NULL)
        return c->expiry <= now;
    if (c->start == 0 && c->boot == 0 && now - c->since > owner->lease)
        return 1;                /* a claim of the older form */
    return !(owner->alive ? owner->alive : wh_replay_process_alive)(&holder);
}

/* May the sweep delete this entry? An expired id, or an expired claim
 * whose process is gone: a claim whose process runs stays, whatever its
 * expiry (its delivery is still under way). */
static int sweepable(const MDB_val *v, const wh_replay_owner *owner,
                     apr_time_t now)
{
    claim_value held;
    if (stored_expiry(v) > now)
        return 0;
    return !is_claim(v, &held) || claim_lapsed(&held, owner, now);
}

/* Examines up to max ids from where the sweep stopped, deleting the
 * expired; 0, or LMDB's error. */
static int purge(wh_replay_lmdb *db, MDB_txn *txn, apr_time_t now, int max,
                 const wh_replay_owner *owner)
{
    MDB_cursor *c;
    MDB_val k = { db->sweep_len, db->sweep }, v;
    int rc = mdb_cursor_open(txn, db->ids, &c);
    if (rc != 0)
        return rc;
    rc = mdb_cursor_get(c, &k, &v, db->sweep_len ? MDB_SET_RANGE : MDB_FIRST);
    while (rc == 0 && max-- > 0) {
        /* after a delete, LMDB's MDB_NEXT gives the entry that took the
         * deleted one's place */
        if (sweepable(&v, owner, now) && (rc = mdb_cursor_del(c, 0)) != 0)
            break;
        rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
    }
    if (rc == 0 && k.mv_size <= sizeof(db->sweep)) {
        memcpy(db->sweep, k.mv_data, k.mv_size);
        db->sweep_len = k.mv_size;
        rc = 0;
    }
    else if (rc == MDB_NOTFOUND || rc == 0) {
        db->sweep_len = 0;      /* the end: wrap to the first id */
        rc = 0;
    }
    mdb_cursor_close(c);
    return rc;
}

static wh_lmdb_result failed(MDB_txn *txn, int rc, const char **err)
{
    if (txn)
        mdb_txn_abort(txn);
    if (err)
        *err = mdb_strerror(rc);
    return rc == MDB_MAP_FULL ? WH_LMDB_FULL : WH_LMDB_ERROR;
}

/* A transaction that only purges: when an add finds the map full, the
 * expired ids it could not remove inside its own failed transaction. 1
 * when something was removed. */
static int purge_alone(wh_replay_lmdb *db, apr_time_t now,
                       const wh_replay_owner *owner)
{
    MDB_txn *txn;
    MDB_stat before, after;
    if (mdb_txn_begin(db->env, NULL, 0, &txn) != 0)
        return 0;
    if (reserve(db, WH_LMDB_NEED_CHANGE) != 0
        || mdb_stat(txn, db->ids, &before) != 0
        || purge(db, txn, now, 64 * WH_LMDB_SWEEP_PER_ADD, owner) != 0
        || mdb_stat(txn, db->ids, &after) != 0
        || after.ms_entries == before.ms_entries) {
        mdb_txn_abort(txn);
        return 0;
    }
    return mdb_txn_commit(txn) == 0;
}

static wh_lmdb_result add_once(wh_replay_lmdb *db, const char *id,
                               apr_time_t now, apr_time_t expires,
                               int may_add, const wh_replay_owner *owner,
                               const char **err);

wh_lmdb_result wh_replay_lmdb_claim(wh_replay_lmdb *db, const char *id,
                                    apr_time_t now, apr_time_t expires,
                                    int may_add, const wh_replay_owner *owner,
                                    const char **err)
{
    wh_lmdb_result r = add_once(db, id, now, expires, may_add, owner, err);
    if (r == WH_LMDB_FULL && purge_alone(db, now, owner))
        r = add_once(db, id, now, expires, may_add, owner, err);
    return r;
}

wh_lmdb_result wh_replay_lmdb_add(wh_replay_lmdb *db, const char *id,
                                  apr_time_t now, apr_time_t expires,
                                  int may_add, const char **err)
{
    return wh_replay_lmdb_claim(db, id, now, expires, may_add, NULL, err);
}

static wh_lmdb_result add_once(wh_replay_lmdb *db, const char *id,
                               apr_time_t now, apr_time_t expires,
                               int may_add, const wh_replay_owner *owner,
                               const char **err)
{
    apr_size_t len = id ? strlen(id) : 0;
    MDB_txn *txn;
    MDB_val k = { len, (void *)id }, v;
    int rc;

    if (err)
        *err = NULL;
    if (db == NULL || db->env == NULL || len == 0
        || len > WH_REPLAY_LMDB_ID_MAX) {
        if (err)
            *err = db && db->env ? "the id is empty or too long"
                                 : "the store is not open";
        return WH_LMDB_ERROR;
    }
    if ((rc = mdb_txn_begin(db->env, NULL, 0, &txn)) != 0)
        return failed(NULL, rc, err);

    rc = mdb_get(txn, db->ids, &k, &v);
    if (rc == 0) {
        claim_value held;
        if (is_claim(&v, &held)) {
            if (!claim_lapsed(&held, owner, now)) {
                mdb_txn_abort(txn);
                return WH_LMDB_IN_PROGRESS;
            }
            /* its delivery died with its process: a copy takes it over */
        }
        else if (stored_expiry(&v) > now) {
            mdb_txn_abort(txn);
            return WH_LMDB_DUPLICATE;
        }
    }
    else if (rc != MDB_NOTFOUND)
        return failed(txn, rc, err);
    if (!may_add) {
        mdb_txn_abort(txn);
        return WH_LMDB_REFUSED;
    }
    /* held but expired, absent, or a lapsed claim: (re)recorded, when
     * the disk has room for this write and the confirmation after it */
    if ((rc = reserve(db, WH_LMDB_NEED_ADD)) != 0) {
        mdb_txn_abort(txn);
        if (err)
            *err = no_space(rc);
        return WH_LMDB_ERROR;
    }
    claim_value mine = { expires, now, owner ? owner->self.pid : 0,
                         owner ? owner->self.start : 0,
                         owner ? owner->self.boot : 0 };
    if (owner) {
        v.mv_size = sizeof(mine);
        v.mv_data = &mine;
    } else {
        v.mv_size = sizeof(expires);
        v.mv_data = &expires;
    }
    if ((rc = purge(db, txn, now, WH_LMDB_SWEEP_PER_ADD, owner)) != 0
        || (rc = mdb_put(txn, db->ids, &k, &v, 0)) != 0)
        return failed(txn, rc, err);
    if ((rc = mdb_txn_commit(txn)) != 0)
        return failed(NULL, rc, err);
    return WH_LMDB_FIRST;
}

/* What one write transaction does to one id: 0 (commit), MDB_NOTFOUND
 * (nothing to do: aborted, not an error), or LMDB's error. */
typedef int (*id_change)(wh_replay_lmdb *db, MDB_txn *txn, MDB_val *k,
                         const void *arg);

static int change_id(wh_replay_lmdb *db, const char *id, id_change change,
                     const void *arg, const char **err)
{
    apr_size_t len = id ? strlen(id) : 0;
    MDB_txn *txn;
    MDB_val k = { len, (void *)id };
    int rc;

    if (db == NULL || db->env == NULL || len == 0
        || len > WH_REPLAY_LMDB_ID_MAX) {
        if (err)
            *err = "the store is not open, or the id is empty or too long";
        return -1;
    }
    if ((rc = mdb_txn_begin(db->env, NULL, 0, &txn)) != 0) {
        if (err)
            *err = mdb_strerror(rc);
        return -1;
    }
    /* a claim reserved room for this already (WH_LMDB_NEED_ADD) */
    if ((rc = reserve(db, WH_LMDB_NEED_CHANGE)) != 0) {
        mdb_txn_abort(txn);
        if (err)
            *err = no_space(rc);
        return -1;
    }
    rc = change(db, txn, &k, arg);
    if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        return 0;
    }
    if (rc == 0)
        rc = mdb_txn_commit(txn);
    else
        mdb_txn_abort(txn);
    if (rc != 0) {
        if (err)
            *err = mdb_strerror(rc);
        return -1;
    }
    return 0;
}

typedef struct {
    apr_int64_t pid;
    apr_time_t expires;
} confirm_arg;

/* The claim of pid becomes a confirmed id (an expiry alone): its own, or
 * a later one (a delivery that outlasted the window it began with). */
static int confirm_claim(wh_replay_lmdb *db, MDB_txn *txn, MDB_val *k,
                         const void *arg)
{
    const confirm_arg *a = arg;
    MDB_val v, done;
    claim_value held;
    int rc = mdb_get(txn, db->ids, k, &v);

    if (rc != 0)
        return rc;
    if (!is_claim(&v, &held) || held.pid != a->pid)
        return MDB_NOTFOUND;    /* delivered already, or taken over */
    if (a->expires > held.expiry)
        held.expiry = a->expires;
    done.mv_size = sizeof(held.expiry);
    done.mv_data = &held.expiry;
    return mdb_put(txn, db->ids, k, &done, 0);
}

static int delete_id(wh_replay_lmdb *db, MDB_txn *txn, MDB_val *k,
                     const void *arg)
{
    (void)arg;
    return mdb_del(txn, db->ids, k, NULL);
}

int wh_replay_lmdb_confirm(wh_replay_lmdb *db, const char *id,
                           apr_int64_t pid, apr_time_t expires,
                           const char **err)
{
    confirm_arg a = { pid, expires };
    return change_id(db, id, confirm_claim, &a, err);
}

int wh_replay_lmdb_remove(wh_replay_lmdb *db, const char *id, const char **err)
{
    return change_id(db, id, delete_id, NULL, err);
}

int wh_replay_lmdb_usage(wh_replay_lmdb *db, apr_uint64_t *ids,
                         apr_uint64_t *used, apr_uint64_t *size)
{
    MDB_txn *txn;
    MDB_stat st;
    MDB_envinfo info;
    MDB_stat est;

    if (db == NULL || db->env == NULL
        || mdb_txn_begin(db->env, NULL, MDB_RDONLY, &txn) != 0)
        return -1;
    int rc = mdb_stat(txn, db->ids, &st);
    mdb_txn_abort(txn);
    if (rc != 0 || mdb_env_info(db->env, &info) != 0
        || mdb_env_stat(db->env, &est) != 0)
        return -1;
    *ids = st.ms_entries;
    *used = ((apr_uint64_t)info.me_last_pgno + 1) * est.ms_psize;
    *size = info.me_mapsize;
    return 0;
}
