/* The rule by which wirehook.cgi finds its configuration file
 * (wh_config_locate.h). */
#include "wh_config_locate.h"
#include <apr_strings.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* The configuration format's own limit for a path (docs/configuration.md). */
#define WH_LOCATE_PATH_MAX 4096
/* A file name's limit on Linux file systems (NAME_MAX). */
#define WH_LOCATE_NAME_MAX 255
#define WH_LOCATE_PREFIX ".ht"
#define WH_LOCATE_SUFFIX ".conf"
#define WH_LOCATE_HOME_DIR "/.wirehook/"
#define WH_RULE_BESIDE "the file beside the script"
#define WH_RULE_HOME "the file in the home directory"

const char *wh_config_script_stem(apr_pool_t *p, const char *script)
{
    const char *base, *dot;
    apr_size_t n;

    if (!script || !*script)
        return NULL;
    base = strrchr(script, '/');
    base = base ? base + 1 : script;
    dot = strrchr(base, '.');
    /* ".cgi" alone has no extension, it is the name */
    n = dot && dot != base ? (apr_size_t)(dot - base) : strlen(base);
    if (n == 0
        || n + strlen(WH_LOCATE_PREFIX WH_LOCATE_SUFFIX) > WH_LOCATE_NAME_MAX)
        return NULL;
    return apr_pstrmemdup(p, base, n);
}

/* NULL when path is there (a file the reader then reports on, whatever
 * it is), else what stat found. Anything but "no such file" counts as
 * there, so that a file that exists but cannot be read is reported, not
 * passed over for the next place. */
static const char *absent(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0)
        return NULL;
    if (errno == ENOENT)
        return "no such file";
    if (errno == ENOTDIR)
        return "its directory is not a directory";
    return NULL;
}

static wh_config_place *add(apr_array_header_t *places, const char *rule,
                            const char *path, const char *why)
{
    wh_config_place *pl = apr_array_push(places);
    pl->rule = rule;
    pl->path = path && strlen(path) <= WH_LOCATE_PATH_MAX ? path : NULL;
    pl->why = path && !pl->path ? "the path is too long" : why;
    return pl;
}

/* The place is the one to use when its file exists. */
static int take(wh_config_found *out, wh_config_place *pl)
{
    if (!pl->path || (pl->why = absent(pl->path)) != NULL)
        return 0;
    out->path = pl->path;
    return 1;
}

void wh_config_locate(apr_pool_t *p, wh_locate_env_fn env, void *env_ctx,
                      const char *script, wh_locate_home_fn home,
                      void *home_ctx, wh_config_found *out)
{
    const char *named = env ? env(env_ctx, WH_CONFIG_ENV) : NULL;
    const char *stem = wh_config_script_stem(p, script), *dir, *why = NULL;
    const char *slash = script ? strrchr(script, '/') : NULL;
    const char *h;

    out->places = apr_array_make(p, 3, sizeof(wh_config_place));
    out->path = NULL;
    out->from_env = 0;

    /* Named: used as it is, as before there were other places; a file that
     * is not there is the reader's error to report. */
    if (named && *named) {
        add(out->places, WH_CONFIG_ENV, named, NULL);
        out->path = named;
        out->from_env = 1;
        return;
    }
    add(out->places, WH_CONFIG_ENV, NULL, "not set");

    if (!stem) {
        why = "the script's name is not known";
        add(out->places, WH_RULE_BESIDE, NULL, why);
        add(out->places, WH_RULE_HOME, NULL, why);
        return;
    }
    dir = slash ? apr_pstrmemdup(p, script, (apr_size_t)(slash - script) + 1)
                : "";
    if (take(out, add(out->places, WH_RULE_BESIDE,
                      apr_pstrcat(p, dir, WH_LOCATE_PREFIX, stem,
                                  WH_LOCATE_SUFFIX, NULL),
                      NULL)))
        return;

    h = home ? home(home_ctx, p, &why) : NULL;
    if (!h) {
        add(out->places, WH_RULE_HOME, NULL, why ? why : "not known");
        return;
    }
    take(out, add(out->places, WH_RULE_HOME,
                  apr_pstrcat(p, h,
                              strcmp(h, "/") == 0 ? WH_LOCATE_HOME_DIR + 1
                                                  : WH_LOCATE_HOME_DIR,
                              stem, WH_LOCATE_SUFFIX, NULL),
                  NULL));
}

const char *wh_config_place_state(const wh_config_place *pl)
{
    if (pl->why)
        return pl->why;
    return strcmp(pl->rule, WH_CONFIG_ENV) == 0 ? "set" : "found";
}

const char *wh_config_locate_report(apr_pool_t *p,
                                    const wh_config_found *found)
{
    const char *out = "";

    for (int i = 0; found->places && i < found->places->nelts; i++) {
        const wh_config_place *pl = &APR_ARRAY_IDX(found->places, i,
                                                   wh_config_place);
        out = apr_psprintf(p, "%s%s%s (%s)", out, i ? ", " : "",
                           pl->path ? pl->path : pl->rule,
                           wh_config_place_state(pl));
    }
    return out;
}
