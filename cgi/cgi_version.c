/* What wirehook.cgi carries (CGI_LINK=static) or links (dynamic), for
 * --version: the running versions, as the libraries report them, and for
 * the self-contained build the Debian packages it was built from
 * (WH_CGI_BUILT_FROM, set by the Makefile), so that a security
 * announcement can be checked against it. */
#include "cgi.h"
#include "inbox/wh_sqlite_api.h"
#include <apr_dbd.h>
#include <apr_strings.h>
#include <apr_version.h>
#include <apu_version.h>
#include <gnu/libc-version.h>
#include <json-c/json_c_version.h>
#include <openssl/crypto.h>

#ifndef WH_CGI_BUILT_FROM
#define WH_CGI_BUILT_FROM ""
#endif

/* SQLite is the sqlite3 driver's: built in, or loaded by apr_dbd. */
static const char *sqlite_version(apr_pool_t *p)
{
    const apr_dbd_driver_t *driver;
    const wh_sqlite_api *api;

    if (apr_dbd_init(p) != APR_SUCCESS
        || apr_dbd_get_driver(p, "sqlite3", &driver) != APR_SUCCESS)
        return "none (apr_dbd has no sqlite3 driver)";
    api = wh_sqlite_api_get();
    return api->libversion ? api->libversion() : "unknown";
}

const char *wh_cgi_versions(apr_pool_t *p)
{
    return apr_psprintf(
        p, "%s\njson-c %s\nAPR %s\nAPR-util %s\nSQLite %s\nglibc %s\n",
        OpenSSL_version(OPENSSL_VERSION), json_c_version(),
        apr_version_string(), apu_version_string(), sqlite_version(p),
        gnu_get_libc_version());
}

const char *wh_cgi_built_from(void)
{
    return *WH_CGI_BUILT_FROM ? WH_CGI_BUILT_FROM : NULL;
}
