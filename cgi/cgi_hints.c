/* Hints for the administrator in the error log (cgi.h). */
#include "cgi.h"

/* httpd hides the Authorization header from CGI programs unless
 * CGIPassAuth is on, and the CGI cannot tell that from a client that sent
 * none. A request carrying the signature header is the bank's, which
 * always authenticates: its missing Authorization is most likely httpd's
 * doing, worth a warning. Anything else (a scanner, a browser's first
 * try) is logged at info only, so that junk from the internet does not
 * fill the log with advice. One line per request at most. */
void wh_cgi_auth_hint(const wh_cgi_io *io, const wh_config *cfg,
                      const wh_request *req, const wh_response *res)
{
    const char *sig;

    if (!res || res->status != 401 || wh_cgi_getenv(io, "HTTP_AUTHORIZATION"))
        return;
    sig = req && req->header && cfg
          ? req->header(req->header_ctx, cfg->signature_header) : NULL;
    wh_logf(&wh_cgi_logger, sig ? WH_LOG_WARN : WH_LOG_INFO,
            "auth: no Authorization header reached wirehook.cgi%s: httpd "
            "passes it to CGI programs only with \"CGIPassAuth On\" in the "
            "<Location> or <Directory> of this script%s (answered 401 "
            "auth_required)", sig ? " although the request is signed" : "",
            io->fastcgi ? " (or, for mod_fcgid, \"FcgidPassHeader Authorization\")" : "");
}
