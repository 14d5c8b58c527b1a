/* The configuration's sections as httpd will use them, worked out at
 * configuration time (check_config): which <Location> sections apply to
 * a URL, the per-directory configuration they give, and a request with
 * no user to evaluate it with (access checks, SetHandler's expression).
 * The console's and the inbox's checks (wh_mod_console.c,
 * wh_mod_check.c) build on it. */
#include "wh_mod_sections.h"

#include "http_core.h"
#include "http_protocol.h"
#include "http_request.h"
#include <apr_fnmatch.h>
#include <apr_strings.h>

/* Whether a <Location> section applies to uri, as httpd's location walk
 * decides: a regex, a wildcard pattern, or a path prefix ending at a
 * '/' (or at the end of uri). */
int wh_mod_section_matches(const core_dir_config *cd, const char *uri)
{
    apr_size_t n;

    if (cd->r)
        return ap_regexec(cd->r, uri, 0, NULL, 0) == 0;
    if (!cd->d)
        return 0;
    if (cd->d_is_fnmatch)
        return apr_fnmatch(cd->d, uri, APR_FNM_PATHNAME) == APR_SUCCESS;
    n = strlen(cd->d);
    if (strncmp(uri, cd->d, n) != 0)
        return 0;
    return n == 0 || cd->d[n - 1] == '/' || uri[n] == '/' || uri[n] == '\0';
}

/* The per-directory configuration a request for uri gets from the
 * server's defaults and its <Location> sections (not <Directory>, <If>
 * or .htaccess, which need a file or a request). */
ap_conf_vector_t *wh_mod_location_config(apr_pool_t *p, server_rec *s, const char *uri)
{
    core_server_config *sc = ap_get_core_module_config(s->module_config);
    ap_conf_vector_t **sec = (ap_conf_vector_t **)sc->sec_url->elts;
    ap_conf_vector_t *conf = s->lookup_defaults;

    for (int i = 0; i < sc->sec_url->nelts; i++)
        if (wh_mod_section_matches(ap_get_core_module_config(sec[i]), uri))
            conf = ap_merge_per_dir_configs(p, conf, sec[i]);
    return conf;
}

/* A request as httpd would see it before authentication: no user, GET
 * of uri from client address ip. */
request_rec *wh_mod_anonymous_request(apr_pool_t *p, server_rec *s,
                                      ap_conf_vector_t *conf, const char *uri,
                                      const char *ip)
{
    conn_rec *c = apr_pcalloc(p, sizeof(*c));
    request_rec *r = apr_pcalloc(p, sizeof(*r));
    apr_sockaddr_t *sa = NULL;

    if (apr_sockaddr_info_get(&sa, ip, APR_UNSPEC, 80, 0, p) != APR_SUCCESS)
        return NULL;
    c->pool = p;
    c->base_server = s;
    c->client_addr = c->local_addr = sa;
    c->client_ip = c->local_ip = apr_pstrdup(p, ip);
    c->notes = apr_table_make(p, 1);
    c->conn_config = ap_create_conn_config(p);
    c->double_reverse = -1;           /* no DNS at configuration time */
    r->pool = p;
    r->connection = c;
    r->server = s;
    r->per_dir_config = conf;
    r->request_config = ap_create_request_config(p);
    r->method = "GET";
    r->method_number = M_GET;
    r->protocol = "HTTP/1.1";
    r->proto_num = HTTP_VERSION(1, 1);
    r->uri = r->unparsed_uri = apr_pstrdup(p, uri);
    r->the_request = apr_pstrcat(p, "GET ", uri, " HTTP/1.1", NULL);
    r->hostname = s->server_hostname;
    r->useragent_addr = sa;
    r->useragent_ip = c->client_ip;
    r->headers_in = apr_table_make(p, 1);
    r->headers_out = apr_table_make(p, 1);
    r->err_headers_out = apr_table_make(p, 1);
    r->subprocess_env = apr_table_make(p, 1);
    r->notes = apr_table_make(p, 1);
    r->allowed_methods = ap_make_method_list(p, 2);
    r->request_time = apr_time_now();
    apr_uri_parse(p, uri, &r->parsed_uri);
    return r;
}


const char *wh_mod_handler_of(apr_pool_t *p, request_rec *fake)
{
    core_dir_config *cd = ap_get_core_module_config(fake->per_dir_config);
    const char *err = NULL, *h;

    if (cd->expr_handler) {
        h = ap_expr_str_exec(fake, cd->expr_handler, &err);
        return err ? NULL : apr_pstrdup(p, h);
    }
    return cd->handler;
}

