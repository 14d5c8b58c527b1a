#ifndef WH_CLI_INBOX_CMD_H
#define WH_CLI_INBOX_CMD_H
/* wirehook inbox: the parts, one file per group of subcommands. */
#include <apr_pools.h>
#include "verify/wh_config.h"
#include "inbox/wh_inbox.h"

typedef struct {
    apr_pool_t *p;
    const wh_config *cfg;
    wh_inbox *ib;
    const char *verb;            /* list, show, retry, release; NULL */
    const char *id;              /* the operand after the verb, or NULL */
    int limit;                   /* --limit, 0: the command's default */
    apr_int64_t after;           /* --after */
    apr_int64_t offset;          /* --offset */
    const char *status;          /* --status */
    int all;                     /* --all */
    int raw;                     /* --raw */
    /* dead letters picked together: --reason, --http, --payment, --from,
     * --to (as given; inbox_dead.c reads them) */
    const char *reason, *http, *payment, *from, *to;
    const char *by;              /* --by: who discards or acknowledges */
    int dry_run;                 /* --dry-run */
} wh_inbox_args;

/* Each prints its result on stdout, problems on stderr, and returns the
 * exit status (0, 1 failure or not found, 2 usage). */
int wh_inbox_cmd_dead(wh_inbox_args *a);
int wh_inbox_cmd_quarantine(wh_inbox_args *a);
int wh_inbox_cmd_payment(wh_inbox_args *a);
int wh_inbox_cmd_payments(wh_inbox_args *a);
int wh_inbox_cmd_purge(wh_inbox_args *a);
int wh_inbox_cmd_vacuum(wh_inbox_args *a);
int wh_inbox_cmd_backup(wh_inbox_args *a);

/* "2026-11-22T14:05:09.123Z", or "-" for 0. */
const char *wh_inbox_time(apr_pool_t *p, apr_time_t t);
/* A usage line for `wirehook inbox ...` on stderr; returns 2. */
int wh_inbox_usage(void);

#endif
