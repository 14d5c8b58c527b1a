#ifndef WH_AUTH_FILE_H
#define WH_AUTH_FILE_H
/* wirehook.cgi's second-level cache of successful Basic-auth checks: a
 * file of fixed slots beside the SQLite inbox (its path + "-auth"), read
 * and written without a second database connection per process. A cache:
 * never synced, and losing it only costs one password check. Keys are the
 * wh_auth_store keys (64 hex digits of an HMAC-SHA256, see wh_auth.h);
 * they are decoded by wh_signature_decode, which takes either case, so both
 * spellings of a key name the same entry. */
#include <apr_pools.h>
#include <apr_time.h>
#include <sys/types.h>

#define WH_AUTH_FILE_SUFFIX "-auth"

/* 1 on a live entry (expires > now) for key_hex, with *user (copied into p) and *expires;
 * 0 otherwise: no file, a file of another format or size, an empty/other/expired slot,
 * a slot whose check value does not match (torn by a concurrent write, or damaged).
 * Opens O_RDONLY|O_NOFOLLOW|O_CLOEXEC: never creates or writes anything. */
int wh_auth_file_lookup(apr_pool_t *p, const char *path, const char *key_hex,
                        apr_time_t now, const char **user, apr_time_t *expires);

/* Records key_hex -> user until expires in the key's slot (overwriting whatever was there).
 * Creates the file with exactly mode and group gid ((gid_t)-1: the process's) through
 * wh_inbox_file_create when missing, and (re)initialises a file of the wrong size or
 * header. Returns 0 or an errno value (EINVAL for a key that is not 64 hex digits or a
 * user name that is empty or longer than 255 bytes; ELOOP for a symlink at path, which
 * is never followed; EEXIST for something else that is not a regular file). */
int wh_auth_file_store(const char *path, mode_t mode, gid_t gid, const char *key_hex,
                       const char *user, apr_time_t expires);

/* The retention of the cache (wh_inbox_purge.c): empties every whole slot
 * of path that expired at now, or with dry only counts them; *n: how many.
 * No file is no error (0, *n 0); nothing is ever created. A slot a store
 * writes at the same moment may be emptied with it, which costs that key
 * one password check. 0 or an errno value. */
int wh_auth_file_purge(const char *path, apr_time_t now, int dry, int *n);

#endif
