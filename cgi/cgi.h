#ifndef WH_CGI_H
#define WH_CGI_H
/* wirehook.cgi: the inbox endpoint as a CGI program, for servers where the
 * module is not loaded. One request per process under mod_cgi and
 * mod_cgid; under a FastCGI server (mod_fcgid) one process serves many
 * (cgi_fastcgi.c). The answer is the same as the module's `SetHandler
 * wirehook` (both call wh_endpoint.c). */
#include <apr_pools.h>
#include "verify/wh_config.h"
#include "verify/wh_file_id.h"
#include "inbox/wh_inbox.h"
#include "verify/wh_config_locate.h"
#include "verify/wh_log.h"
#include "verify/wh_response.h"
#include "verify/wh_verify.h"

/* Where one request comes from and where its answer goes: for plain CGI
 * the process's environment, stdin and stdout (wh_cgi_stdio); under
 * FastCGI one request's parameters and streams (cgi_fastcgi.c). Every
 * part of a request is read through it, never from the process, so that
 * nothing of one FastCGI request reaches the next. */
typedef struct {
    char **envp;              /* the request's variables (RFC 3875) */
    /* Up to n bytes of the request body: the count, 0 at its end, -1 on
     * an error. */
    apr_ssize_t (*read)(void *ctx, char *buf, apr_size_t n);
    /* All n bytes to the answer: 0, or -1. */
    int (*write)(void *ctx, const char *buf, apr_size_t n);
    /* One log line, newline included, to httpd's error log. */
    void (*log)(void *ctx, const char *line, apr_size_t n);
    int fastcgi;              /* 1 under a FastCGI server */
    void *ctx;
} wh_cgi_io;

/* Plain CGI's: environ, stdin, stdout, stderr. */
wh_cgi_io wh_cgi_stdio(void);

/* The request's variable name, as getenv would (NULL when unset). */
const char *wh_cgi_getenv(const wh_cgi_io *io, const char *name);
/* The same, with an empty value taken as unset. */
const char *wh_cgi_env(const wh_cgi_io *io, const char *name);

/* The CGI's log sink: one line per message, which httpd copies into its
 * error log, at CGILogLevel and above (warn until the configuration is
 * read). Lines go to io's log while a request is served (wh_cgi_log_to),
 * else to stderr. */
extern const wh_logger wh_cgi_logger;
/* A line that is logged whatever CGILogLevel says (level "notice"): an
 * operator's action in the console, with the operator's name. */
void wh_cgi_audit(const char *msg);
void wh_cgi_set_log_level(wh_log_level level);
void wh_cgi_log_to(const wh_cgi_io *io);

/* After the answer: a 401 for want of credentials on a request that
 * brought no Authorization logs why httpd may have withheld it
 * (CGIPassAuth). */
void wh_cgi_auth_hint(const wh_cgi_io *io, const wh_config *cfg,
                      const wh_request *req, const wh_response *res);

/* The script's path, which names its configuration file
 * (verify/wh_config_locate.h): SCRIPT_FILENAME, the file httpd mapped the
 * request to, else argv0; relative to the working directory made
 * absolute. Never from PATH_INFO, the query string or a header. NULL when
 * neither is known. */
const char *wh_cgi_script_path(apr_pool_t *p, const wh_cgi_io *io,
                               const char *argv0);

/* One file a configuration was built from, as it was just before it was
 * read (path NULL: none). */
typedef struct {
    const char *path;
    wh_file_id id;
} wh_cgi_file;
/* The files a configuration was read from, which a process serving many
 * requests watches: the configuration file, ConsoleReaders and
 * ConsoleOperators (the signing secrets and BasicAuthFile are re-read
 * by themselves: verify/wh_creds.h). */
typedef struct {
    wh_cgi_file conf, readers, operators;
} wh_cgi_config_files;

/* Where the locating rule finds the configuration file for this script
 * and environment (WIREHOOK_CONFIG of envp). */
void wh_cgi_locate_config(apr_pool_t *p, char **envp, const char *script,
                          wh_config_found *found);

/* Builds the configuration: the file the locating rule finds (*found says
 * where it looked), or none, then every WIREHOOK_<KEY> of the environment
 * overriding its key. Returns NULL or all problems joined with '\n' (for
 * the log only). The self-contained build refuses InboxDriver pgsql and
 * mysql.
 * files (may be NULL) receives what was read. */
const char *wh_cgi_load_config(apr_pool_t *p, char **envp, const char *script,
                               wh_config **out, wh_config_found *found,
                               wh_cgi_config_files *files);
/* 1 when a file of files is no longer the version that was read. */
int wh_cgi_config_files_changed(apr_pool_t *p, const wh_cgi_config_files *files);

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

/* Fills req (method, url, headers, now) from the request's variables;
 * the body is read separately. */
void wh_cgi_request(apr_pool_t *p, const wh_cgi_io *io, const wh_config *cfg,
                    wh_request *req);

/* Reads the request body: exactly CONTENT_LENGTH bytes when the server
 * gave one (already checked against MaxBodySize), else until its end
 * with MaxBodySize as the budget (req->body_overflow set past it).
 * Returns NULL or why the body could not be read (answer 400). */
const char *wh_cgi_read_body(apr_pool_t *p, const wh_cgi_io *io,
                             const wh_config *cfg, wh_request *req);

/* Reads and discards what is left of the request body (at most a few
 * MiB). Under mod_cgid stdin and stdout are one socket: exiting with
 * unread input makes it reset, and httpd loses the answer already written
 * (the client sees a broken response instead of, say, a clean 413). A
 * FastCGI server sends the whole body before it reads the answer. */
void wh_cgi_drain(const wh_cgi_io *io);

/* Writes the whole CGI answer: Status line, Content-Type,
 * WWW-Authenticate/Allow when set, blank line, body. Returns 0 or -1. */
int wh_cgi_write(apr_pool_t *p, const wh_cgi_io *io, const wh_response *res);
/* Writes head (the header block) and body as one answer: 0 or -1. */
int wh_cgi_send(apr_pool_t *p, const wh_cgi_io *io, const char *head,
                const char *body, apr_size_t body_len);

/* The inbox of one configuration, opened on first need and, under
 * FastCGI, kept for the next requests (cgi_inbox.c); with the CGI's auth
 * cache store. */
typedef struct wh_cgi_inbox wh_cgi_inbox;
/* In p, which the connection lives as long as; attaches the auth cache's
 * store to vf. */
wh_cgi_inbox *wh_cgi_inbox_create(apr_pool_t *p, const wh_config *cfg,
                                  wh_verifier *vf);
/* Before each request: what it allocates lives in rp. */
void wh_cgi_inbox_begin(wh_cgi_inbox *ci, apr_pool_t *rp);
/* The inbox for a request that has passed Basic auth (ctx is the
 * wh_cgi_inbox), or NULL when it cannot be opened (the answer is 503). */
wh_inbox *wh_cgi_inbox_after_auth(void *ctx);
/* After the answer: the auth cache's deferred write. */
void wh_cgi_inbox_end(wh_cgi_inbox *ci, const wh_response *res);
/* The connection, or NULL when none is open. */
wh_inbox *wh_cgi_inbox_connection(const wh_cgi_inbox *ci);

/* One configuration and what is built from it: the verifier, the inbox.
 * A plain CGI process loads one for its request; a FastCGI process keeps
 * it for the next requests while its environment and files stay the
 * same (cgi_site.c). */
typedef struct {
    apr_pool_t *pool;
    const char *key;          /* script, SCRIPT_NAME, WIREHOOK_* variables */
    wh_config *cfg;
    wh_config_found found;
    wh_cgi_config_files files;
    wh_verifier *vf;
    wh_cgi_inbox *inbox;
} wh_cgi_site;

/* Loads the site of this request into a new pool under parent (lasting:
 * a FastCGI process's, whose verifier re-reads changed credentials
 * files), or into p itself (a one-request process: a one-slot auth
 * cache, nothing watched). Logs the files' permission warnings. NULL, or
 * the configuration's problems (for the log only; nothing is kept). */
const char *wh_cgi_site_load(apr_pool_t *p, apr_pool_t *parent, const wh_cgi_io *io,
                             const char *argv0, int lasting, wh_cgi_site **out);
/* 1 while site still is what this request's environment and the files
 * make (rp: the request's pool); 0 when it must be loaded again. */
int wh_cgi_site_current(const wh_cgi_site *site, apr_pool_t *rp,
                        const wh_cgi_io *io, const char *argv0);

/* A FastCGI server started the process: its fd 0 is a listening socket
 * (the FastCGI specification's test: getpeername fails with ENOTCONN). */
int wh_cgi_fastcgi_listening(void);
/* Serves FastCGI requests until the server stops the process (SIGTERM,
 * SIGUSR1: the request in hand is finished first) or closes the socket:
 * serve(ctx, io, rp) answers each, rp cleared after each. The exit status. */
int wh_cgi_fastcgi_run(apr_pool_t *p,
                       void (*serve)(void *ctx, const wh_cgi_io *io, apr_pool_t *rp),
                       void *ctx);

/* The console, under PATH_INFO /console (cgi_console.c). */
#define WH_CGI_CONSOLE "/console"
/* 1 when PATH_INFO names the console. */
int wh_cgi_console_path(const char *path_info);
/* Answers a console request (Basic auth against ConsoleOperators and
 * ConsoleReaders first); get(ctx) opens the inbox. 0 or -1. */
int wh_cgi_console(apr_pool_t *p, const wh_cgi_io *io, const wh_config *cfg,
                   const char *path_info, wh_inbox *(*get)(void *), void *ctx);
/* The console's user of this request, checked against ConsoleOperators
 * first, then ConsoleReaders (*op: an operator), or NULL. */
const char *wh_cgi_console_user(apr_pool_t *p, const wh_cgi_io *io,
                                const wh_config *cfg, int *op);

/* The metrics, under PATH_INFO /metrics (cgi_metrics.c). */
#define WH_CGI_METRICS "/metrics"
/* 1 when PATH_INFO names the metrics. */
int wh_cgi_metrics_path(const char *path_info);
/* Answers a scrape (GET or HEAD; a console reader's Basic credentials):
 * the inbox's figures in Prometheus's text format; get(ctx) opens the
 * inbox. 0 or -1. */
int wh_cgi_metrics(apr_pool_t *p, const wh_cgi_io *io, const wh_config *cfg,
                   wh_inbox *(*get)(void *), void *ctx);

#endif
