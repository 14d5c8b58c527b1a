#ifndef WH_SOCK_WATCH_H
#define WH_SOCK_WATCH_H
/* A bound on how long a client waits for a silent server, for clients
 * that cannot bound it themselves. libpq waits for a reply as long as
 * the server is silent, and nothing PostgreSQL or libpq offers ends that
 * wait when the server's process is stopped or its machine frozen:
 * statement_timeout is the server's own clock, and the kernel of a
 * stopped server's machine still acknowledges what libpq sends and
 * answers keepalive probes, so tcp_user_timeout and keepalives never
 * fire. So a thread shuts down (shutdown(2), SHUT_RDWR) the socket of
 * an operation that outlives its deadline; the client's read then ends
 * as on a broken connection, and the caller closes it.
 *
 * Used by the replay store's pool (replay/wh_replay_pool.c) and the
 * inbox's connection (inbox/wh_inbox_conn.c). The thread starts on the
 * first watch (after any fork: a watch begun in a child whose parent had
 * started it starts the child's own) with every signal blocked, and is
 * stopped before the pool the watch lives in goes. A socket is never
 * shut down once its watch has ended: the thread cuts and a watch ends
 * under one lock. */
#include <apr_dbd.h>
#include <apr_pools.h>
#include <apr_time.h>

typedef struct wh_sock_watch wh_sock_watch;

/* A watch of up to nslots sockets at once, living as long as p. NULL, or
 * why not. */
const char *wh_sock_watch_create(apr_pool_t *p, int nslots, wh_sock_watch **out);

/* Watches fd: it is shut down once timeout has passed without
 * wh_sock_watch_renew or wh_sock_watch_end. A slot, or -1 when it cannot
 * be watched (fd < 0, no watch, every slot taken, no thread). */
int wh_sock_watch_begin(wh_sock_watch *w, int fd, apr_interval_time_t timeout);

/* The next wait on slot's socket begins: its deadline is now + timeout.
 * 1 when the socket was shut down already (it stays shut down), else 0. */
int wh_sock_watch_renew(wh_sock_watch *w, int slot, apr_interval_time_t timeout);

/* The watch ends; 1 when the socket was shut down meanwhile. */
int wh_sock_watch_end(wh_sock_watch *w, int slot);

/* The socket of an apr_dbd connection of the pgsql or mysql driver
 * (libpq's PQsocket, the MySQL client's mysql_get_socket, looked up in
 * the library the driver loaded); -1 for another driver, or when the
 * client's function is not found (nothing to watch). */
int wh_sock_watch_dbd_socket(const apr_dbd_driver_t *drv, apr_dbd_t *handle);

/* The conninfo libpq connects with: its connect_timeout (timeout's
 * seconds, at least libpq's 2) added when conninfo has none, so that
 * opening a connection to a silent server is bounded too (a stopped
 * server's kernel accepts the connection; the server never answers). In
 * p; conninfo itself when it names one. */
const char *wh_sock_watch_pq_conninfo(apr_pool_t *p, const char *conninfo,
                                      apr_interval_time_t timeout);

#endif
