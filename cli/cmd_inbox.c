/* wirehook inbox --config F <dead|quarantine|payment|payments|purge|
 * vacuum|backup> ...: an operator's view of the inbox database, read and
 * changed directly (the same database the module, the CGI and the
 * forwarder use). */
#include "commands.h"
#include "config/wh_config_load.h"
#include "cli_util.h"
#include "inbox_cmd.h"
#include "verify/wh_datetime.h"
#include "verify/wh_parse.h"
#include "inbox/wh_payments.h"

#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

#define INBOX_USAGE                                                            \
    "inbox --config F dead list [--after ID] [--limit N] [FILTER]\n"           \
    "       wirehook inbox --config F dead count [FILTER]\n"                   \
    "       wirehook inbox --config F dead show ID|NOTIFICATION_ID\n"          \
    "       wirehook inbox --config F dead retry ID|NOTIFICATION_ID|--all|FILTER\n" \
    "       wirehook inbox --config F quarantine list [--after ID] [--limit N]\n" \
    "       wirehook inbox --config F quarantine show ID [--raw]\n"            \
    "       wirehook inbox --config F quarantine release ID\n"                 \
    "       wirehook inbox --config F quarantine discard|acknowledge ID [--by NAME]\n" \
    "       wirehook inbox --config F payment PAYMENT_ID\n"                    \
    "       wirehook inbox --config F payments [--status S] [--offset N] [--limit N]\n" \
    "       wirehook inbox --config F purge [--dry-run]\n"                     \
    "       wirehook inbox --config F vacuum\n"                                \
    "       wirehook inbox --config F backup FILE"

int wh_inbox_usage(void)
{
    return wh_cli_usage(INBOX_USAGE);
}

const char *wh_inbox_time(apr_pool_t *p, apr_time_t t)
{
    return t ? wh_time_rfc3339(p, t) : "-";
}

static void inbox_log(void *baton, wh_log_level level, const char *msg)
{
    (void)baton;
    if (level <= WH_LOG_WARN)
        fprintf(stderr, "wirehook inbox: %s\n", msg);
}

static int number(apr_pool_t *p, const char *name, const char *arg, apr_int64_t min,
                  apr_int64_t max, apr_int64_t *out)
{
    const char *err = wh_parse_int64(p, arg, min, max, out);

    if (err)
        fprintf(stderr, "wirehook inbox: --%s %s\n", name, err);
    return err ? -1 : 0;
}

int wh_cmd_inbox(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "config", 'c', 1, "wirehook configuration file (InboxParams)" },
        { "limit", 'l', 1, "at most N rows" },
        { "after", 'a', 1, "list: rows after this id" },
        { "offset", 'o', 1, "payments: records to skip" },
        { "status", 's', 1, "payments: only this current status" },
        { "all", 'A', 0, "dead retry: every dead letter" },
        { "raw", 'r', 0, "quarantine show: the body's bytes unescaped" },
        { "reason", 'R', 1, "dead: the reason the forwarder gave up" },
        { "http", 'H', 1, "dead: the last answer's HTTP status, or none" },
        { "payment", 'P', 1, "dead: one payment's" },
        { "from", 'F', 1, "dead: died at this time or later (RFC 3339)" },
        { "to", 'T', 1, "dead: died before this time (RFC 3339)" },
        { "by", 'B', 1, "quarantine discard|acknowledge: who (default: the login)" },
        { "dry-run", 'n', 0, "purge: count what would go, change nothing" },
        { NULL, 0, 0, NULL }
    };
    static const struct {
        const char *name;
        int (*run)(wh_inbox_args *);
        int min_ops, max_ops;
        int open_flags;
    } groups[] = {
        { "dead", wh_inbox_cmd_dead, 2, 3, 0 },
        { "quarantine", wh_inbox_cmd_quarantine, 2, 3, 0 },
        { "payment", wh_inbox_cmd_payment, 2, 2, 0 },
        { "payments", wh_inbox_cmd_payments, 1, 1, 0 },
        { "purge", wh_inbox_cmd_purge, 1, 1, 0 },
        { "vacuum", wh_inbox_cmd_vacuum, 1, 1, 0 },
        /* a copy needs an inbox that exists, and never makes one */
        { "backup", wh_inbox_cmd_backup, 2, 2, WH_INBOX_READ_ONLY },
    };
    wh_inbox_args a;
    const char *config = NULL, *arg, *err;
    apr_int64_t v;
    apr_getopt_t *os;
    apr_status_t rv;
    wh_config *cfg = NULL;
    wh_logger lg = { inbox_log, NULL };
    int ch, nops;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " INBOX_USAGE "\n\n"
               "Reads and maintains the inbox database named by the configuration\n"
               "(InboxDriver, InboxParams): the same data the module, the CGI and\n"
               "wirehook forward use.\n\n"
               "  dead list         dead letters of wirehook forward: id, notificationId,\n"
               "                    paymentId, attempts, when it died, the last answer\n"
               "  dead show X       everything kept about one (id or notificationId),\n"
               "                    the body included\n"
               "  dead retry X      put it back in the forward queue with a fresh count;\n"
               "                    --all: every dead letter (each payment's in order);\n"
               "                    a FILTER: every dead letter it matches\n"
               "  dead count        how many dead letters a FILTER matches (all without)\n"
               "  FILTER            --reason R  --http STATUS|none  --payment P\n"
               "                    --from TIME  --to TIME (when it died, RFC 3339)\n"
               "  quarantine list   authentic notifications refused as invalid JSON or\n"
               "                    schema violations: id, received, code, released?\n"
               "  quarantine show ID   why it was refused (every problem) and the body\n"
               "                    (control bytes escaped as \\xNN; --raw: as stored)\n"
               "  quarantine release ID   checks the body again (JSON and schema) with\n"
               "                    this configuration; if it passes it is stored as a\n"
               "                    new event and marked released, else the problems are\n"
               "                    printed and the exit status is 1\n"
               "  quarantine discard ID   drops the body's bytes (when it came and why it\n"
               "                    was refused are kept): no longer held\n"
               "  quarantine acknowledge ID   keeps it, no longer held; both record who\n"
               "                    (--by NAME, else the login) and when\n"
               "  payment ID        the payment's current status and history, as JSON\n"
               "                    (GET <inbox>/payments/ID)\n"
               "  payments          payments by current status (--status S), --offset and\n"
               "                    --limit, as JSON (GET <inbox>/payments)\n"
               "  purge             deletes what is older than InboxRetention,\n"
               "                    InboxQuarantineRetention and InboxDeadLetterRetention,\n"
               "                    and expired auth-cache entries, in small transactions\n"
               "                    (never an event wirehook forward has not finished);\n"
               "                    --dry-run: counts what would go, changes nothing\n"
               "  vacuum            SQLite: writes the file again without its free pages\n"
               "                    and turns on incremental auto-vacuum (stores wait)\n"
               "  backup FILE       SQLite: a consistent copy while notifications arrive,\n"
               "                    mode 0600, checked, renamed over FILE when whole\n\n"
               "  --config F  --limit N  --after ID  --offset N  --status S  --all  --raw\n"
               "  --reason R  --http S  --payment P  --from T  --to T  --by NAME  --dry-run\n\n"
               "Exit 0 on success, 1 on failure or when nothing matches, 2 on usage errors.\n");
        return 0;
    }
    memset(&a, 0, sizeof(a));
    a.p = p;
    if (!(os = wh_cli_getopt(p, argc, argv, opts)))
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 'c': config = arg; break;
        case 'A': a.all = 1; break;
        case 'r': a.raw = 1; break;
        case 'R': a.reason = arg; break;
        case 'H': a.http = arg; break;
        case 'P': a.payment = arg; break;
        case 'F': a.from = arg; break;
        case 'T': a.to = arg; break;
        case 'B': a.by = arg; break;
        case 'n': a.dry_run = 1; break;
        case 's': a.status = arg; break;
        case 'l':
            if (number(p, "limit", arg, 1, 100000, &v) != 0)
                return 2;
            a.limit = (int)v;
            break;
        case 'a':
            if (number(p, "after", arg, 0, APR_INT64_C(999999999999999999), &a.after) != 0)
                return 2;
            break;
        case 'o':
            if (number(p, "offset", arg, 0, APR_INT64_C(9007199254740991), &a.offset) != 0)
                return 2;
            break;
        }
    }
    nops = os->argc - os->ind;
    if (rv != APR_EOF || !config || nops < 1)
        return wh_inbox_usage();
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
        if (strcmp(os->argv[os->ind], groups[g].name) != 0)
            continue;
        if (nops < groups[g].min_ops || nops > groups[g].max_ops)
            return wh_inbox_usage();
        if (groups[g].min_ops == 2 && groups[g].max_ops == 2)
            a.id = os->argv[os->ind + 1];          /* payment ID, backup FILE */
        else if (nops >= 2)
            a.verb = os->argv[os->ind + 1];
        if (nops == 3)
            a.id = os->argv[os->ind + 2];
        /* the inbox's settings alone (see wirehook forward) */
        if ((err = wh_config_load_parts(p, config, WH_PART_INBOX, &cfg)) != NULL) {
            fprintf(stderr, "wirehook inbox: %s\n", err);
            return 1;
        }
        a.cfg = cfg;
        if ((err = wh_inbox_open_ex(p, cfg, &lg, groups[g].open_flags, &a.ib)) != NULL) {
            fprintf(stderr, "wirehook inbox: %s\n", err);
            return 1;
        }
        return groups[g].run(&a);
    }
    fprintf(stderr, "wirehook inbox: unknown part '%s'\n", os->argv[os->ind]);
    return wh_inbox_usage();
}
