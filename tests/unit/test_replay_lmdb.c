/* The LMDB replay store (wh_replay_lmdb.h) is what stands between a
 * replayed notification and a second delivery, across processes, httpd
 * generations and reboots. These tests hold it to its header's promises:
 * the state file's format, the rule that decides whether a store found at
 * startup can be trusted (NEW, KEEP, LOST, DISCARD), the lifecycle
 * (prepare, open, mark_clean) on real files, and add's answers: FIRST
 * once, DUPLICATE while live, REFUSED when only looking, FULL without
 * evicting anything, expired ids purged so the store stays bounded, and
 * one answer per id for processes racing on the same file.
 *
 * Each test works in its own directory under /tmp, removed at its end (and
 * by the test pool's cleanup should an assertion end it early). Clocks are
 * passed in, never read: nothing here depends on timing. */
#include "wh_test.h"
#include "replay/wh_replay_lmdb.h"
#include <lmdb.h>
#include <apr_strings.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define P() wh_test_pool()
#define SEC(n) apr_time_from_sec(n)
#define T0 SEC(1700000000)
#define MAP ((apr_size_t)1 << 20)

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif

/* ---- fixture: a directory, the store's path, a pool for its stores --- */

typedef struct {
    apr_pool_t *p;       /* stores are opened in subpools of this */
    char *dir;
    const char *path;    /* dir/replay.lmdb */
    const char *lock;
    const char *state;
    int on_ram_fs;
} fx;

/* Removes everything in the directory (the store's three files and
 * whatever else a failing implementation left), then the directory. */
static apr_status_t fx_remove_dir(void *data)
{
    fx *f = data;
    DIR *d = opendir(f->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char file[PATH_MAX];
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")
                && snprintf(file, sizeof(file), "%s/%s", f->dir, e->d_name)
                   < (int)sizeof(file))
                unlink(file);
        }
        closedir(d);
    }
    rmdir(f->dir);
    return APR_SUCCESS;
}

static int dir_on_ram_fs(const char *dir)
{
    struct statfs s;
    return statfs(dir, &s) == 0
        && ((unsigned long)s.f_type == (unsigned long)TMPFS_MAGIC
            || (unsigned long)s.f_type == (unsigned long)RAMFS_MAGIC);
}

static fx *fx_make(void)
{
    fx *f = apr_pcalloc(P(), sizeof(*f));
    f->dir = apr_pstrdup(P(), "/tmp/wh-lmdb-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(f->dir));
    /* registered before the subpool exists: the test pool destroys its
     * subpools (closing the stores) before it runs its cleanups */
    apr_pool_cleanup_register(P(), f, fx_remove_dir, apr_pool_cleanup_null);
    apr_pool_create(&f->p, P());
    f->path = apr_pstrcat(P(), f->dir, "/replay.lmdb", NULL);
    f->lock = apr_pstrcat(P(), f->path, "-lock", NULL);
    f->state = apr_pstrcat(P(), f->path, "-state", NULL);
    f->on_ram_fs = dir_on_ram_fs(f->dir);
    return f;
}

/* The end of a test: closes every store still open, removes the files. */
static void fx_done(fx *f)
{
    apr_pool_destroy(f->p);
    f->p = NULL;
    apr_pool_cleanup_run(P(), f, fx_remove_dir);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static const char *boot_now(void)
{
    char *b = apr_pcalloc(P(), 64);
    wh_replay_lmdb_boot_id(b, 64);
    return b;
}

/* prepare, which must succeed; *since is set to a sentinel first so the
 * test sees that prepare set it. */
static wh_lmdb_trust fx_prepare(fx *f, apr_size_t size, apr_time_t now,
                                apr_time_t *since)
{
    wh_lmdb_trust trust = (wh_lmdb_trust)-1;
    const char *err;

    *since = -12345;
    err = wh_replay_lmdb_prepare(P(), f->path, size, now, 0, since, &trust);
    if (err)
        fprintf(stderr, "\n  prepare %s: %s\n", f->path, err);
    CU_ASSERT_PTR_NULL(err);
    return trust;
}

/* Opens the store in a pool of its own (closing it = destroying *sp). */
static wh_replay_lmdb *fx_open(fx *f, apr_size_t size, apr_pool_t **sp)
{
    wh_replay_lmdb *db = NULL;
    const char *err;

    apr_pool_create(sp, f->p);
    err = wh_replay_lmdb_open(*sp, f->path, size, &db);
    if (err)
        fprintf(stderr, "\n  open %s: %s\n", f->path, err);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(db);
    return db;
}

/* The state file's content; -1 when missing or malformed. */
static int fx_read_state(fx *f, wh_replay_lmdb_state *st)
{
    apr_size_t len = 0;
    char *text = wh_test_slurp(f->state, &len);

    memset(st, 0x55, sizeof(*st));
    return text ? wh_replay_lmdb_state_decode(text, len, st) : -1;
}

static void fx_write_state(fx *f, const wh_replay_lmdb_state *st)
{
    const char *text = wh_replay_lmdb_state_encode(P(), st);
    FILE *out;

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    out = fopen(f->state, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_EQUAL(fputs(text, out) >= 0, 1);
    CU_ASSERT_EQUAL(fclose(out), 0);
}

static wh_replay_lmdb_state state_of(const char *boot, int clean, apr_time_t since)
{
    wh_replay_lmdb_state st;
    memset(&st, 0, sizeof(st));
    apr_cpystrn(st.boot, boot, sizeof(st.boot));
    st.clean = clean;
    st.since = since;
    return st;
}

/* add with a lifetime; *err is reset so a test sees what this call set */
static wh_lmdb_result add(wh_replay_lmdb *db, const char *id, apr_time_t now,
                          apr_time_t expires, int may_add, const char **err)
{
    static const char *ignored;
    const char **e = err ? err : &ignored;
    *e = NULL;
    return wh_replay_lmdb_add(db, id, now, expires, may_add, e);
}

/* One worker's answer: a store opened in a pool of its own, one add,
 * closed again (as a child of the generation just prepared). */
static wh_lmdb_result fx_add_in_worker(fx *f, const char *id, apr_time_t now,
                                       apr_time_t expires, int may_add)
{
    apr_pool_t *sp;
    wh_replay_lmdb *db = fx_open(f, MAP, &sp);
    wh_lmdb_result r = add(db, id, now, expires, may_add, NULL);
    apr_pool_destroy(sp);
    return r;
}

static const char *nid(int i)
{
    return apr_psprintf(P(), "%08d-0000-4000-8000-000000000000", i);
}

static apr_uint64_t ids_held(wh_replay_lmdb *db)
{
    apr_uint64_t ids = 0, used = 0, size = 0;
    CU_ASSERT_EQUAL(wh_replay_lmdb_usage(db, &ids, &used, &size), 0);
    return ids;
}

/* ---- the state file's format --------------------------------------- */

static const char *encode(const char *boot, int clean, apr_time_t since)
{
    wh_replay_lmdb_state st = state_of(boot, clean, since);
    const char *text = wh_replay_lmdb_state_encode(P(), &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    return text;
}

static int decode(const char *text, apr_size_t len, wh_replay_lmdb_state *st)
{
    memset(st, 0x55, sizeof(*st));
    return wh_replay_lmdb_state_decode(text, len, st);
}

static int decodes(const char *text)
{
    wh_replay_lmdb_state st;
    return decode(text, strlen(text), &st) == 0;
}

static void round_trip(const char *boot, int clean, apr_time_t since)
{
    wh_replay_lmdb_state st;
    const char *text = encode(boot, clean, since);

    CU_ASSERT_EQUAL(decode(text, strlen(text), &st), 0);
    ASSERT_STR(st.boot, boot);
    CU_ASSERT_EQUAL(st.clean, clean);
    CU_ASSERT_EQUAL(st.since, since);
}

/* Where two encodings first differ: the position of the field that
 * differs, found without assuming the format. */
static apr_size_t first_difference(const char *a, const char *b)
{
    apr_size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    return i;
}

/* text with its first `from` replaced by `to` (the test fails if absent) */
static const char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    return apr_pstrcat(P(), apr_pstrmemdup(P(), text, (apr_size_t)(at - text)),
                       to, at + strlen(from), NULL);
}

/* text without the field around position at: its line where the format
 * has lines, else the token between separators (space, tab, ';', ',',
 * '&') either side, with one of those separators. */
static const char *without_field(const char *text, apr_size_t at)
{
    const char *seps = strchr(text, '\n') ? "\n" : " \t;,&";
    apr_size_t len = strlen(text), start = at, end = at;
    while (start > 0 && !strchr(seps, text[start - 1]))
        start--;
    while (end < len && !strchr(seps, text[end]))
        end++;
    if (end < len)
        end++;                                   /* its separator */
    else if (start > 0)
        start--;                                 /* last: the one before */
    return apr_pstrcat(P(), apr_pstrmemdup(P(), text, start), text + end, NULL);
}

static void test_state_round_trip(void)
{
    char b63[64];

    round_trip("da01417c-5611-4547-80f4-76ffe4430813", 0, 0);
    round_trip("da01417c-5611-4547-80f4-76ffe4430813", 1, T0 + 123456);
    round_trip("", 1, SEC(1));                    /* unknown boot */
    round_trip("", 0, 0);
    round_trip(boot_now(), 1, T0);
    memset(b63, 'b', 63);                         /* the longest that fits */
    b63[63] = '\0';
    round_trip(b63, 0, 1);
}

static void test_state_decode_rejects_malformed(void)
{
    const char *boot = "BOOTMARKER-0000-4000-8000-000000000000";
    const char *full = encode(boot, 1, 123456789);
    const char *clean0 = encode(boot, 0, 123456789);
    apr_size_t len = strlen(full);
    apr_size_t at_clean = first_difference(full, clean0);
    apr_size_t at_since = first_difference(full, encode(boot, 1, 987654321));
    apr_size_t at_boot = first_difference(full, encode("X", 1, 123456789));
    char long_boot[65];
    wh_replay_lmdb_state st;

    /* the encoding is well formed to begin with */
    CU_ASSERT_FATAL(decodes(full));
    CU_ASSERT_FATAL(at_clean < len && at_since < len && at_boot < len);

    /* garbage */
    CU_ASSERT_EQUAL(decode("", 0, &st), -1);
    CU_ASSERT_FALSE(decodes("garbage"));
    CU_ASSERT_FALSE(decodes("\x01\x02\xff\xfe"));
    CU_ASSERT_FALSE(decodes("0"));
    CU_ASSERT_FALSE(decodes("\n\n\n"));
    CU_ASSERT_EQUAL(decode("x\0y", 3, &st), -1);

    /* truncated: len cuts the text (what follows in memory is ignored)
     * right before the since value, before the clean value, halfway */
    CU_ASSERT_EQUAL(decode(full, at_since, &st), -1);
    CU_ASSERT_EQUAL(decode(full, at_clean, &st), -1);
    CU_ASSERT_EQUAL(decode(full, (at_clean < at_since ? at_clean : at_since) / 2, &st), -1);
    CU_ASSERT_EQUAL(decode(full, 1, &st), -1);
    /* the same as strings */
    CU_ASSERT_FALSE(decodes(apr_pstrmemdup(P(), full, at_since)));
    CU_ASSERT_FALSE(decodes(apr_pstrmemdup(P(), full, at_clean)));

    /* a field missing */
    CU_ASSERT_FALSE(decodes(without_field(full, at_since)));
    CU_ASSERT_FALSE(decodes(without_field(full, at_clean)));
    CU_ASSERT_FALSE(decodes(without_field(full, at_boot)));

    /* since that is not a number of microseconds */
    CU_ASSERT_FALSE(decodes(replace(full, "123456789", "")));
    CU_ASSERT_FALSE(decodes(replace(full, "123456789", "1234x6789")));
    CU_ASSERT_FALSE(decodes(replace(full, "123456789", "-123456789")));
    CU_ASSERT_FALSE(decodes(replace(full, "123456789", "0x75bcd15")));
    CU_ASSERT_FALSE(decodes(replace(full, "123456789", "99999999999999999999999")));
    /* clean that is neither 0 nor 1 */
    CU_ASSERT_FALSE(decodes(apr_pstrcat(P(), apr_pstrmemdup(P(), full, at_clean),
                                        "x", full + at_clean + 1, NULL)));

    /* a boot id longer than the struct holds */
    memset(long_boot, 'b', 64);
    long_boot[64] = '\0';
    CU_ASSERT_EQUAL(decode(replace(full, boot, long_boot),
                           strlen(replace(full, boot, long_boot)), &st), -1);
    CU_ASSERT_FALSE(decodes(replace(full, boot, apr_pstrcat(P(), long_boot, long_boot,
                                                            long_boot, NULL))));
    long_boot[63] = '\0';                         /* 63 fits */
    CU_ASSERT_EQUAL(decode(replace(full, boot, long_boot),
                           strlen(replace(full, boot, long_boot)), &st), 0);
    ASSERT_STR(st.boot, long_boot);
    CU_ASSERT_EQUAL(st.since, 123456789);
    CU_ASSERT_EQUAL(st.clean, 1);
}

/* ---- the trust rule ------------------------------------------------- */

#define NOW SEC(1700001000)
#define ST_SINCE SEC(1600000000)
#define BOOT_A "aaaaaaaa-1111-4111-8111-111111111111"
#define BOOT_B "bbbbbbbb-2222-4222-8222-222222222222"

typedef struct {
    const char *why;
    int has_state;
    const char *st_boot;
    int st_clean;
    apr_time_t st_since;
    int data;
    int ram;
    const char *boot;
    wh_lmdb_trust want;
    apr_time_t want_since;
} trust_row;

static const trust_row trust_rows[] = {
    { "nothing anywhere: new", 0, NULL, 0, 0, 0, 0, BOOT_B, WH_LMDB_TRUST_NEW, 0 },
    { "nothing, boot unknown: new", 0, NULL, 0, 0, 0, 0, "", WH_LMDB_TRUST_NEW, 0 },
    { "nothing on a RAM fs: lost", 0, NULL, 0, 0, 0, 1, BOOT_B, WH_LMDB_TRUST_LOST, NOW },
    { "state, data gone: lost", 1, BOOT_B, 0, ST_SINCE, 0, 0, BOOT_B, WH_LMDB_TRUST_LOST, NOW },
    { "clean state, data gone: lost", 1, BOOT_A, 1, ST_SINCE, 0, 0, BOOT_B, WH_LMDB_TRUST_LOST, NOW },
    { "state, data gone, RAM fs: lost", 1, BOOT_B, 1, 0, 0, 1, BOOT_B, WH_LMDB_TRUST_LOST, NOW },
    { "data without state: discard", 0, NULL, 0, 0, 1, 0, BOOT_B, WH_LMDB_TRUST_DISCARD, NOW },
    { "data without state, RAM fs: discard", 0, NULL, 0, 0, 1, 1, BOOT_B, WH_LMDB_TRUST_DISCARD, NOW },
    { "same boot: keep", 1, BOOT_B, 0, ST_SINCE, 1, 0, BOOT_B, WH_LMDB_TRUST_KEEP, ST_SINCE },
    { "same boot, since 0 stays 0", 1, BOOT_B, 0, 0, 1, 0, BOOT_B, WH_LMDB_TRUST_KEEP, 0 },
    { "same boot, clean: keep", 1, BOOT_B, 1, ST_SINCE, 1, 0, BOOT_B, WH_LMDB_TRUST_KEEP, ST_SINCE },
    { "same boot on a RAM fs: keep", 1, BOOT_B, 0, ST_SINCE, 1, 1, BOOT_B, WH_LMDB_TRUST_KEEP, ST_SINCE },
    { "reboot after a clean stop: keep", 1, BOOT_A, 1, ST_SINCE, 1, 0, BOOT_B, WH_LMDB_TRUST_KEEP, ST_SINCE },
    { "reboot after a clean stop, since 0", 1, BOOT_A, 1, 0, 1, 0, BOOT_B, WH_LMDB_TRUST_KEEP, 0 },
    { "reboot without a clean stop: discard", 1, BOOT_A, 0, ST_SINCE, 1, 0, BOOT_B, WH_LMDB_TRUST_DISCARD, NOW },
    { "reboot without a clean stop, since 0", 1, BOOT_A, 0, 0, 1, 0, BOOT_B, WH_LMDB_TRUST_DISCARD, NOW },
    { "unknown boots never prove the same boot", 1, "", 0, ST_SINCE, 1, 0, "", WH_LMDB_TRUST_DISCARD, NOW },
    { "boot now unknown, not clean: discard", 1, BOOT_B, 0, ST_SINCE, 1, 0, "", WH_LMDB_TRUST_DISCARD, NOW },
    { "state's boot unknown, not clean: discard", 1, "", 0, ST_SINCE, 1, 0, BOOT_B, WH_LMDB_TRUST_DISCARD, NOW },
    { "unknown boots, clean: keep", 1, "", 1, ST_SINCE, 1, 0, "", WH_LMDB_TRUST_KEEP, ST_SINCE },
    { "boot now unknown, clean: keep", 1, BOOT_A, 1, ST_SINCE, 1, 0, "", WH_LMDB_TRUST_KEEP, ST_SINCE },
};

static void test_trust_rule_table(void)
{
    for (size_t i = 0; i < sizeof(trust_rows) / sizeof(trust_rows[0]); i++) {
        const trust_row *r = &trust_rows[i];
        wh_replay_lmdb_state st = state_of(r->st_boot ? r->st_boot : "", r->st_clean,
                                           r->st_since);
        apr_time_t since = -12345;
        wh_lmdb_trust got = wh_replay_lmdb_trust(r->has_state ? &st : NULL, r->data,
                                                 r->ram, r->boot, NOW, &since);
        if (got != r->want || since != r->want_since)
            fprintf(stderr, "\n  trust row \"%s\": got %d since %" APR_TIME_T_FMT
                    ", want %d since %" APR_TIME_T_FMT "\n",
                    r->why, (int)got, since, (int)r->want, r->want_since);
        CU_ASSERT_EQUAL(got, r->want);
        CU_ASSERT_EQUAL(since, r->want_since);
    }
}

/* ---- the kernel's boot id ------------------------------------------ */

static void test_boot_id_is_the_kernels(void)
{
    char buf[64], line[128];
    const char *want = NULL;
    /* read as a stream: /proc reports a size of 0 */
    FILE *in = fopen("/proc/sys/kernel/random/boot_id", "r");

    if (in) {
        if (fgets(line, sizeof(line), in))
            want = line;
        fclose(in);
    }
    memset(buf, 'z', sizeof(buf));
    wh_replay_lmdb_boot_id(buf, sizeof(buf));
    if (want) {
        line[strcspn(line, "\r\n")] = '\0';
        CU_ASSERT_EQUAL(strlen(want), 36);
        CU_ASSERT_EQUAL(strlen(buf), 36);
        ASSERT_STR(buf, want);
    }
    else
        ASSERT_STR(buf, "");                     /* no such file: unknown */
}

/* ---- the lifecycle on real files ---------------------------------- */

static void test_prepare_new_then_keep(void)
{
    fx *f = fx_make();
    apr_time_t since;
    wh_replay_lmdb_state st;

    ASSERT_STR(wh_replay_lmdb_lockfile(P(), f->path), f->lock);
    ASSERT_STR(wh_replay_lmdb_statefile(P(), f->path), f->state);

    /* a new path: nothing ever recorded (on a RAM fs a reboot may have
     * emptied the directory, so that counts as lost) */
    if (f->on_ram_fs) {
        CU_ASSERT_EQUAL(fx_prepare(f, MAP, T0, &since), WH_LMDB_TRUST_LOST);
        CU_ASSERT_EQUAL(since, T0);
    }
    else {
        CU_ASSERT_EQUAL(fx_prepare(f, MAP, T0, &since), WH_LMDB_TRUST_NEW);
        CU_ASSERT_EQUAL(since, 0);
    }
    CU_ASSERT_EQUAL(wh_test_mode_of(f->path, NULL), 0600);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->lock, NULL), 0600);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->state, NULL), 0600);
    /* the state says: in use, this boot, memory from since */
    CU_ASSERT_EQUAL_FATAL(fx_read_state(f, &st), 0);
    CU_ASSERT_EQUAL(st.clean, 0);
    ASSERT_STR(st.boot, boot_now());
    CU_ASSERT_EQUAL(st.since, f->on_ram_fs ? T0 : 0);

    /* prepared again in the same boot: kept, its since unchanged */
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, T0 + SEC(60), &since), WH_LMDB_TRUST_KEEP);
    CU_ASSERT_EQUAL(since, f->on_ram_fs ? T0 : 0);
    CU_ASSERT_EQUAL_FATAL(fx_read_state(f, &st), 0);
    CU_ASSERT_EQUAL(st.clean, 0);
    CU_ASSERT_EQUAL(st.since, since);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->path, NULL), 0600);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->state, NULL), 0600);
    fx_done(f);
}

/* A new file where another replay store (the dbm default of earlier
 * versions) held ids: it starts knowing none of them, so it is lost, not
 * new; once it exists the predecessor no longer matters. */
static void test_prepare_after_a_predecessor_is_lost(void)
{
    fx *f = fx_make();
    apr_time_t since = -1;
    wh_lmdb_trust trust = (wh_lmdb_trust)-1;

    CU_ASSERT_PTR_NULL(wh_replay_lmdb_prepare(P(), f->path, MAP, T0, 1, &since, &trust));
    CU_ASSERT_EQUAL(trust, WH_LMDB_TRUST_LOST);
    CU_ASSERT_EQUAL(since, T0);
    CU_ASSERT_PTR_NULL(wh_replay_lmdb_prepare(P(), f->path, MAP, T0 + SEC(60), 1, &since, &trust));
    CU_ASSERT_EQUAL(trust, WH_LMDB_TRUST_KEEP);
    CU_ASSERT_EQUAL(since, T0);
    fx_done(f);
}

/* Another boot id in the state: the machine went down. Not clean: the
 * file is discarded; clean: it is kept with everything it held. */
static void test_prepare_after_reboot_discards_unless_clean(void)
{
    fx *f = fx_make();
    wh_replay_lmdb_state st;
    apr_time_t since, t1 = T0 + SEC(100), t2 = T0 + SEC(200);
    apr_time_t expires = T0 + SEC(3600);

    fx_prepare(f, MAP, T0, &since);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", T0, expires, 1), WH_LMDB_FIRST);

    /* down without a clean stop, up with a new boot id */
    st = state_of("another-boot-id", 0, T0);
    fx_write_state(f, &st);
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, t1, &since), WH_LMDB_TRUST_DISCARD);
    CU_ASSERT_EQUAL(since, t1);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->path, NULL), 0600);
    CU_ASSERT_EQUAL_FATAL(fx_read_state(f, &st), 0);
    ASSERT_STR(st.boot, boot_now());
    CU_ASSERT_EQUAL(st.clean, 0);
    CU_ASSERT_EQUAL(st.since, t1);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t1, expires, 1), WH_LMDB_FIRST);  /* gone */
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-2", t1, expires, 1), WH_LMDB_FIRST);

    /* a clean stop, then up with a new boot id */
    CU_ASSERT_PTR_NULL(wh_replay_lmdb_mark_clean(P(), f->path, MAP));
    CU_ASSERT_EQUAL_FATAL(fx_read_state(f, &st), 0);
    CU_ASSERT_EQUAL(st.clean, 1);
    apr_cpystrn(st.boot, "another-boot-id", sizeof(st.boot));
    fx_write_state(f, &st);
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, t2, &since), WH_LMDB_TRUST_KEEP);
    CU_ASSERT_EQUAL(since, t1);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t2, expires, 1), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-2", t2, expires, 1), WH_LMDB_DUPLICATE);

    /* the same with a state written by encode alone */
    st = state_of("yet-another-boot-id", 1, t1);
    fx_write_state(f, &st);
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, t2, &since), WH_LMDB_TRUST_KEEP);
    CU_ASSERT_EQUAL(since, t1);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t2, expires, 0), WH_LMDB_DUPLICATE);
    fx_done(f);
}

/* The files apart: data without its state cannot be judged (discarded);
 * a state without its data means what was held is gone (lost). */
static void test_prepare_data_without_state_or_state_without_data(void)
{
    fx *f = fx_make();
    apr_time_t since, t1 = T0 + SEC(100), t2 = T0 + SEC(200);
    apr_time_t expires = T0 + SEC(3600);

    fx_prepare(f, MAP, T0, &since);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", T0, expires, 1), WH_LMDB_FIRST);

    CU_ASSERT_EQUAL_FATAL(unlink(f->state), 0);
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, t1, &since), WH_LMDB_TRUST_DISCARD);
    CU_ASSERT_EQUAL(since, t1);
    CU_ASSERT(exists(f->state));
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t1, expires, 1), WH_LMDB_FIRST);

    /* an unreadable state is no state */
    {
        FILE *out = fopen(f->state, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        fputs("not a state\n", out);
        fclose(out);
    }
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, t1, &since), WH_LMDB_TRUST_DISCARD);
    CU_ASSERT_EQUAL(since, t1);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t1, expires, 0), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t1, expires, 1), WH_LMDB_FIRST);

    CU_ASSERT_EQUAL_FATAL(unlink(f->path), 0);
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, t2, &since), WH_LMDB_TRUST_LOST);
    CU_ASSERT_EQUAL(since, t2);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->path, NULL), 0600);
    CU_ASSERT_EQUAL(fx_add_in_worker(f, "id-1", t2, expires, 1), WH_LMDB_FIRST);
    fx_done(f);
}

static void test_mark_clean_then_prepare_marks_in_use(void)
{
    fx *f = fx_make();
    apr_time_t since, since0;
    wh_replay_lmdb_state st;

    fx_prepare(f, MAP, T0, &since0);
    CU_ASSERT_PTR_NULL(wh_replay_lmdb_mark_clean(P(), f->path, MAP));
    CU_ASSERT_EQUAL_FATAL(fx_read_state(f, &st), 0);
    CU_ASSERT_EQUAL(st.clean, 1);
    ASSERT_STR(st.boot, boot_now());
    CU_ASSERT_EQUAL(st.since, since0);
    CU_ASSERT_EQUAL(wh_test_mode_of(f->state, NULL), 0600);

    CU_ASSERT_EQUAL(fx_prepare(f, MAP, T0 + SEC(10), &since), WH_LMDB_TRUST_KEEP);
    CU_ASSERT_EQUAL(since, since0);
    CU_ASSERT_EQUAL_FATAL(fx_read_state(f, &st), 0);
    CU_ASSERT_EQUAL(st.clean, 0);
    CU_ASSERT_EQUAL(st.since, since0);
    fx_done(f);
}

static void test_open_missing_file_is_an_error(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db = NULL;
    const char *err;

    apr_pool_create(&sp, f->p);
    err = wh_replay_lmdb_open(sp, f->path, MAP, &db);
    CU_ASSERT_PTR_NOT_NULL(err);
    CU_ASSERT(err && *err);
    CU_ASSERT_PTR_NULL(db);
    CU_ASSERT_FALSE(exists(f->path));
    CU_ASSERT_FALSE(exists(f->lock));
    CU_ASSERT_FALSE(exists(f->state));

    /* in a directory that does not exist either */
    err = wh_replay_lmdb_open(sp, apr_pstrcat(P(), f->dir, "/no/such/store", NULL), MAP, &db);
    CU_ASSERT(err && *err);
    CU_ASSERT_PTR_NULL(db);
    CU_ASSERT_FALSE(exists(apr_pstrcat(P(), f->dir, "/no", NULL)));
    apr_pool_destroy(sp);
    fx_done(f);
}

/* ---- add and remove ---------------------------------------------- */

static void test_add_first_duplicate_refused(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, exp = T0 + SEC(600);

    fx_prepare(f, MAP, T0, &since);
    db = fx_open(f, MAP, &sp);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(1), T0 + SEC(599), exp, 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(2), T0, exp, 1, NULL), WH_LMDB_FIRST);

    /* only looking: an absent id is refused and stays absent */
    CU_ASSERT_EQUAL(add(db, nid(3), T0, exp, 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, nid(3), T0, exp, 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, nid(3), T0, exp, 1, NULL), WH_LMDB_FIRST);
    /* only looking at a held id */
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 0, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(3), T0, exp, 0, NULL), WH_LMDB_DUPLICATE);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* An entry whose expiry has passed counts as absent: added again, it
 * holds with the new expiry. */
static void test_add_expired_counts_as_absent(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, t1 = T0 + SEC(11), t2 = T0 + SEC(500);

    fx_prepare(f, MAP, T0, &since);
    db = fx_open(f, MAP, &sp);
    CU_ASSERT_EQUAL(add(db, "exp", T0, T0 + SEC(10), 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, "exp", T0 + SEC(9), T0 + SEC(600), 1, NULL), WH_LMDB_DUPLICATE);
    /* past its expiry: looking only, absent; adding, first again */
    CU_ASSERT_EQUAL(add(db, "exp", t1, t1 + SEC(600), 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, "exp", t1, t1 + SEC(600), 1, NULL), WH_LMDB_FIRST);
    /* the new expiry holds: live at t2, long past the first expiry */
    CU_ASSERT_EQUAL(add(db, "exp", t2, t2 + SEC(600), 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, "exp", t2, t2 + SEC(600), 0, NULL), WH_LMDB_DUPLICATE);
    /* and past the new one, absent again */
    CU_ASSERT_EQUAL(add(db, "exp", t1 + SEC(601), t1 + SEC(1200), 1, NULL), WH_LMDB_FIRST);
    apr_pool_destroy(sp);
    fx_done(f);
}

static void test_add_rejects_bad_ids(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, exp = T0 + SEC(600);
    char longest[WH_REPLAY_LMDB_ID_MAX + 2];
    const char *err;

    fx_prepare(f, MAP, T0, &since);
    db = fx_open(f, MAP, &sp);
    memset(longest, 'i', WH_REPLAY_LMDB_ID_MAX);
    longest[WH_REPLAY_LMDB_ID_MAX] = '\0';
    CU_ASSERT_EQUAL(add(db, longest, T0, exp, 1, &err), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, longest, T0, exp, 1, &err), WH_LMDB_DUPLICATE);

    longest[WH_REPLAY_LMDB_ID_MAX] = 'i';         /* one longer */
    longest[WH_REPLAY_LMDB_ID_MAX + 1] = '\0';
    CU_ASSERT_EQUAL(add(db, longest, T0, exp, 1, &err), WH_LMDB_ERROR);
    CU_ASSERT(err && *err);
    CU_ASSERT_EQUAL(add(db, longest, T0, exp, 0, &err), WH_LMDB_ERROR);
    CU_ASSERT(err && *err);
    CU_ASSERT_EQUAL(add(db, "", T0, exp, 1, &err), WH_LMDB_ERROR);
    CU_ASSERT(err && *err);
    CU_ASSERT_EQUAL(ids_held(db), 1);
    apr_pool_destroy(sp);
    fx_done(f);
}

static void test_remove_forgets(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, exp = T0 + SEC(600);
    const char *err = NULL;

    fx_prepare(f, MAP, T0, &since);
    db = fx_open(f, MAP, &sp);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, nid(2), T0, exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(wh_replay_lmdb_remove(db, nid(1), &err), 0);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(2), T0, exp, 1, NULL), WH_LMDB_DUPLICATE);   /* untouched */
    /* absent: nothing to do, not an error */
    CU_ASSERT_EQUAL(wh_replay_lmdb_remove(db, nid(3), &err), 0);
    CU_ASSERT_EQUAL(wh_replay_lmdb_remove(db, nid(3), &err), 0);
    CU_ASSERT_EQUAL(add(db, nid(3), T0, exp, 1, NULL), WH_LMDB_FIRST);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* ---- claims: a delivery under way ------------------------------- */

/* Processes as the test says: every pid lives, but those in dead_pids,
 * and a pid listed in reused_pids now names another process (a start
 * time other than the one its claims carry). */
static int dead_pids[4], reused_pids[4];

static apr_uint64_t start_of(apr_int64_t pid)
{
    return (apr_uint64_t)pid * 1000 + 7;
}

static int fake_alive(const wh_replay_process *h)
{
    for (int i = 0; i < 4; i++) {
        if (dead_pids[i] && dead_pids[i] == h->pid)
            return 0;
        if (reused_pids[i] && reused_pids[i] == h->pid && h->start == start_of(h->pid))
            return 0;
    }
    return 1;
}

/* A store prepared at T0 and opened, every pid alive. */
static wh_replay_lmdb *claims_store(fx *f, apr_pool_t **sp)
{
    apr_time_t since;

    memset(dead_pids, 0, sizeof(dead_pids));
    memset(reused_pids, 0, sizeof(reused_pids));
    fx_prepare(f, MAP, T0, &since);
    return fx_open(f, MAP, sp);
}

static wh_replay_owner owner_of(apr_int64_t pid)
{
    wh_replay_owner o = { { pid, start_of(pid), 42 }, SEC(120), fake_alive };
    return o;
}

static wh_lmdb_result claim(wh_replay_lmdb *db, const char *id, apr_time_t now,
                            apr_int64_t pid)
{
    const char *err = NULL;
    wh_replay_owner o = owner_of(pid);
    return wh_replay_lmdb_claim(db, id, now, now + SEC(600), 1, &o, &err);
}

static wh_lmdb_result look(wh_replay_lmdb *db, const char *id, apr_time_t now,
                           apr_int64_t pid)
{
    const char *err = NULL;
    wh_replay_owner o = owner_of(pid);
    return wh_replay_lmdb_claim(db, id, now, now + SEC(600), 0, &o, &err);
}

/* A claimed id answers IN_PROGRESS (never DUPLICATE) until its delivery
 * confirms it; confirmed, a duplicate for its window. Only the claimant
 * confirms: a claim taken over is the new claimant's. */
static void test_claim_in_progress_until_confirmed(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db = claims_store(f, &sp);
    const char *err = NULL;

    CU_ASSERT_EQUAL(claim(db, nid(1), T0, 100), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(1), 101), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(1), 100), WH_LMDB_IN_PROGRESS);
    /* a look without a claim sees it under way too */
    CU_ASSERT_EQUAL(add(db, nid(1), T0 + SEC(1), T0 + SEC(600), 0, NULL), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(look(db, nid(1), T0 + SEC(1), 101), WH_LMDB_IN_PROGRESS);
    /* another process's confirmation changes nothing */
    CU_ASSERT_EQUAL(wh_replay_lmdb_confirm(db, nid(1), 101, 0, &err), 0);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(2), 101), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(wh_replay_lmdb_confirm(db, nid(1), 100, 0, &err), 0);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(3), 101), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(599), 101), WH_LMDB_DUPLICATE);
    /* confirmed with no later expiry keeps the claim's own */
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(601), 101), WH_LMDB_FIRST);
    /* confirming an absent id: nothing, no error */
    CU_ASSERT_EQUAL(wh_replay_lmdb_confirm(db, nid(9), 100, 0, &err), 0);
    CU_ASSERT_EQUAL(add(db, nid(9), T0, T0 + SEC(600), 0, NULL), WH_LMDB_REFUSED);
    /* a 5xx forgets a claim like any id */
    CU_ASSERT_EQUAL(claim(db, nid(2), T0, 100), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(wh_replay_lmdb_remove(db, nid(2), &err), 0);
    CU_ASSERT_EQUAL(claim(db, nid(2), T0, 101), WH_LMDB_FIRST);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* A claim holds while its process runs, however long its delivery takes (past
 * the lease, past its own window: issue 27's application that takes 140 s met
 * the bank's retry at 125 s), and the sweep leaves it alone. Its process gone,
 * or its pid handed to another process (another start time), the claim is
 * taken over: the copy is delivered, and the old claimant's late confirmation
 * changes nothing. A confirmation after a long delivery keeps the id for the
 * window from then. */
static void test_claim_holds_while_its_process_runs(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db = claims_store(f, &sp);
    const char *err = NULL;

    CU_ASSERT_EQUAL(claim(db, nid(1), T0, 200), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(125), 201), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(3600), 201), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(look(db, nid(1), T0 + SEC(3600), 201), WH_LMDB_IN_PROGRESS);
    /* confirmed an hour in: a duplicate for the window from then */
    CU_ASSERT_EQUAL(wh_replay_lmdb_confirm(db, nid(1), 200, T0 + SEC(3600 + 600), &err), 0);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(3600 + 599), 201), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(3600 + 601), 201), WH_LMDB_FIRST);

    /* the process died: taken over at once */
    CU_ASSERT_EQUAL(claim(db, nid(2), T0, 300), WH_LMDB_FIRST);
    dead_pids[0] = 300;
    CU_ASSERT_EQUAL(claim(db, nid(2), T0 + SEC(5), 301), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(claim(db, nid(2), T0 + SEC(6), 302), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(wh_replay_lmdb_confirm(db, nid(2), 300, 0, &err), 0);
    CU_ASSERT_EQUAL(claim(db, nid(2), T0 + SEC(7), 302), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(wh_replay_lmdb_confirm(db, nid(2), 301, 0, &err), 0);
    CU_ASSERT_EQUAL(claim(db, nid(2), T0 + SEC(8), 302), WH_LMDB_DUPLICATE);

    /* its pid now names another process: taken over; a look alone is
     * refused (may not add), not answered "in progress" */
    CU_ASSERT_EQUAL(claim(db, nid(3), T0, 400), WH_LMDB_FIRST);
    reused_pids[0] = 400;
    CU_ASSERT_EQUAL(look(db, nid(3), T0 + SEC(1), 401), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(claim(db, nid(3), T0 + SEC(1), 401), WH_LMDB_FIRST);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* The sweep (every claim's transaction) leaves a claim whose process runs,
 * its window long over, and removes one whose process is gone. */
static void test_sweep_keeps_running_claims(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db = claims_store(f, &sp);

    CU_ASSERT_EQUAL(claim(db, nid(1), T0, 200), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(claim(db, nid(2), T0, 201), WH_LMDB_FIRST);
    dead_pids[0] = 201;
    for (int i = 0; i < 20; i++)
        CU_ASSERT_EQUAL(claim(db, nid(1000 + i), T0 + SEC(7200), 2000 + i), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(ids_held(db), 21);           /* nid(2) swept */
    CU_ASSERT_EQUAL(look(db, nid(1), T0 + SEC(7200), 900), WH_LMDB_IN_PROGRESS);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* The real liveness check: this process lives (its start time read from
 * /proc matches), pid 0 and a negative pid never do, and a claim that
 * carries this pid with another start time or another boot is not this
 * process's. */
static void test_process_alive_is_real(void)
{
    wh_replay_owner me;
    wh_replay_process p;

    wh_replay_owner_self(&me, SEC(120));
    CU_ASSERT(me.self.pid == (apr_int64_t)getpid());
    CU_ASSERT(me.self.start > 0);
    CU_ASSERT(me.self.boot != 0);
    CU_ASSERT(wh_replay_process_alive(&me.self));
    p = me.self;
    p.start++;
    CU_ASSERT(!wh_replay_process_alive(&p));
    p = me.self;
    p.boot++;
    CU_ASSERT(!wh_replay_process_alive(&p));
    p = me.self;
    p.start = 0;                       /* unknown: the pid alone decides */
    CU_ASSERT(wh_replay_process_alive(&p));
    p.pid = 0;
    CU_ASSERT(!wh_replay_process_alive(&p));
    p.pid = -5;
    CU_ASSERT(!wh_replay_process_alive(&p));
    {
        /* a child that exited and was reaped */
        pid_t kid = fork();
        int status;
        if (kid == 0)
            _exit(0);
        CU_ASSERT_FATAL(kid > 0);
        waitpid(kid, &status, 0);
        p.pid = kid;
        p.start = 0;
        CU_ASSERT(!wh_replay_process_alive(&p));
    }
}

/* A claim of the older form (24 bytes: expiry, since, pid, written before
 * start times were recorded) still lapses by the lease, or with its
 * process. */
static void test_older_claims_lapse_by_their_lease(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    apr_time_t since;
    wh_replay_lmdb *db;
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    apr_int64_t v1[3] = { T0 + SEC(600), T0, 600 }, v2[3] = { T0 + SEC(600), T0, 601 };
    MDB_val k1 = { 36, (void *)nid(1) }, k2 = { 36, (void *)nid(2) };
    MDB_val d1 = { sizeof(v1), v1 }, d2 = { sizeof(v2), v2 };

    memset(dead_pids, 0, sizeof(dead_pids));
    memset(reused_pids, 0, sizeof(reused_pids));
    fx_prepare(f, MAP, T0, &since);
    CU_ASSERT_FATAL(mdb_env_create(&env) == 0);
    mdb_env_set_mapsize(env, MAP);
    mdb_env_set_maxdbs(env, 2);
    CU_ASSERT_FATAL(mdb_env_open(env, f->path, MDB_NOSUBDIR | MDB_NOTLS, 0600) == 0);
    CU_ASSERT_FATAL(mdb_txn_begin(env, NULL, 0, &txn) == 0);
    CU_ASSERT_FATAL(mdb_dbi_open(txn, "ids", MDB_CREATE, &dbi) == 0);
    CU_ASSERT(mdb_put(txn, dbi, &k1, &d1, 0) == 0);
    CU_ASSERT(mdb_put(txn, dbi, &k2, &d2, 0) == 0);
    CU_ASSERT_FATAL(mdb_txn_commit(txn) == 0);
    mdb_env_close(env);

    db = fx_open(f, MAP, &sp);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(60), 700), WH_LMDB_IN_PROGRESS);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(121), 700), WH_LMDB_FIRST);
    dead_pids[0] = 601;
    CU_ASSERT_EQUAL(claim(db, nid(2), T0 + SEC(60), 700), WH_LMDB_FIRST);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* Stores written before claims existed hold the expiry alone: read as
 * confirmed ids, and a claim's value is still swept when it expires. */
static void test_claims_and_plain_ids_share_the_store(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db = claims_store(f, &sp);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, T0 + SEC(600), 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(claim(db, nid(1), T0 + SEC(1), 100), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(claim(db, nid(2), T0, 100), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(ids_held(db), 2);
    /* past every expiry, further adds sweep both away */
    for (int i = 3; i < 40; i++)
        (void)add(db, nid(i), T0 + SEC(700), T0 + SEC(701), 1, NULL);
    CU_ASSERT_EQUAL(add(db, nid(1), T0 + SEC(700), T0 + SEC(1300), 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, nid(2), T0 + SEC(700), T0 + SEC(1300), 0, NULL), WH_LMDB_REFUSED);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* ---- bounded by expiry, refusing when full ---------------------- */

/* 5,000 ids, one a second, each live for a second: purging as it goes,
 * the store holds a handful, never the 5,000. A long-lived id survives. */
static void test_purge_keeps_store_bounded(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, now = T0;
    int first = 0;
    const int n = 5000;

    fx_prepare(f, 4 * MAP, T0, &since);
    db = fx_open(f, 4 * MAP, &sp);
    CU_ASSERT_EQUAL(add(db, "long-lived", T0, T0 + SEC(1000000), 1, NULL), WH_LMDB_FIRST);
    for (int i = 0; i < n; i++) {
        now = T0 + SEC(i + 1);
        first += add(db, nid(i), now, now + SEC(1), 1, NULL) == WH_LMDB_FIRST;
    }
    CU_ASSERT_EQUAL(first, n);
    CU_ASSERT(ids_held(db) >= 2);                  /* long-lived + the last */
    CU_ASSERT(ids_held(db) < 100);
    CU_ASSERT_EQUAL(add(db, "long-lived", now, now + SEC(600), 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(n - 1), now, now + SEC(600), 0, NULL), WH_LMDB_DUPLICATE);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* Adds new live ids named prefix-N until one is not FIRST (at most
 * 100,000); returns how many were FIRST, *last the answer that ended it. */
static int fill(wh_replay_lmdb *db, const char *prefix, apr_time_t now,
                apr_time_t expires, wh_lmdb_result *last, const char **err)
{
    int n;
    *last = WH_LMDB_FIRST;
    for (n = 0; n < 100000; n++) {
        *last = add(db, apr_psprintf(P(), "%s-%06d", prefix, n), now, expires, 1, err);
        if (*last != WH_LMDB_FIRST)
            break;
    }
    return n;
}

/* The smallest map filled with live ids. What is asserted:
 *  - it answers FULL (with *err) within 100,000 ids, and every answer
 *    before that was FIRST;
 *  - nothing was evicted: every id answered FIRST is still DUPLICATE,
 *    and a new id stays FULL;
 *  - ids can be removed from the full store, and a removed id can be
 *    added again (its page has room). A different new id may still be
 *    FULL then (LMDB places a key by its order, and that page may have no
 *    room), so that is not asserted. */
static void test_full_refuses_and_evicts_nothing(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, exp = T0 + SEC(3600);
    const char *err = NULL;
    int n, others = 0, removed = 0;
    wh_lmdb_result r;

    fx_prepare(f, WH_REPLAY_LMDB_MIN_SIZE, T0, &since);
    db = fx_open(f, WH_REPLAY_LMDB_MIN_SIZE, &sp);
    n = fill(db, "id", T0, exp, &r, &err);
    CU_ASSERT_EQUAL_FATAL(r, WH_LMDB_FULL);
    CU_ASSERT(err && *err);
    CU_ASSERT(n > 10);

    /* nothing evicted, nothing recorded */
    for (int i = 0; i < n; i++)
        others += add(db, apr_psprintf(P(), "id-%06d", i), T0 + SEC(1), exp, 1, NULL)
                  != WH_LMDB_DUPLICATE;
    CU_ASSERT_EQUAL(others, 0);
    CU_ASSERT_EQUAL(add(db, apr_psprintf(P(), "id-%06d", n), T0 + SEC(1), exp, 0, NULL),
                    WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, apr_psprintf(P(), "id-%06d", n), T0 + SEC(1), exp, 1, &err),
                    WH_LMDB_FULL);
    CU_ASSERT(err && *err);
    CU_ASSERT_EQUAL(ids_held(db), (apr_uint64_t)n);

    /* removing makes room for what was removed */
    for (int i = 0; i < n; i += 7) {
        err = NULL;
        if (wh_replay_lmdb_remove(db, apr_psprintf(P(), "id-%06d", i), &err) == 0)
            removed++;
        else
            fprintf(stderr, "\n  remove in a full store: %s\n", err ? err : "(no err)");
    }
    CU_ASSERT_EQUAL(removed, (n + 6) / 7);
    CU_ASSERT_EQUAL(ids_held(db), (apr_uint64_t)(n - removed));
    CU_ASSERT_EQUAL(add(db, "id-000000", T0 + SEC(2), exp, 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(add(db, "id-000007", T0 + SEC(2), exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, "id-000007", T0 + SEC(2), exp, 1, NULL), WH_LMDB_DUPLICATE);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* The smallest map filled with ids in increasing order (LMDB packs its
 * pages that way), then the clock past every expiry, and new ids that
 * sort after all of them (each needs a new page). A purge inside the
 * add's own transaction cannot make room in a map with none; the store
 * must still recover. Asserted: within as many calls as it held ids an
 * add is FIRST, none answers ERROR; the expired ids are purged; the map's
 * space is reused (at least half as many ids fit again); an expired id
 * added again is FIRST. */
static void test_full_map_accepts_again_once_ids_expire(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, exp = T0 + SEC(3600), later = exp + SEC(1);
    const char *err = NULL;
    int n, again, accepted = -1, errors = 0;
    wh_lmdb_result r;

    fx_prepare(f, WH_REPLAY_LMDB_MIN_SIZE, T0, &since);
    db = fx_open(f, WH_REPLAY_LMDB_MIN_SIZE, &sp);
    n = fill(db, "id", T0, exp, &r, &err);
    CU_ASSERT_EQUAL_FATAL(r, WH_LMDB_FULL);
    CU_ASSERT_FATAL(n > 10);
    CU_ASSERT_EQUAL(add(db, "zz-000000", T0 + SEC(1), exp, 1, NULL), WH_LMDB_FULL);

    for (int i = 0; i < n && accepted < 0; i++) {
        r = add(db, apr_psprintf(P(), "zz-%06d", i), later, later + SEC(600), 1, &err);
        if (r == WH_LMDB_FIRST)
            accepted = i;
        else if (r != WH_LMDB_FULL) {
            fprintf(stderr, "\n  add after expiry: %d %s\n", (int)r, err ? err : "");
            errors++;
        }
    }
    CU_ASSERT(accepted >= 0);
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT(ids_held(db) < (apr_uint64_t)n);
    CU_ASSERT_EQUAL(add(db, "id-000001", later, later + SEC(600), 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(add(db, "id-000001", later, later + SEC(600), 1, NULL), WH_LMDB_DUPLICATE);
    again = fill(db, "yy", later, later + SEC(600), &r, &err);
    CU_ASSERT_EQUAL(r, WH_LMDB_FULL);
    CU_ASSERT(again >= n / 2);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* ---- processes, restarts, usage -------------------------------- */

#define RACE_IDS 300
#define RACE_KIDS 4

/* In the child: its own pool, its own environment, the same ids in an
 * order of its own. Returns the count of FIRST, or -1 on any answer but
 * FIRST and DUPLICATE. */
static int race_child(const char *path, int k)
{
    apr_pool_t *p;
    wh_replay_lmdb *db = NULL;
    int first = 0;

    if (apr_pool_create(&p, NULL) != APR_SUCCESS)
        return -1;
    if (wh_replay_lmdb_open(p, path, MAP, &db) != NULL || !db) {
        apr_pool_destroy(p);
        return -1;
    }
    for (int j = 0; j < RACE_IDS && first >= 0; j++) {
        /* child 0 forward, 1 backward, 2 and 3 strided from offsets */
        int i = k == 0 ? j : k == 1 ? RACE_IDS - 1 - j : (j * 7 + k * 100) % RACE_IDS;
        const char *err = NULL;
        wh_lmdb_result r = wh_replay_lmdb_add(db, apr_psprintf(p, "race-%04d", i),
                                              T0, T0 + SEC(600), 1, &err);
        if (r == WH_LMDB_FIRST)
            first++;
        else if (r != WH_LMDB_DUPLICATE)
            first = -1;
    }
    apr_pool_destroy(p);
    return first;
}

static void test_processes_share_one_answer_per_id(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since;
    pid_t kids[RACE_KIDS];
    int fds[2], sum = 0, exited_ok = 0, reports = 0, dups = 0;

    fx_prepare(f, MAP, T0, &since);          /* never opened before fork */
    CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
    fflush(NULL);
    for (int k = 0; k < RACE_KIDS; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            int first;
            close(fds[0]);
            first = race_child(f->path, k);
            _exit(write(fds[1], &first, sizeof(first)) == (ssize_t)sizeof(first) ? 0 : 1);
        }
    }
    close(fds[1]);
    for (;;) {
        int first;
        ssize_t got = read(fds[0], &first, sizeof(first));
        if (got == -1 && errno == EINTR)
            continue;
        if (got != (ssize_t)sizeof(first))
            break;
        reports++;
        if (first < 0)
            fprintf(stderr, "\n  a racing child got an answer other than FIRST/DUPLICATE\n");
        CU_ASSERT(first >= 0);
        sum += first;
    }
    close(fds[0]);
    for (int k = 0; k < RACE_KIDS; k++) {
        int st = 0;
        if (kids[k] > 0 && waitpid(kids[k], &st, 0) == kids[k] && WIFEXITED(st)
            && WEXITSTATUS(st) == 0)
            exited_ok++;
    }
    CU_ASSERT_EQUAL(exited_ok, RACE_KIDS);
    CU_ASSERT_EQUAL(reports, RACE_KIDS);
    CU_ASSERT_EQUAL(sum, RACE_IDS);

    /* and the parent, opening now, sees all of them */
    db = fx_open(f, MAP, &sp);
    CU_ASSERT_EQUAL(ids_held(db), RACE_IDS);
    for (int i = 0; i < RACE_IDS; i++)
        dups += add(db, apr_psprintf(P(), "race-%04d", i), T0, T0 + SEC(600), 0, NULL)
                == WH_LMDB_DUPLICATE;
    CU_ASSERT_EQUAL(dups, RACE_IDS);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* A store closed (its pool destroyed, as when httpd's child exits) and
 * opened again, with a prepare between as at a restart, holds its ids. */
static void test_reopened_store_remembers(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, since0, exp = T0 + SEC(600);

    fx_prepare(f, MAP, T0, &since0);
    db = fx_open(f, MAP, &sp);
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL(add(db, nid(i), T0, exp, 1, NULL), WH_LMDB_FIRST);
    apr_pool_destroy(sp);

    db = fx_open(f, MAP, &sp);                /* a new worker */
    CU_ASSERT_EQUAL(ids_held(db), 50);
    CU_ASSERT_EQUAL(add(db, nid(0), T0 + SEC(1), exp, 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(50), T0 + SEC(1), exp, 1, NULL), WH_LMDB_FIRST);
    apr_pool_destroy(sp);

    /* a restart: prepare again, then workers */
    CU_ASSERT_EQUAL(fx_prepare(f, MAP, T0 + SEC(2), &since), WH_LMDB_TRUST_KEEP);
    CU_ASSERT_EQUAL(since, since0);
    db = fx_open(f, MAP, &sp);
    for (int i = 0; i <= 50; i++)
        CU_ASSERT_EQUAL(add(db, nid(i), T0 + SEC(3), exp, 0, NULL), WH_LMDB_DUPLICATE);
    apr_pool_destroy(sp);
    fx_done(f);
}

static void test_usage_counts_ids_and_map(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since, exp = T0 + SEC(600);
    apr_uint64_t ids = 99, used = 0, size = 0, used0;

    fx_prepare(f, 2 * MAP, T0, &since);
    db = fx_open(f, 2 * MAP, &sp);
    CU_ASSERT_EQUAL(wh_replay_lmdb_usage(db, &ids, &used, &size), 0);
    CU_ASSERT_EQUAL(ids, 0);
    CU_ASSERT_EQUAL(size, 2 * MAP);
    CU_ASSERT(used > 0 && used <= size);
    used0 = used;

    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(ids_held(db), 1);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, exp, 1, NULL), WH_LMDB_DUPLICATE);
    CU_ASSERT_EQUAL(add(db, nid(2), T0, exp, 0, NULL), WH_LMDB_REFUSED);
    CU_ASSERT_EQUAL(ids_held(db), 1);
    CU_ASSERT_EQUAL(add(db, nid(2), T0, exp, 1, NULL), WH_LMDB_FIRST);
    CU_ASSERT_EQUAL(ids_held(db), 2);
    for (int i = 3; i < 500; i++)
        add(db, nid(i), T0, exp, 1, NULL);
    CU_ASSERT_EQUAL(wh_replay_lmdb_usage(db, &ids, &used, &size), 0);
    CU_ASSERT_EQUAL(ids, 499);
    CU_ASSERT(used > used0 && used <= size);
    CU_ASSERT_EQUAL(size, 2 * MAP);
    CU_ASSERT_EQUAL(wh_replay_lmdb_remove(db, nid(1), NULL), 0);
    CU_ASSERT_EQUAL(ids_held(db), 498);
    apr_pool_destroy(sp);
    fx_done(f);
}

/* Bytes of disk the file holds (fallocate's unwritten extents count:
 * SEEK_DATA would skip them). */
static apr_off_t allocated(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (apr_off_t)st.st_blocks * 512 : -1;
}

/* The map is written through memory: a page without disk blocks met on a
 * full file system is SIGBUS. Whatever a write transaction may touch past
 * the tree's end is allocated before it writes: a store made sparse again
 * (as an older wirehook left it) gets its reserve back at the next
 * record, from a process that knows nothing of earlier reservations. */
static void test_records_reserve_disk_past_the_tree(void)
{
    fx *f = fx_make();
    apr_pool_t *sp;
    wh_replay_lmdb *db;
    apr_time_t since;
    const apr_size_t map = (apr_size_t)64 << 20;
    const apr_off_t from = 256 << 10;     /* past the few pages in use */
    int fd;

    fx_prepare(f, map, T0, &since);
    CU_ASSERT(allocated(f->path) >= (apr_off_t)1 << 20);
    CU_ASSERT(allocated(f->lock) >= 4096);
    fd = open(f->path, O_RDWR | O_CLOEXEC);
    CU_ASSERT_FATAL(fd >= 0);
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from,
                  (apr_off_t)map - from) != 0) {
        close(fd);
        fx_done(f);
        WH_SKIP("the temp directory's file system cannot punch holes "
                "(fallocate)");
    }
    close(fd);
    CU_ASSERT(allocated(f->path) <= from);
    db = fx_open(f, map, &sp);
    CU_ASSERT_EQUAL(add(db, nid(1), T0, T0 + SEC(600), 1, NULL), WH_LMDB_FIRST);
    /* two headrooms (1 MiB and a 256th of the map each) at least */
    CU_ASSERT(allocated(f->path) >= (apr_off_t)2 << 20);
    apr_pool_destroy(sp);
    fx_done(f);
}

static const wh_test_case cases[] = {
    { "state encode/decode round trip", test_state_round_trip },
    { "state decode rejects what is not a state", test_state_decode_rejects_malformed },
    { "trust rule, case by case", test_trust_rule_table },
    { "boot id is the kernel's", test_boot_id_is_the_kernels },
    { "prepare: a new store (0600), then kept in the same boot",
      test_prepare_new_then_keep },
    { "prepare after a reboot: discarded unless stopped cleanly",
      test_prepare_after_reboot_discards_unless_clean },
    { "prepare: data without state discarded, state without data lost",
      test_prepare_data_without_state_or_state_without_data },
    { "prepare where another store held ids: lost, not new",
      test_prepare_after_a_predecessor_is_lost },
    { "mark_clean marks clean, prepare marks in use", test_mark_clean_then_prepare_marks_in_use },
    { "open of a missing file is an error and creates nothing",
      test_open_missing_file_is_an_error },
    { "add: first, duplicate, refused when only looking", test_add_first_duplicate_refused },
    { "add: an expired id counts as absent", test_add_expired_counts_as_absent },
    { "add: empty or over-long ids are errors", test_add_rejects_bad_ids },
    { "claim: in progress until confirmed", test_claim_in_progress_until_confirmed },
    { "claim: holds while its process runs, past lease and window",
      test_claim_holds_while_its_process_runs },
    { "claim: the sweep keeps claims whose process runs", test_sweep_keeps_running_claims },
    { "claim: the liveness check is the kernel's (pid, start, boot)",
      test_process_alive_is_real },
    { "claim: older claims lapse by their lease", test_older_claims_lapse_by_their_lease },
    { "claim: claims and plain ids share the store", test_claims_and_plain_ids_share_the_store },
    { "remove: forgotten ids are first again", test_remove_forgets },
    { "purge keeps the store bounded", test_purge_keeps_store_bounded },
    { "full map refuses and evicts nothing", test_full_refuses_and_evicts_nothing },
    { "full map accepts again once its ids expire",
      test_full_map_accepts_again_once_ids_expire },
    { "processes share one answer per id", test_processes_share_one_answer_per_id },
    { "a reopened store remembers", test_reopened_store_remembers },
    { "usage counts ids and the map", test_usage_counts_ids_and_map },
    { "a record reserves the disk it may write past the tree",
      test_records_reserve_disk_past_the_tree },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_lmdb, cases)
