#include "commands.h"
#include "cli_util.h"
#include "verify/wh_config.h"
#include "verify/wh_schema.h"
#include <stdio.h>

#define CHECK_USAGE "check [--unknown-status accept|reject] [BODY_FILE|-]"

int wh_cmd_check(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "unknown-status", 'U', 1, "accept (default) or reject" },
        { NULL, 0, 0, NULL }
    };
    wh_schema_opts sopts = { 0 };
    apr_getopt_t *os = wh_cli_getopt(p, argc, argv, opts);
    apr_array_header_t *problems = apr_array_make(p, 8, sizeof(wh_problem));
    wh_facts facts = { 0 };
    const char *arg, *err, *input = NULL;
    char *body;
    apr_size_t len;
    apr_status_t rv;
    int ch, n;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " CHECK_USAGE "\n\n"
               "Validates a notification body: prints `ok`, or each problem as\n"
               "`<JSON pointer>: <reason>` and exits 1.\n");
        return 0;
    }
    if (!os)
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        if (ch == 'U' && strcmp(arg, "reject") == 0)
            sopts.unknown_status_reject = 1;
        else if (ch == 'U' && strcmp(arg, "accept") != 0)
            return wh_cli_usage(CHECK_USAGE);
    }
    if (rv != APR_EOF || os->argc - os->ind > 1)
        return wh_cli_usage(CHECK_USAGE);
    if (os->ind < os->argc)
        input = os->argv[os->ind];
    if ((err = wh_cli_read_input(p, input, WH_CLI_MAX_INPUT, &body, &len))) {
        fprintf(stderr, "wirehook check: %s\n", err);
        return 1;
    }
    n = wh_schema_check(p, body, len, &sopts, problems, &facts, &err);
    if (n == WH_SCHEMA_NOT_JSON) {
        printf(": invalid JSON: %s\n", err);
        return 1;
    }
    if (n > 0) {
        for (int i = 0; i < problems->nelts; i++) {
            const wh_problem *pr = &APR_ARRAY_IDX(problems, i, wh_problem);
            printf("%s: %s\n", pr->field, pr->problem);
        }
        return 1;
    }
    printf("ok\n");
    if (facts.status && !facts.status_known)
        fprintf(stderr, "note: status '%s' is not in the spec's list; accepted and "
                        "flagged (UnknownStatus accept)\n", facts.status);
    return 0;
}
