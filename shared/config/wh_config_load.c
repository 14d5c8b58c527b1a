/* Every subsystem's keys in one table, and the loaders that start from it
 * (wh_config_load.h). */
#include "wh_config_load.h"
#include "verify/wh_verify_keys.h"
#include "inbox/wh_inbox_keys.h"
#include "replay/wh_replay_keys.h"
#include "forward/wh_forward_keys.h"
#include "console/wh_console_keys.h"

#include <apr_strings.h>

static const wh_key *const all_keys[] = {
    wh_verify_keys,
    wh_inbox_keys,
    wh_replay_keys,
    wh_forward_keys,
    wh_console_keys,
    NULL
};

const wh_key *const *wh_config_keys(void)
{
    return all_keys;
}

const wh_key *wh_config_key(const char *name)
{
    return name ? wh_key_find(all_keys, name) : NULL;
}

wh_config *wh_config_create(apr_pool_t *p)
{
    return wh_config_make(p, all_keys);
}

const char *wh_config_parse_file(apr_pool_t *p, const char *path,
                                 wh_config **out)
{
    *out = wh_config_create(p);
    return wh_config_read(p, *out, path);
}

/* Finalize runs even after parse errors so that one run reports
 * everything, e.g. a misspelt key and the required key it then lacks. */
const char *wh_config_load_parts(apr_pool_t *p, const char *path,
                                 unsigned parts, wh_config **out)
{
    const char *perr = wh_config_parse_file(p, path, out);
    const char *ferr;

    if (!path || !*path)
        return perr;
    ferr = wh_config_finalize_parts(p, *out, parts);
    if (perr && ferr)
        return apr_pstrcat(p, perr, "\n", ferr, NULL);
    return perr ? perr : ferr;
}

const char *wh_config_load(apr_pool_t *p, const char *path, wh_config **out)
{
    return wh_config_load_parts(p, path, WH_PART_VERIFY, out);
}
