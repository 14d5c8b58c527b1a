#ifndef WH_KEY_H
#define WH_KEY_H
/* A configuration key as one typed row, as httpd's ap_set_*_slot and
 * redis's config table do it: its kind, where in wh_config its value is
 * kept, its bounds or values, its default and a line of help. The kind's
 * setter here does the parsing, so a key needs no function of its own;
 * only a value that fills several fields (ReplayCache) has a custom one.
 *
 * Each subsystem declares its own keys (wh_<folder>_keys.c, a table ending
 * with WH_KEY_END); config/ puts the tables together, since no folder
 * below it may see them all. A default is written as a file would write
 * it and goes through the same setter, so a default the key itself would
 * refuse cannot exist (a unit test applies every one). */
#include <stddef.h>
#include "wh_config.h"
#include "wh_duration.h"
#include "wh_parse.h"

typedef enum {
    WH_KEY_STRING,      /* const char *, checked by .text */
    WH_KEY_PATH,        /* const char *, resolved against the file's directory */
    WH_KEY_INT,         /* int, .min to .max */
    WH_KEY_BYTES,       /* apr_int64_t, .min to .max */
    WH_KEY_DURATION,    /* apr_int64_t in .unit_us, .min to .max of it */
    WH_KEY_ENUM,        /* int (or an int-sized enum), one of .choices */
    WH_KEY_FLAG,        /* int, on (1) or off (0) */
    WH_KEY_CUSTOM       /* .custom sets whatever fields the value fills */
} wh_key_kind;

/* The project's parser shape for a text value: NULL and *out, or the rule
 * broken (never the value). */
typedef const char *(*wh_text_parser)(apr_pool_t *p, const char *arg,
                                      const char **out);
/* A custom key's parser: NULL with cfg's fields set, or the rule broken
 * with cfg unchanged. */
typedef const char *(*wh_custom_parser)(apr_pool_t *p, const char *arg,
                                        wh_config *cfg);

struct wh_key {
    const char *name;           /* canonical spelling; NULL ends a table */
    wh_key_kind kind;
    apr_size_t slot;            /* offsetof(wh_config, field) */
    apr_size_t name_slot;       /* ENUM: the canonical spelling is kept
                                   here too (a const char *); 0: nowhere
                                   (offset 0 is cfg->source, no key's) */
    apr_int64_t min, max;       /* INT, BYTES; DURATION in unit_us */
    apr_int64_t unit_us;        /* DURATION: the unit the field holds */
    apr_int64_t bare_us;        /* DURATION: what bare digits mean */
    const wh_choice *choices;   /* ENUM, FLAG */
    wh_text_parser text;        /* STRING */
    wh_custom_parser custom;    /* CUSTOM */
    const char *arg;            /* STRING, CUSTOM: the value's name (URL) */
    const char *dflt;           /* as a file writes it; NULL: unset */
    const char *help;           /* one line: what it is */
};

/* offsetof(wh_config, f), refused at compile time unless the field has the
 * type the kind writes: a row cannot point a setter at the wrong field. */
#define WH_KEY_SLOT(f, T)                                                    \
    (offsetof(wh_config, f)                                                  \
     + 0 * sizeof(char[_Generic(((wh_config *)0)->f, T: 1, default: -1)]))
/* An enum field is written as an int: it must be one's size. */
#define WH_KEY_INT_SIZED_SLOT(f)                                             \
    (offsetof(wh_config, f)                                                  \
     + 0 * sizeof(char[sizeof(((wh_config *)0)->f) == sizeof(int) ? 1 : -1]))

/* The rows, one macro per kind. def is the default as a file would write
 * it, or NULL (unset). */
#define WH_KEY_STRING_ROW(key, field, parser, argname, def, help_)           \
    { .name = key, .kind = WH_KEY_STRING,                                    \
      .slot = WH_KEY_SLOT(field, const char *), .text = parser,              \
      .arg = argname, .dflt = def, .help = help_ }
#define WH_KEY_PATH_ROW(key, field, help_)                                   \
    { .name = key, .kind = WH_KEY_PATH,                                      \
      .slot = WH_KEY_SLOT(field, const char *), .help = help_ }
#define WH_KEY_INT_ROW(key, field, lo, hi, def, help_)                       \
    { .name = key, .kind = WH_KEY_INT, .slot = WH_KEY_SLOT(field, int),     \
      .min = lo, .max = hi, .dflt = def, .help = help_ }
#define WH_KEY_BYTES_ROW(key, field, lo, hi, def, help_)                     \
    { .name = key, .kind = WH_KEY_BYTES,                                     \
      .slot = WH_KEY_SLOT(field, apr_int64_t), .min = lo, .max = hi,        \
      .dflt = def, .help = help_ }
/* unit: what the field holds (WH_US_S, WH_US_MS, 1 for microseconds);
 * bare: what bare digits mean; lo and hi in unit. */
#define WH_KEY_DURATION_ROW(key, field, unit, bare, lo, hi, def, help_)      \
    { .name = key, .kind = WH_KEY_DURATION,                                  \
      .slot = WH_KEY_SLOT(field, apr_int64_t), .unit_us = unit,             \
      .bare_us = bare, .min = lo, .max = hi, .dflt = def, .help = help_ }
#define WH_KEY_ENUM_ROW(key, field, values, def, help_)                      \
    { .name = key, .kind = WH_KEY_ENUM,                                      \
      .slot = WH_KEY_INT_SIZED_SLOT(field), .choices = values,               \
      .dflt = def, .help = help_ }
/* An enum whose canonical spelling is kept too, in name_field. */
#define WH_KEY_ENUM_NAMED_ROW(key, field, name_field, values, def, help_)    \
    { .name = key, .kind = WH_KEY_ENUM,                                      \
      .slot = WH_KEY_INT_SIZED_SLOT(field),                                  \
      .name_slot = WH_KEY_SLOT(name_field, const char *),                    \
      .choices = values, .dflt = def, .help = help_ }
#define WH_KEY_FLAG_ROW(key, field, def, help_)                              \
    { .name = key, .kind = WH_KEY_FLAG, .slot = WH_KEY_SLOT(field, int),    \
      .choices = wh_key_on_off, .dflt = def, .help = help_ }
#define WH_KEY_CUSTOM_ROW(key, parser, argname, def, help_)                  \
    { .name = key, .kind = WH_KEY_CUSTOM, .custom = parser,                 \
      .arg = argname, .dflt = def, .help = help_ }
#define WH_KEY_END { .name = NULL }

/* on (1) | off (0), as httpd's flags. */
extern const wh_choice wh_key_on_off[];

/* Sets cfg's field(s) from value: NULL, or the rule broken with cfg
 * unchanged (the caller prefixes the key's name). */
const char *wh_key_set(apr_pool_t *p, wh_config *cfg, const wh_key *k,
                       const char *value);

/* The row of name (any case) among tables (NULL-terminated), or NULL. */
const wh_key *wh_key_find(const wh_key *const *tables, const char *name);

/* path resolved against the directory of cfg->source (as httpd resolves
 * against ServerRoot), so a file's meaning does not depend on the
 * directory a server was started from: NULL and *out, or why not. */
const char *wh_key_resolve_path(apr_pool_t *p, const wh_config *cfg,
                                const char *path, const char **out);

/* What `wirehook configtest --keys` prints of a row; "-" for none. */
typedef struct {
    const char *kind;       /* "string", "path", "int", "bytes", ... */
    const char *arg;        /* the value's name: PATH, N, a|b|c, ... */
    const char *dflt;
    const char *range;      /* "1..1000", "0..100ms", "a|b|c" */
} wh_key_text;
void wh_key_describe(apr_pool_t *p, const wh_key *k, wh_key_text *out);

#endif
