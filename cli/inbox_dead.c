/* wirehook inbox dead list|show|retry: the forwarder's dead letters. */
#include "inbox_cmd.h"
#include "forward/wh_forward_queue.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

#define DEAD_LIST_DEFAULT 100
/* How much of the last answer a list line shows; show prints it all. */
#define DEAD_LIST_ANSWER 60

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static int list(wh_inbox_args *a, wh_fq *d)
{
    apr_array_header_t *rows;

    if (wh_fq_dead_list(d, a->p, a->after, a->limit ? a->limit : DEAD_LIST_DEFAULT,
                        &rows) != 0) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    printf("%-10s %-36s %-20s %8s  %-24s  %s\n", "ID", "NOTIFICATION", "PAYMENT",
           "ATTEMPTS", "DIED", "LAST ANSWER");
    for (int i = 0; i < rows->nelts; i++) {
        const wh_fq_dead *r = &APR_ARRAY_IDX(rows, i, wh_fq_dead);
        printf("%-10" APR_INT64_T_FMT " %-36s %-20s %8d  %-24s  %.*s\n", r->event_id,
               or_dash(r->notification_id), or_dash(r->payment_id), r->attempts,
               wh_inbox_time(a->p, r->dead_at), DEAD_LIST_ANSWER, or_dash(r->answer));
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
    printf("notificationId: %s\n", or_dash(r.notification_id));
    printf("paymentId:      %s\n", or_dash(r.payment_id));
    printf("status:         %s\n", or_dash(r.status));
    printf("eventDateTime:  %s\n", or_dash(r.event_time));
    printf("received:       %s\n", wh_inbox_time(a->p, r.received_at));
    printf("first attempt:  %s\n", wh_inbox_time(a->p, r.first_at));
    printf("died:           %s\n", wh_inbox_time(a->p, r.dead_at));
    printf("attempts:       %d\n", r.attempts);
    if (r.http_status)
        printf("last status:    %d\n", r.http_status);
    printf("last answer:    %s\n", or_dash(r.answer));
    printf("reason:         %s\n", or_dash(r.reason));
    printf("body:\n%s\n", r.body ? r.body : "");
    return 0;
}

static int retry(wh_inbox_args *a, wh_fq *d)
{
    int n = 0, rc;

    if ((a->id != NULL) == (a->all != 0)) {
        fprintf(stderr, "wirehook inbox: dead retry takes an id or --all\n");
        return wh_inbox_usage();
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
    if (strcmp(a->verb, "show") == 0 && a->id)
        return show(a, d);
    if (strcmp(a->verb, "retry") == 0)
        return retry(a, d);
    return wh_inbox_usage();
}
