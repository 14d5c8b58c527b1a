#ifndef WH_CLI_UTIL_H
#define WH_CLI_UTIL_H
#include <apr_pools.h>
#include <apr_getopt.h>

/* Reads a whole file ("-" or NULL: stdin) byte for byte, refusing more
 * than max bytes. Returns NULL or an error message. */
const char *wh_cli_read_input(apr_pool_t *p, const char *path, apr_size_t max,
                              char **buf, apr_size_t *len);

/* Prints "usage: wirehook <usage>" to stderr and returns 2. */
int wh_cli_usage(const char *usage);

/* True when argv holds --help or -h. */
int wh_cli_wants_help(int argc, const char *const *argv);

/* apr_getopt_t over argv[0..argc) with interleaved options allowed and a
 * bare "-" (stdin) kept as an operand: read operands from os->argv up to
 * os->argc, not from the caller's argv. */
apr_getopt_t *wh_cli_getopt(apr_pool_t *p, int argc, const char *const *argv,
                            const apr_getopt_option_t *opts);

/* A URL for messages: never its userinfo part (user:password@). */
const char *wh_cli_safe_url(apr_pool_t *p, const char *url);

/* A value from the network for a terminal: control characters (C0, DEL,
 * C1) as \xNN, the characters that show nothing or reorder the text
 * around them (bidirectional controls such as U+202E, zero-width ones)
 * as <U+202E>, a byte that is not UTF-8 as \xNN; NULL stays NULL. */
const char *wh_cli_text(apr_pool_t *p, const char *s);

/* Largest body the CLI reads (sign/check/send): the server side refuses
 * more than MaxBodySize anyway; this only bounds memory. */
#define WH_CLI_MAX_INPUT (64u * 1024u * 1024u)

#endif
