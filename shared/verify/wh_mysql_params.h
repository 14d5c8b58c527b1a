#ifndef WH_MYSQL_PARAMS_H
#define WH_MYSQL_PARAMS_H
/* apr_dbd's mysql parameters ("host=127.0.0.1 port=3306 user=wirehook
 * pass=... dbname=wirehook"), read the way the driver reads them, so that
 * a misspelt key is an error when the configuration is read rather than a
 * setting the driver silently ignores (it matches keys by prefix and skips
 * what it does not know: "password=" would connect without one). */
#include <apr_pools.h>

/* The keys a user may give. The driver's own "reconnect", "fldsz" and
 * "flags" are wirehook's to set: an automatic reconnect would drop the
 * session's settings and an open transaction unseen, and CLIENT_FOUND_ROWS
 * would count a duplicate as a row stored. */
#define WH_MYSQL_PARAM_KEYS "host, port, sock, user, pass, dbname, group, connecttimeout"

/* connecttimeout's bounds (seconds), and what an inbox waits without one. */
#define WH_MYSQL_CONNECT_TIMEOUT_MAX 300
#define WH_MYSQL_CONNECT_TIMEOUT_DEFAULT 5

typedef struct {
    const char *host;        /* NULL: the driver's default (localhost's socket) */
    int port;                /* 0: not given (3306) */
    const char *sock;
    const char *user;
    const char *pass;        /* a secret: never logged, never in a message */
    const char *dbname;      /* required */
    const char *group;       /* an option-file group (TLS settings, ...) */
    int connect_timeout;     /* seconds; 0: not given */
} wh_mysql_params;

/* Parses arg into *out (the project's parser shape). The message states
 * the rule and names the key, never a value. */
const char *wh_parse_mysql_params(apr_pool_t *p, const char *arg, wh_mysql_params *out);

#endif
