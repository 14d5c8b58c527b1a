/* The SQLite inbox's files and who may open them: created 0600 (0640 and
 * InboxGroup's group) whatever the umask, -wal/-shm/-lock alike; a
 * warning for inbox files others can read; a read-only opening that
 * creates and writes nothing; the retry interval of a long-lived inbox
 * whose database cannot be opened; the keys InboxGroup, InboxBatchMax,
 * InboxBatchWait; a database on a network file system refused. */
#include "inbox_fx.h"
#include "config/wh_config_load.h"
#include "inbox/wh_auth_file.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_fs.h"
#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <grp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *with(fx *f, const char *suffix)
{
    return apr_pstrcat(wh_test_pool(), f->path, suffix, NULL);
}

static void test_created_0600_under_umask_022(void)
{
    fx *f = ix_make();
    mode_t old = umask(022);

    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    umask(old);
    /* the database, and what SQLite and the writers' queue made beside it */
    CU_ASSERT_EQUAL(wh_test_mode_of(f->path, NULL), 0600);
    CU_ASSERT_EQUAL(wh_test_mode_of(with(f, "-wal"), NULL), 0600);
    CU_ASSERT_EQUAL(wh_test_mode_of(with(f, "-shm"), NULL), 0600);
    CU_ASSERT_EQUAL(wh_test_mode_of(with(f, "-lock"), NULL), 0600);
    CU_ASSERT_PTR_NULL(wh_inbox_file_warnings(wh_test_pool(), f->cfg));
    CU_ASSERT(contains(f->log, "created the sqlite3 database file (mode 0600)"));
}

/* A group this process may give files to: its own primary group unless
 * it is root, who may use any (daemon, then). */
static const char *some_group(gid_t *gid)
{
    struct group *g = getgrgid(getuid() == 0 ? 1 : getgid());
    if (!g)
        return NULL;
    *gid = g->gr_gid;
    return apr_pstrdup(wh_test_pool(), g->gr_name);
}

static void test_inbox_group_0640(void)
{
    fx *f = ix_make();
    gid_t want = (gid_t)-1, got = (gid_t)-1;
    const char *group = some_group(&want);
    mode_t old;

    if (!group)
        WH_SKIP("no group to give the files: root uses gid 1 (daemon), "
                "others their own, and getgrgid found none");
    CU_ASSERT_PTR_NULL(wh_config_set(wh_test_pool(), f->cfg, "InboxGroup", group, 0));
    old = umask(077);   /* 0640 even under a stricter umask */
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->ib);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    umask(old);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->path, &got), 0640);
    CU_ASSERT_EQUAL(got, want);
    CU_ASSERT_EQUAL(wh_test_mode_of(with(f, "-wal"), &got), 0640);
    CU_ASSERT_EQUAL(wh_test_mode_of(with(f, "-lock"), &got), 0640);
    CU_ASSERT_EQUAL(got, want);
    /* a group that does not exist is an open error, not a silent 0600 */
    f = ix_make();
    f->cfg->inbox_group = "no-such-group-wh";
    CU_ASSERT_PTR_NULL(ix_open_in(f, wh_test_pool()));
}

static void test_warns_about_files_others_can_read(void)
{
    fx *f = ix_opened();
    const char *w;

    CU_ASSERT_EQUAL(ix_store(f, ix_nid(1), "P", "Review", NULL), WH_INBOX_STORED);
    chmod(f->path, 0644);
    chmod(with(f, "-wal"), 0666);
    w = wh_inbox_file_warnings(wh_test_pool(), f->cfg);
    CU_ASSERT(contains(w, apr_pstrcat(wh_test_pool(), "InboxParams ", f->path,
                                      " is readable by others", NULL)));
    CU_ASSERT(contains(w, "-wal is readable and writable by others"));
    CU_ASSERT(!contains(w, "-shm"));
    CU_ASSERT(!contains(w, "-auth"));
    /* the CGI's auth cache beside the database */
    CU_ASSERT_EQUAL(wh_auth_file_store(with(f, "-auth"), 0644, (gid_t)-1,
                                       "00000000000000000000000000000000"
                                       "00000000000000000000000000000000",
                                       "bank", apr_time_now() + apr_time_from_sec(60)), 0);
    w = wh_inbox_file_warnings(wh_test_pool(), f->cfg);
    CU_ASSERT(contains(w, "-auth is readable by others"));
    /* pgsql: no files */
    f->cfg->inbox_driver = WH_INBOX_PGSQL;
    CU_ASSERT_PTR_NULL(wh_inbox_file_warnings(wh_test_pool(), f->cfg));
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = hay; (s = strstr(s, needle)) != NULL; s += strlen(needle))
        n++;
    return n;
}

static void test_read_only_creates_and_writes_nothing(void)
{
    fx *f = ix_make();
    wh_inbox *ro = NULL;
    const char *user = NULL;
    apr_time_t exp = 0, now = apr_time_now();
    struct stat before, after;

    /* no database: nothing to read, and nothing made */
    CU_ASSERT_PTR_NOT_NULL(wh_inbox_open_ex(wh_test_pool(), f->cfg, NULL, WH_INBOX_READ_ONLY, &ro));
    CU_ASSERT_PTR_NULL(ro);
    CU_ASSERT_EQUAL(wh_test_files_in(f->dir), 0);

    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_EQUAL(wh_inbox_auth_store(f->ib, wh_test_pool(), "k", "bank", now,
                                        now + apr_time_from_sec(60)), 0);
    CU_ASSERT_EQUAL(stat(f->path, &before), 0);
    {
        apr_pool_t *rp;
        apr_pool_create(&rp, wh_test_pool());
        CU_ASSERT_PTR_NULL(wh_inbox_open_ex(rp, f->cfg, NULL, WH_INBOX_READ_ONLY, &ro));
        CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
        CU_ASSERT_EQUAL(wh_inbox_auth_lookup(ro, rp, "k", now, &user, &exp), 1);
        ASSERT_STR(user, "bank");
        /* and it cannot write */
        CU_ASSERT_EQUAL(wh_inbox_auth_store(ro, rp, "k2", "bank", now, now + 1), -1);
        CU_ASSERT_EQUAL(ix_store(&(fx){ .ib = ro }, ix_nid(1), "P", "Review", NULL),
                        WH_INBOX_UNAVAILABLE);
        apr_pool_destroy(rp);
    }
    CU_ASSERT_EQUAL(stat(f->path, &after), 0);
    CU_ASSERT_EQUAL(before.st_mtime, after.st_mtime);
    CU_ASSERT_EQUAL(before.st_size, after.st_size);
    ASSERT_STR(ix_query(f, "SELECT count(*) FROM wh_auth_cache"), "1");
    /* a database of another version is not upgraded by a reader */
    CU_ASSERT_EQUAL(ix_exec(f, "UPDATE wh_meta SET schema_version = 2"), 0);
    ro = NULL;
    CU_ASSERT_PTR_NOT_NULL(wh_inbox_open_ex(wh_test_pool(), f->cfg, NULL, WH_INBOX_READ_ONLY, &ro));
    ASSERT_STR(ix_query(f, "SELECT schema_version FROM wh_meta"), "2");
}

static apr_status_t remove_missing(void *data)
{
    const fx *f = data;
    const char *sfx[] = { "", "-wal", "-shm", "-lock" };
    char path[512];
    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        snprintf(path, sizeof(path), "%s/missing/x.db%s", f->dir, sfx[i]);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/missing", f->dir);
    rmdir(path);
    return APR_SUCCESS;
}

/* A long-lived inbox whose database cannot be opened tries again at most
 * once per retry interval; requests meanwhile cost nothing. */
static void test_retry_at_most_once_per_interval(void)
{
    fx *f = ix_make();
    wh_inbox *ib = NULL;

    f->cfg->inbox_params = apr_pstrcat(wh_test_pool(), f->dir, "/missing/x.db", NULL);
    apr_pool_cleanup_register(wh_test_pool(), f, remove_missing, apr_pool_cleanup_null);
    CU_ASSERT_PTR_NULL(wh_inbox_open(wh_test_pool(), f->cfg,
                                     &(wh_logger){ ix_capture_log, f }, &ib));
    CU_ASSERT_PTR_NOT_NULL_FATAL(ib);
    f->ib = ib;
    CU_ASSERT_EQUAL(count(f->log, "cannot open"), 1);
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL(ix_store(f, ix_nid(i), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    CU_ASSERT_EQUAL(count(f->log, "cannot open"), 1);   /* no new attempt */
    /* once the interval has passed, the next request tries again */
    wh_inbox_set_retry_interval(ib, 0);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(99), "P", "Review", NULL), WH_INBOX_UNAVAILABLE);
    CU_ASSERT_EQUAL(count(f->log, "cannot open"), 2);
    /* and succeeds as soon as the database can be made */
    CU_ASSERT_EQUAL(apr_dir_make(apr_pstrcat(wh_test_pool(), f->dir, "/missing", NULL),
                                 APR_FPROT_OS_DEFAULT, wh_test_pool()), APR_SUCCESS);
    CU_ASSERT_EQUAL(ix_store(f, ix_nid(100), "P", "Review", NULL), WH_INBOX_STORED);
}

static void test_keys(void)
{
    apr_pool_t *p = wh_test_pool();
    wh_config *cfg = wh_config_create(p);

    CU_ASSERT_EQUAL(cfg->inbox_batch_max, 64);
    CU_ASSERT_EQUAL(cfg->inbox_batch_wait, 0);
    CU_ASSERT_PTR_NULL(cfg->inbox_group);
    CU_ASSERT_PTR_NULL(wh_config_set(p, cfg, "InboxBatchMax", "1", 1));
    CU_ASSERT_PTR_NULL(wh_config_set(p, cfg, "InboxBatchMax", "1000", 1));
    CU_ASSERT_EQUAL(cfg->inbox_batch_max, 1000);
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxBatchMax", "0", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxBatchMax", "1001", 1));
    CU_ASSERT_PTR_NULL(wh_config_set(p, cfg, "InboxBatchWait", "100000", 1));
    CU_ASSERT_EQUAL(cfg->inbox_batch_wait, 100000);
    CU_ASSERT_PTR_NULL(wh_config_set(p, cfg, "InboxBatchWait", "0", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxBatchWait", "100001", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxBatchWait", "-1", 1));
    CU_ASSERT_PTR_NULL(wh_config_set(p, cfg, "InboxGroup", "www-data", 1));
    ASSERT_STR(cfg->inbox_group, "www-data");
    /* well formed, but no such group: refused when the file is read */
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxGroup", "wh_backup.2", 1));
    ASSERT_STR(cfg->inbox_group, "www-data");
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxGroup", "-rf", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxGroup", "a b", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxGroup", "../x", 1));
    CU_ASSERT_PTR_NOT_NULL(wh_config_set(p, cfg, "InboxGroup",
                                         "a23456789012345678901234567890123", 1));
    CU_ASSERT_EQUAL(wh_inbox_file_mode(NULL), 0600);
    CU_ASSERT_EQUAL(wh_inbox_file_mode("g"), 0640);
}

/* A network file system is found by the statfs type the replay stores'
 * files are judged by (verify/wh_fs.h: its own cases in the replay_store
 * suite); the inbox's refusal names the way out. This machine's /tmp is
 * local: nothing refused, the inbox opens. */
static void test_network_file_system_refused(void)
{
    fx *f = ix_make();
    const char *m = wh_inbox_network_refusal(wh_test_pool(), "/home/u/inbox.db", "NFS");

    CU_ASSERT(contains(m, "InboxParams /home/u/inbox.db is on a network file system (NFS)"));
    CU_ASSERT(contains(m, "local directory"));
    CU_ASSERT(contains(m, "InboxDriver mysql (MariaDB, MySQL) or pgsql"));
    CU_ASSERT_PTR_NOT_NULL(wh_fs_network_type(0x6969));
    CU_ASSERT_PTR_NULL(wh_inbox_network_fs(wh_test_pool(), f->cfg));
    f->cfg->inbox_driver = WH_INBOX_MYSQL;           /* not a file at all */
    CU_ASSERT_PTR_NULL(wh_inbox_network_fs(wh_test_pool(), f->cfg));
    f->cfg->inbox_driver = WH_INBOX_SQLITE3;
    f->ib = ix_open_in(f, wh_test_pool());
    CU_ASSERT_PTR_NOT_NULL(f->ib);
}

static const wh_test_case cases[] = {
    { "database, -wal, -shm, -lock created 0600 under umask 022", test_created_0600_under_umask_022 },
    { "InboxGroup: 0640 and the group", test_inbox_group_0640 },
    { "warns about inbox files others can read", test_warns_about_files_others_can_read },
    { "read-only: creates nothing, writes nothing, upgrades nothing", test_read_only_creates_and_writes_nothing },
    { "unopenable database: one attempt per retry interval", test_retry_at_most_once_per_interval },
    { "InboxGroup, InboxBatchMax, InboxBatchWait values", test_keys },
    { "a database on a network file system is refused", test_network_file_system_refused },
    { NULL, NULL }
};

WH_TEST_SUITE(inbox_files, cases)
