/* Credentials re-read when their files change (wh_creds.h): a user added
 * to the htpasswd file or a secret added to the secret file counts
 * without a restart, a user removed or a password changed is refused at
 * once (also when the auth cache held the old success), a file that cannot
 * be read leaves the version in use, and unchanged files are not read. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "verify/wh_auth.h"
#include "verify/wh_creds.h"
#include "verify/wh_verify.h"
#include "verify/wh_signature.h"

#include <apr_base64.h>
#include <apr_file_io.h>
#include <apr_sha1.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_proc.h>
#include <stdio.h>
#include <string.h>

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

typedef struct {
    char log[4096];
    int warnings;
} sink;

static void capture(void *baton, wh_log_level level, const char *msg)
{
    sink *s = baton;
    apr_size_t n = strlen(s->log);
    if (level <= WH_LOG_WARN)
        s->warnings++;
    apr_snprintf(s->log + n, sizeof(s->log) - n, "%s\n", msg);
}

static const char *sha_line(const char *user, const char *password)
{
    char hash[64];
    apr_sha1_base64(password, (int)strlen(password), hash);
    return apr_psprintf(P(), "%s:%s\n", user, hash);
}

/* Rewrites path with text and a modification time of its own (tick
 * seconds after 2020), so each version is told apart whatever the file
 * system's time resolution and however fast the test runs. */
static void rewrite(const char *path, const char *text, int tick)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
    CU_ASSERT(apr_file_mtime_set(path, apr_time_from_sec(1577836800 + tick), P())
              == APR_SUCCESS);
}

typedef struct {
    wh_config *cfg;
    wh_creds *creds;
    const char *secrets_path, *users_path;
    sink s;
    wh_logger lg;
} fx;

static fx *make(const char *secrets, const char *users)
{
    fx *f = apr_pcalloc(P(), sizeof(*f));
    const char *conf;

    f->lg.fn = capture;
    f->lg.baton = &f->s;
    f->secrets_path = wh_test_tmpfile("", 0600);
    f->users_path = wh_test_tmpfile("", 0600);
    rewrite(f->secrets_path, secrets, 1);
    rewrite(f->users_path, users, 1);
    conf = wh_test_tmpfile(apr_psprintf(P(), "SigningSecretFile %s\n"
                                        "BasicAuthFile %s\n", f->secrets_path,
                                        f->users_path), 0600);
    CU_ASSERT_PTR_NULL_FATAL(wh_config_load(P(), conf, &f->cfg));
    f->creds = wh_creds_create(P(), f->cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->creds);
    wh_creds_set_interval(f->creds, 0);
    return f;
}

static apr_time_t now(void)
{
    return apr_time_now();
}

static int has_user(fx *f, const char *user, unsigned *gen)
{
    wh_creds_version *v = NULL;
    apr_hash_t *u = wh_creds_users(f->creds, now(), &f->lg, &v, gen);
    int yes = u && apr_hash_get(u, user, APR_HASH_KEY_STRING) != NULL;
    wh_creds_release(f->creds, v);
    return yes;
}

static int secret_count(fx *f)
{
    wh_creds_version *v = NULL;
    const apr_array_header_t *s = wh_creds_secrets(f->creds, now(), &f->lg, &v);
    int n = s ? s->nelts : -1;
    wh_creds_release(f->creds, v);
    return n;
}

static void test_user_added_and_removed(void)
{
    fx *f = make("s1\n", sha_line("alice", "a"));
    unsigned g0 = 99, g1 = 99, g2 = 99;

    CU_ASSERT(has_user(f, "alice", &g0));
    CU_ASSERT_EQUAL(g0, 0);
    CU_ASSERT(!has_user(f, "bob", NULL));
    rewrite(f->users_path, apr_pstrcat(P(), sha_line("alice", "a"),
                                       sha_line("bob", "b"), NULL), 2);
    CU_ASSERT(has_user(f, "bob", &g1));
    CU_ASSERT_EQUAL(g1, 1);
    CU_ASSERT(contains(f->s.log, "BasicAuthFile"));
    CU_ASSERT(contains(f->s.log, "changed: re-read (2 users)"));
    rewrite(f->users_path, sha_line("bob", "b"), 3);
    CU_ASSERT(!has_user(f, "alice", &g2));
    CU_ASSERT_EQUAL(g2, 2);
    CU_ASSERT_EQUAL(wh_creds_reloads(f->creds), 2);
}

static void test_secret_added(void)
{
    fx *f = make("old-secret\n", sha_line("alice", "a"));

    CU_ASSERT_EQUAL(secret_count(f), 1);
    rewrite(f->secrets_path, "old-secret\nnew-secret\n", 2);
    CU_ASSERT_EQUAL(secret_count(f), 2);
    rewrite(f->secrets_path, "new-secret\n", 3);
    CU_ASSERT_EQUAL(secret_count(f), 1);
    CU_ASSERT(!contains(f->s.log, "new-secret"));   /* never logged */
}

/* Unchanged files are looked at (stat) but not read again. */
static void test_unchanged_not_reread(void)
{
    fx *f = make("s1\n", sha_line("alice", "a"));
    for (int i = 0; i < 50; i++)
        CU_ASSERT(has_user(f, "alice", NULL));
    CU_ASSERT_EQUAL(wh_creds_reloads(f->creds), 0);
    CU_ASSERT_EQUAL(f->s.log[0], '\0');
}

/* At most once per interval: a change is seen only once the interval has
 * passed since the last look (now is the caller's clock). */
static void test_interval(void)
{
    fx *f = make("s1\n", sha_line("alice", "a"));
    apr_time_t t = now();
    wh_creds_version *v = NULL;
    apr_hash_t *u;

    wh_creds_set_interval(f->creds, WH_CREDS_INTERVAL);
    rewrite(f->users_path, sha_line("bob", "b"), 2);
    u = wh_creds_users(f->creds, t, &f->lg, &v, NULL);
    CU_ASSERT(apr_hash_get(u, "alice", APR_HASH_KEY_STRING) != NULL);
    wh_creds_release(f->creds, v);
    u = wh_creds_users(f->creds, t + WH_CREDS_INTERVAL + 1, &f->lg, &v, NULL);
    CU_ASSERT(apr_hash_get(u, "bob", APR_HASH_KEY_STRING) != NULL);
    wh_creds_release(f->creds, v);
}

/* A file that changed into something unreadable (here a malformed line,
 * as a half-written file would be) leaves the version in use, with one
 * warning for that change; once repaired, it is read. */
static void test_bad_file_keeps_version(void)
{
    fx *f = make("s1\n", sha_line("alice", "a"));

    rewrite(f->users_path, "alice-without-a-colon\n", 2);
    CU_ASSERT(has_user(f, "alice", NULL));
    CU_ASSERT(has_user(f, "alice", NULL));
    CU_ASSERT_EQUAL(f->s.warnings, 1);
    CU_ASSERT(contains(f->s.log, "changed but cannot be read as user "));
    CU_ASSERT(contains(f->s.log, "the version read before stays in use"));
    rewrite(f->users_path, sha_line("carol", "c"), 3);
    CU_ASSERT(has_user(f, "carol", NULL));
    CU_ASSERT(!has_user(f, "alice", NULL));
    /* gone altogether: the same */
    apr_file_remove(f->users_path, P());
    CU_ASSERT(has_user(f, "carol", NULL));
    CU_ASSERT_EQUAL(f->s.warnings, 2);
    rewrite(f->users_path, sha_line("dave", "d"), 4);
    CU_ASSERT(has_user(f, "dave", NULL));
}

/* A version held across a re-read stays whole until released. */
static void test_held_version_outlives_reload(void)
{
    fx *f = make("s1\n", sha_line("alice", "a"));
    wh_creds_version *v = NULL;
    apr_hash_t *old = wh_creds_users(f->creds, now(), &f->lg, &v, NULL);

    rewrite(f->users_path, sha_line("bob", "b"), 2);
    CU_ASSERT(has_user(f, "bob", NULL));
    rewrite(f->users_path, sha_line("carol", "c"), 3);
    CU_ASSERT(has_user(f, "carol", NULL));      /* bob's version freed */
    CU_ASSERT(apr_hash_get(old, "alice", APR_HASH_KEY_STRING) != NULL);
    wh_creds_release(f->creds, v);
}

/* Through the verifier and its auth cache: a success cached before the
 * user was removed, or before the password changed, does not let the old
 * credential in after the re-read. */
static const char *header_fn(void *ctx, const char *name)
{
    return strcasecmp(name, "Authorization") == 0 ? ctx : NULL;
}

static int auth(wh_verifier *vf, const char *user, const char *password,
                const wh_logger *lg)
{
    wh_request req;
    wh_verdict v;
    const char *up = apr_pstrcat(P(), user, ":", password, NULL);
    char *b64 = apr_palloc(P(), apr_base64_encode_len((int)strlen(up)));

    apr_base64_encode(b64, up, (int)strlen(up));
    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.header = header_fn;
    req.header_ctx = apr_pstrcat(P(), "Basic ", b64, NULL);
    req.now = apr_time_now();
    req.log = lg;
    wh_verdict_init(&v, P());
    return wh_verify_auth(vf, &req, &v, P());
}

static void test_verifier_cache_follows_reload(void)
{
    fx *f = make("s1\n", apr_pstrcat(P(), sha_line("alice", "a"),
                                      sha_line("bob", "b"), NULL));
    wh_verifier *vf = wh_verifier_create(P(), f->cfg, &f->lg);
    wh_auth_cache *cache = wh_verifier_auth_cache(vf);

    wh_creds_set_interval(wh_verifier_creds(vf), 0);
    CU_ASSERT_EQUAL(auth(vf, "alice", "a", &f->lg), 0);
    CU_ASSERT_EQUAL(auth(vf, "alice", "a", &f->lg), 0);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(cache), 1);
    CU_ASSERT_EQUAL(auth(vf, "bob", "b", &f->lg), 0);
    /* alice removed, bob's password changed */
    rewrite(f->users_path, sha_line("bob", "b2"), 2);
    CU_ASSERT_EQUAL(auth(vf, "alice", "a", &f->lg), 401);
    CU_ASSERT_EQUAL(auth(vf, "bob", "b", &f->lg), 401);
    CU_ASSERT_EQUAL(auth(vf, "bob", "b2", &f->lg), 0);
    CU_ASSERT_EQUAL(auth(vf, "bob", "b2", &f->lg), 0);
    CU_ASSERT_EQUAL(wh_auth_cache_hits(cache), 2);   /* the new one cached */
    /* a user added is let in */
    rewrite(f->users_path, apr_pstrcat(P(), sha_line("bob", "b2"),
                                        sha_line("erin", "e"), NULL), 3);
    CU_ASSERT_EQUAL(auth(vf, "erin", "e", &f->lg), 0);
}

/* A configuration that loaded nothing (the CGI's settings all from the
 * environment, a test's hand-made config) has nothing to re-read. */
/* A look under way holds back the requests that come meanwhile. Both
 * files change; thread A's look re-reads the secrets and is stopped in
 * its log line about them, before the users. Thread B's request, inside
 * the interval after A's look began, must wait and then see the new
 * users; going on with the old ones would check a request that began an
 * interval after the change against the file before it. */
typedef struct {
    apr_thread_mutex_t *mu;
    apr_thread_cond_t *cv;
    int a_in_log, release, b_done, b_saw_bob;
    fx *f;
    apr_time_t t;
} under_way;

static void hold_in_log(void *baton, wh_log_level level, const char *msg)
{
    under_way *w = baton;
    (void)level;
    if (!strstr(msg, "SigningSecretFile"))
        return;
    apr_thread_mutex_lock(w->mu);
    w->a_in_log = 1;
    apr_thread_cond_broadcast(w->cv);
    while (!w->release)
        apr_thread_cond_wait(w->cv, w->mu);
    apr_thread_mutex_unlock(w->mu);
}

static void *APR_THREAD_FUNC looker(apr_thread_t *th, void *data)
{
    under_way *w = data;
    wh_logger lg = { hold_in_log, w };
    wh_creds_version *v = NULL;

    (void)th;
    (void)wh_creds_secrets(w->f->creds, w->t, &lg, &v);
    wh_creds_release(w->f->creds, v);
    return NULL;
}

static void *APR_THREAD_FUNC requester(apr_thread_t *th, void *data)
{
    under_way *w = data;
    wh_creds_version *v = NULL;
    apr_hash_t *u = wh_creds_users(w->f->creds, w->t + 1, NULL, &v, NULL);
    int bob = u && apr_hash_get(u, "bob", APR_HASH_KEY_STRING) != NULL;

    (void)th;
    wh_creds_release(w->f->creds, v);
    apr_thread_mutex_lock(w->mu);
    w->b_saw_bob = bob;
    w->b_done = 1;
    apr_thread_cond_broadcast(w->cv);
    apr_thread_mutex_unlock(w->mu);
    return NULL;
}

/* Both files change; A's look is stopped in its log line about the
 * secrets, then B asks for the users with the given wait. */
static void start_look(under_way *w, apr_interval_time_t wait,
                       apr_thread_t **a, apr_thread_t **b)
{
    w->f = make("s1\n", sha_line("alice", "a"));
    wh_creds_set_interval(w->f->creds, WH_CREDS_INTERVAL);
    wh_creds_set_look_wait(w->f->creds, wait);
    w->t = now() + 2 * WH_CREDS_INTERVAL;
    CU_ASSERT_FATAL(apr_thread_mutex_create(&w->mu, APR_THREAD_MUTEX_DEFAULT, P()) == APR_SUCCESS);
    CU_ASSERT_FATAL(apr_thread_cond_create(&w->cv, P()) == APR_SUCCESS);
    rewrite(w->f->secrets_path, "s1\ns2\n", 2);
    rewrite(w->f->users_path, sha_line("bob", "b"), 2);
    CU_ASSERT_FATAL(apr_thread_create(a, NULL, looker, w, P()) == APR_SUCCESS);
    apr_thread_mutex_lock(w->mu);
    while (!w->a_in_log)
        apr_thread_cond_wait(w->cv, w->mu);
    apr_thread_mutex_unlock(w->mu);
    CU_ASSERT_FATAL(apr_thread_create(b, NULL, requester, w, P()) == APR_SUCCESS);
}

/* Waits up to limit for B's answer; 1 when it came. */
static int b_answers_within(under_way *w, apr_interval_time_t limit)
{
    apr_time_t until = apr_time_now() + limit;
    int done;

    apr_thread_mutex_lock(w->mu);
    while (!w->b_done && apr_time_now() < until)
        apr_thread_cond_timedwait(w->cv, w->mu, until - apr_time_now());
    done = w->b_done;
    apr_thread_mutex_unlock(w->mu);
    return done;
}

static void finish_look(under_way *w, apr_thread_t *a, apr_thread_t *b)
{
    apr_status_t rv;

    apr_thread_mutex_lock(w->mu);
    w->release = 1;
    apr_thread_cond_broadcast(w->cv);
    apr_thread_mutex_unlock(w->mu);
    apr_thread_join(&rv, a);
    apr_thread_join(&rv, b);
    CU_ASSERT_EQUAL(wh_creds_reloads(w->f->creds), 2);
}

static void test_request_waits_for_look(void)
{
    under_way w = {0};
    apr_thread_t *a, *b;

    start_look(&w, apr_time_from_sec(30), &a, &b);
    /* one that does not wait answers at once, with the old users */
    CU_ASSERT_EQUAL(b_answers_within(&w, apr_time_from_msec(300)), 0);
    finish_look(&w, a, b);
    CU_ASSERT_EQUAL(w.b_done, 1);
    CU_ASSERT_EQUAL(w.b_saw_bob, 1);
}

/* A look that stalls (a hung file system) holds a request up for the
 * wait, no longer: it goes on with the version in use. */
static void test_stalled_look_bounded(void)
{
    under_way w = {0};
    apr_thread_t *a, *b;

    start_look(&w, apr_time_from_msec(50), &a, &b);
    CU_ASSERT_EQUAL(b_answers_within(&w, apr_time_from_sec(30)), 1);
    CU_ASSERT_EQUAL(w.b_saw_bob, 0);
    finish_look(&w, a, b);
}

static void test_nothing_loaded(void)
{
    wh_config *cfg = wh_config_create(P());
    wh_creds *c = wh_creds_create(P(), cfg);
    wh_creds_version *v = (wh_creds_version *)1;

    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    wh_creds_set_interval(c, 0);
    CU_ASSERT_PTR_NULL(wh_creds_secrets(c, now(), NULL, &v));
    wh_creds_release(c, v);
    CU_ASSERT_PTR_NULL(wh_creds_users(c, now(), NULL, &v, NULL));
    wh_creds_release(c, v);
    CU_ASSERT_EQUAL(wh_creds_reloads(c), 0);
}

static const wh_test_case cases[] = {
    {"a user added, then removed", test_user_added_and_removed},
    {"a secret added (rotation)", test_secret_added},
    {"unchanged files are not read again", test_unchanged_not_reread},
    {"at most once per interval", test_interval},
    {"an unreadable change keeps the version in use", test_bad_file_keeps_version},
    {"a held version outlives a re-read", test_held_version_outlives_reload},
    {"the verifier's auth cache follows a re-read", test_verifier_cache_follows_reload},
    {"a request waits for a look under way", test_request_waits_for_look},
    {"a stalled look holds a request up for a bounded time", test_stalled_look_bounded},
    {"nothing loaded, nothing re-read", test_nothing_loaded},
    {NULL, NULL}};

WH_TEST_SUITE(creds, cases)
