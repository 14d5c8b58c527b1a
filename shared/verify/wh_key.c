/* The setters of the key kinds (wh_key.h): one per kind, so that a key is
 * a row and not a function. Each leaves cfg unchanged on error, and no
 * error repeats the value (the parsers' rule). */
#include "wh_key.h"

#include <apr_file_info.h>
#include <apr_strings.h>
#include <string.h>
#include <strings.h>

/* name_slot 0 means "nowhere" because no key is kept in cfg->source. */
_Static_assert(offsetof(wh_config, source) == 0,
               "wh_key.name_slot 0 must be a field no key uses");
/* WH_KEY_ENUM writes its fields as ints. */
_Static_assert(sizeof(wh_ts_unit) == sizeof(int)
               && sizeof(wh_url_form) == sizeof(int)
               && sizeof(wh_inbox_driver) == sizeof(int)
               && sizeof(wh_log_level) == sizeof(int),
               "enum fields are int-sized");

const wh_choice wh_key_on_off[] = {
    { "on", 1 },
    { "off", 0 },
    { NULL, 0 }
};

static void *field(wh_config *cfg, apr_size_t slot)
{
    return (char *)cfg + slot;
}

/* ---- paths --------------------------------------------------------- */

/* Directory of cfg->source as an absolute path, or NULL (current
 * directory) when there is no source. */
static const char *config_dir(apr_pool_t *p, const wh_config *cfg)
{
    char *abs;
    char *slash;

    if (!cfg->source || !*cfg->source)
        return NULL;
    if (apr_filepath_merge(&abs, NULL, cfg->source, 0, p) != APR_SUCCESS)
        return NULL;
    slash = strrchr(abs, '/');
    if (!slash)
        return NULL;
    if (slash == abs)
        return "/";
    *slash = '\0';
    return abs;
}

const char *wh_key_resolve_path(apr_pool_t *p, const wh_config *cfg,
                                const char *path, const char **out)
{
    char *merged;
    char reason[128];
    apr_status_t rv;

    rv = apr_filepath_merge(&merged, config_dir(p, cfg), path, 0, p);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "cannot resolve path: %s",
                            apr_strerror(rv, reason, sizeof reason));
    *out = merged;
    return NULL;
}

/* ---- the setters, one per kind ------------------------------------- */

static const char *set_path(apr_pool_t *p, wh_config *cfg, const wh_key *k,
                            const char *v)
{
    const char *path;
    const char *err = wh_parse_path(p, v, &path);

    if (!err)
        err = wh_key_resolve_path(p, cfg, path, field(cfg, k->slot));
    return err;
}

static const char *set_int(apr_pool_t *p, wh_config *cfg, const wh_key *k,
                           const char *v)
{
    return wh_parse_int(p, v, (int)k->min, (int)k->max, field(cfg, k->slot));
}

static const char *set_duration(apr_pool_t *p, wh_config *cfg,
                                const wh_key *k, const char *v)
{
    const wh_duration_rule r = { k->unit_us, k->bare_us, k->min, k->max };

    return wh_parse_duration(p, v, &r, field(cfg, k->slot));
}

static const char *set_choice(apr_pool_t *p, wh_config *cfg, const wh_key *k,
                              const char *v)
{
    const wh_choice *c;
    const char *err = wh_parse_choice(p, v, k->choices, &c);

    if (err)
        return err;
    *(int *)field(cfg, k->slot) = c->value;
    if (k->name_slot)
        *(const char **)field(cfg, k->name_slot) = c->name;
    return NULL;
}

const char *wh_key_set(apr_pool_t *p, wh_config *cfg, const wh_key *k,
                       const char *value)
{
    switch (k->kind) {
    case WH_KEY_STRING:
        return k->text(p, value, field(cfg, k->slot));
    case WH_KEY_PATH:
        return set_path(p, cfg, k, value);
    case WH_KEY_INT:
        return set_int(p, cfg, k, value);
    case WH_KEY_BYTES:
        return wh_parse_int64(p, value, k->min, k->max, field(cfg, k->slot));
    case WH_KEY_DURATION:
        return set_duration(p, cfg, k, value);
    case WH_KEY_ENUM:
    case WH_KEY_FLAG:
        return set_choice(p, cfg, k, value);
    case WH_KEY_CUSTOM:
        return k->custom(p, value, cfg);
    }
    return "has a kind this build does not know";
}

const wh_key *wh_key_find(const wh_key *const *tables, const char *name)
{
    for (const wh_key *const *t = tables; t && *t; t++)
        for (const wh_key *k = *t; k->name; k++)
            if (!strcasecmp(k->name, name))
                return k;
    return NULL;
}

/* ---- the row as text ----------------------------------------------- */

static const char *const kind_names[] = {
    [WH_KEY_STRING] = "string", [WH_KEY_PATH] = "path",
    [WH_KEY_INT] = "int", [WH_KEY_BYTES] = "bytes",
    [WH_KEY_DURATION] = "duration", [WH_KEY_ENUM] = "enum",
    [WH_KEY_FLAG] = "flag", [WH_KEY_CUSTOM] = "custom"
};

static const char *choices_text(apr_pool_t *p, const wh_choice *c)
{
    const char *s = c->name;

    while ((++c)->name)
        s = apr_pstrcat(p, s, "|", c->name, NULL);
    return s;
}

/* A bound as a file could write it: 0 is 0 in every unit. */
static const char *duration_text(apr_pool_t *p, const wh_key *k,
                                 apr_int64_t v)
{
    return v ? wh_format_duration_us(p, v * k->unit_us) : "0";
}

static const char *range_text(apr_pool_t *p, const wh_key *k)
{
    switch (k->kind) {
    case WH_KEY_INT:
    case WH_KEY_BYTES:
        return apr_psprintf(p, "%" APR_INT64_T_FMT "..%" APR_INT64_T_FMT,
                            k->min, k->max);
    case WH_KEY_DURATION:
        return apr_pstrcat(p, duration_text(p, k, k->min), "..",
                           duration_text(p, k, k->max), NULL);
    case WH_KEY_ENUM:
    case WH_KEY_FLAG:
        return choices_text(p, k->choices);
    default:
        return "-";
    }
}

static const char *arg_text(apr_pool_t *p, const wh_key *k)
{
    switch (k->kind) {
    case WH_KEY_PATH:
        return "PATH";
    case WH_KEY_INT:
        return "N";
    case WH_KEY_BYTES:
        return "BYTES";
    case WH_KEY_DURATION:
        return "DURATION";
    case WH_KEY_ENUM:
    case WH_KEY_FLAG:
        return choices_text(p, k->choices);
    default:
        return k->arg ? k->arg : "TEXT";
    }
}

void wh_key_describe(apr_pool_t *p, const wh_key *k, wh_key_text *out)
{
    out->kind = kind_names[k->kind];
    out->arg = arg_text(p, k);
    out->dflt = k->dflt ? k->dflt : "-";
    out->range = range_text(p, k);
}
