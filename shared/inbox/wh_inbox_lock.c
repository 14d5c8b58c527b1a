/* The SQLite inbox's writer queue (see wh_inbox_lock.h).
 *
 * The file holds one page: a magic word, the boot it was initialised in,
 * and the mutex. A mutex found in the file from an earlier boot is made
 * afresh: a holder cut off by a power loss never ran its exit, so the
 * kernel never marked it dead, and its owner word would keep every
 * later writer waiting. Initialisation happens under an open-file-
 * description lock (F_OFD_SETLKW) held for microseconds, released by the
 * kernel if its holder dies; after that, opening is a read of the magic
 * word and the boot id.
 *
 * The page is written through memory, so its disk block is allocated
 * before it is mapped: a page the file system cannot allocate at the
 * first write raises SIGBUS in the writer (a CGI process dying before its
 * headers on a full disk), where fallocate answers ENOSPC. */
#include "wh_inbox_lock.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WH_LOCK_MAGIC 0x776c6b31u   /* "wlk1": this layout */
#define WH_LOCK_PAGE 4096
#define WH_BOOT_ID_LEN 36

typedef struct {
    _Atomic uint32_t magic;          /* set last: the page is ready */
    char boot_id[WH_BOOT_ID_LEN + 1];
    pthread_mutex_t mutex;
} lock_page;

struct wh_inbox_lock {
    lock_page *page;
};

/* The kernel's id of this boot; "" when it cannot be read (then every
 * boot looks alike, as before this check existed). */
static void read_boot_id(char out[WH_BOOT_ID_LEN + 1])
{
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, WH_BOOT_ID_LEN) : -1;

    if (fd >= 0)
        close(fd);
    out[n == WH_BOOT_ID_LEN ? WH_BOOT_ID_LEN : 0] = '\0';
}

static int ready(const lock_page *pg, const char *boot)
{
    return atomic_load_explicit(&pg->magic, memory_order_acquire) == WH_LOCK_MAGIC
           && strcmp(pg->boot_id, boot) == 0;
}

static int init_page(lock_page *pg, const char *boot)
{
    pthread_mutexattr_t a;
    int rv;

    atomic_store_explicit(&pg->magic, 0, memory_order_relaxed);
    if ((rv = pthread_mutexattr_init(&a)) != 0)
        return rv;
    rv = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (rv == 0)
        rv = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (rv == 0)
        rv = pthread_mutex_init(&pg->mutex, &a);
    pthread_mutexattr_destroy(&a);
    if (rv != 0)
        return rv;
    memcpy(pg->boot_id, boot, sizeof(pg->boot_id));
    atomic_store_explicit(&pg->magic, WH_LOCK_MAGIC, memory_order_release);
    return 0;
}

static int ofd_lock(int fd, short type)
{
    struct flock fl;
    int rv;

    memset(&fl, 0, sizeof(fl));
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    do
        rv = fcntl(fd, F_OFD_SETLKW, &fl);
    while (rv < 0 && errno == EINTR);
    return rv < 0 ? errno : 0;
}

/* Under the init lock, for a page that is new, cut short or has no
 * block yet: the file is one page long and the page has its block. A page
 * in use always has one (it was written), so this never runs on it;
 * zeros are written only to a file too short for anyone to have mapped.
 * 0 or the errno. */
static int allocate_page(int fd, const struct stat *st)
{
    static const char zeros[WH_LOCK_PAGE];
    int rv;

#ifdef __linux__
    do
        rv = fallocate(fd, 0, 0, WH_LOCK_PAGE) == 0 ? 0 : errno;
    while (rv == EINTR);
    if (rv != EOPNOTSUPP && rv != ENOSYS)
        return rv;
#endif
    if (st->st_size >= WH_LOCK_PAGE)
        return 0;       /* no fallocate here: as before, the first write allocates */
    ssize_t w;
    do
        w = pwrite(fd, zeros, sizeof(zeros), 0);
    while (w < 0 && errno == EINTR);
    if (w == (ssize_t)sizeof(zeros))
        return 0;
    return w < 0 ? errno : ENOSPC;
}

static apr_status_t unmap(void *data)
{
    wh_inbox_lock *l = data;
    if (l->page)
        munmap(l->page, WH_LOCK_PAGE);
    l->page = NULL;
    return APR_SUCCESS;
}

const char *wh_inbox_lock_open(apr_pool_t *p, const char *path, mode_t mode,
                               gid_t gid, wh_inbox_lock **out)
{
    char boot[WH_BOOT_ID_LEN + 1];
    struct stat st;
    lock_page *pg;
    int fd, rv = 0;

    *out = NULL;
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd >= 0) {
        /* ours: the exact mode whatever the umask, and the group */
        (void)fchmod(fd, mode);
        if (gid != (gid_t)-1 && fchown(fd, (uid_t)-1, gid) != 0)
            /* not a member of InboxGroup: the lock holds no data, and a
             * 0640 file in our own group is never wider than asked */
            errno = 0;
    } else if (errno == EEXIST) {
        fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0)
        return strerror(errno);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return "not a regular file";
    }
    read_boot_id(boot);
    if (st.st_size < WH_LOCK_PAGE || (apr_off_t)st.st_blocks * 512 < WH_LOCK_PAGE) {
        /* new, cut short, or a page never written: its block, under the
         * init lock */
        if ((rv = ofd_lock(fd, F_WRLCK)) == 0) {
            if (fstat(fd, &st) != 0)
                rv = errno;
            else if (st.st_size < WH_LOCK_PAGE
                     || (apr_off_t)st.st_blocks * 512 < WH_LOCK_PAGE)
                rv = allocate_page(fd, &st);
            (void)ofd_lock(fd, F_UNLCK);
        }
        if (rv != 0) {
            close(fd);
            return strerror(rv);
        }
    }
    pg = mmap(NULL, WH_LOCK_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pg == MAP_FAILED) {
        rv = errno;
        close(fd);
        return strerror(rv);
    }
    if (!ready(pg, boot)) {
        if ((rv = ofd_lock(fd, F_WRLCK)) == 0) {
            if (!ready(pg, boot))
                rv = init_page(pg, boot);
            (void)ofd_lock(fd, F_UNLCK);
        }
    }
    close(fd);   /* the mapping stays */
    if (rv != 0) {
        munmap(pg, WH_LOCK_PAGE);
        return strerror(rv);
    }
    *out = apr_pcalloc(p, sizeof(**out));
    (*out)->page = pg;
    apr_pool_cleanup_register(p, *out, unmap, apr_pool_cleanup_null);
    return NULL;
}

apr_status_t wh_inbox_lock_acquire(wh_inbox_lock *l, apr_interval_time_t timeout,
                                   int *took_over)
{
    struct timespec until;
    int rv;

    if (took_over)
        *took_over = 0;
    if (!l || !l->page)
        return APR_EINVAL;
    clock_gettime(CLOCK_MONOTONIC, &until);
    if (timeout < 0)
        timeout = 0;
    until.tv_sec += (time_t)apr_time_sec(timeout);
    until.tv_nsec += (long)apr_time_usec(timeout) * 1000;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    rv = pthread_mutex_clocklock(&l->page->mutex, CLOCK_MONOTONIC, &until);
    if (rv == EOWNERDEAD) {
        /* Its holder died in or around a transaction; SQLite rolled that
         * back (an uncommitted WAL tail is ignored), so the queue is sound. */
        rv = pthread_mutex_consistent(&l->page->mutex);
        if (took_over && rv == 0)
            *took_over = 1;
    }
    if (rv == ETIMEDOUT)
        return APR_TIMEUP;
    return rv == 0 ? APR_SUCCESS : APR_FROM_OS_ERROR(rv);
}

void wh_inbox_lock_release(wh_inbox_lock *l)
{
    if (l && l->page)
        (void)pthread_mutex_unlock(&l->page->mutex);
}
