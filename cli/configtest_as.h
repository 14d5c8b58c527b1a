#ifndef WH_CLI_CONFIGTEST_AS_H
#define WH_CLI_CONFIGTEST_AS_H
/* wirehook configtest as the user that will read the files: run as root,
 * configtest reads everything, but the web server's children, the CGI and
 * the forwarder run as the server's User (Debian: www-data). */
#include <apr_pools.h>
#include <apr_tables.h>
#include "verify/wh_config.h"

/* The user to check as when none is given: as root, $APACHE_RUN_USER
 * (apache2's envvars) when set, else www-data when that user exists;
 * NULL when neither (and as anyone else: that user himself, NULL). */
const char *wh_configtest_default_user(void);

/* Checks, in a child switched to user (initgroups, setgid, setuid; or as
 * this process's own user when user is NULL), that it can read the
 * configuration file and the files it names, and write the inbox.
 * Appends "warning" lines (files the module reads as root at start, so a
 * failure costs only the re-reads and the CGI) and "error" lines (the
 * inbox, which every writer opens as that user). Returns 0, or -1 with
 * *why when the check itself could not run. */
int wh_configtest_as(apr_pool_t *p, const wh_config *cfg, const char *config_path,
                     const char *user, apr_array_header_t *warnings,
                     apr_array_header_t *errors, const char **why);

#endif
