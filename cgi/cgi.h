#ifndef WH_CGI_H
#define WH_CGI_H
/* wirehook.cgi: the inbox endpoint as a CGI program, for servers where the
 * module is not loaded. One request per process; the answer is the same
 * as the module's `SetHandler wirehook` (both call wh_endpoint.c). */
#include <apr_pools.h>
#include "verify/wh_config.h"
#include "verify/wh_config_locate.h"
#include "verify/wh_log.h"
#include "verify/wh_response.h"
#include "verify/wh_verify.h"

/* The CGI's log sink: one line per message on stderr, which httpd copies
 * into its error log, at CGILogLevel and above (warn until the
 * configuration is read). */
extern const wh_logger wh_cgi_logger;
void wh_cgi_set_log_level(wh_log_level level);

/* After the answer: a 401 for want of credentials on a request that
 * brought no Authorization logs why httpd may have withheld it
 * (CGIPassAuth). */
void wh_cgi_auth_hint(const wh_config *cfg, const wh_request *req,
                      const wh_response *res);

/* The script's path, which names its configuration file
 * (verify/wh_config_locate.h): SCRIPT_FILENAME, the file httpd mapped the
 * request to, else argv0; relative to the working directory made
 * absolute. Never from PATH_INFO, the query string or a header. NULL when
 * neither is known. */
const char *wh_cgi_script_path(apr_pool_t *p, const char *argv0);

/* Builds the configuration: the file the locating rule finds (*found says
 * where it looked), or none, then every WIREHOOK_<KEY> of the environment
 * overriding its key. Returns NULL or all problems joined with '\n' (for
 * the log only). The self-contained build refuses InboxDriver pgsql. */
const char *wh_cgi_load_config(apr_pool_t *p, char **envp, const char *script,
                               wh_config **out, wh_config_found *found);

/* A warning when others than its owner can write the configuration file
 * (it names the secret files and the inbox), or with read_too others can
 * read it (where the configuration is the account's own: --configtest),
 * or NULL. */
const char *wh_cgi_config_file_warning(apr_pool_t *p, const char *path,
                                       int read_too);

/* From a shell, never under httpd: --version, --configtest, --help
 * (argv[1]). Returns the exit status. */
int wh_cgi_shell(apr_pool_t *p, int argc, const char *const *argv);

/* What the program carries or links, one line each ("OpenSSL 3.0.x ..."),
 * for --version. */
const char *wh_cgi_versions(apr_pool_t *p);
/* The Debian packages the self-contained build was made from
 * ("libssl-dev=3.0.x ..."), or NULL (dynamic). */
const char *wh_cgi_built_from(void);

/* Fills req (method, url, headers, now) from the CGI environment; the body
 * is read separately. */
void wh_cgi_request(apr_pool_t *p, const wh_config *cfg, wh_request *req);

/* Reads the request body from stdin: exactly CONTENT_LENGTH bytes when the
 * server gave one (already checked against MaxBodySize), else until EOF
 * with MaxBodySize as the budget (req->body_overflow set past it).
 * Returns NULL or why the body could not be read (answer 400). */
const char *wh_cgi_read_body(apr_pool_t *p, const wh_config *cfg, wh_request *req);

/* Reads and discards what is left of the request body (at most a few
 * MiB). Under mod_cgid stdin and stdout are one socket: exiting with
 * unread input makes it reset, and httpd loses the answer already written
 * (the client sees a broken response instead of, say, a clean 413). */
void wh_cgi_drain_stdin(void);

/* Writes the whole CGI answer to stdout: Status line, Content-Type,
 * WWW-Authenticate/Allow when set, blank line, body. Returns 0 or -1. */
int wh_cgi_write(const wh_response *res);

/* The console, under PATH_INFO /console (cgi_console.c). */
#define WH_CGI_CONSOLE "/console"
#include "inbox/wh_inbox.h"
/* 1 when PATH_INFO names the console. */
int wh_cgi_console_path(const char *path_info);
/* Answers a console request (Basic auth against ConsoleOperators and
 * ConsoleReaders first); get(ctx) opens the inbox. 0 or -1. */
int wh_cgi_console(apr_pool_t *p, const wh_config *cfg, const char *path_info,
                   wh_inbox *(*get)(void *), void *ctx);

#endif
