/* wirehook.cgi's console: PATH_INFO /console/... (docs/console.md). The
 * CGI cannot rely on httpd's authorization, so it checks Basic
 * credentials itself against its own htpasswd files: ConsoleOperators
 * (read and act) and ConsoleReaders (read). The pages are the core's
 * (shared/console/), the same as the module's. */
#include "cgi.h"
#include "console/wh_console.h"
#include "verify/wh_auth.h"

#include <apr_strings.h>
#include <string.h>

#define WH_CGI_FORM_READ 8192

int wh_cgi_console_path(const char *path_info)
{
    apr_size_t n = sizeof(WH_CGI_CONSOLE) - 1;
    return path_info && strncmp(path_info, WH_CGI_CONSOLE, n) == 0
           && (path_info[n] == '\0' || path_info[n] == '/');
}

/* The user and whether they may act: operators first (the table their
 * name is in decides which hash is checked; an unknown name pays the
 * same check). NULL: not authenticated. */
const char *wh_cgi_console_user(apr_pool_t *p, const wh_cgi_io *io,
                                const wh_config *cfg, int *op)
{
    const char *hdr = wh_cgi_env(io, "HTTP_AUTHORIZATION"), *user = NULL, *pw = NULL, *who = NULL;
    apr_hash_t *table;

    *op = 0;
    if (!hdr || wh_auth_parse_basic(p, hdr, &user, &pw) != NULL)
        return NULL;
    *op = cfg->console_operators
          && apr_hash_get(cfg->console_operators, user, APR_HASH_KEY_STRING) != NULL;
    table = *op ? cfg->console_operators
                : cfg->console_readers ? cfg->console_readers : cfg->console_operators;
    if (wh_auth_check(p, table, NULL, hdr, apr_time_now(), &who) != WH_AUTH_OK) {
        *op = 0;
        return NULL;
    }
    return who;
}

/* Whether Host names this server as httpd told the CGI: SERVER_NAME
 * (ServerName under UseCanonicalName On; the Host itself under httpd's
 * default Off, when only ConsoleOrigin tells more) or its address; no
 * Host at all names nothing another site could rebind. */
static int host_known(apr_pool_t *p, const wh_cgi_io *io)
{
    const char *host = wh_cgi_env(io, "HTTP_HOST"), *name = wh_cgi_env(io, "SERVER_NAME");
    const char *addr = wh_cgi_env(io, "SERVER_ADDR"), *colon;
    apr_size_t n;

    if (!host)
        return 1;
    /* the name without its port ("[::1]:8080", "example.com:8080") */
    colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
    n = colon ? (apr_size_t)(colon - host) + (host[0] == '[') : strlen(host);
    host = apr_pstrmemdup(p, host, n);
    return (name && strcasecmp(host, name) == 0) || (addr && strcmp(host, addr) == 0)
           || (addr && host[0] == '[' && strlen(host) == strlen(addr) + 2
               && strncmp(host + 1, addr, strlen(addr)) == 0);
}

static void read_form(apr_pool_t *p, const wh_cgi_io *io, const char **body,
                      apr_size_t *len)
{
    char *buf = apr_palloc(p, WH_CGI_FORM_READ + 2);
    apr_size_t got = 0;
    apr_ssize_t n;

    while (got <= WH_CGI_FORM_READ
           && (n = io->read(io->ctx, buf + got, WH_CGI_FORM_READ + 1 - got)) > 0)
        got += (apr_size_t)n;
    buf[got] = '\0';
    *body = buf;
    *len = got;
}

static int write_answer(apr_pool_t *p, const wh_cgi_io *io,
                        const wh_console_response *res)
{
    apr_array_header_t *head = apr_array_make(p, 8, sizeof(const char *));

    APR_ARRAY_PUSH(head, const char *) =
        apr_psprintf(p, "Status: %d %s\r\n", res->status, wh_status_reason(res->status));
    if (res->content_type && res->status != 304)
        APR_ARRAY_PUSH(head, const char *) =
            apr_psprintf(p, "Content-Type: %s\r\n", res->content_type);
    for (int i = 0; i < res->headers->nelts; i++) {
        const wh_console_header *h = &APR_ARRAY_IDX(res->headers, i, wh_console_header);
        if (!strpbrk(h->value, "\r\n"))
            APR_ARRAY_PUSH(head, const char *) =
                apr_psprintf(p, "%s: %s\r\n", h->name, h->value);
    }
    APR_ARRAY_PUSH(head, const char *) = "\r\n";
    return wh_cgi_send(p, io, apr_array_pstrcat(p, head, '\0'), res->body,
                       res->status != 304 ? res->body_len : 0);
}

int wh_cgi_console(apr_pool_t *p, const wh_cgi_io *io, const wh_config *cfg,
                   const char *path_info, wh_inbox *(*get)(void *), void *ctx)
{
    wh_console *c = wh_console_create(p, cfg);
    const char *script = wh_cgi_getenv(io, "SCRIPT_NAME");
    const char *sub = path_info + sizeof(WH_CGI_CONSOLE) - 1;
    const char *method = wh_cgi_getenv(io, "REQUEST_METHOD");
    wh_console_request req;
    wh_console_response out;
    wh_console_host host;
    int op = 0;

    memset(&req, 0, sizeof(req));
    req.method = method;
    req.base = apr_pstrcat(p, script ? script : "", WH_CGI_CONSOLE, NULL);
    req.sub_path = sub;
    req.query = wh_cgi_getenv(io, "QUERY_STRING");
    req.scheme = wh_cgi_env(io, "REQUEST_SCHEME");
    if (!req.scheme)
        req.scheme = wh_cgi_env(io, "HTTPS") && strcasecmp(wh_cgi_env(io, "HTTPS"), "on") == 0
                     ? "https" : "http";
    req.host_header = wh_cgi_env(io, "HTTP_HOST");
    req.host_known = host_known(p, io);
    req.origin = wh_cgi_env(io, "HTTP_ORIGIN");
    req.fetch_site = wh_cgi_env(io, "HTTP_SEC_FETCH_SITE");
    req.cookie = wh_cgi_env(io, "HTTP_COOKIE");
    req.if_none_match = wh_cgi_env(io, "HTTP_IF_NONE_MATCH");
    req.content_type = wh_cgi_env(io, "CONTENT_TYPE");
    req.now = apr_time_now();
    memset(&host, 0, sizeof(host));
    host.host = "wirehook.cgi";
    host.no_counters = io->fastcgi
        ? "wirehook.cgi keeps no counters: the FastCGI server starts and stops its "
          "processes as it sees fit, with no memory shared between them (the web "
          "server's access log counts its answers)."
        : "wirehook.cgi keeps no counters: each request is a process of its "
          "own, with no memory shared between them (the web server's access "
          "log counts its answers).";
    req.host = &host;

    /* the stylesheet and the icon are the same for everyone */
    if (strncmp(sub, "/assets/", 8) != 0) {
        wh_response res;
        if (!cfg->console_readers && !cfg->console_operators) {
            wh_response_error(p, 404, WH_CODE_NOT_FOUND, "no console here: ConsoleReaders "
                              "and ConsoleOperators are not set", &res);
            return wh_cgi_write(p, io, &res);
        }
        if ((req.user = wh_cgi_console_user(p, io, cfg, &op)) == NULL) {
            wh_response_error(p, 401, WH_CODE_AUTH_REQUIRED,
                              "the console needs a reader's or an operator's login", &res);
            res.www_authenticate = apr_psprintf(p, "Basic realm=\"%s console\", charset=\"UTF-8\"",
                                                cfg->auth_realm);
            return wh_cgi_write(p, io, &res);
        }
        req.may_act = op;
    }
    if (method && strcmp(method, "POST") == 0)
        read_form(p, io, &req.body, &req.body_len);
    wh_console_handle(c, get, ctx, &req, p, &out);
    /* an action taken names its operator whatever CGILogLevel says;
     * a refusal is a warning */
    if (out.audit && out.audit_level == WH_LOG_INFO)
        wh_cgi_audit(out.audit);
    else if (out.audit)
        wh_logf(&wh_cgi_logger, out.audit_level, "%s", out.audit);
    return write_answer(p, io, &out);
}
