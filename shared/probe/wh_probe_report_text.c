/* The probe's report for people (text) and for CI (JUnit XML). Both list
 * failures first with the request that failed and the answer; in JUnit
 * a failure element is a critical or high probe that failed, exactly
 * what makes `wirehook probe` exit 1, and the rest is written out as
 * system-out so a CI shows it without failing the build on it. */
#include "wh_probe_int.h"
#include <apr_strings.h>
#include <string.h>

#define BODY_SHOWN 200

static const char *answer_line(apr_pool_t *p, const wh_probe_answer *a)
{
    if (!a)
        return "";
    if (a->status <= 0)
        return apr_psprintf(p, "no answer (%s) after %.1f s",
                            a->error ? a->error : "none", a->elapsed / 1e6);
    return apr_psprintf(
        p, "%d %s", a->status,
        wh_probe_printable(p, a->body ? a->body : "", a->body_len, 400));
}

/* The request and the answers of r, indented, one a line. */
static const char *details(apr_pool_t *p, const wh_probe_report *rep,
                           const wh_probe_result *r, const char *ind)
{
    const wh_probe_req *q = r->req;
    const char *s = "";

    if (q && !q->skipped) {
        s = apr_psprintf(p, "%srequest: %s %s\n", ind, q->method, rep->target);
        for (int i = 0; i < q->headers->nelts; i++) {
            const wh_probe_header *h = &APR_ARRAY_IDX(q->headers, i,
                                                      wh_probe_header);
            s = apr_psprintf(
                p, "%s%s  %s: %s\n", s, ind, h->name,
                wh_probe_printable(p, h->shown, strlen(h->shown), 200));
        }
        s = apr_psprintf(p, "%s%s  body (%" APR_SIZE_T_FMT " bytes): %s\n", s,
                         ind, q->body_len,
                         wh_probe_printable(p, q->body ? q->body : "",
                                            q->body_len, BODY_SHOWN));
        if (q->signed_url)
            s = apr_psprintf(
                p, "%s%s  signed: %s %s with %s%s\n", s, ind, q->signed_method,
                q->signed_url, q->signed_with,
                q->signed_body_differs
                    ? ", over a body that differs from the one sent"
                    : "");
    }
    if (r->answer)
        s = apr_psprintf(p, "%s%sanswer: %s\n", s, ind,
                         answer_line(p, r->answer));
    if (r->copy)
        s = apr_psprintf(p, "%s%scopy's answer: %s\n", s, ind,
                         answer_line(p, r->copy));
    if (r->copy && r->deliveries >= 0)
        s = apr_psprintf(p, "%s%sdeliveries counted: %d\n", s, ind,
                         r->deliveries);
    return s;
}

static const char *summary(apr_pool_t *p, const wh_probe_report *rep)
{
    return apr_psprintf(
        p,
        "%d probes: %d failed (%d critical, %d high, %d warning, %d info), "
        "%d warnings, %d passed, %d inconclusive, %d skipped, %d errors",
        rep->results->nelts, wh_probe_count(rep, WH_OUT_FAIL, -1),
        wh_probe_count(rep, WH_OUT_FAIL, WH_SEV_CRITICAL),
        wh_probe_count(rep, WH_OUT_FAIL, WH_SEV_HIGH),
        wh_probe_count(rep, WH_OUT_FAIL, WH_SEV_WARNING),
        wh_probe_count(rep, WH_OUT_FAIL, WH_SEV_INFO),
        wh_probe_count(rep, WH_OUT_WARN, -1),
        wh_probe_count(rep, WH_OUT_PASS, -1),
        wh_probe_count(rep, WH_OUT_INCONCLUSIVE, -1),
        wh_probe_count(rep, WH_OUT_SKIPPED, -1),
        wh_probe_count(rep, WH_OUT_ERROR, -1));
}

const char *wh_probe_report_text(apr_pool_t *p, const wh_probe_report *rep)
{
    apr_array_header_t *out = apr_array_make(p, 128, sizeof(const char *));
#define LINE(...) \
    (APR_ARRAY_PUSH(out, const char *) = apr_psprintf(p, __VA_ARGS__))

    LINE("wirehook probe of %s (vectors version %d, %s)\n", rep->target,
         rep->vectors_version, rep->vectors);
    LINE("%s\n", summary(p, rep));
    if (rep->clock_offset_known
        && (rep->clock_offset > 1 || rep->clock_offset < -1))
        LINE("note: the receiver's clock is %" APR_INT64_T_FMT " s %s this "
             "machine's (its Date header): the timestamp probes are off by as "
             "much\n",
             rep->clock_offset < 0 ? -rep->clock_offset : rep->clock_offset,
             rep->clock_offset < 0 ? "behind" : "ahead of");
    LINE("\n");
    for (int i = 0; i < rep->results->nelts; i++) {
        const wh_probe_result *r = APR_ARRAY_IDX(rep->results, i,
                                                 wh_probe_result *);
        int detailed = r->outcome == WH_OUT_FAIL || r->outcome == WH_OUT_WARN
                       || r->outcome == WH_OUT_ERROR
                       || r->outcome == WH_OUT_INCONCLUSIVE;
        if (detailed) {
            LINE("%-12s %-8s %s: %s\n", wh_probe_outcome_name(r->outcome),
                 wh_probe_severity_name(r->severity), r->probe->id,
                 r->probe->description);
            LINE("    %s\n", r->message ? r->message : "");
            if (r->note)
                LINE("    (%s)\n", r->note);
            LINE("%s", details(p, rep, r, "    "));
        }
        else {
            LINE("%-12s %-8s %s: %s%s%s%s\n",
                 wh_probe_outcome_name(r->outcome),
                 wh_probe_severity_name(r->severity), r->probe->id,
                 r->message ? r->message : "", r->note ? " (" : "",
                 r->note ? r->note : "", r->note ? ")" : "");
        }
    }
    LINE("\nexit %d: %s\n", wh_probe_exit_status(rep),
         wh_probe_exit_status(rep) ? "a critical or high probe failed"
                                   : "no critical or high probe failed");
#undef LINE
    return apr_array_pstrcat(p, out, '\0');
}

/* ------------------------------------------------------------- JUnit --- */

/* XML text: printable line by line first (no control characters but the
 * newlines, valid UTF-8), then the five entities. */
static const char *xml(apr_pool_t *p, const char *s)
{
    const char *t = "";
    for (const char *line = s ? s : ""; line;) {
        const char *nl = strchr(line, '\n');
        apr_size_t n = nl ? (apr_size_t)(nl - line) : strlen(line);
        t = apr_pstrcat(p, t, wh_probe_printable(p, line, n, n),
                        nl ? "\n" : "", NULL);
        line = nl ? nl + 1 : NULL;
    }
    apr_size_t n = 0;
    for (const char *c = t; *c; c++)
        n += *c == '&'                 ? 5
             : *c == '<' || *c == '>'  ? 4
             : *c == '"' || *c == '\'' ? 6
                                       : 1;
    char *out = apr_palloc(p, n + 1), *o = out;
    for (const char *c = t; *c; c++) {
        const char *e = *c == '&'    ? "&amp;"
                        : *c == '<'  ? "&lt;"
                        : *c == '>'  ? "&gt;"
                        : *c == '"'  ? "&quot;"
                        : *c == '\'' ? "&apos;"
                                     : NULL;
        if (e) {
            memcpy(o, e, strlen(e));
            o += strlen(e);
        }
        else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

static int counts_as_failure(const wh_probe_result *r)
{
    return r->outcome == WH_OUT_FAIL && r->severity <= WH_SEV_HIGH;
}

const char *wh_probe_report_junit(apr_pool_t *p, const wh_probe_report *rep)
{
    apr_array_header_t *out = apr_array_make(p, 256, sizeof(const char *));
    int failures = 0, errors = 0, skipped = 0;
    double secs = rep->duration / 1e6;

    for (int i = 0; i < rep->results->nelts; i++) {
        const wh_probe_result *r = APR_ARRAY_IDX(rep->results, i,
                                                 wh_probe_result *);
        failures += counts_as_failure(r);
        errors += r->outcome == WH_OUT_ERROR;
        skipped += r->outcome == WH_OUT_SKIPPED
                   || r->outcome == WH_OUT_INCONCLUSIVE;
    }
#define LINE(...) \
    (APR_ARRAY_PUSH(out, const char *) = apr_psprintf(p, __VA_ARGS__))
    LINE("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    LINE("<testsuites name=\"wirehook probe\" tests=\"%d\" failures=\"%d\" "
         "errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
         rep->results->nelts, failures, errors, skipped, secs);
    LINE("  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" "
         "skipped=\"%d\" time=\"%.3f\">\n",
         xml(p, apr_pstrcat(p, "wirehook probe ", rep->target, NULL)),
         rep->results->nelts, failures, errors, skipped, secs);
    LINE("    <properties>\n");
    LINE("      <property name=\"target\" value=\"%s\"/>\n",
         xml(p, rep->target));
    LINE("      <property name=\"vectors_version\" value=\"%d\"/>\n",
         rep->vectors_version);
    LINE("      <property name=\"summary\" value=\"%s\"/>\n",
         xml(p, summary(p, rep)));
    LINE("    </properties>\n");
    for (int i = 0; i < rep->results->nelts; i++) {
        const wh_probe_result *r = APR_ARRAY_IDX(rep->results, i,
                                                 wh_probe_result *);
        const char *id = r->probe->id, *dot = strchr(id, '.');
        const char *group = dot ? apr_pstrmemdup(p, id, (apr_size_t)(dot - id))
                                : id;
        double t = r->answer ? r->answer->elapsed / 1e6 : 0;
        const char *msg = xml(p, r->message ? r->message : "");
        const char *sev = wh_probe_severity_name(r->severity);
        LINE(
            "    <testcase classname=\"probe.%s\" name=\"%s\" "
            "time=\"%.3f\">\n",
            xml(p, group), xml(p, id), t);
        if (counts_as_failure(r))
            LINE("      <failure type=\"%s\" message=\"%s\">%s</failure>\n",
                 sev, msg,
                 xml(p, apr_pstrcat(p, r->probe->description, "\n",
                                    details(p, rep, r, ""), NULL)));
        else if (r->outcome == WH_OUT_ERROR)
            LINE("      <error message=\"%s\"/>\n", msg);
        else if (r->outcome == WH_OUT_SKIPPED
                 || r->outcome == WH_OUT_INCONCLUSIVE)
            LINE("      <skipped message=\"%s: %s\"/>\n",
                 wh_probe_outcome_name(r->outcome), msg);
        if (r->outcome == WH_OUT_FAIL && !counts_as_failure(r))
            LINE("      <system-out>%s</system-out>\n",
                 xml(p, apr_psprintf(p, "failed (%s): %s\n%s", sev, r->message,
                                     details(p, rep, r, ""))));
        else if (r->outcome == WH_OUT_WARN)
            LINE("      <system-out>%s</system-out>\n",
                 xml(p, apr_psprintf(p, "warning: %s\n%s", r->message,
                                     details(p, rep, r, ""))));
        LINE("    </testcase>\n");
    }
    LINE("  </testsuite>\n</testsuites>\n");
#undef LINE
    return apr_array_pstrcat(p, out, '\0');
}
