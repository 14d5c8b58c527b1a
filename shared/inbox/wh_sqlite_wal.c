/* A thin SQLite VFS layer that gathers each commit's write-ahead-log
 * writes into one write system call.
 *
 * Why: SQLite writes every WAL frame with two pwrite() calls (the 24-byte
 * frame header, then the page), several frames per stored event, and the
 * group commit's leader holds everyone's answer while it writes. The
 * layer stays only while bench/method.md shows it paying.
 *
 * What it changes: nothing SQLite can observe. WAL writes that continue
 * the previous one are held in a buffer and written as one, before
 * anything that could read or publish them:
 *   - the page of a transaction's commit frame (its header carries the
 *     database size): the buffer goes out inside that write call, so a
 *     failed write fails the commit, with any synchronous setting, as
 *     without the layer;
 *   - any other operation on the WAL file (read, sync, size, truncate,
 *     file control, close), so a sync still covers every frame;
 *   - the database file's shared-memory barrier and locks, through which
 *     SQLite publishes a commit to other connections (the wal-index
 *     header): no reader, in this process or another, can see a frame
 *     that is not in the file yet. Normally nothing is left to write by
 *     then; a barrier cannot report an error, which is why the commit
 *     frame is written out first.
 * Writes to the database file itself (checkpoints) and to every other
 * file go through untouched.
 *
 * The layer also makes sure the wal-index (the database's -shm file,
 * written through memory) has its disk blocks before SQLite writes into a
 * region of it. SQLite writes one byte at the end of each 4 KiB page of a
 * new region, which allocates only the last block of the page where
 * blocks are smaller (ext4 makes 1 KiB blocks on a small file system): a
 * write into the rest, on a nearly full disk, raised SIGBUS (seen with
 * 24 KiB left). Each region SQLite maps is prefaulted for writing
 * (MADV_POPULATE_WRITE: the file system allocates as for a write, and a
 * page it cannot allocate is an error, not a signal), and a failure is
 * the I/O error SQLite gives when it cannot extend the file itself. The
 * layer cannot allocate with a descriptor of its own: closing any
 * descriptor of the -shm file drops every POSIX lock this process holds
 * on it, SQLite's included.
 *
 * Scope: SQLite's VFS is process-wide state shared with whatever else in
 * the process uses SQLite (another Apache module). The layer is never the
 * process's default: it is made the default only for the moment the
 * inbox opens its own connection (a connection keeps the VFS it was
 * opened with), under a mutex, and the previous default is put back.
 *
 * The functions come from wh_sqlite_api.h (the library apr_dbd's driver
 * loaded, or the one linked in), and without them (an SQLite older than
 * 3.32) the connection opens as before. */
#include "wh_sqlite_wal.h"
#include "wh_sqlite_api.h"
#include <sqlite3.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The buffer: the unix VFS writes at most 128 KiB - 1 bytes per call
 * (more is cut short, modulo 128 KiB, and reported as a full disk), so a
 * buffer never holds more than one call can write. About 30 frames of
 * 4 KiB pages: a group commit of several notifications. */
#define WH_WAL_BUF (124 * 1024)
#define WH_WAL_VFS_NAME "wirehook-wal"
/* SQLite's WAL layout: a 32-byte file header, then frames of a 24-byte
 * header (page number, then the database size in pages for the frame
 * that commits a transaction, 0 for the others) and the page, each
 * written with a call of its own. */
#define WH_WAL_FILE_HDR 32
#define WH_WAL_FRAME_HDR 24

typedef struct wal_file wal_file;
struct wal_file {
    sqlite3_file base;
    sqlite3_file *real;     /* the underlying VFS's file, right after this */
    int is_wal;
    wal_file *peer;         /* WAL file <-> its database file */
    unsigned char *buf;     /* WH_WAL_BUF bytes, from the first write */
    sqlite3_int64 off;      /* file offset of buf[0] */
    int len;
    int commit_page_next;   /* the frame header just written commits */
};

static struct {
    pthread_once_t once;
    pthread_mutex_t open_lock;
    const wh_sqlite_api *api; /* set when it has every function needed */
    sqlite3_vfs *under;     /* the VFS this layer wraps */
    sqlite3_vfs vfs;
    int ready;
    unsigned long writes, syscalls;
} g = { PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, NULL, NULL, { 0 }, 0, 0, 0 };

#define UNDER (g.under)
#define REAL(f) (((wal_file *)(f))->real)

static void count(unsigned long *c)
{
    __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/* Writes out what the buffer holds; the buffer is empty afterwards
 * whatever the outcome (SQLite treats a failed write as the end of the
 * transaction). */
static int flush(wal_file *f)
{
    int rc;

    if (!f || f->len == 0)
        return SQLITE_OK;
    rc = f->real->pMethods->xWrite(f->real, f->buf, f->len, f->off);
    count(&g.syscalls);
    f->len = 0;
    return rc;
}

/* ------------------------------------------------------- file methods --- */

/* The buffer written out, then the underlying file's method (or the
 * write's error). */
#define FLUSHED_THEN(call)                                                    \
    do {                                                                      \
        int rc_ = flush((wal_file *)file);                                    \
        return rc_ != SQLITE_OK ? rc_ : (call);                               \
    } while (0)

static int f_close(sqlite3_file *file)
{
    wal_file *f = (wal_file *)file;
    int rc = flush(f), rc2;

    if (f->peer)
        f->peer->peer = NULL;
    f->peer = NULL;
    free(f->buf);
    f->buf = NULL;
    rc2 = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    return rc != SQLITE_OK ? rc : rc2;
}

static int f_read(sqlite3_file *file, void *out, int amt, sqlite3_int64 off)
{
    FLUSHED_THEN(REAL(file)->pMethods->xRead(REAL(file), out, amt, off));
}

/* A frame header whose database-size field is set: its frame commits. */
static int commits(const void *data, int amt, sqlite3_int64 off)
{
    const unsigned char *h = data;
    return amt == WH_WAL_FRAME_HDR && off >= WH_WAL_FILE_HDR
           && (h[4] | h[5] | h[6] | h[7]) != 0;
}

static int buffer_write(wal_file *f, const void *data, int amt, sqlite3_int64 off)
{
    int rc;

    if (f->len > 0 && off == f->off + f->len && amt <= WH_WAL_BUF - f->len) {
        memcpy(f->buf + f->len, data, (size_t)amt);
        f->len += amt;
        return SQLITE_OK;
    }
    if ((rc = flush(f)) != SQLITE_OK)
        return rc;
    if (amt > WH_WAL_BUF || (!f->buf && !(f->buf = malloc(WH_WAL_BUF)))) {
        count(&g.syscalls);
        return f->real->pMethods->xWrite(f->real, data, amt, off);
    }
    memcpy(f->buf, data, (size_t)amt);
    f->off = off;
    f->len = amt;
    return SQLITE_OK;
}

static int f_write(sqlite3_file *file, const void *data, int amt, sqlite3_int64 off)
{
    wal_file *f = (wal_file *)file;
    int rc, last;

    if (!f->is_wal || amt <= 0)
        return f->real->pMethods->xWrite(f->real, data, amt, off);
    count(&g.writes);
    last = f->commit_page_next;
    f->commit_page_next = commits(data, amt, off);
    rc = buffer_write(f, data, amt, off);
    /* The commit frame's page: the transaction's frames leave now, in a
     * call whose failure SQLite sees and answers by failing the commit. */
    if (rc == SQLITE_OK && last)
        rc = flush(f);
    if (rc != SQLITE_OK)
        f->commit_page_next = 0;
    return rc;
}

static int f_truncate(sqlite3_file *file, sqlite3_int64 size)
{
    FLUSHED_THEN(REAL(file)->pMethods->xTruncate(REAL(file), size));
}

static int f_sync(sqlite3_file *file, int flags)
{
    FLUSHED_THEN(REAL(file)->pMethods->xSync(REAL(file), flags));
}

static int f_size(sqlite3_file *file, sqlite3_int64 *size)
{
    FLUSHED_THEN(REAL(file)->pMethods->xFileSize(REAL(file), size));
}

static int f_lock(sqlite3_file *file, int level)
{
    FLUSHED_THEN(REAL(file)->pMethods->xLock(REAL(file), level));
}

static int f_unlock(sqlite3_file *file, int level)
{
    FLUSHED_THEN(REAL(file)->pMethods->xUnlock(REAL(file), level));
}

static int f_reserved(sqlite3_file *file, int *out)
{
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out);
}

static int f_control(sqlite3_file *file, int op, void *arg)
{
    FLUSHED_THEN(REAL(file)->pMethods->xFileControl(REAL(file), op, arg));
}

static int f_sector(sqlite3_file *file)
{
    return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int f_device(sqlite3_file *file)
{
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

/* The wal-index lives in the database file's shared memory. A commit is
 * published there, after a barrier, under the WAL's locks: the frames it
 * names are written first. */
/* The region's pages faulted in for writing: the file system gives each
 * its blocks now, or says it cannot. 0, or -1 when a page has no block
 * (a kernel without MADV_POPULATE_WRITE, before Linux 5.14, counts as
 * success: SQLite's own byte per page is then all there is). */
static int populate(void volatile *region, int size)
{
#ifdef MADV_POPULATE_WRITE
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t at = (uintptr_t)region, start;

    if (page <= 0)
        return 0;
    start = at & ~(uintptr_t)(page - 1);
    if (madvise((void *)start, (size_t)(at - start) + (size_t)size, MADV_POPULATE_WRITE) != 0
        && errno != EINVAL && errno != EINTR)
        return -1;
#else
    (void)region;
    (void)size;
#endif
    return 0;
}

static int f_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **out)
{
    int rc = REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, out);

    /* SQLITE_READONLY: a read-only mapping, never written */
    if (rc == SQLITE_OK && *out && populate(*out, size) != 0) {
        *out = NULL;    /* SQLite keeps what it is given, even with an error */
        return SQLITE_IOERR_SHMSIZE;
    }
    return rc;
}

static int f_shm_lock(sqlite3_file *file, int offset, int n, int flags)
{
    int rc = flush(((wal_file *)file)->peer);
    return rc != SQLITE_OK ? rc : REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}

static void f_shm_barrier(sqlite3_file *file)
{
    /* No way to report a failure here; a WAL write that fails now fails
     * again, and is reported, at the sync or the next write. */
    (void)flush(((wal_file *)file)->peer);
    REAL(file)->pMethods->xShmBarrier(REAL(file));
}

static int f_shm_unmap(sqlite3_file *file, int delete_flag)
{
    return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}

static int f_fetch(sqlite3_file *file, sqlite3_int64 off, int amt, void **out)
{
    return REAL(file)->pMethods->xFetch(REAL(file), off, amt, out);
}

static int f_unfetch(sqlite3_file *file, sqlite3_int64 off, void *page)
{
    return REAL(file)->pMethods->xUnfetch(REAL(file), off, page);
}

/* One table per io-methods version: SQLite decides what a file can do
 * (shared memory for WAL, memory mapping) from the version it sees, which
 * must be the underlying file's. */
#define WH_IO_METHODS(v)                                                      \
    { v, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock,        \
      f_unlock, f_reserved, f_control, f_sector, f_device, f_shm_map,         \
      f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch, f_unfetch }
static const sqlite3_io_methods io_methods[3] = {
    WH_IO_METHODS(1), WH_IO_METHODS(2), WH_IO_METHODS(3)
};

/* -------------------------------------------------------- vfs methods --- */

static int v_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file,
                  int flags, int *out_flags)
{
    wal_file *f = (wal_file *)file;
    int rc, version;

    (void)vfs;
    memset(f, 0, sizeof(*f));
    f->real = (sqlite3_file *)(f + 1);
    rc = UNDER->xOpen(UNDER, name, f->real, flags, out_flags);
    /* SQLite calls xClose whenever pMethods is set, even after a failure. */
    if (!f->real->pMethods)
        return rc;
    version = f->real->pMethods->iVersion;
    f->base.pMethods = &io_methods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
    if (rc == SQLITE_OK && (flags & SQLITE_OPEN_WAL) && name) {
        wal_file *db = (wal_file *)g.api->database_file_object(name);
        /* Only a database opened through this layer has a place for us. */
        if (db && db->base.pMethods && db->base.pMethods->xClose == f_close
            && !db->peer) {
            f->is_wal = 1;
            f->peer = db;
            db->peer = f;
        }
    }
    return rc;
}

static int v_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    (void)vfs;
    return UNDER->xDelete(UNDER, name, sync_dir);
}

static int v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    return UNDER->xAccess(UNDER, name, flags, out);
}

static int v_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
    (void)vfs;
    return UNDER->xFullPathname(UNDER, name, n, out);
}

static void *v_dlopen(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return UNDER->xDlOpen(UNDER, name);
}

static void v_dlerror(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    UNDER->xDlError(UNDER, n, out);
}

static void (*v_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
    (void)vfs;
    return UNDER->xDlSym(UNDER, h, sym);
}

static void v_dlclose(sqlite3_vfs *vfs, void *h)
{
    (void)vfs;
    UNDER->xDlClose(UNDER, h);
}

static int v_random(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    return UNDER->xRandomness(UNDER, n, out);
}

static int v_sleep(sqlite3_vfs *vfs, int us)
{
    (void)vfs;
    return UNDER->xSleep(UNDER, us);
}

static int v_time(sqlite3_vfs *vfs, double *out)
{
    (void)vfs;
    return UNDER->xCurrentTime(UNDER, out);
}

static int v_lasterror(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    return UNDER->xGetLastError ? UNDER->xGetLastError(UNDER, n, out) : 0;
}

static int v_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    (void)vfs;
    return UNDER->xCurrentTimeInt64(UNDER, out);
}

static int v_setcall(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr fn)
{
    (void)vfs;
    return UNDER->xSetSystemCall(UNDER, name, fn);
}

static sqlite3_syscall_ptr v_getcall(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return UNDER->xGetSystemCall(UNDER, name);
}

static const char *v_nextcall(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return UNDER->xNextSystemCall(UNDER, name);
}

static void setup(void)
{
    sqlite3_vfs *v = &g.vfs;
    const wh_sqlite_api *api = wh_sqlite_api_get();

    if (!api->vfs_find || !api->vfs_register || !api->database_file_object
        || !api->file_control || !(g.under = api->vfs_find(NULL)))
        return;
    g.api = api;
    /* Layering over ourselves (a default left behind) would recurse. */
    if (strcmp(g.under->zName, WH_WAL_VFS_NAME) == 0)
        return;
    v->iVersion = g.under->iVersion < 3 ? g.under->iVersion : 3;
    v->szOsFile = (int)sizeof(wal_file) + g.under->szOsFile;
    v->mxPathname = g.under->mxPathname;
    v->zName = WH_WAL_VFS_NAME;
    v->xOpen = v_open;
    v->xDelete = v_delete;
    v->xAccess = v_access;
    v->xFullPathname = v_fullpath;
    v->xDlOpen = g.under->xDlOpen ? v_dlopen : NULL;
    v->xDlError = g.under->xDlError ? v_dlerror : NULL;
    v->xDlSym = g.under->xDlSym ? v_dlsym : NULL;
    v->xDlClose = g.under->xDlClose ? v_dlclose : NULL;
    v->xRandomness = v_random;
    v->xSleep = v_sleep;
    v->xCurrentTime = v_time;
    v->xGetLastError = v_lasterror;
    if (v->iVersion >= 2)
        v->xCurrentTimeInt64 = g.under->xCurrentTimeInt64 ? v_time64 : NULL;
    if (v->iVersion >= 3) {
        v->xSetSystemCall = g.under->xSetSystemCall ? v_setcall : NULL;
        v->xGetSystemCall = g.under->xGetSystemCall ? v_getcall : NULL;
        v->xNextSystemCall = g.under->xNextSystemCall ? v_nextcall : NULL;
    }
    /* Registered, not the default: only the inbox's opens choose it. */
    g.ready = g.api->vfs_register(v, 0) == SQLITE_OK;
}

/* Whether the connection's VFS is the layer: a file: URI naming a VFS
 * (?vfs=unix) takes precedence over the default. */
static int uses_layer(const apr_dbd_driver_t *driver, apr_dbd_t *handle)
{
    sqlite3 *db = handle ? apr_dbd_native_handle(driver, handle) : NULL;
    sqlite3_vfs *vfs = NULL;

    return db && g.api->file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK
           && vfs == &g.vfs;
}

apr_status_t wh_sqlite_wal_open(const apr_dbd_driver_t *driver, apr_pool_t *p,
                                const char *params, apr_dbd_t **handle,
                                const char **error, int *gathered)
{
    apr_status_t st;
    sqlite3_vfs *dflt;
    int swapped;

    *gathered = 0;
    pthread_once(&g.once, setup);
    if (!g.ready)
        return apr_dbd_open_ex(driver, p, params, handle, error);
    /* apr_dbd's driver opens with the default VFS: ours for this open. */
    pthread_mutex_lock(&g.open_lock);
    dflt = g.api->vfs_find(NULL);
    swapped = dflt != &g.vfs && g.api->vfs_register(&g.vfs, 1) == SQLITE_OK;
    st = apr_dbd_open_ex(driver, p, params, handle, error);
    if (swapped)
        (void)g.api->vfs_register(dflt, 1);
    pthread_mutex_unlock(&g.open_lock);
    *gathered = st == APR_SUCCESS && uses_layer(driver, *handle);
    return st;
}

int wh_sqlite_wal_stats_get(wh_sqlite_wal_stats *out)
{
    memset(out, 0, sizeof(*out));
    if (!g.ready)
        return -1;
    out->writes = __atomic_load_n(&g.writes, __ATOMIC_RELAXED);
    out->syscalls = __atomic_load_n(&g.syscalls, __ATOMIC_RELAXED);
    return 0;
}
