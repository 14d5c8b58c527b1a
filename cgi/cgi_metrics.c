/* wirehook.cgi's metrics: PATH_INFO /metrics, in Prometheus's text format
 * (docs/monitoring.md). The figures the inbox holds (its size, the
 * quarantine, the forwarder's backlog, lag, attempts and dead letters),
 * read as the module reads them (wh_metrics_read_inbox); no answer
 * counters and no latency, which a process per request cannot keep.
 * The CGI cannot rely on httpd's authorization: a scrape logs in as a
 * reader of the console (ConsoleReaders, or ConsoleOperators), checked as
 * the console checks it; without either key there are no metrics. */
#include "cgi.h"
#include "metrics/wh_metrics.h"
#include "verify/wh_version.h"

#include <apr_strings.h>
#include <string.h>

int wh_cgi_metrics_path(const char *path_info)
{
    return path_info && strcmp(path_info, WH_CGI_METRICS) == 0;
}

int wh_cgi_metrics(apr_pool_t *p, const wh_cgi_io *io, const wh_config *cfg,
                   wh_inbox *(*get)(void *), void *ctx)
{
    const char *method = wh_cgi_getenv(io, "REQUEST_METHOD");
    int head = method && strcmp(method, "HEAD") == 0, op = 0;
    wh_response res;
    wh_metrics m;
    wh_metrics_config c;
    const char *text;
    apr_size_t len = 0;

    if (!method || (strcmp(method, "GET") != 0 && !head)) {
        wh_response_error(p, 405, WH_CODE_METHOD_NOT_ALLOWED,
                          "the metrics answer GET and HEAD", &res);
        res.allow = "GET, HEAD";
        return wh_cgi_write(p, io, &res);
    }
    if (!cfg->console_readers && !cfg->console_operators) {
        wh_response_error(p, 404, WH_CODE_NOT_FOUND, "no metrics here: ConsoleReaders "
                          "and ConsoleOperators are not set", &res);
        return wh_cgi_write(p, io, &res);
    }
    if (wh_cgi_console_user(p, io, cfg, &op) == NULL) {
        wh_response_error(p, 401, WH_CODE_AUTH_REQUIRED,
                          "the metrics need a reader's or an operator's login", &res);
        res.www_authenticate = apr_psprintf(p, "Basic realm=\"%s console\", charset=\"UTF-8\"",
                                            cfg->auth_realm);
        return wh_cgi_write(p, io, &res);
    }
    memset(&m, 0, sizeof(m));
    memset(&c, 0, sizeof(c));
    m.version = wh_version();
    c.config = cfg->source ? cfg->source : "-";
    wh_metrics_read_inbox(p, cfg->inbox_params ? get(ctx) : NULL, cfg, apr_time_now(), &c);
    m.configs = &c;
    m.nconfigs = 1;
    text = wh_metrics_render(p, &m, &len);
    return wh_cgi_send(p, io, "Status: 200 OK\r\nContent-Type: " WH_METRICS_CONTENT_TYPE
                       "\r\nCache-Control: no-store\r\n\r\n", text, head ? 0 : len);
}
