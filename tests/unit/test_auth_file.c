/* The file of cached Basic-auth checks: entries round-trip and expire; a
 * key's slot holds the last key stored there; a torn or damaged slot, a
 * file of another size or header, a symlink, something not a regular
 * file are all misses; a store (re)initialises the file, creating it with
 * the exact mode and group; arguments out of range create nothing. */
#include "wh_test.h"
#include "inbox/wh_auth_file.h"
#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The format, written out here rather than taken from the module, so a
 * change to the layout shows up as a failing test. */
#define HDR 16
#define NSLOTS 64
#define SLOT 305
#define USER_LEN_AT 40
#define USER_AT 42
#define CHECK_AT 297
#define FILE_SIZE (HDR + NSLOTS * SLOT)

/* A fresh directory, removed when the test pool is cleared. */
static const char *tdir(void)
{
    const char *dir = wh_test_tmpdir("authfile");
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    return dir;
}

static const char *in(const char *dir, const char *name)
{
    return apr_pstrcat(wh_test_pool(), dir, "/", name, NULL);
}

/* The cache file of a fresh directory's inbox.db. */
static const char *fresh(const char **dir)
{
    const char *d = tdir();
    if (dir)
        *dir = d;
    return in(d, "inbox.db" WH_AUTH_FILE_SUFFIX);
}

/* 64 lowercase hex digits: b0..b3, then fill, fill+1, ... */
static const char *key(unsigned b0, unsigned b1, unsigned b2, unsigned b3, unsigned fill)
{
    char *k = apr_palloc(wh_test_pool(), 65);
    unsigned b[32] = { b0, b1, b2, b3 };
    for (int i = 4; i < 32; i++)
        b[i] = (fill + (unsigned)i) & 0xff;
    for (int i = 0; i < 32; i++)
        snprintf(k + 2 * i, 3, "%02x", b[i] & 0xff);
    return k;
}

static long long size_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int patch(const char *path, long off, const void *b, size_t n)
{
    int fd = open(path, O_WRONLY);
    ssize_t w = fd >= 0 ? pwrite(fd, b, n, off) : -1;
    if (fd >= 0)
        close(fd);
    return w == (ssize_t)n ? 0 : -1;
}

static int peek(const char *path, long off, void *b, size_t n)
{
    int fd = open(path, O_RDONLY);
    ssize_t r = fd >= 0 ? pread(fd, b, n, off) : -1;
    if (fd >= 0)
        close(fd);
    return r == (ssize_t)n ? 0 : -1;
}

static void flip(const char *path, long off)
{
    unsigned char c;
    CU_ASSERT_EQUAL_FATAL(peek(path, off, &c, 1), 0);
    c ^= 0x01;
    CU_ASSERT_EQUAL_FATAL(patch(path, off, &c, 1), 0);
}

static int write_file(const char *path, const char *content)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    size_t n = strlen(content);
    ssize_t w = fd >= 0 ? write(fd, content, n) : -1;
    if (fd >= 0)
        close(fd);
    return w == (ssize_t)n ? 0 : -1;
}

/* 1 when key has a live entry at now; *user and *exp when it does. */
static int look(const char *path, const char *k, apr_time_t now, const char **user,
                apr_time_t *exp)
{
    const char *u = NULL;
    apr_time_t e = 0;
    int hit = wh_auth_file_lookup(wh_test_pool(), path, k, now, &u, &e);
    if (user)
        *user = u;
    if (exp)
        *exp = e;
    return hit;
}

static int put(const char *path, const char *k, const char *user, apr_time_t exp)
{
    return wh_auth_file_store(path, 0600, (gid_t)-1, k, user, exp);
}

static const apr_time_t NOW = APR_INT64_C(1790000000000000);
#define LATER (NOW + apr_time_from_sec(300))

/* slot 5 for A and B (0x05 and 0x45 mod 64), slot 6 for C */
#define KEY_A key(0, 0, 0, 0x05, 0x10)
#define KEY_B key(0, 0, 0, 0x45, 0x20)
#define KEY_C key(0, 0, 0, 0x06, 0x30)

static void test_round_trip(void)
{
    const char *path = fresh(NULL), *user = NULL;
    apr_time_t exp = 0;

    CU_ASSERT_EQUAL(put(path, KEY_A, "bank", LATER), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, &exp), 1);
    ASSERT_STR(user, "bank");
    CU_ASSERT_EQUAL(exp, LATER);
    /* a later store of the same key replaces its user and expiry */
    CU_ASSERT_EQUAL(put(path, KEY_A, "bank2", LATER + 1), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, &exp), 1);
    ASSERT_STR(user, "bank2");
    CU_ASSERT_EQUAL(exp, LATER + 1);
    /* the out parameters may be NULL */
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), path, KEY_A, NOW, NULL, NULL), 1);
}

static void test_missing_file_is_a_miss_and_creates_nothing(void)
{
    const char *dir, *path = fresh(&dir), *user = "unset";

    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, NULL), 0);
    CU_ASSERT_EQUAL(wh_test_files_in(dir), 0);
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), in(dir, "none/x-auth"), KEY_A, NOW,
                                        &user, NULL), 0);
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), NULL, KEY_A, NOW, &user, NULL), 0);
    CU_ASSERT_EQUAL(wh_test_files_in(dir), 0);
}

static void test_expired_is_a_miss(void)
{
    const char *path = fresh(NULL);

    CU_ASSERT_EQUAL(put(path, KEY_A, "bank", NOW), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);       /* expires == now */
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW + 1, NULL, NULL), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW - 1, NULL, NULL), 1);
}

static void test_same_slot_later_store_wins(void)
{
    const char *path = fresh(NULL), *user = NULL;

    CU_ASSERT_EQUAL(put(path, KEY_A, "alice", LATER), 0);
    CU_ASSERT_EQUAL(put(path, KEY_B, "bob", LATER), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, NULL), 0);
    CU_ASSERT_EQUAL(look(path, KEY_B, NOW, &user, NULL), 1);
    ASSERT_STR(user, "bob");
    /* a key that differs only past the first four bytes shares the slot too */
    CU_ASSERT_EQUAL(look(path, key(0, 0, 0, 0x45, 0x21), NOW, NULL, NULL), 0);
}

static void test_key_in_another_slot_misses(void)
{
    const char *path = fresh(NULL), *user = NULL;

    CU_ASSERT_EQUAL(put(path, KEY_A, "alice", LATER), 0);
    CU_ASSERT_EQUAL(look(path, KEY_C, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(put(path, KEY_C, "carol", LATER), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, NULL), 1);
    ASSERT_STR(user, "alice");
    CU_ASSERT_EQUAL(look(path, KEY_C, NOW, &user, NULL), 1);
    ASSERT_STR(user, "carol");
}

/* Each of these changes would still read as a live entry for KEY_A (a
 * user "cank", a later expiry) were it not for the check value. */
static void test_flipped_byte_is_a_miss(void)
{
    const char *path = fresh(NULL);
    const long slot = HDR + 5 * SLOT;
    const long offs[] = { USER_AT, 32 + 3, CHECK_AT, CHECK_AT + 7 };

    CU_ASSERT_EQUAL(put(path, KEY_A, "bank", LATER), 0);
    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
        flip(path, slot + offs[i]);
        CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
        flip(path, slot + offs[i]);
        CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 1);
    }
}

static uint64_t fnv1a64(const unsigned char *b, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Writes KEY_A's slot by hand with a valid check value. */
static void forge(const char *path, uint16_t len, const char *name, size_t name_len)
{
    unsigned char s[SLOT] = { 0 }, raw[32];
    int64_t exp = LATER;
    uint64_t check;
    const char *k = KEY_A;

    for (int i = 0; i < 32; i++) {
        unsigned v;
        CU_ASSERT_EQUAL_FATAL(sscanf(k + 2 * i, "%2x", &v), 1);
        raw[i] = (unsigned char)v;
    }
    memcpy(s, raw, 32);
    memcpy(s + 32, &exp, 8);
    memcpy(s + USER_LEN_AT, &len, 2);
    memcpy(s + USER_AT, name, name_len);
    check = fnv1a64(s, CHECK_AT);
    memcpy(s + CHECK_AT, &check, 8);
    CU_ASSERT_EQUAL_FATAL(patch(path, HDR + 5 * SLOT, s, SLOT), 0);
}

/* A whole slot is still checked field by field: the user name must be
 * 1..255 bytes with no NUL in it. A hand-written good slot hits, which
 * also pins the layout. */
static void test_whole_slot_with_bad_fields_is_a_miss(void)
{
    const char *path = fresh(NULL), *user = NULL;
    apr_time_t exp = 0;
    char full[255];

    CU_ASSERT_EQUAL(put(path, KEY_C, "carol", LATER), 0);
    forge(path, 5, "forge", 5);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, &exp), 1);
    ASSERT_STR(user, "forge");
    CU_ASSERT_EQUAL(exp, LATER);
    forge(path, 0, "", 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    /* a full field of name bytes: a length past it must not read on */
    memset(full, 'x', sizeof(full));
    forge(path, 256, full, sizeof(full));
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    forge(path, 0xffff, full, sizeof(full));
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    forge(path, 5, "fo\0ge", 5);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
}

/* A miss that lookup leaves as it found it; store then starts afresh. */
static void check_reinitialised(const char *path, long long size_before)
{
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(size_of(path), size_before);
    CU_ASSERT_EQUAL(put(path, KEY_C, "carol", LATER), 0);
    CU_ASSERT_EQUAL(size_of(path), FILE_SIZE);
    CU_ASSERT_EQUAL(look(path, KEY_C, NOW, NULL, NULL), 1);
    /* the old slots went with the old header */
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
}

static void test_wrong_size_or_header_is_a_miss_and_reinitialised(void)
{
    const char *path = fresh(NULL);
    const uint32_t other = 63;
    const char zero = 0;

    /* too short */
    CU_ASSERT_EQUAL_FATAL(write_file(path, "WHAUTH01 and not much else"), 0);
    check_reinitialised(path, 26);
    /* empty */
    CU_ASSERT_EQUAL_FATAL(write_file(path, ""), 0);
    check_reinitialised(path, 0);
    /* one byte too long */
    CU_ASSERT_EQUAL(put(path, KEY_A, "alice", LATER), 0);
    CU_ASSERT_EQUAL_FATAL(patch(path, FILE_SIZE, &zero, 1), 0);
    check_reinitialised(path, FILE_SIZE + 1);
    /* the right size, another magic */
    CU_ASSERT_EQUAL(put(path, KEY_A, "alice", LATER), 0);
    CU_ASSERT_EQUAL_FATAL(patch(path, 7, "0", 1), 0);
    check_reinitialised(path, FILE_SIZE);
    /* the right size and magic, another slot count, then slot size */
    CU_ASSERT_EQUAL(put(path, KEY_A, "alice", LATER), 0);
    CU_ASSERT_EQUAL_FATAL(patch(path, 8, &other, 4), 0);
    check_reinitialised(path, FILE_SIZE);
    CU_ASSERT_EQUAL(put(path, KEY_A, "alice", LATER), 0);
    CU_ASSERT_EQUAL_FATAL(patch(path, 12, &other, 4), 0);
    check_reinitialised(path, FILE_SIZE);
}

static void test_created_0600_under_umask_022(void)
{
    const char *path = fresh(NULL);
    mode_t old = umask(022);
    gid_t g = (gid_t)-1;
    int rv = put(path, KEY_A, "bank", LATER);

    umask(old);
    CU_ASSERT_EQUAL(rv, 0);
    CU_ASSERT_EQUAL(wh_test_mode_of(path, &g), 0600);
    CU_ASSERT_EQUAL(g, getegid());
}

static void test_created_0640_in_group(void)
{
    const char *path = fresh(NULL);
    /* a group this process may give files to: its own unless root */
    gid_t want = getuid() == 0 ? 1 : getegid(), got = (gid_t)-1;
    mode_t old = umask(077);   /* 0640 even under a stricter umask */
    int rv = wh_auth_file_store(path, 0640, want, KEY_A, "bank", LATER);

    umask(old);
    CU_ASSERT_EQUAL(rv, 0);
    CU_ASSERT_EQUAL(wh_test_mode_of(path, &got), 0640);
    CU_ASSERT_EQUAL(got, want);
    /* an existing file keeps its mode */
    CU_ASSERT_EQUAL(put(path, KEY_C, "carol", LATER), 0);
    CU_ASSERT_EQUAL(wh_test_mode_of(path, NULL), 0640);
}

static void test_symlink_is_not_followed(void)
{
    const char *dir, *path = fresh(&dir), *real = in(dir, "real"), *target = in(dir, "target");
    char buf[16] = { 0 };
    struct stat st;

    /* to a good cache file: lookup does not read through it */
    CU_ASSERT_EQUAL(put(real, KEY_A, "bank", LATER), 0);
    CU_ASSERT_EQUAL_FATAL(symlink(real, path), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(put(path, KEY_C, "carol", LATER), ELOOP);
    CU_ASSERT_EQUAL(look(real, KEY_C, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(unlink(path), 0);
    /* to some other file: store neither truncates nor writes it */
    CU_ASSERT_EQUAL_FATAL(write_file(target, "precious"), 0);
    CU_ASSERT_EQUAL_FATAL(symlink(target, path), 0);
    CU_ASSERT_EQUAL(put(path, KEY_A, "bank", LATER), ELOOP);
    CU_ASSERT_EQUAL(peek(target, 0, buf, 8), 0);
    ASSERT_STR(buf, "precious");
    CU_ASSERT_EQUAL(size_of(target), 8);
    CU_ASSERT(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT_EQUAL(unlink(path), 0);
    /* dangling: store does not create its target */
    CU_ASSERT_EQUAL_FATAL(symlink(in(dir, "nothing"), path), 0);
    CU_ASSERT_NOT_EQUAL(put(path, KEY_A, "bank", LATER), 0);
    CU_ASSERT_EQUAL(size_of(in(dir, "nothing")), -1);
}

/* A directory or a FIFO at the path: a miss (the FIFO without hanging)
 * and a store error, with nothing written. */
static void test_not_a_regular_file(void)
{
    const char *dir, *path = fresh(&dir);

    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    CU_ASSERT_NOT_EQUAL(put(path, KEY_A, "bank", LATER), 0);
    CU_ASSERT_EQUAL(rmdir(path), 0);
    CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(put(path, KEY_A, "bank", LATER), EEXIST);
    CU_ASSERT_EQUAL(wh_test_files_in(dir), 1);
}

static void test_bad_arguments_are_einval_and_create_nothing(void)
{
    const char *dir, *path = fresh(&dir);
    char long_user[257], bad[65];
    const char *k = KEY_A;

    memset(long_user, 'u', 256);
    long_user[256] = '\0';
    memcpy(bad, k, 65);
    bad[63] = 'g';
    CU_ASSERT_EQUAL(put(path, apr_pstrndup(wh_test_pool(), k, 63), "bank", LATER), EINVAL);
    CU_ASSERT_EQUAL(put(path, apr_pstrcat(wh_test_pool(), k, "0", NULL), "bank", LATER),
                    EINVAL);
    CU_ASSERT_EQUAL(put(path, bad, "bank", LATER), EINVAL);
    CU_ASSERT_EQUAL(put(path, "", "bank", LATER), EINVAL);
    CU_ASSERT_EQUAL(put(path, NULL, "bank", LATER), EINVAL);
    CU_ASSERT_EQUAL(put(path, k, "", LATER), EINVAL);
    CU_ASSERT_EQUAL(put(path, k, long_user, LATER), EINVAL);
    CU_ASSERT_EQUAL(put(path, k, NULL, LATER), EINVAL);
    CU_ASSERT_EQUAL(put(NULL, k, "bank", LATER), EINVAL);
    CU_ASSERT_EQUAL(wh_test_files_in(dir), 0);
    /* and a lookup with such a key is a miss */
    CU_ASSERT_EQUAL(put(path, k, "bank", LATER), 0);
    CU_ASSERT_EQUAL(look(path, apr_pstrndup(wh_test_pool(), k, 63), NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(look(path, bad, NOW, NULL, NULL), 0);
    CU_ASSERT_EQUAL(look(path, NULL, NOW, NULL, NULL), 0);
}

static void test_255_byte_user_round_trips(void)
{
    const char *path = fresh(NULL), *user = NULL;
    char name[256];
    unsigned char field[255];

    memset(name, 'u', 255);
    name[0] = 'A';
    name[254] = 'Z';
    name[255] = '\0';
    CU_ASSERT_EQUAL(put(path, KEY_A, name, LATER), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, NULL), 1);
    ASSERT_STR(user, name);
    /* a shorter name after it leaves no trace of the longer one */
    CU_ASSERT_EQUAL(put(path, KEY_A, "b", LATER), 0);
    CU_ASSERT_EQUAL(look(path, KEY_A, NOW, &user, NULL), 1);
    ASSERT_STR(user, "b");
    CU_ASSERT_EQUAL_FATAL(peek(path, HDR + 5 * SLOT + USER_AT, field, sizeof(field)), 0);
    CU_ASSERT_EQUAL(field[0], 'b');
    for (size_t i = 1; i < sizeof(field); i++)
        if (field[i] != 0) {
            CU_FAIL("unused user bytes are not zero");
            break;
        }
}

static void test_file_layout(void)
{
    const char *path = fresh(NULL), *k = KEY_A;
    unsigned char h[HDR], slot_key[32];
    uint32_t count, size;
    char hex[65];

    CU_ASSERT_EQUAL(put(path, k, "bank", LATER), 0);
    CU_ASSERT_EQUAL(size_of(path), FILE_SIZE);
    CU_ASSERT_EQUAL_FATAL(peek(path, 0, h, HDR), 0);
    CU_ASSERT_EQUAL(memcmp(h, "WHAUTH01", 8), 0);
    memcpy(&count, h + 8, 4);
    memcpy(&size, h + 12, 4);
    CU_ASSERT_EQUAL(count, NSLOTS);
    CU_ASSERT_EQUAL(size, SLOT);
    /* KEY_A's raw bytes open slot 5 */
    CU_ASSERT_EQUAL_FATAL(peek(path, HDR + 5 * SLOT, slot_key, 32), 0);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", slot_key[i]);
    ASSERT_STR(hex, k);
}

/* wh_signature_decode takes either case: one entry for both spellings. */
static void test_key_case_names_one_entry(void)
{
    const char *path = fresh(NULL);
    char *upper = apr_pstrdup(wh_test_pool(), KEY_A);

    for (char *c = upper; *c; c++)
        if (*c >= 'a' && *c <= 'f')
            *c = (char)(*c - 'a' + 'A');
    CU_ASSERT_EQUAL(put(path, KEY_A, "bank", LATER), 0);
    CU_ASSERT_EQUAL(look(path, upper, NOW, NULL, NULL), 1);
}

/* The purge empties expired slots only; a dry run counts them; no file
 * is nothing to do and makes none. */
static void test_purge_empties_expired_slots(void)
{
    const char *dir, *f = fresh(&dir), *user = NULL;
    const char *old = key(0, 0, 0, 1, 1), *live = key(0, 0, 0, 2, 2);
    apr_time_t exp = 0;
    int n = -1;

    CU_ASSERT_EQUAL(wh_auth_file_purge(f, 1000, 0, &n), 0);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(size_of(f), -1);
    CU_ASSERT_EQUAL(wh_auth_file_store(f, 0600, (gid_t)-1, old, "bank", 500), 0);
    CU_ASSERT_EQUAL(wh_auth_file_store(f, 0600, (gid_t)-1, live, "bank", 5000), 0);
    CU_ASSERT_EQUAL(wh_auth_file_purge(f, 1000, 1, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), f, old, 100, &user, &exp), 1);
    CU_ASSERT_EQUAL(wh_auth_file_purge(f, 1000, 0, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), f, old, 100, &user, &exp), 0);
    CU_ASSERT_EQUAL(wh_auth_file_lookup(wh_test_pool(), f, live, 1000, &user, &exp), 1);
    CU_ASSERT_EQUAL(size_of(f), FILE_SIZE);
    CU_ASSERT_EQUAL(wh_auth_file_purge(f, 1000, 0, &n), 0);
    CU_ASSERT_EQUAL(n, 0);
}

static const wh_test_case cases[] = {
    { "round_trip", test_round_trip },
    { "missing_file_is_a_miss_and_creates_nothing",
      test_missing_file_is_a_miss_and_creates_nothing },
    { "expired_is_a_miss", test_expired_is_a_miss },
    { "same_slot_later_store_wins", test_same_slot_later_store_wins },
    { "key_in_another_slot_misses", test_key_in_another_slot_misses },
    { "flipped_byte_is_a_miss", test_flipped_byte_is_a_miss },
    { "whole_slot_with_bad_fields_is_a_miss", test_whole_slot_with_bad_fields_is_a_miss },
    { "wrong_size_or_header_is_a_miss_and_reinitialised",
      test_wrong_size_or_header_is_a_miss_and_reinitialised },
    { "created_0600_under_umask_022", test_created_0600_under_umask_022 },
    { "created_0640_in_group", test_created_0640_in_group },
    { "symlink_is_not_followed", test_symlink_is_not_followed },
    { "not_a_regular_file", test_not_a_regular_file },
    { "bad_arguments_are_einval_and_create_nothing",
      test_bad_arguments_are_einval_and_create_nothing },
    { "255_byte_user_round_trips", test_255_byte_user_round_trips },
    { "file_layout", test_file_layout },
    { "key_case_names_one_entry", test_key_case_names_one_entry },
    { "purge_empties_expired_slots", test_purge_empties_expired_slots },
    { NULL, NULL }
};

WH_TEST_SUITE(auth_file, cases)
