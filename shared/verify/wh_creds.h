#ifndef WH_CREDS_H
#define WH_CREDS_H
/* The credentials a verifier checks against, the signing secrets and the
 * htpasswd users, re-read when their files change: mod_authn_file reads
 * its file on each request, so an administrator expects a user added with
 * htpasswd, or a secret added for a rotation, to count without a restart.
 *
 * Reading the files per request would cost a request the read and parse
 * (and the secrets' HMAC keying); instead each process looks at the files
 * (one stat each) at most once per WH_CREDS_INTERVAL, and only a file
 * whose identity (wh_file_id.h) changed is read again. The new version
 * replaces the old at once; requests still holding the old one finish
 * with it, and it is freed when the last lets go. A request that comes
 * while another thread is looking waits for that look (WH_CREDS_LOOK_WAIT
 * at most), so every request that begins an interval after a change is
 * checked against it. A file that changed but cannot be read (a
 * half-written file, permissions) leaves the version in use, with one
 * warning per change. */
#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_tables.h>
#include <apr_time.h>
#include "wh_config.h"
#include "wh_log.h"

#define WH_CREDS_INTERVAL apr_time_from_sec(1)
/* A look reads two small files: one that takes longer is stalled (a hung
 * NFS server), and the requests waiting for it go on with what they have. */
#define WH_CREDS_LOOK_WAIT apr_time_from_msec(250)

typedef struct wh_creds wh_creds;
/* A version in use by one caller, released with wh_creds_release. */
typedef struct wh_creds_version wh_creds_version;

/* Starts from what cfg loaded (cfg->secrets, cfg->users and their file
 * identities), which stay owned by cfg. NULL when out of memory. */
wh_creds *wh_creds_create(apr_pool_t *p, const wh_config *cfg);

/* The secrets to check a signature with now, held until released; NULL
 * (with *held NULL) when none were ever loaded. now decides whether the
 * files are looked at; log hears about re-reads. */
const apr_array_header_t *wh_creds_secrets(wh_creds *c, apr_time_t now,
                                           const wh_logger *log,
                                           wh_creds_version **held);
/* The users (user -> htpasswd hash), the same way. *generation tells the
 * versions apart (0 for cfg's, then 1, 2, ...): the auth cache's entries
 * carry it, so that a user removed or a password changed is never
 * accepted from the cache after a re-read. */
apr_hash_t *wh_creds_users(wh_creds *c, apr_time_t now, const wh_logger *log,
                           wh_creds_version **held, unsigned *generation);
void wh_creds_release(wh_creds *c, wh_creds_version *held);

/* How often the files are looked at (tests: 0, at every call). */
void wh_creds_set_interval(wh_creds *c, apr_interval_time_t every);
/* How long a request waits for a look under way (WH_CREDS_LOOK_WAIT). */
void wh_creds_set_look_wait(wh_creds *c, apr_interval_time_t wait);
/* Re-reads that replaced a version, for tests and server-status. */
unsigned long wh_creds_reloads(const wh_creds *c);

#endif
