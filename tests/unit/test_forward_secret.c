/* The forwarder's secret read again when its file changes
 * (wh_forward_secret.c): the first line signs; a new version is taken at
 * the first look after the change and said so; a changed file that
 * cannot be read (gone, empty, a byte-order mark) leaves the secret in
 * use, said once per change; an unchanged file is not read again, and the
 * file is looked at no more often than the interval. */
#include "wh_test.h"
#include "config/wh_config_load.h"
#include "forward/wh_forward.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdio.h>
#include <unistd.h>

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

/* A version of its own: text and a modification time (tick seconds after
 * 2020), whatever the file system's time resolution. */
static void rewrite(const char *path, const char *text, int tick)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
    CU_ASSERT(apr_file_mtime_set(path, apr_time_from_sec(1577836800 + tick), P())
              == APR_SUCCESS);
}

static int is(const wh_secret *s, const char *text)
{
    return s && s->len == strlen(text) && memcmp(s->key, text, s->len) == 0;
}

static void test_rotation(void)
{
    wh_config *cfg = wh_config_create(P());
    const char *dir = wh_test_tmpdir("fwdsecret");
    const char *path = apr_pstrcat(P(), dir, "/forward.secret", NULL);
    wh_fwd_secret *s = NULL;
    const char *note = NULL;
    int failed = 0;
    apr_time_t now = apr_time_now();

    CU_ASSERT(contains(wh_fwd_secret_open(P(), cfg, &s), "not configured"));
    cfg->forward_url = "http://127.0.0.1:1/x";
    cfg->forward_secret_file = path;
    CU_ASSERT(contains(wh_fwd_secret_open(P(), cfg, &s), "ForwardSecretFile: "));
    rewrite(path, "old\n", 1);
    CU_ASSERT_PTR_NULL_FATAL(wh_fwd_secret_open(P(), cfg, &s));
    wh_fwd_secret_set_interval(s, 0);
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "old"));
    CU_ASSERT_PTR_NULL(note);

    /* the rotation: the new secret first, the old one kept for the app */
    rewrite(path, "new\nold\n", 2);
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "new"));
    CU_ASSERT(contains(note, "changed: re-read; its first line signs from now on"));
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT(!contains(note, "new"));   /* never a byte of the secret */
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "new"));
    CU_ASSERT_PTR_NULL(note);            /* unchanged: nothing to say */

    /* spoilt: the secret in use stays, said once */
    rewrite(path, "\xEF\xBB\xBFnewer\n", 3);
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "new"));
    CU_ASSERT(contains(note, "changed but cannot be read"));
    CU_ASSERT_EQUAL(failed, 1);
    CU_ASSERT(contains(note, "byte-order mark"));
    CU_ASSERT(contains(note, "the secret read before stays in use"));
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "new"));
    CU_ASSERT_PTR_NULL(note);
    unlink(path);
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "new"));
    CU_ASSERT(contains(note, "cannot be read"));
    /* put right */
    rewrite(path, "newer\n", 4);
    CU_ASSERT(is(wh_fwd_secret_now(s, now, P(), &note, &failed), "newer"));
    CU_ASSERT(contains(note, "re-read"));
}

static void test_interval(void)
{
    wh_config *cfg = wh_config_create(P());
    const char *dir = wh_test_tmpdir("fwdsecret");
    const char *path = apr_pstrcat(P(), dir, "/forward.secret", NULL);
    wh_fwd_secret *s = NULL;
    const char *note = NULL;
    int failed = 0;
    apr_time_t t0 = apr_time_now();

    cfg->forward_url = "http://127.0.0.1:1/x";
    cfg->forward_secret_file = path;
    rewrite(path, "one\n", 1);
    CU_ASSERT_PTR_NULL_FATAL(wh_fwd_secret_open(P(), cfg, &s));
    rewrite(path, "two\n", 2);
    /* within the interval of the first read: not looked at */
    CU_ASSERT(is(wh_fwd_secret_now(s, t0 + WH_FWD_SECRET_INTERVAL / 2, P(), &note, &failed), "one"));
    CU_ASSERT_PTR_NULL(note);
    CU_ASSERT(is(wh_fwd_secret_now(s, t0 + 2 * WH_FWD_SECRET_INTERVAL, P(), &note, &failed), "two"));
    CU_ASSERT_PTR_NOT_NULL(note);
    /* a clock set back does not stop the looks */
    rewrite(path, "three\n", 3);
    CU_ASSERT(is(wh_fwd_secret_now(s, t0 - 5 * WH_FWD_SECRET_INTERVAL, P(), &note, &failed), "three"));
}

static const wh_test_case cases[] = {
    { "a rotation: re-read on change, spoilt files ignored", test_rotation },
    { "looked at once per interval", test_interval },
    { NULL, NULL }
};

WH_TEST_SUITE(forward_secret, cases)
