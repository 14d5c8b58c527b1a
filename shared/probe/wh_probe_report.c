/* The probe's report: its order (failures first), the exit status, and
 * the JSON form (probe/report.schema.json; docs/probe.md). Nothing here
 * holds the signing secret or the Basic password: requests are printed
 * from their headers' shown values. */
#include "wh_probe_int.h"
#include "verify/wh_utf8.h"
#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

const char *wh_probe_printable(apr_pool_t *p, const char *b, apr_size_t len,
                               apr_size_t max)
{
    apr_size_t n = len < max ? len : max, i = 0, o = 0;
    char *out = apr_palloc(p, n * 4 + 4);
    const unsigned char *u = (const unsigned char *)b;

    while (i < n) {
        apr_size_t k = u[i] >= 0x80 ? wh_utf8_seq_len(u + i, n - i) : 1;
        if (u[i] >= 0x80 && k) {
            memcpy(out + o, b + i, k);
            o += k;
            i += k;
        }
        else if (u[i] < 0x20 || u[i] == 0x7f || u[i] >= 0x80) {
            static const char hex[] = "0123456789abcdef";
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[u[i] >> 4];
            out[o++] = hex[u[i] & 15];
            i++;
        }
        else {
            out[o++] = b[i++];
        }
    }
    out[o] = '\0';
    return len > n ? apr_pstrcat(p, out, "...", NULL) : out;
}

/* ------------------------------------------------------------- order --- */

static int rank(wh_probe_outcome o)
{
    static const int r[] = {4, 0, 1, 3, 5, 2}; /* by wh_probe_outcome */
    return (unsigned)o < 6 ? r[o] : 6;
}

static int by_report_order(const void *x, const void *y)
{
    const wh_probe_result *a = *(wh_probe_result *const *)x;
    const wh_probe_result *b = *(wh_probe_result *const *)y;
    if (rank(a->outcome) != rank(b->outcome))
        return rank(a->outcome) - rank(b->outcome);
    if (a->severity != b->severity)
        return (int)a->severity - (int)b->severity;
    return a->probe->index - b->probe->index;
}

void wh_probe_report_sort(wh_probe_report *rep)
{
    qsort(rep->results->elts, (size_t)rep->results->nelts,
          sizeof(wh_probe_result *), by_report_order);
}

int wh_probe_count(const wh_probe_report *rep, int outcome, int severity)
{
    int n = 0;
    for (int i = 0; i < rep->results->nelts; i++) {
        const wh_probe_result *r = APR_ARRAY_IDX(rep->results, i,
                                                 wh_probe_result *);
        n += (outcome < 0 || (int)r->outcome == outcome)
             && (severity < 0 || (int)r->severity == severity);
    }
    return n;
}

int wh_probe_exit_status(const wh_probe_report *rep)
{
    return wh_probe_count(rep, WH_OUT_FAIL, WH_SEV_CRITICAL)
                   + wh_probe_count(rep, WH_OUT_FAIL, WH_SEV_HIGH)
               ? 1
               : 0;
}

/* -------------------------------------------------------------- JSON --- */

static json_object *str(apr_pool_t *p, const char *s, apr_size_t len)
{
    return s ? json_object_new_string(wh_probe_printable(p, s, len, len))
             : NULL;
}

static json_object *cstr(apr_pool_t *p, const char *s)
{
    return s ? str(p, s, strlen(s)) : NULL;
}

static void add(json_object *o, const char *k, json_object *v)
{
    json_object_object_add(o, k, v);
}

/* how much of a request's and an answer's body a report shows */
#define BODY_SHOWN 300
#define ANSWER_SHOWN 2000

static json_object *request_json(apr_pool_t *p, const wh_probe_report *rep,
                                 const wh_probe_req *req)
{
    json_object *o = json_object_new_object(), *h = json_object_new_array();
    add(o, "method", cstr(p, req->method));
    add(o, "url", cstr(p, rep->target));
    for (int i = 0; i < req->headers->nelts; i++) {
        const wh_probe_header *hd = &APR_ARRAY_IDX(req->headers, i,
                                                   wh_probe_header);
        json_object *e = json_object_new_object();
        add(e, "name", cstr(p, hd->name));
        add(e, "value", cstr(p, hd->shown));
        json_object_array_add(h, e);
    }
    add(o, "headers", h);
    add(o, "body_length", json_object_new_int64((int64_t)req->body_len));
    add(o, "body",
        json_object_new_string(wh_probe_printable(
            p, req->body ? req->body : "", req->body_len, BODY_SHOWN)));
    if (req->signed_url) {
        json_object *s = json_object_new_object();
        add(s, "method", cstr(p, req->signed_method));
        add(s, "url", cstr(p, req->signed_url));
        add(s, "with", cstr(p, req->signed_with));
        add(s, "body_differs",
            json_object_new_boolean(req->signed_body_differs));
        add(o, "signed", s);
    }
    else {
        add(o, "signed", NULL);
    }
    static const char *const paces[] = {"none", "late_last_byte", "trickle",
                                        "stall"};
    add(o, "pace", json_object_new_string(paces[req->pace & 3]));
    return o;
}

static json_object *answer_json(apr_pool_t *p, const wh_probe_answer *a)
{
    json_object *o = json_object_new_object();
    add(o, "status", a->status > 0 ? json_object_new_int(a->status) : NULL);
    add(o, "class",
        json_object_new_string(wh_probe_class_name(wh_probe_class_of(a))));
    add(o, "body",
        json_object_new_string(wh_probe_printable(p, a->body ? a->body : "",
                                                  a->body_len, ANSWER_SHOWN)));
    add(o, "error", cstr(p, a->error));
    add(o, "elapsed_ms", json_object_new_double(a->elapsed / 1000.0));
    return o;
}

static json_object *result_json(apr_pool_t *p, const wh_probe_report *rep,
                                const wh_probe_result *r)
{
    json_object *o = json_object_new_object();
    add(o, "id", cstr(p, r->probe->id));
    add(o, "description", cstr(p, r->probe->description));
    add(o, "severity",
        json_object_new_string(wh_probe_severity_name(r->probe->severity)));
    add(o, "expect", json_object_new_string(wh_probe_expect_name(r->expect)));
    add(o, "outcome",
        json_object_new_string(wh_probe_outcome_name(r->outcome)));
    add(o, "graded_severity",
        json_object_new_string(wh_probe_severity_name(r->severity)));
    add(o, "message", cstr(p, r->message ? r->message : ""));
    if (r->note)
        add(o, "note", cstr(p, r->note));
    if (r->req && !r->req->skipped)
        add(o, "request", request_json(p, rep, r->req));
    if (r->answer)
        add(o, "answer", answer_json(p, r->answer));
    if (r->copy)
        add(o, "copy", answer_json(p, r->copy));
    if (r->expect == WH_EXPECT_ONCE)
        add(o, "deliveries",
            r->deliveries >= 0 ? json_object_new_int(r->deliveries) : NULL);
    if (r->probe->is_timing && r->samples) {
        json_object *t = json_object_new_object();
        add(t, "median_a_ms", json_object_new_double(r->median_a));
        add(t, "median_b_ms", json_object_new_double(r->median_b));
        add(t, "z", json_object_new_double(r->z));
        add(t, "samples", json_object_new_int(r->samples));
        add(o, "timing", t);
    }
    return o;
}

static const char *rfc3339(apr_pool_t *p, apr_time_t t)
{
    apr_time_exp_t tm;
    apr_time_exp_gmt(&tm, t);
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                        tm.tm_sec);
}

static json_object *settings_json(apr_pool_t *p, const wh_probe_report *rep)
{
    const wh_config *cfg = rep->cfg;
    static const char *const units[] = {"auto", "seconds", "milliseconds"};
    json_object *s = json_object_new_object();
    add(s, "timestamp_header", cstr(p, cfg->timestamp_header));
    add(s, "signature_header", cstr(p, cfg->signature_header));
    add(s, "timestamp_unit",
        json_object_new_string(units[cfg->timestamp_unit % 3]));
    add(s, "timestamp_tolerance",
        json_object_new_int64(cfg->timestamp_tolerance));
    add(s, "signed_url", cstr(p, cfg->signed_url));
    add(s, "signed_url_form",
        json_object_new_string(
            cfg->signed_url_form == WH_URL_PATH ? "path" : "absolute"));
    add(s, "max_body_size", json_object_new_int64(cfg->max_body_size));
    add(s, "unknown_status",
        json_object_new_string(cfg->unknown_status_reject ? "reject"
                                                          : "accept"));
    add(s, "user", cstr(p, rep->user));
    add(s, "deliveries", cstr(p, rep->deliveries));
    add(s, "rate", json_object_new_int(rep->rate));
    add(s, "slow_seconds", json_object_new_int64(rep->slow_seconds));
    add(s, "replay_pause", json_object_new_int64(rep->replay_pause));
    add(s, "stall_limit", json_object_new_int64(rep->stall_limit));
    add(s, "timing_samples", json_object_new_int(rep->timing_samples));
    return s;
}

const char *wh_probe_report_json(apr_pool_t *p, const wh_probe_report *rep)
{
    json_object *o = json_object_new_object(), *v = json_object_new_object();
    json_object *sum = json_object_new_object(),
                *failed = json_object_new_object();
    json_object *res = json_object_new_array();

    add(o, "format", json_object_new_string(WH_PROBE_REPORT_FORMAT));
    add(o, "version", json_object_new_int(WH_PROBE_REPORT_VERSION));
    add(o, "target", cstr(p, rep->target));
    add(v, "source", cstr(p, rep->vectors));
    add(v, "version", json_object_new_int(rep->vectors_version));
    add(o, "vectors", v);
    add(o, "started", json_object_new_string(rfc3339(p, rep->started)));
    add(o, "duration_ms",
        json_object_new_int64(apr_time_as_msec(rep->duration)));
    add(o, "exit_status", json_object_new_int(wh_probe_exit_status(rep)));
    add(o, "settings", settings_json(p, rep));
    add(o, "clock_offset_s",
        rep->clock_offset_known ? json_object_new_int64(rep->clock_offset)
                                : NULL);
    add(sum, "probes", json_object_new_int(rep->results->nelts));
    for (int oc = 0; oc < 6; oc++)
        add(sum, wh_probe_outcome_name((wh_probe_outcome)oc),
            json_object_new_int(wh_probe_count(rep, oc, -1)));
    for (int s = 0; s < 4; s++)
        add(failed, wh_probe_severity_name((wh_probe_severity)s),
            json_object_new_int(wh_probe_count(rep, WH_OUT_FAIL, s)));
    add(sum, "failed", failed);
    add(o, "summary", sum);
    for (int i = 0; i < rep->results->nelts; i++)
        json_object_array_add(
            res,
            result_json(p, rep,
                        APR_ARRAY_IDX(rep->results, i, wh_probe_result *)));
    add(o, "results", res);
    const char *s = apr_pstrdup(
        p, json_object_to_json_string_ext(
               o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED
                      | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return s;
}
