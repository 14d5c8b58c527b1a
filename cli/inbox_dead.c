/* wirehook inbox dead list|count|show|retry: the forwarder's dead
 * letters, one by one or picked together by a filter (the console's). */
#include "inbox_cmd.h"
#include "cli_util.h"
#include "forward/wh_forward_queue.h"
#include "forward/wh_forward_views.h"
#include "inbox/wh_pagination.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

#define DEAD_LIST_DEFAULT 100
/* How much of the last answer a list line shows; show prints it all. */
#define DEAD_LIST_ANSWER 60

/* What the network sent, made safe for a terminal (wh_cli_text). */
static const char *or_dash(apr_pool_t *p, const char *s)
{
    return s && *s ? wh_cli_text(p, s) : "-";
}

/* The filter the options give; 0 none given, 1 one, -1 a bad value
 * (said). */
static int filter_of(wh_inbox_args *a, wh_fq_dead_filter *f)
{
    const char *out;
    apr_int64_t us;

    memset(f, 0, sizeof(*f));
    if (a->reason && wh_page_filter_value(a->p, "--reason", a->reason, &out) != NULL) {
        fprintf(stderr, "wirehook inbox: --reason: not a reason a dead letter can have\n");
        return -1;
    }
    f->reason = a->reason;
    if (a->http && strcmp(a->http, "none") == 0)
        f->http_status = -1;
    else if (a->http && wh_parse_int(a->p, a->http, 100, 599, &f->http_status) != NULL) {
        fprintf(stderr, "wirehook inbox: --http: a status from 100 to 599, or none\n");
        return -1;
    }
    if (a->payment && wh_page_filter_value(a->p, "--payment", a->payment, &out) != NULL) {
        fprintf(stderr, "wirehook inbox: --payment: not a paymentId\n");
        return -1;
    }
    f->payment_id = a->payment;
    if (a->from) {
        if (wh_datetime_parse(a->from, strlen(a->from), &us) != 0) {
            fprintf(stderr, "wirehook inbox: --from: an RFC 3339 time\n");
            return -1;
        }
        f->from = (apr_time_t)us;
    }
    if (a->to) {
        if (wh_datetime_parse(a->to, strlen(a->to), &us) != 0) {
            fprintf(stderr, "wirehook inbox: --to: an RFC 3339 time\n");
            return -1;
        }
        f->to = (apr_time_t)us;
    }
    return a->reason || a->http || a->payment || a->from || a->to;
}

static int list(wh_inbox_args *a, wh_fq *d)
{
    apr_array_header_t *rows;
    wh_fq_dead_filter f;
    int filtered = filter_of(a, &f), limit = a->limit ? a->limit : DEAD_LIST_DEFAULT;

    if (filtered < 0)
        return 2;
    /* a filter lists the newest first (as the console), --after then
     * being the id to go on below */
    if ((filtered ? wh_fq_dead_page(d, a->p, &f, a->after, limit, &rows)
                  : wh_fq_dead_list(d, a->p, a->after, limit, &rows)) != 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    printf("%-10s %-36s %-20s %8s  %-24s  %s\n", "ID", "NOTIFICATION", "PAYMENT",
           "ATTEMPTS", "DIED", "LAST ANSWER");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_fq_dead *r = &APR_ARRAY_IDX(rows, i, wh_fq_dead);
        printf("%-10" APR_INT64_T_FMT " %-36s %-20s %8d  %-24s  %.*s\n", r->event_id,
               or_dash(a->p, r->notification_id), or_dash(a->p, r->payment_id), r->attempts,
               wh_inbox_time(a->p, r->dead_at), DEAD_LIST_ANSWER, or_dash(a->p, r->answer));
    }
    return 0;
}

static int show(wh_inbox_args *a, wh_fq *d)
{
    wh_fq_dead r;
    int found = wh_fq_dead_get(d, a->p, a->id, &r);

    if (found < 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    if (!found) {
        fprintf(stderr, "wirehook inbox: no dead letter %s\n", a->id);
        return 1;
    }
    printf("id:             %" APR_INT64_T_FMT "\n", r.event_id);
    printf("listed as:      %" APR_INT64_T_FMT "\n", r.seq);
    printf("notificationId: %s\n", or_dash(a->p, r.notification_id));
    printf("paymentId:      %s\n", or_dash(a->p, r.payment_id));
    printf("status:         %s\n", or_dash(a->p, r.status));
    printf("eventDateTime:  %s\n", or_dash(a->p, r.event_time));
    printf("received:       %s\n", wh_inbox_time(a->p, r.received_at));
    printf("first attempt:  %s\n", wh_inbox_time(a->p, r.first_at));
    printf("died:           %s\n", wh_inbox_time(a->p, r.dead_at));
    printf("attempts:       %d\n", r.attempts);
    if (r.http_status)
        printf("last status:    %d\n", r.http_status);
    printf("last answer:    %s\n", or_dash(a->p, r.answer));
    printf("reason:         %s\n", or_dash(a->p, r.reason));
    printf("body:\n%s\n", r.body ? r.body : "");
    return 0;
}

static int count(wh_inbox_args *a, wh_fq *d)
{
    wh_fq_dead_filter f;
    apr_int64_t n = 0;

    if (filter_of(a, &f) < 0)
        return 2;
    if (wh_fq_dead_count(d, a->p, &f, &n) != 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    printf("%" APR_INT64_T_FMT "\n", n);
    return 0;
}

static int retry(wh_inbox_args *a, wh_fq *d)
{
    wh_fq_dead_filter f;
    int n = 0, rc, filtered = filter_of(a, &f);

    if (filtered < 0)
        return 2;
    if ((a->id != NULL) + (a->all != 0) + (filtered > 0) != 1) {
        fprintf(stderr, "wirehook inbox: dead retry takes an id, --all or a filter\n");
        return wh_inbox_usage();
    }
    if (filtered) {
        if (wh_fq_dead_retry_matching(d, a->p, &f, apr_time_now(), &n) != 0) {
            fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
            return 1;
        }
        printf("%d dead letter%s back in the forward queue\n", n, n == 1 ? "" : "s");
        return 0;
    }
    rc = wh_fq_dead_retry(d, a->p, a->all ? NULL : a->id, apr_time_now(), &n);
    if (rc < 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    if (!a->all && n == 0) {
        fprintf(stderr, "wirehook inbox: no dead letter %s\n", a->id);
        return 1;
    }
    printf("%d dead letter%s back in the forward queue\n", n, n == 1 ? "" : "s");
    return 0;
}

int wh_inbox_cmd_dead(wh_inbox_args *a)
{
    wh_fq *d;
    const char *err;

    if (!a->verb)
        return wh_inbox_usage();
    /* The forward queue's tables may not exist yet: made as the forwarder makes
     * them, so an empty list is an empty list. */
    if ((err = wh_fq_open(a->p, a->ib, a->cfg, "wirehook-inbox", &d)) != NULL) {
        fprintf(stderr, "wirehook inbox: %s\n", err);
        return 1;
    }
    if (strcmp(a->verb, "list") == 0 && !a->id)
        return list(a, d);
    if (strcmp(a->verb, "count") == 0 && !a->id)
        return count(a, d);
    if (strcmp(a->verb, "show") == 0 && a->id)
        return show(a, d);
    if (strcmp(a->verb, "retry") == 0)
        return retry(a, d);
    return wh_inbox_usage();
}
