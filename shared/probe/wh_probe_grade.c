/* Grading an answer from outside the receiver (docs/probe.md, "How an
 * answer is graded"). The class of the status is what the bank acts on:
 * 2xx done, 4xx never retried, 5xx and no answer retried. A probe fails
 * when the receiver does what it forbids (accepts what it must refuse,
 * refuses what it must accept, delivers a copy again); it warns when the
 * class is right but the answer would mislead the bank. */
#include "wh_probe_int.h"
#include <apr_strings.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {"accepted", "refused", "retry",
                                          "other", "none"};
static const char *const outcome_names[] = {
    "pass", "fail", "warn", "inconclusive", "skipped", "error"};

const char *wh_probe_class_name(wh_probe_class c)
{
    return (unsigned)c < 5 ? class_names[c] : "?";
}

const char *wh_probe_outcome_name(wh_probe_outcome o)
{
    return (unsigned)o < 6 ? outcome_names[o] : "?";
}

wh_probe_class wh_probe_class_of(const wh_probe_answer *a)
{
    if (!a || a->status <= 0 || a->still_open)
        return WH_CLASS_NONE;
    if (a->status >= 200 && a->status <= 299)
        return WH_CLASS_ACCEPTED;
    if (a->status >= 400 && a->status <= 499)
        return WH_CLASS_REFUSED;
    if (a->status >= 500 && a->status <= 599)
        return WH_CLASS_RETRY;
    return WH_CLASS_OTHER;
}

/* "401 {"error":...}" on one line, at most 160 bytes of the body. */
static const char *said(apr_pool_t *p, const wh_probe_answer *a)
{
    if (!a || a->status <= 0)
        return apr_psprintf(p, "no answer (%s)",
                            a && a->error ? a->error : "none");
    apr_size_t n = a->body_len < 160 ? a->body_len : 160;
    char *b = apr_palloc(p, n + 1);
    for (apr_size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)a->body[i];
        b[i] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    b[n] = '\0';
    while (n && b[n - 1] == ' ')
        b[--n] = '\0';
    return apr_psprintf(p, "%d%s%s%s", a->status, n ? " " : "", b,
                        a->body_len > 160 ? "..." : "");
}

static void set(wh_probe_result *r, wh_probe_outcome o, const char *msg)
{
    r->outcome = o;
    r->message = msg;
    r->severity = o == WH_OUT_WARN && r->probe->severity < WH_SEV_WARNING
                      ? WH_SEV_WARNING
                      : r->probe->severity;
}

void wh_probe_skip(wh_probe_result *r, const char *why)
{
    set(r, WH_OUT_SKIPPED, why);
}

static int status_listed(const wh_probe *pr, int status)
{
    for (int i = 0; i < pr->n_statuses; i++)
        if (pr->statuses[i] == status)
            return 1;
    return pr->n_statuses == 0;
}

static const char *listed(apr_pool_t *p, const wh_probe *pr)
{
    const char *s = "";
    for (int i = 0; i < pr->n_statuses; i++)
        s = apr_psprintf(p, "%s%s%d", s, i ? " or " : "", pr->statuses[i]);
    return s;
}

/* A refusal expected: what an answer of another class means. */
static void grade_refused(apr_pool_t *p, wh_probe_result *r)
{
    const wh_probe_answer *a = r->answer;
    switch (wh_probe_class_of(a)) {
    case WH_CLASS_REFUSED:
        set(r, WH_OUT_PASS, apr_psprintf(p, "refused: %s", said(p, a)));
        if (!status_listed(r->probe, a->status))
            r->note = apr_psprintf(p, "the spec decisions answer %s",
                                   listed(p, r->probe));
        break;
    case WH_CLASS_ACCEPTED:
        set(r, WH_OUT_FAIL, apr_psprintf(p, "accepted: %s", said(p, a)));
        break;
    case WH_CLASS_RETRY:
        set(r, WH_OUT_WARN,
            apr_psprintf(p,
                         "refused with a 5xx, which makes "
                         "the bank retry a request that "
                         "can never succeed: %s",
                         said(p, a)));
        break;
    case WH_CLASS_OTHER:
        set(r, WH_OUT_WARN,
            apr_psprintf(p, "answered neither 2xx nor 4xx: %s", said(p, a)));
        break;
    default:
        set(r, WH_OUT_WARN,
            apr_psprintf(p,
                         "%s: the bank cannot tell a "
                         "refusal from a network failure, "
                         "and retries",
                         said(p, a)));
        break;
    }
}

/* The answer says the copy was recognised: a JSON object whose "status"
 * is "duplicate" (wirehook's answer; other receivers may say nothing). */
static int says_duplicate(const wh_probe_answer *a)
{
    json_object *o, *st;
    int yes = 0;

    if (!a || !a->body || !a->body_len || a->body_len > 65536)
        return 0;
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return 0;
    o = json_tokener_parse_ex(tok, a->body, (int)a->body_len);
    json_tokener_free(tok);
    if (o && json_object_is_type(o, json_type_object)
        && json_object_object_get_ex(o, "status", &st)
        && json_object_is_type(st, json_type_string))
        yes = strcmp(json_object_get_string(st), "duplicate") == 0;
    json_object_put(o);
    return yes;
}

/* The copy's answer when its delivery cannot be counted, or was counted
 * once. */
static void grade_copy(apr_pool_t *p, wh_probe_result *r, int counted_once)
{
    const wh_probe_answer *c = r->copy;
    const char *once = counted_once ? "delivered once" : "not delivered again";

    switch (wh_probe_class_of(c)) {
    case WH_CLASS_ACCEPTED:
        if (counted_once)
            set(r, WH_OUT_PASS,
                apr_psprintf(p,
                             "delivered once; the copy "
                             "was answered %s",
                             said(p, c)));
        else if (says_duplicate(c))
            set(r, WH_OUT_PASS,
                apr_psprintf(p,
                             "the copy was answered as a "
                             "duplicate: %s",
                             said(p, c)));
        else
            set(r, WH_OUT_INCONCLUSIVE,
                apr_psprintf(p,
                             "the copy was accepted like the first (%s); "
                             "whether it was delivered again cannot be "
                             "told from the answer: give --deliveries",
                             said(p, c)));
        break;
    case WH_CLASS_REFUSED:
        set(r, WH_OUT_WARN,
            apr_psprintf(p,
                         "%s, but the copy was refused "
                         "(%s): the bank's retry after a "
                         "lost answer would be recorded as "
                         "a failure",
                         once, said(p, c)));
        break;
    default:
        /* a 5xx or no answer: the bank retries what was delivered, and
         * may give up and record a failure */
        set(r, WH_OUT_WARN,
            apr_psprintf(p, "%s, but the copy got %s: the bank would retry it",
                         once, said(p, c)));
        break;
    }
}

static void grade_replay(apr_pool_t *p, wh_probe_result *r)
{
    if (wh_probe_class_of(r->answer) != WH_CLASS_ACCEPTED) {
        set(r, WH_OUT_INCONCLUSIVE,
            apr_psprintf(p,
                         "the first copy was not accepted (%s): nothing "
                         "to replay",
                         said(p, r->answer)));
        return;
    }
    if (!r->copy) {
        set(r, WH_OUT_ERROR, "the copy was not sent");
        return;
    }
    if (r->deliveries >= 2)
        set(r, WH_OUT_FAIL,
            apr_psprintf(p,
                         "delivered %d times (the copy was "
                         "answered %s)",
                         r->deliveries, said(p, r->copy)));
    else if (r->deliveries == 1)
        grade_copy(p, r, 1);
    else if (r->deliveries == 0)
        set(r, WH_OUT_INCONCLUSIVE,
            "the deliveries source does not show the "
            "notification at all");
    else
        grade_copy(p, r, 0);
}

void wh_probe_grade(apr_pool_t *p, wh_probe_result *r)
{
    const wh_probe_answer *a = r->answer;
    wh_probe_class c = wh_probe_class_of(a);

    if (r->req && r->req->skipped) {
        wh_probe_skip(r, r->req->skipped);
        return;
    }
    if (!a) {
        set(r, WH_OUT_ERROR, "not sent");
        return;
    }
    switch (r->expect) {
    case WH_EXPECT_ACCEPTED:
        if (c == WH_CLASS_ACCEPTED)
            set(r, WH_OUT_PASS, apr_psprintf(p, "accepted: %s", said(p, a)));
        else
            set(r, WH_OUT_FAIL,
                apr_psprintf(p, "not accepted: %s", said(p, a)));
        break;
    case WH_EXPECT_REFUSED: grade_refused(p, r); break;
    case WH_EXPECT_ONCE: grade_replay(p, r); break;
    case WH_EXPECT_ENDS:
        if (a->still_open)
            set(r, WH_OUT_FAIL,
                apr_psprintf(p,
                             "still waiting for the rest of "
                             "the body after %" APR_TIME_T_FMT
                             " s: each such client holds the "
                             "receiver",
                             apr_time_sec(a->elapsed)));
        else if (c == WH_CLASS_ACCEPTED)
            set(r, WH_OUT_FAIL,
                apr_psprintf(p, "accepted half a body: %s", said(p, a)));
        else
            set(r, WH_OUT_PASS,
                apr_psprintf(p, "ended after %" APR_TIME_T_FMT " s: %s",
                             apr_time_sec(a->elapsed), said(p, a)));
        break;
    default: set(r, WH_OUT_ERROR, "graded by its timing"); break;
    }
}

/* -------------------------------------------------------------- timing --- */

typedef struct {
    double v;
    int side;
} sample;

static int by_value(const void *x, const void *y)
{
    double a = ((const sample *)x)->v, b = ((const sample *)y)->v;
    return a < b ? -1 : a > b;
}

static int by_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double wh_probe_median(apr_pool_t *p, const double *v, int n)
{
    if (n <= 0)
        return 0;
    double *s = apr_pmemdup(p, v, sizeof(double) * (apr_size_t)n);
    qsort(s, (size_t)n, sizeof(double), by_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double wh_probe_mann_whitney_z(apr_pool_t *p, const double *a, int na,
                               const double *b, int nb)
{
    int n = na + nb;
    double rank_a = 0, ties = 0;

    if (na <= 0 || nb <= 0)
        return 0;
    sample *s = apr_palloc(p, sizeof(sample) * (apr_size_t)n);
    for (int i = 0; i < na; i++)
        s[i] = (sample){a[i], 0};
    for (int i = 0; i < nb; i++)
        s[na + i] = (sample){b[i], 1};
    qsort(s, (size_t)n, sizeof(sample), by_value);
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && s[j + 1].v == s[i].v)
            j++;
        double rank = (i + j) / 2.0 + 1, t = j - i + 1;
        for (int k = i; k <= j; k++)
            if (s[k].side == 0)
                rank_a += rank;
        ties += t * t * t - t;
        i = j + 1;
    }
    double u = rank_a - na * (na + 1) / 2.0;
    double mean = na * (double)nb / 2;
    double var = na * (double)nb / 12
                 * ((n + 1) - ties / ((double)n * (n - 1)));
    return var > 0 ? (u - mean) / sqrt(var) : 0;
}

static const char *auth_label(const wh_probe_parts *pp)
{
    switch (pp ? pp->auth : WH_AUTH_VALID) {
    case WH_AUTH_NONE: return "no credentials";
    case WH_AUTH_WRONG_PASSWORD: return "the known user with a wrong password";
    case WH_AUTH_UNKNOWN_USER: return "an unknown user";
    case WH_AUTH_HEADER: return "the given Authorization";
    default: return "the bank's credentials";
    }
}

void wh_probe_grade_timing(apr_pool_t *p, wh_probe_result *r, const double *a,
                           int na, const double *b, int nb, int all_refused)
{
    const wh_probe *pr = r->probe;

    r->samples = na < nb ? na : nb;
    if (!all_refused) {
        set(r, WH_OUT_INCONCLUSIVE,
            "not every request was refused (the auth "
            "probes grade that): nothing to compare");
        return;
    }
    if (na < 5 || nb < 5) {
        set(r, WH_OUT_INCONCLUSIVE, "fewer than 5 samples a side");
        return;
    }
    r->median_a = wh_probe_median(p, a, na) / 1000;
    r->median_b = wh_probe_median(p, b, nb) / 1000;
    r->z = wh_probe_mann_whitney_z(p, a, na, b, nb);
    double hi = r->median_a > r->median_b ? r->median_a : r->median_b;
    double diff = hi > 0 ? fabs(r->median_a - r->median_b) / hi : 0;
    const char *fig = apr_psprintf(p,
                                   "median %.2f ms for %s, %.2f ms for %s, "
                                   "z = %.1f over %d samples a side",
                                   r->median_a, auth_label(pr->timing_a),
                                   r->median_b, auth_label(pr->timing_b), r->z,
                                   r->samples);
    if (fabs(r->z) >= pr->significance_z && diff >= pr->min_difference)
        set(r, WH_OUT_FAIL,
            apr_psprintf(p,
                         "%s: the time to refuse tells "
                         "the two apart",
                         fig));
    else
        set(r, WH_OUT_PASS,
            apr_psprintf(p, "no measurable difference: %s", fig));
}
