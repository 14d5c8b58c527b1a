/* A connection opened within a deadline (replay/wh_replay_dbd_open.h),
 * through apr_dbd's mysql driver against a "server" that never speaks: a
 * socket on loopback that listens and never accepts, so the kernel
 * completes the client's connection and the client waits for a greeting
 * that never comes, as from a stopped MariaDB. The attempt is given up on
 * at the deadline; while it still waits, every further attempt fails at
 * once (one waiting thread, not one per try); once the "server" is gone
 * the attempt ends, and the next one is made. Needs apr_dbd's mysql
 * driver (libaprutil1-dbd-mysql), not a server. */
#include "wh_test.h"
#include "replay/wh_replay_dbd_open.h"
#include "replay/wh_replay_mysql.h"
#include <apr_strings.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define P() wh_test_pool()

/* A socket listening on 127.0.0.1 that never accepts: its port. */
static int silent_server(int *port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0
        || listen(fd, 8) != 0
        || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

static void test_open_within_deadline(void)
{
    const apr_dbd_driver_t *drv;
    wh_dbd_opener *o;
    apr_pool_t *cp;
    apr_dbd_t *h = NULL;
    const char *err = NULL, *params;
    apr_status_t rv = APR_EBUSY;
    apr_time_t t0;
    int port = 0, fd;

    if (wh_replay_mysql_driver(P(), &drv) != NULL)
        WH_SKIP("apr_dbd's mysql driver is not installed "
                "(libaprutil1-dbd-mysql)");
    CU_ASSERT_FATAL((fd = silent_server(&port)) >= 0);
    CU_ASSERT_PTR_NULL_FATAL(wh_dbd_opener_create(P(), &o));
    params = apr_psprintf(P(), "host=127.0.0.1 port=%d user=u pass=topsecret "
                          "dbname=x reconnect=0", port);

    /* the deadline, not the server, ends the wait (the server is held
     * silent far longer: the answer comes while it still is) */
    apr_pool_create(&cp, NULL);
    t0 = apr_time_now();
    CU_ASSERT_EQUAL(wh_dbd_open_within(o, drv, cp, params,
                                       apr_time_from_msec(300), &h, &err),
                    APR_TIMEUP);
    CU_ASSERT(apr_time_now() - t0 >= apr_time_from_msec(300));
    CU_ASSERT_PTR_NULL(h);
    /* cp is the attempt's now */

    /* while it still waits, another attempt is not made */
    apr_pool_create(&cp, NULL);
    CU_ASSERT_EQUAL(wh_dbd_open_within(o, drv, cp, params,
                                       apr_time_from_sec(5), &h, &err),
                    APR_EBUSY);

    /* the server goes: the waiting attempt ends (its connection reset),
     * and the next attempt is made, and refused */
    close(fd);
    for (int i = 0; i < 100; i++) {
        rv = wh_dbd_open_within(o, drv, cp, params, apr_time_from_sec(5),
                                &h, &err);
        if (rv != APR_EBUSY)
            break;
        apr_sleep(apr_time_from_msec(50));
    }
    CU_ASSERT(rv != APR_EBUSY && rv != APR_TIMEUP && rv != APR_SUCCESS);
    CU_ASSERT_PTR_NULL(h);
    CU_ASSERT_PTR_NOT_NULL(err);
    CU_ASSERT(!contains(err, "topsecret"));
    apr_pool_destroy(cp);
}

static const wh_test_case cases[] = {
    { "a connection is opened within its deadline, one waiting at most",
      test_open_within_deadline },
    { NULL, NULL }
};
WH_TEST_SUITE(replay_dbd_open, cases)
