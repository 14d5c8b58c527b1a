/* Durations (wh_duration.h): one parser for every key that is one, so
 * that "5m" means the same in TimestampTolerance as in ForwardBackoffMax. */
#include "wh_duration.h"

#include <apr_strings.h>
#include <string.h>

typedef struct {
    const char *suffix;
    apr_int64_t us;
    const char *name;       /* of bare digits in this unit */
} unit;

/* Longest suffix first: "us" and "ms" before "s", "ms" before "m". */
static const unit units[] = {
    { "us", 1, "microseconds" },
    { "ms", WH_US_MS, "milliseconds" },
    { "s", WH_US_S, "seconds" },
    { "m", 60 * WH_US_S, "minutes" },
    { "h", 3600 * WH_US_S, "hours" },
    { "d", 86400 * WH_US_S, "days" },
};
#define WH_UNITS (sizeof(units) / sizeof(units[0]))

/* Significant digits accepted: past every bound a key has; the product
 * with the unit is checked for overflow on its own. */
#define WH_DURATION_MAX_DIGITS APR_INT64_C(1000000000000)

const char *wh_format_duration_us(apr_pool_t *p, apr_int64_t us)
{
    for (int u = (int)WH_UNITS - 1; u >= 0; u--)
        if (us != 0 && us % units[u].us == 0)
            return apr_psprintf(p, "%" APR_INT64_T_FMT "%s", us / units[u].us,
                                units[u].suffix);
    return us == 0 ? "0s" : apr_psprintf(p, "%" APR_INT64_T_FMT "us", us);
}

static const char *bare_name(apr_int64_t bare_us)
{
    for (apr_size_t u = 0; u < WH_UNITS; u++)
        if (units[u].us == bare_us)
            return units[u].name;
    return "the key's unit";
}

static const char *rule_text(apr_pool_t *p, const wh_duration_rule *r)
{
    const char *whole = "";

    if (r->unit_us > 1)
        whole = apr_pstrcat(p, " in whole ",
                            bare_name(r->unit_us), NULL);
    return apr_psprintf(p, "must be a duration from %s to %s%s (digits with "
                        "an optional unit: us, ms, s, m, h, d; bare digits "
                        "are %s)", wh_format_duration_us(p, r->min * r->unit_us),
                        wh_format_duration_us(p, r->max * r->unit_us), whole,
                        bare_name(r->bare_us));
}

const char *wh_parse_duration(apr_pool_t *p, const char *arg,
                              const wh_duration_rule *rule, apr_int64_t *out)
{
    apr_size_t len, digits = 0;
    apr_int64_t v = 0, us;

    if (!arg)
        return rule_text(p, rule);
    len = strlen(arg);
    while (digits < len && arg[digits] >= '0' && arg[digits] <= '9')
        digits++;
    if (digits == 0)
        return rule_text(p, rule);
    /* leading zeros do not count ("007s") */
    for (apr_size_t i = 0; i < digits; i++) {
        v = v * 10 + (arg[i] - '0');
        if (v >= WH_DURATION_MAX_DIGITS)
            return rule_text(p, rule);
    }
    if (arg[digits] == '\0') {
        us = rule->bare_us;
    }
    else {
        apr_size_t u;
        for (u = 0; u < WH_UNITS; u++)
            if (strcmp(arg + digits, units[u].suffix) == 0)
                break;
        if (u == WH_UNITS)
            return rule_text(p, rule);
        us = units[u].us;
    }
    if (v > APR_INT64_MAX / us)
        return rule_text(p, rule);
    us *= v;
    if (us % rule->unit_us != 0 || us / rule->unit_us < rule->min
        || us / rule->unit_us > rule->max)
        return rule_text(p, rule);
    *out = us / rule->unit_us;
    return NULL;
}

const char *wh_parse_duration_ms(apr_pool_t *p, const char *arg,
                                 apr_int64_t min_ms, apr_int64_t max_ms,
                                 apr_int64_t *out)
{
    const wh_duration_rule r = { WH_US_MS, WH_US_S, min_ms, max_ms };

    return wh_parse_duration(p, arg, &r, out);
}
