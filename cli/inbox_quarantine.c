/* wirehook inbox quarantine list|show|release|discard|acknowledge. */
#include "inbox_cmd.h"
#include "cli_util.h"
#include "verify/wh_parse.h"
#include "inbox/wh_quarantine_ops.h"

#include <apr_strings.h>
#include <json-c/json.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define Q_LIST_DEFAULT 100

/* What the network sent, made safe for a terminal (wh_cli_text). */
static const char *or_dash(apr_pool_t *p, const char *s)
{
    return s && *s ? wh_cli_text(p, s) : "-";
}

static int parse_id(apr_pool_t *p, const char *s, apr_int64_t *out)
{
    return wh_parse_int64(p, s, 1, APR_INT64_MAX, out) ? -1 : 0;
}

static int list(wh_inbox_args *a)
{
    apr_array_header_t *rows;

    if (wh_quarantine_list(a->ib, a->p, a->after, a->limit ? a->limit : Q_LIST_DEFAULT,
                           &rows) != 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    printf("%-10s %-24s %-17s %-36s %s\n", "ID", "RECEIVED", "CODE", "NOTIFICATION",
           "RELEASED");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_quarantined *q = &APR_ARRAY_IDX(rows, i, wh_quarantined);
        printf("%-10" APR_INT64_T_FMT " %-24s %-17s %-36s %s\n", q->id,
               wh_inbox_time(a->p, q->received_at), or_dash(a->p, q->code),
               or_dash(a->p, q->notification_id),
               q->released_at ? apr_psprintf(a->p, "%s as event %" APR_INT64_T_FMT,
                                             wh_inbox_time(a->p, q->released_at),
                                             q->released_event_id)
               : q->resolution ? apr_psprintf(a->p, "no: %s by %s", q->resolution,
                                              q->resolved_by ? q->resolved_by : "-")
                               : "no");
    }
    return 0;
}

/* A body that failed the JSON checks may hold any bytes: a terminal gets
 * them escaped, so no control sequence of the sender's reaches it. */
static void print_body(const char *b, apr_size_t n, int raw)
{
    if (raw) {
        fwrite(b, 1, n, stdout);
        return;
    }
    for (apr_size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)b[i];
        if (c == '\\')
            fputs("\\\\", stdout);
        else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
    putchar('\n');
}

static void print_problems(apr_pool_t *p, const char *details)
{
    json_object *arr = details ? json_tokener_parse(details) : NULL;
    size_t n = arr && json_object_is_type(arr, json_type_array)
                   ? json_object_array_length(arr) : 0;

    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(arr, i), *f = NULL, *pr = NULL;
        json_object_object_get_ex(o, "field", &f);
        json_object_object_get_ex(o, "problem", &pr);
        printf("  %s: %s\n",
               f && *json_object_get_string(f) ? wh_cli_text(p, json_object_get_string(f)) : "/",
               pr ? wh_cli_text(p, json_object_get_string(pr)) : "?");
    }
    if (arr)
        json_object_put(arr);
}

static int show(wh_inbox_args *a)
{
    wh_quarantined q;
    apr_int64_t id;
    int found;

    if (parse_id(a->p, a->id, &id) != 0)
        return wh_inbox_usage();
    found = wh_quarantine_get(a->ib, a->p, id, &q);
    if (found < 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    if (!found) {
        fprintf(stderr, "wirehook inbox: no quarantined notification %s\n", a->id);
        return 1;
    }
    printf("id:             %" APR_INT64_T_FMT "\n", q.id);
    printf("received:       %s\n", wh_inbox_time(a->p, q.received_at));
    printf("code:           %s\n", or_dash(a->p, q.code));
    printf("message:        %s\n", or_dash(a->p, q.message));
    printf("notificationId: %s\n", or_dash(a->p, q.notification_id));
    if (q.released_at)
        printf("released:       %s as event %" APR_INT64_T_FMT "\n",
               wh_inbox_time(a->p, q.released_at), q.released_event_id);
    else
        printf("released:       no\n");
    if (q.resolution)
        printf("%-15s %s by %s\n", apr_pstrcat(a->p, q.resolution, ":", NULL),
               wh_inbox_time(a->p, q.resolved_at), q.resolved_by ? q.resolved_by : "-");
    printf("problems:\n");
    print_problems(a->p, q.details);
    printf("body (%" APR_SIZE_T_FMT " bytes):\n", q.body_len);
    print_body(q.body, q.body_len, a->raw);
    return 0;
}

static int release(wh_inbox_args *a)
{
    apr_int64_t id, event_id = 0;
    wh_verdict v;

    if (parse_id(a->p, a->id, &id) != 0)
        return wh_inbox_usage();
    switch (wh_quarantine_release(a->ib, a->p, a->cfg, id, apr_time_now(), &v, &event_id)) {
    case WH_RELEASE_STORED:
        printf("quarantined notification %s released as event %" APR_INT64_T_FMT "\n",
               a->id, event_id);
        return 0;
    case WH_RELEASE_DUPLICATE:
        printf("quarantined notification %s: its notificationId is already in the inbox "
               "(event %" APR_INT64_T_FMT "); marked released, nothing stored twice\n",
               a->id, event_id);
        return 0;
    case WH_RELEASE_ALREADY:
        fprintf(stderr, "wirehook inbox: quarantined notification %s was already released "
                "(as event %" APR_INT64_T_FMT ")\n", a->id, event_id);
        return 1;
    case WH_RELEASE_INVALID:
        fprintf(stderr, "wirehook inbox: quarantined notification %s still fails: %s (%s)\n",
                a->id, v.code, v.message ? v.message : "");
        for (int i = 0; v.details && i < v.details->nelts; i++) {
            const wh_problem *pr = &APR_ARRAY_IDX(v.details, i, wh_problem);
            fprintf(stderr, "  %s: %s\n", pr->field && *pr->field ? wh_cli_text(a->p, pr->field) : "/",
                    pr->problem ? wh_cli_text(a->p, pr->problem) : "?");
        }
        return 1;
    case WH_RELEASE_NOT_FOUND:
        fprintf(stderr, "wirehook inbox: no quarantined notification %s\n", a->id);
        return 1;
    default:
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
}

/* Who is acting: --by, else the login that sudo came from, else this
 * process's user. */
static const char *operator_name(wh_inbox_args *a)
{
    const char *sudo = getenv("SUDO_USER");
    struct passwd *pw;

    if (a->by && *a->by)
        return a->by;
    if (sudo && *sudo)
        return sudo;
    pw = getpwuid(geteuid());
    return pw && pw->pw_name ? apr_pstrdup(a->p, pw->pw_name) : "-";
}

static int resolve(wh_inbox_args *a, const char *resolution)
{
    apr_int64_t id;
    const char *by = operator_name(a);

    if (parse_id(a->p, a->id, &id) != 0)
        return wh_inbox_usage();
    switch (wh_quarantine_resolve(a->ib, a->p, id, resolution, by, apr_time_now())) {
    case WH_RESOLVE_DONE:
        printf("quarantined notification %s %s by %s\n", a->id, resolution, by);
        return 0;
    case WH_RESOLVE_NOT_HELD:
        fprintf(stderr, "wirehook inbox: quarantined notification %s is no longer held "
                "(released, discarded or acknowledged before)\n", a->id);
        return 1;
    case WH_RESOLVE_NOT_FOUND:
        fprintf(stderr, "wirehook inbox: no quarantined notification %s\n", a->id);
        return 1;
    default:
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
}

int wh_inbox_cmd_quarantine(wh_inbox_args *a)
{
    if (!a->verb)
        return wh_inbox_usage();
    if (strcmp(a->verb, "list") == 0 && !a->id)
        return list(a);
    if (strcmp(a->verb, "show") == 0 && a->id)
        return show(a);
    if (strcmp(a->verb, "release") == 0 && a->id)
        return release(a);
    if (strcmp(a->verb, "discard") == 0 && a->id)
        return resolve(a, WH_QUARANTINE_DISCARD);
    if (strcmp(a->verb, "acknowledge") == 0 && a->id)
        return resolve(a, WH_QUARANTINE_ACKNOWLEDGE);
    return wh_inbox_usage();
}
