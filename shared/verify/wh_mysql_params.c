/* apr_dbd's mysql parameters (wh_mysql_params.h). The driver splits the
 * string at any of " \t\r\n;|," and reads "key=value" pairs whose key is
 * letters; this reads the same tokens, but takes only whole keys it knows,
 * each once. */
#include "wh_mysql_params.h"
#include "wh_parse.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

/* apr_dbd_mysql.c's delimiters: a value ends at the first of them. */
#define WH_MYSQL_DELIMS " \t\r\n;|,"

static const char *refused(apr_pool_t *p, const char *key)
{
    if (!strcasecmp(key, "reconnect") || !strcasecmp(key, "fldsz") ||
        !strcasecmp(key, "flags"))
        return apr_psprintf(p, "mysql parameter '%s' is set by wirehook itself", key);
    return NULL;
}

const char *wh_parse_mysql_params(apr_pool_t *p, const char *arg, wh_mysql_params *out)
{
    const char *s = arg, *err;
    int seen_port = 0, seen_timeout = 0;

    memset(out, 0, sizeof(*out));
    if (!arg || !*arg)
        return "mysql parameters are empty (they need at least dbname=)";
    for (;;) {
        const char *k, *v;
        char *key, *value;
        const char **slot = NULL;
        apr_size_t kl, vl;

        s += strspn(s, WH_MYSQL_DELIMS);
        if (!*s)
            break;
        for (k = s; apr_isalpha(*s); s++)
            ;
        kl = (apr_size_t)(s - k);
        if (kl == 0 || *s != '=')
            return "mysql parameters must be key=value pairs separated by spaces "
                   "(a value cannot hold a space, a comma, a semicolon or '|')";
        v = ++s;
        vl = strcspn(s, WH_MYSQL_DELIMS);
        s += vl;
        key = apr_pstrmemdup(p, k, kl);
        value = apr_pstrmemdup(p, v, vl);
        if ((err = refused(p, key)) != NULL)
            return err;
        if (vl == 0)
            return apr_psprintf(p, "mysql parameter '%s' has no value", key);
        if (!strcasecmp(key, "host"))
            slot = &out->host;
        else if (!strcasecmp(key, "sock"))
            slot = &out->sock;
        else if (!strcasecmp(key, "user"))
            slot = &out->user;
        else if (!strcasecmp(key, "pass"))
            slot = &out->pass;
        else if (!strcasecmp(key, "dbname"))
            slot = &out->dbname;
        else if (!strcasecmp(key, "group"))
            slot = &out->group;
        else if (!strcasecmp(key, "port")) {
            if (seen_port++)
                return "mysql parameter 'port' is given twice";
            if (wh_parse_int(p, value, 1, 65535, &out->port) != NULL)
                return "mysql parameter 'port' must be a number from 1 to 65535";
            continue;
        }
        else if (!strcasecmp(key, "connecttimeout")) {
            if (seen_timeout++)
                return "mysql parameter 'connecttimeout' is given twice";
            if (wh_parse_int(p, value, 1, WH_MYSQL_CONNECT_TIMEOUT_MAX,
                             &out->connect_timeout) != NULL)
                return apr_psprintf(p, "mysql parameter 'connecttimeout' must be "
                                    "seconds from 1 to %d", WH_MYSQL_CONNECT_TIMEOUT_MAX);
            continue;
        }
        else
            return apr_psprintf(p, "unknown mysql parameter '%.32s' (known: "
                                WH_MYSQL_PARAM_KEYS ")", key);
        if (*slot)
            return apr_psprintf(p, "mysql parameter '%s' is given twice", key);
        *slot = value;
    }
    if (!out->dbname)
        return "mysql parameters need dbname= (the database the inbox's tables go in)";
    return NULL;
}
