/* The bound on a wait for a silent server (verify/wh_sock_watch.h), on a
 * real socket pair whose far end never answers: a read outliving its
 * deadline ends as on a broken connection; a renewed deadline and an
 * ended watch leave the socket alone; what cannot be watched says so;
 * libpq's socket is asked only of the pgsql driver; a conninfo without
 * connect_timeout is given one, in either form libpq takes. */
#include "wh_test.h"
#include "verify/wh_sock_watch.h"
#include <apr_dbd.h>
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#define P() wh_test_pool()

/* a blocking read on fd: what libpq does while it waits for an answer */
static ssize_t wait_for_answer(int fd)
{
    char c;
    ssize_t n;

    do
        n = recv(fd, &c, 1, 0);
    while (n < 0 && errno == EINTR);
    return n;
}

static void test_silence_is_cut(void)
{
    wh_sock_watch *w = NULL;
    int sv[2], slot;
    apr_time_t began;

    CU_ASSERT_PTR_NULL_FATAL(wh_sock_watch_create(P(), 1, &w));
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    began = apr_time_now();
    slot = wh_sock_watch_begin(w, sv[0], apr_time_from_msec(200));
    CU_ASSERT_FATAL(slot >= 0);
    /* the far end never answers: the read ends only because it is cut */
    CU_ASSERT_EQUAL(wait_for_answer(sv[0]), 0);
    CU_ASSERT(apr_time_now() - began >= apr_time_from_msec(200));
    CU_ASSERT_EQUAL(wh_sock_watch_renew(w, slot, apr_time_from_sec(5)), 1);
    CU_ASSERT_EQUAL(wh_sock_watch_end(w, slot), 1);
    close(sv[0]);
    close(sv[1]);
}

static void test_renewed_and_ended_in_time(void)
{
    wh_sock_watch *w = NULL;
    int sv[2], slot;
    char c = 'x';

    CU_ASSERT_PTR_NULL_FATAL(wh_sock_watch_create(P(), 2, &w));
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    slot = wh_sock_watch_begin(w, sv[0], apr_time_from_msec(600));
    CU_ASSERT_FATAL(slot >= 0);
    /* each answer comes within its own wait, though all of them take
     * longer than one: renewed, never cut */
    for (int i = 0; i < 4; i++) {
        apr_sleep(apr_time_from_msec(200));
        CU_ASSERT_EQUAL(send(sv[1], &c, 1, 0), 1);
        CU_ASSERT_EQUAL(wait_for_answer(sv[0]), 1);
        CU_ASSERT_EQUAL(wh_sock_watch_renew(w, slot, apr_time_from_msec(600)), 0);
    }
    CU_ASSERT_EQUAL(wh_sock_watch_end(w, slot), 0);
    /* ended: its deadline passes, the socket stays whole */
    apr_sleep(apr_time_from_msec(700));
    CU_ASSERT_EQUAL(send(sv[1], &c, 1, 0), 1);
    CU_ASSERT_EQUAL(wait_for_answer(sv[0]), 1);
    close(sv[0]);
    close(sv[1]);
}

static void test_what_cannot_be_watched(void)
{
    wh_sock_watch *w = NULL;
    int sv[2], slot;

    CU_ASSERT_PTR_NULL_FATAL(wh_sock_watch_create(P(), 1, &w));
    CU_ASSERT_EQUAL(wh_sock_watch_begin(w, -1, apr_time_from_sec(1)), -1);
    CU_ASSERT_EQUAL(wh_sock_watch_begin(NULL, 0, apr_time_from_sec(1)), -1);
    CU_ASSERT_EQUAL(wh_sock_watch_end(w, -1), 0);
    CU_ASSERT_EQUAL(wh_sock_watch_renew(w, -1, apr_time_from_sec(1)), 0);
    CU_ASSERT_EQUAL(wh_sock_watch_end(NULL, 0), 0);
    /* every slot taken */
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    slot = wh_sock_watch_begin(w, sv[0], apr_time_from_sec(10));
    CU_ASSERT(slot >= 0);
    CU_ASSERT_EQUAL(wh_sock_watch_begin(w, sv[1], apr_time_from_sec(10)), -1);
    CU_ASSERT_EQUAL(wh_sock_watch_end(w, slot), 0);
    close(sv[0]);
    close(sv[1]);
}

/* PQsocket is never asked of another driver's handle (it would read an
 * sqlite3 as a PGconn). */
static void test_pq_socket_only_for_pgsql(void)
{
    const apr_dbd_driver_t *drv = NULL;
    apr_dbd_t *h = NULL;
    const char *err = NULL;

    CU_ASSERT_EQUAL(wh_sock_watch_dbd_socket(NULL, NULL), -1);
    if (apr_dbd_init(P()) != APR_SUCCESS || apr_dbd_get_driver(P(), "sqlite3", &drv) != APR_SUCCESS) {
        WH_SKIP("apr_dbd's sqlite3 driver is not installed");
    }
    CU_ASSERT_EQUAL_FATAL(apr_dbd_open_ex(drv, P(), ":memory:", &h, &err), APR_SUCCESS);
    CU_ASSERT_EQUAL(wh_sock_watch_dbd_socket(drv, h), -1);
    apr_dbd_close(drv, h);
}

/* A connection is bounded: connect_timeout is added to a conninfo
 * without one, in either form libpq takes. */
static void test_pq_connect_timeout(void)
{
    apr_interval_time_t t = apr_time_from_sec(3);

    ASSERT_STR(wh_sock_watch_pq_conninfo(P(), "host=db dbname=x", t),
               "host=db dbname=x connect_timeout=3");
    ASSERT_STR(wh_sock_watch_pq_conninfo(P(), "host=db connect_timeout=10", t),
               "host=db connect_timeout=10");
    ASSERT_STR(wh_sock_watch_pq_conninfo(P(), "postgresql://u@db/x", t),
               "postgresql://u@db/x?connect_timeout=3");
    ASSERT_STR(wh_sock_watch_pq_conninfo(P(), "postgres://db/x?sslmode=require", t),
               "postgres://db/x?sslmode=require&connect_timeout=3");
    /* libpq's least is 2 s */
    ASSERT_STR(wh_sock_watch_pq_conninfo(P(), "dbname=x", apr_time_from_msec(500)),
               "dbname=x connect_timeout=2");
    CU_ASSERT_PTR_NULL(wh_sock_watch_pq_conninfo(P(), NULL, t));
}

static const wh_test_case cases[] = {
    { "a wait a silent server outlives is cut", test_silence_is_cut },
    { "renewed or ended in time: never cut", test_renewed_and_ended_in_time },
    { "what cannot be watched says so", test_what_cannot_be_watched },
    { "libpq's socket only of the pgsql driver", test_pq_socket_only_for_pgsql },
    { "pgsql: a connection is bounded by connect_timeout", test_pq_connect_timeout },
    { NULL, NULL }
};

WH_TEST_SUITE(sock_watch, cases)
