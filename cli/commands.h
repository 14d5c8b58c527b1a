#ifndef WH_CLI_COMMANDS_H
#define WH_CLI_COMMANDS_H
#include <apr_pools.h>

/* Each subcommand gets argv starting at its own name. Exit codes: 0 ok,
 * 1 the thing checked is bad / the operation failed, 2 usage error. */
int wh_cmd_sign(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_check(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_configtest(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_send(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_pull(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_forward(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_inbox(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_replay(int argc, const char *const *argv, apr_pool_t *p);
int wh_cmd_probe(int argc, const char *const *argv, apr_pool_t *p);

#endif
