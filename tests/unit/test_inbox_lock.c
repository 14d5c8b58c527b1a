/* The SQLite writers' queue (wh_inbox_lock.c): a bounded wait that ends
 * when the holder lets go, a holder killed with the lock handing it on, a
 * lock file from an earlier boot made afresh, and the file's mode. */
#include "wh_test.h"
#include "inbox/wh_inbox_lock.h"
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

/* In a directory of its own, removed after the test. */
static const char *lock_path(void)
{
    const char *dir = wh_test_tmpdir("lock");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    return apr_pstrcat(wh_test_pool(), dir, "/inbox.db-lock", NULL);
}

static wh_inbox_lock *open_lock(const char *path)
{
    wh_inbox_lock *l = NULL;
    const char *err = wh_inbox_lock_open(wh_test_pool(), path, 0600, (gid_t)-1, &l);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    return l;
}

static void test_held_lock_times_out(void)
{
    const char *path = lock_path();
    /* two openings: as two processes would have two mappings */
    wh_inbox_lock *a = open_lock(path), *b = open_lock(path);
    int took = 1;

    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(a, apr_time_from_msec(100), &took), APR_SUCCESS);
    CU_ASSERT_EQUAL(took, 0);
    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(b, apr_time_from_msec(50), NULL), APR_TIMEUP);
    wh_inbox_lock_release(a);
    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(b, apr_time_from_msec(50), NULL), APR_SUCCESS);
    wh_inbox_lock_release(b);
    unlink(path);
}

typedef struct {
    wh_inbox_lock *l;
    apr_status_t got;
} waiter_arg;

static void *APR_THREAD_FUNC waiter(apr_thread_t *t, void *data)
{
    waiter_arg *w = data;
    (void)t;
    w->got = wh_inbox_lock_acquire(w->l, apr_time_from_sec(30), NULL);
    if (w->got == APR_SUCCESS)
        wh_inbox_lock_release(w->l);
    return NULL;
}

static void test_waiter_wakes_on_release(void)
{
    const char *path = lock_path();
    wh_inbox_lock *a = open_lock(path), *b = open_lock(path);
    waiter_arg w = { b, APR_EGENERAL };
    apr_thread_t *th;
    apr_status_t st;

    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(a, 0, NULL), APR_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(apr_thread_create(&th, NULL, waiter, &w, wh_test_pool()), APR_SUCCESS);
    apr_sleep(apr_time_from_msec(20));
    wh_inbox_lock_release(a);
    apr_thread_join(&st, th);
    CU_ASSERT_EQUAL(w.got, APR_SUCCESS);
    unlink(path);
}

/* A holder killed with the lock (kill -9, a crash) hands it on. */
static void test_dead_holder_hands_it_on(void)
{
    const char *path = lock_path();
    wh_inbox_lock *l = open_lock(path);
    int st = 0, took = 0;
    pid_t kid;

    fflush(NULL);
    kid = fork();
    if (kid == 0) {
        wh_inbox_lock *mine = NULL;
        apr_pool_t *p;
        apr_pool_create(&p, NULL);
        if (wh_inbox_lock_open(p, path, 0600, (gid_t)-1, &mine) != NULL
            || wh_inbox_lock_acquire(mine, apr_time_from_sec(5), NULL) != APR_SUCCESS)
            _exit(1);
        kill(getpid(), SIGKILL);
        _exit(2);
    }
    CU_ASSERT_FATAL(kid > 0);
    CU_ASSERT_EQUAL(waitpid(kid, &st, 0), kid);
    CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(l, apr_time_from_sec(5), &took), APR_SUCCESS);
    CU_ASSERT_EQUAL(took, 1);
    wh_inbox_lock_release(l);
    /* and it is an ordinary lock again */
    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(l, 0, &took), APR_SUCCESS);
    CU_ASSERT_EQUAL(took, 0);
    wh_inbox_lock_release(l);
    unlink(path);
}

/* A lock file from an earlier boot: a holder cut off by a power loss
 * never had its exit processed, so its mutex still reads "held". The file
 * is initialised afresh rather than waited on. Layout: a 4-byte magic
 * word, then the boot id. */
static void test_earlier_boot_is_made_afresh(void)
{
    const char *path = lock_path();
    wh_inbox_lock *now;
    int fd, st = 0;
    pid_t kid;

    /* held by a process whose exit the kernel never processes (an empty
     * robust list registered), as a power loss leaves it; held in this
     * process, the thread's robust list would point into the page after
     * it is unmapped, and the next robust mutex locked crashes */
    fflush(NULL);
    kid = fork();
    if (kid == 0) {
        static struct robust_list_head empty;
        wh_inbox_lock *mine = NULL;
        apr_pool_t *p;
        empty.list.next = &empty.list;
        apr_pool_create(&p, NULL);
        if (wh_inbox_lock_open(p, path, 0600, (gid_t)-1, &mine) != NULL
            || wh_inbox_lock_acquire(mine, 0, NULL) != APR_SUCCESS)
            _exit(1);
        syscall(SYS_set_robust_list, &empty, sizeof(empty));
        _exit(0);
    }
    CU_ASSERT_FATAL(kid > 0);
    CU_ASSERT_EQUAL(waitpid(kid, &st, 0), kid);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    fd = open(path, O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(pwrite(fd, "00000000-0000-0000-0000-000000000000", 36, 4), 36);
    close(fd);
    now = open_lock(path);
    CU_ASSERT_EQUAL(wh_inbox_lock_acquire(now, apr_time_from_msec(100), NULL), APR_SUCCESS);
    wh_inbox_lock_release(now);
    unlink(path);
}

static void test_file_mode(void)
{
    const char *path = lock_path();
    wh_inbox_lock *l = NULL;
    mode_t old = umask(022);
    struct stat st;

    CU_ASSERT_PTR_NULL(wh_inbox_lock_open(wh_test_pool(), path, 0600, (gid_t)-1, &l));
    umask(old);
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
    unlink(path);
    /* not through a symlink, and not something else */
    CU_ASSERT_EQUAL(symlink("/etc/passwd", path), 0);
    CU_ASSERT_PTR_NOT_NULL(wh_inbox_lock_open(wh_test_pool(), path, 0600, (gid_t)-1, &l));
    unlink(path);
}

/* The page is written through memory: it has its disk block before it is
 * mapped, new or left sparse by an older version (whose first write into
 * it raised SIGBUS on a full disk), so a full file system is an error to
 * open, never a fault. */
static void test_page_has_its_block(void)
{
    const char *path = lock_path(), *sparse;
    struct stat st;
    int fd;

    (void)open_lock(path);
    CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, 4096);
    CU_ASSERT(st.st_blocks * 512 >= 4096);
    unlink(path);

    sparse = apr_pstrcat(wh_test_pool(), path, "-sparse", NULL);
    fd = open(sparse, O_RDWR | O_CREAT | O_EXCL, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(ftruncate(fd, 4096), 0);
    close(fd);
    CU_ASSERT_EQUAL_FATAL(stat(sparse, &st), 0);
    if (st.st_blocks != 0) {
        unlink(sparse);
        WH_SKIP("the temp directory's file system has no holes: a new "
                "lock file cannot be sparse there");
    }
    (void)open_lock(sparse);
    CU_ASSERT_EQUAL_FATAL(stat(sparse, &st), 0);
    CU_ASSERT(st.st_blocks * 512 >= 4096);
    unlink(sparse);
}

static const wh_test_case cases[] = {
    { "held: another waits at most its timeout", test_held_lock_times_out },
    { "a waiter wakes when the holder lets go", test_waiter_wakes_on_release },
    { "a holder killed with it hands it on (robust)", test_dead_holder_hands_it_on },
    { "a lock file from an earlier boot is made afresh", test_earlier_boot_is_made_afresh },
    { "created 0600 whatever the umask, never through a symlink", test_file_mode },
    { "the mapped page has its disk block", test_page_has_its_block },
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_lock, cases)
