/* wirehook inbox payment ID | payments: the payment views, the same JSON
 * as GET <inbox>/payments[/ID]. */
#include "inbox_cmd.h"
#include "inbox/wh_pagination.h"
#include "inbox/wh_payments.h"

#include <stdio.h>

static int print(wh_pay_result r, const char *json, const char *what)
{
    if (r == WH_PAY_NOT_FOUND) {
        fprintf(stderr, "wirehook inbox: the inbox holds no event of payment %s\n", what);
        return 1;
    }
    if (r != WH_PAY_OK) {
        fprintf(stderr, "wirehook inbox: the inbox database did not answer\n");
        return 1;
    }
    printf("%s\n", json);
    return 0;
}

int wh_inbox_cmd_payment(wh_inbox_args *a)
{
    const char *json = NULL, *id, *err;
    wh_pay_result r;

    if ((err = wh_page_filter_value(a->p, "the payment id", a->id, &id)) != NULL) {
        fprintf(stderr, "wirehook inbox: %s\n", err);
        return 2;
    }
    r = wh_payments_get(a->ib, a->p, id, &json);

    return print(r, json, id);
}

int wh_inbox_cmd_payments(wh_inbox_args *a)
{
    wh_page_query q;
    const char *json = NULL, *err;

    q.offset = a->offset;
    q.limit = a->limit ? a->limit : a->cfg->list_default_limit;
    q.payment_id = NULL;
    q.status = NULL;
    if (a->status && (err = wh_page_filter_value(a->p, "--status", a->status,
                                                 &q.status)) != NULL) {
        fprintf(stderr, "wirehook inbox: %s\n", err);
        return 2;
    }
    {
        wh_pay_result r = wh_payments_list(a->ib, a->p, &q, &json);
        return print(r, json, "");
    }
}
