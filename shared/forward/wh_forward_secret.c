/* The forwarder's secret, read again when its file changes (wh_forward.h),
 * so that the secret can be rotated without a restart, as the bank's can:
 * the application accepts the old and the new secret, ForwardSecretFile
 * gets the new one as its first line, and the next attempts are signed
 * with it. One thread (the forwarder's loop) uses it: a version is freed
 * as soon as the next replaces it, since a request's headers are signed
 * when it starts and hold no reference to the secret. */
#include "wh_forward.h"
#include "verify/wh_file_id.h"
#include "verify/wh_signature.h"

#include <apr_strings.h>
#include <string.h>

struct wh_fwd_secret {
    apr_pool_t *pool;            /* the holder's */
    const char *path;
    apr_pool_t *version;         /* the secret in use and its file's lines */
    const wh_secret *secret;
    wh_file_id seen;
    apr_time_t looked_at;
    apr_interval_time_t every;
};

static const char *load(wh_fwd_secret *s, apr_pool_t **version,
                        const wh_secret **secret, wh_file_id *id)
{
    apr_array_header_t *lines = NULL;
    const char *err;

    if (apr_pool_create(version, s->pool) != APR_SUCCESS)
        return "out of memory";
    err = wh_secrets_load_ex(*version, s->path, &lines, id);
    if (err) {
        /* the message outlives the version it was made in */
        err = apr_pstrdup(s->pool, err);
        apr_pool_destroy(*version);
        *version = NULL;
        return err;
    }
    *secret = &APR_ARRAY_IDX(lines, 0, wh_secret);
    return NULL;
}

const char *wh_fwd_secret_open(apr_pool_t *p, const wh_config *cfg,
                               wh_fwd_secret **out)
{
    wh_fwd_secret *s = apr_pcalloc(p, sizeof(*s));
    const char *err;

    if (!cfg->forward_url || !cfg->forward_secret_file)
        return "forwarding is not configured (ForwardUrl and "
               "ForwardSecretFile)";
    s->pool = p;
    s->path = cfg->forward_secret_file;
    s->every = WH_FWD_SECRET_INTERVAL;
    if ((err = load(s, &s->version, &s->secret, &s->seen)) != NULL)
        return apr_psprintf(p, "%sForwardSecretFile: %s",
                            wh_config_where(p, cfg, "ForwardSecretFile"), err);
    s->looked_at = apr_time_now();
    *out = s;
    return NULL;
}

void wh_fwd_secret_set_interval(wh_fwd_secret *s, apr_interval_time_t every)
{
    s->every = every < 0 ? 0 : every;
}

const wh_secret *wh_fwd_secret_now(wh_fwd_secret *s, apr_time_t now,
                                   apr_pool_t *p, const char **note, int *failed)
{
    wh_file_id id;
    apr_pool_t *version = NULL;
    const wh_secret *secret = NULL;
    const char *err;

    *note = NULL;
    *failed = 0;
    if (now - s->looked_at < s->every && s->looked_at - now < s->every)
        return s->secret;
    s->looked_at = now;
    if (wh_file_id_of(p, s->path, &id) != APR_SUCCESS)
        memset(&id, 0, sizeof(id));   /* gone: tried once, below */
    if (wh_file_id_same(&id, &s->seen))
        return s->secret;
    s->seen = id;
    if ((err = load(s, &version, &secret, &id)) != NULL) {
        *note = apr_psprintf(p, "ForwardSecretFile %s changed but cannot be "
                             "read: %s; the secret read before stays in use",
                             s->path, err);
        *failed = 1;
        return s->secret;
    }
    s->seen = id;
    apr_pool_destroy(s->version);
    s->version = version;
    s->secret = secret;
    *note = apr_psprintf(p, "ForwardSecretFile %s changed: re-read; its first "
                         "line signs from now on", s->path);
    return s->secret;
}
