/* The system's accounts (verify/wh_account.h): a group's id, a user's
 * home directory and name read from group(5) and passwd(5) files without NSS, as
 * the self-contained CGI does, and through NSS, as every other program
 * does. */
#include "wh_test.h"
#include "verify/wh_account.h"
#include <apr_strings.h>
#include <string.h>
#include <unistd.h>

static apr_pool_t *P(void)
{
    return wh_test_pool();
}

/* A member list longer than one entry's buffer (16 KiB). */
static const char *long_group_line(const char *name, unsigned gid)
{
    apr_size_t n = 20000;
    char *members = apr_palloc(P(), n + 1);

    for (apr_size_t i = 0; i < n; i++)
        members[i] = i % 8 == 7 ? ',' : 'u';
    members[n] = '\0';
    return apr_psprintf(P(), "%s:x:%u:%s\n", name, gid, members);
}

static void test_group_from_file(void)
{
    const char *f = wh_test_tmpfile(apr_pstrcat(P(),
                                                "root:x:0:\n"
                                                "+nisgroup::7777:\n"
                                                "www-data:x:33:alice,bob\n",
                                                long_group_line("huge", 500),
                                                "hosting:x:1001:\n"
                                                "hosting:x:2002:\n"
                                                "no-newline-at-end:x:3003:",
                                                NULL),
                                    0644);
    gid_t gid = 0;

    CU_ASSERT_EQUAL(wh_group_gid_in(f, "www-data", &gid), 0);
    CU_ASSERT_EQUAL(gid, 33);
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "root", &gid), 0);
    CU_ASSERT_EQUAL(gid, 0);
    /* after a line too long for the buffer, the next entries still count */
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "hosting", &gid), 0);
    CU_ASSERT_EQUAL(gid, 1001); /* the first one wins */
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "no-newline-at-end", &gid), 0);
    CU_ASSERT_EQUAL(gid, 3003);
    /* a line that did not fit is not found rather than cut short */
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "huge", &gid), -1);
    CU_ASSERT_EQUAL(gid, (gid_t)-1);
    /* NIS compat entries are not groups */
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "+nisgroup", &gid), -1);
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "nisgroup", &gid), -1);
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "www", &gid), -1);
    CU_ASSERT_EQUAL(wh_group_gid_in(f, "", &gid), -1);
    CU_ASSERT_EQUAL(wh_group_gid_in("/nonexistent/group", "root", &gid), -1);
    /* no name is no group, as wh_group_gid */
    CU_ASSERT_EQUAL(wh_group_gid_in(f, NULL, &gid), 0);
    CU_ASSERT_EQUAL(gid, (gid_t)-1);
}

static void test_home_from_file(void)
{
    const char *f = wh_test_tmpfile(
        "root:x:0:0:root:/root:/bin/bash\n"
        "+::::::\n"
        "alice:x:1001:1001:Alice,,,:/home/alice:/bin/bash\n"
        "again:x:1001:1001::/home/again:/bin/sh\n"
        "nohome:x:1002:1002:::/usr/sbin/nologin\n"
        "relative:x:1003:1003::srv/www:/bin/sh\n",
        0644);
    const char *home = NULL, *err;

    CU_ASSERT_PTR_NULL(wh_user_home_in(P(), f, 1001, &home));
    ASSERT_STR(home, "/home/alice"); /* the first entry of the uid */
    CU_ASSERT_PTR_NULL(wh_user_home_in(P(), f, 0, &home));
    ASSERT_STR(home, "/root"); /* not the compat entry's empty uid */
    err = wh_user_home_in(P(), f, 1002, &home);
    CU_ASSERT_PTR_NULL(home);
    CU_ASSERT(contains(err, "uid 1002 has no home directory"));
    err = wh_user_home_in(P(), f, 1003, &home);
    CU_ASSERT_PTR_NULL(home);
    CU_ASSERT(contains(err, "uid 1003 has no home directory"));
    err = wh_user_home_in(P(), f, 4242, &home);
    CU_ASSERT_PTR_NULL(home);
    CU_ASSERT(contains(err, "no account has uid 4242"));
    err = wh_user_home_in(P(), "/nonexistent/passwd", 0, &home);
    CU_ASSERT_PTR_NULL(home);
    CU_ASSERT(contains(err, "/nonexistent/passwd"));
}

static void test_name_from_file(void)
{
    const char *f = wh_test_tmpfile("root:x:0:0:root:/root:/bin/bash\n"
                                    "alice:x:1001:1001::/home/alice:/bin/sh\n",
                                    0644);
    char buf[64], tiny[4];

    ASSERT_STR(wh_user_name_in(f, buf, sizeof(buf), 1001), "alice");
    ASSERT_STR(wh_user_name_in(f, buf, sizeof(buf), 0), "root");
    ASSERT_STR(wh_user_name_in(f, buf, sizeof(buf), 4242), "uid 4242");
    ASSERT_STR(wh_user_name_in("/nonexistent/passwd", buf, sizeof(buf), 7),
               "uid 7");
    /* never past the buffer */
    ASSERT_STR(wh_user_name_in(f, tiny, sizeof(tiny), 1001), "ali");
}

static void test_home_after_a_long_line(void)
{
    char *gecos = apr_palloc(P(), 20001);
    const char *f;
    const char *home = NULL;

    memset(gecos, 'g', 20000);
    gecos[20000] = '\0';
    f = wh_test_tmpfile(
        apr_psprintf(P(),
                     "big:x:1001:1001:%s:/home/big:/bin/sh\n"
                     "alice:x:1002:1002::/home/alice:/bin/sh\n",
                     gecos),
        0644);
    CU_ASSERT_PTR_NULL(wh_user_home_in(P(), f, 1002, &home));
    ASSERT_STR(home, "/home/alice");
    CU_ASSERT_PTR_NOT_NULL(wh_user_home_in(P(), f, 1001, &home));
    CU_ASSERT_PTR_NULL(home);
}

/* Through NSS: the user running the tests has an account, and root's
 * group is 0 everywhere. */
static void test_through_nss(void)
{
    const char *home = NULL;
    gid_t gid = 1;

    CU_ASSERT_PTR_NULL(wh_user_home(P(), getuid(), &home));
    CU_ASSERT(home && home[0] == '/');
    CU_ASSERT_EQUAL(wh_group_gid("root", &gid), 0);
    CU_ASSERT_EQUAL(gid, 0);
    CU_ASSERT_EQUAL(wh_group_gid("wh-no-such-group", &gid), -1);
}

static const wh_test_case cases[] = {
    {"a group's id from a group file", test_group_from_file},
    {"a user's home from a passwd file", test_home_from_file},
    {"a user's name from a passwd file", test_name_from_file},
    {"a passwd line too long is skipped, the next ones count",
     test_home_after_a_long_line},
    {"the same through NSS", test_through_nss},
    {NULL, NULL}};

WH_TEST_SUITE(account, cases)
