#ifndef WH_MOD_SECTIONS_H
#define WH_MOD_SECTIONS_H
/* httpd's configuration sections at configuration time (check_config). */
#include "wh_mod_config.h"
#include "http_core.h"

/* Whether a <Location> section applies to uri, as httpd's location walk
 * decides. */
int wh_mod_section_matches(const core_dir_config *cd, const char *uri);
/* The per-directory configuration a request for uri gets from s's
 * defaults and its <Location> sections (not <Directory>, <If> or
 * .htaccess, which need a file or a request). */
ap_conf_vector_t *wh_mod_location_config(apr_pool_t *p, server_rec *s, const char *uri);
/* A GET of uri from client address ip with no user, under conf; NULL
 * when ip cannot be parsed. */
request_rec *wh_mod_anonymous_request(apr_pool_t *p, server_rec *s,
                                      ap_conf_vector_t *conf, const char *uri,
                                      const char *ip);
/* The handler fake would get (SetHandler's expression evaluated), or
 * NULL. */
const char *wh_mod_handler_of(apr_pool_t *p, request_rec *fake);

#endif
