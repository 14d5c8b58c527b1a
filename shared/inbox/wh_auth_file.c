/* The file of cached Basic-auth checks (see wh_auth_file.h).
 *
 * Layout, in host byte order: the file never leaves the machine, and one
 * written on a machine of the other order fails the header check and is
 * reinitialised.
 *
 *   header (16 bytes)   0 magic "WHAUTH01"   8 uint32 slot count
 *                      12 uint32 slot size
 *   slot i at 16 + i * 305
 *     0 key (32 raw bytes)   32 int64 expires (apr_time_t, microseconds)
 *    40 uint16 user length  42 user name (255 bytes, unused ones zero)
 *   297 uint64 check value (FNV-1a 64 over bytes 0..296)
 *
 * Fields are copied at fixed offsets into a byte buffer rather than read
 * as a C struct, so no compiler padding enters the format.
 *
 * The check value only tells a slot torn between a concurrent pread and
 * pwrite (or damaged) from a whole one; it is no authentication. What
 * keeps entries honest is the key: an HMAC under a secret the file does
 * not hold, so no entry written without that secret matches a request.
 * Whoever can write the file could still rename or prolong an entry that
 * a real login made, which is why it gets the inbox's mode and group. */
#include "wh_auth_file.h"
#include "wh_inbox_files.h"
#include "verify/wh_signature.h"
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The bank uses one or two credentials, so a few slots are plenty; two
 * keys sharing a slot only cost a password check each time they alternate. */
#define SLOTS 64u
#define USER_MAX 255u

#define MAGIC "WHAUTH01"
#define MAGIC_LEN 8
#define HEADER_LEN 16

#define KEY_AT 0
#define EXPIRES_AT (KEY_AT + WH_SIG_RAW_LEN)
#define USER_LEN_AT (EXPIRES_AT + 8)
#define USER_AT (USER_LEN_AT + 2)
#define CHECK_AT (USER_AT + USER_MAX)
#define SLOT_LEN (CHECK_AT + 8)
#define FILE_LEN (HEADER_LEN + SLOTS * SLOT_LEN)

static uint64_t fnv1a64(const unsigned char *b, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void header_bytes(unsigned char out[HEADER_LEN])
{
    uint32_t count = SLOTS, size = SLOT_LEN;
    memcpy(out, MAGIC, MAGIC_LEN);
    memcpy(out + MAGIC_LEN, &count, 4);
    memcpy(out + MAGIC_LEN + 4, &size, 4);
}

/* Where key's slot starts: its first four bytes, big-endian, pick it. */
static off_t slot_offset(const unsigned char key[WH_SIG_RAW_LEN])
{
    uint32_t first = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16
                     | (uint32_t)key[2] << 8 | key[3];
    return (off_t)HEADER_LEN + (off_t)(first % SLOTS) * SLOT_LEN;
}

/* A regular file of exactly the format's size whose header is this
 * format's: anything else is another format, a damaged file, or one
 * being initialised. */
static int file_ok(int fd, const struct stat *st)
{
    unsigned char want[HEADER_LEN], got[HEADER_LEN];

    if (!S_ISREG(st->st_mode) || st->st_size != (off_t)FILE_LEN)
        return 0;
    header_bytes(want);
    return pread(fd, got, HEADER_LEN, 0) == (ssize_t)HEADER_LEN
           && memcmp(got, want, HEADER_LEN) == 0;
}

/* The user name of a whole slot for key that lives past now, its length
 * in *len; NULL otherwise. */
static const unsigned char *slot_user(const unsigned char s[SLOT_LEN],
                                      const unsigned char key[WH_SIG_RAW_LEN],
                                      apr_time_t now, size_t *len,
                                      apr_time_t *expires)
{
    uint64_t check;
    int64_t exp;
    uint16_t n;

    memcpy(&check, s + CHECK_AT, 8);
    if (check != fnv1a64(s, CHECK_AT)
        || CRYPTO_memcmp(s + KEY_AT, key, WH_SIG_RAW_LEN) != 0)
        return NULL;
    memcpy(&exp, s + EXPIRES_AT, 8);
    memcpy(&n, s + USER_LEN_AT, 2);
    if (exp <= now || n == 0 || n > USER_MAX || memchr(s + USER_AT, '\0', n))
        return NULL;
    *len = n;
    *expires = exp;
    return s + USER_AT;
}

int wh_auth_file_lookup(apr_pool_t *p, const char *path, const char *key_hex,
                        apr_time_t now, const char **user, apr_time_t *expires)
{
    unsigned char key[WH_SIG_RAW_LEN], s[SLOT_LEN];
    const unsigned char *name = NULL;
    struct stat st;
    apr_time_t exp = 0;
    size_t len = 0;
    int fd;

    if (!path || wh_signature_decode(key_hex, key) != 0)
        return 0;
    /* O_NONBLOCK: a FIFO put at the path must not hang the request; it
     * changes nothing for a regular file */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) == 0 && file_ok(fd, &st)
        && pread(fd, s, SLOT_LEN, slot_offset(key)) == (ssize_t)SLOT_LEN)
        name = slot_user(s, key, now, &len, &exp);
    close(fd);
    if (!name)
        return 0;
    if (user)
        *user = apr_pstrmemdup(p, (const char *)name, len);
    if (expires)
        *expires = exp;
    return 1;
}

/* Opens path for writing, creating it when missing; never through a
 * symlink (O_NOFOLLOW: ELOOP). */
static int open_rw(const char *path, mode_t mode, gid_t gid, int *fd)
{
    const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

    *fd = open(path, flags);
    if (*fd < 0 && errno == ENOENT) {
        int created, rv = wh_inbox_file_create(path, mode, gid, &created);
        if (rv != 0)
            return rv;
        *fd = open(path, flags);
    }
    return *fd < 0 ? errno : 0;
}

/* Empties the file to the format's size (every slot zero, which no check
 * value matches) and writes the header. Two processes doing this at once
 * write the same header; the one that truncates last may drop the other's
 * fresh slot, which costs that key one password check. */
static int initialise(int fd)
{
    unsigned char h[HEADER_LEN];
    ssize_t n;

    header_bytes(h);
    if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)FILE_LEN) != 0)
        return errno;
    n = pwrite(fd, h, HEADER_LEN, 0);
    return n == (ssize_t)HEADER_LEN ? 0 : n < 0 ? errno : EIO;
}

/* The unused user bytes are zeroed, so no earlier, longer name lingers. */
static void fill_slot(unsigned char s[SLOT_LEN], const unsigned char key[WH_SIG_RAW_LEN],
                      const char *user, uint16_t len, apr_time_t expires)
{
    int64_t exp = expires;
    uint64_t check;

    memset(s, 0, SLOT_LEN);
    memcpy(s + KEY_AT, key, WH_SIG_RAW_LEN);
    memcpy(s + EXPIRES_AT, &exp, 8);
    memcpy(s + USER_LEN_AT, &len, 2);
    memcpy(s + USER_AT, user, len);
    check = fnv1a64(s, CHECK_AT);
    memcpy(s + CHECK_AT, &check, 8);
}

int wh_auth_file_store(const char *path, mode_t mode, gid_t gid, const char *key_hex,
                       const char *user, apr_time_t expires)
{
    unsigned char key[WH_SIG_RAW_LEN], s[SLOT_LEN];
    struct stat st;
    size_t n;
    int fd, rv;

    if (!path || !user || wh_signature_decode(key_hex, key) != 0)
        return EINVAL;
    n = strnlen(user, USER_MAX + 1);
    if (n == 0 || n > USER_MAX)
        return EINVAL;
    fill_slot(s, key, user, (uint16_t)n, expires);
    if ((rv = open_rw(path, mode, gid, &fd)) != 0)
        return rv;
    /* a FIFO, a device, a socket: never truncated nor written */
    if (fstat(fd, &st) != 0)
        rv = errno;
    else if (!S_ISREG(st.st_mode))
        rv = EEXIST;
    else if (!file_ok(fd, &st))
        rv = initialise(fd);
    if (rv == 0) {
        /* one call, so a reader sees the old slot, the new one, or a torn
         * mix that the check value turns into a miss */
        ssize_t w = pwrite(fd, s, SLOT_LEN, slot_offset(key));
        rv = w == (ssize_t)SLOT_LEN ? 0 : w < 0 ? errno : EIO;
    }
    if (close(fd) != 0 && rv == 0)
        rv = errno;
    return rv;
}

int wh_auth_file_purge(const char *path, apr_time_t now, int dry, int *n)
{
    unsigned char s[SLOT_LEN], zero[SLOT_LEN];
    struct stat st;
    int fd, rv = 0;

    *n = 0;
    if (!path)
        return 0;
    fd = open(path, (dry ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT ? 0 : errno;
    memset(zero, 0, sizeof(zero));
    if (fstat(fd, &st) == 0 && file_ok(fd, &st)) {
        for (unsigned i = 0; rv == 0 && i < SLOTS; i++) {
            off_t at = (off_t)HEADER_LEN + (off_t)i * SLOT_LEN;
            uint64_t check;
            int64_t exp;

            if (pread(fd, s, SLOT_LEN, at) != (ssize_t)SLOT_LEN)
                break;
            memcpy(&check, s + CHECK_AT, 8);
            memcpy(&exp, s + EXPIRES_AT, 8);
            /* an empty or torn slot holds nothing to purge */
            if (check != fnv1a64(s, CHECK_AT) || exp > now)
                continue;
            if (!dry && pwrite(fd, zero, SLOT_LEN, at) != (ssize_t)SLOT_LEN)
                rv = errno ? errno : EIO;
            else
                (*n)++;
        }
    }
    if (close(fd) != 0 && rv == 0 && !dry)
        rv = errno;
    return rv;
}
