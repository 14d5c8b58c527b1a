#ifndef WH_EXPO_H
#define WH_EXPO_H
/* Prometheus's text exposition format, version 0.0.4: a family's
 * `# HELP` and `# TYPE` lines, then its samples, `name{label="value",...}
 * value`, one a line. Nothing of wirehook's here: wh_metrics.c says what
 * is shown. Label values and HELP texts are escaped as the format wants
 * (backslash, double quote in values, newline) and made valid UTF-8
 * (another byte becomes U+FFFD): a configuration's path can hold
 * anything. */
#include <apr_pools.h>

typedef struct wh_expo wh_expo;

wh_expo *wh_expo_make(apr_pool_t *p);

/* type: "counter", "gauge" or "histogram". */
void wh_expo_family(wh_expo *e, const char *name, const char *type,
                    const char *help);

/* One sample of the family last begun (name may add _bucket, _sum,
 * _count, _total). labels: name, value, name, value, ..., NULL (NULL
 * itself: none). value as the format writes it ("12", "0.25", "+Inf"). */
void wh_expo_sample(wh_expo *e, const char *name, const char *const *labels,
                    const char *value);
void wh_expo_u64(wh_expo *e, const char *name, const char *const *labels,
                 apr_uint64_t value);
/* A finite number (seconds, a ratio), shortest form that reads back
 * the same. */
void wh_expo_double(wh_expo *e, const char *name, const char *const *labels,
                    double value);

/* The text so far, NUL-terminated, and its length. */
const char *wh_expo_text(const wh_expo *e, apr_size_t *len);

#endif
