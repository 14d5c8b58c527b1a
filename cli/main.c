/* wirehook: sign, check, send and pull wire-status webhooks, test a
 * configuration file, forward what an inbox stores and look after it,
 * grade a receiver. */
#include "commands.h"
#include "verify/wh_version.h"
#include <apr_general.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, const char *const *argv, apr_pool_t *p);
    const char *summary;
} command;

static const command commands[] = {
    { "sign", wh_cmd_sign, "print the HMAC-SHA256 signature of a body" },
    { "check", wh_cmd_check, "validate a notification body against the schema" },
    { "configtest", wh_cmd_configtest, "check a configuration file" },
    { "send", wh_cmd_send, "sign and POST notifications as the bank would" },
    { "pull", wh_cmd_pull, "walk an offset/limit list endpoint, print NDJSON" },
    { "forward", wh_cmd_forward, "forward what the inbox stores to an application" },
    { "inbox", wh_cmd_inbox, "dead letters, quarantine, payment views of an inbox" },
    { "replay", wh_cmd_replay, "replay init: make a new shared replay store usable" },
    { "probe", wh_cmd_probe, "grade a receiver: forged, stale, replayed, invalid requests" },
    { NULL, NULL, NULL }
};

static int usage(FILE *out, int rc)
{
    fprintf(out, "usage: wirehook <command> [options]   (wirehook <command> --help)\n"
                 "       wirehook --version\n\ncommands:\n");
    for (const command *c = commands; c->name; c++)
        fprintf(out, "  %-11s %s\n", c->name, c->summary);
    return rc;
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *pool;
    int rc = -1;

    if (argc < 2)
        return usage(stderr, 2);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0)
        return usage(stdout, 0);
    if (strcmp(argv[1], "--version") == 0) {
        printf("wirehook %s\n", wh_version());
        return 0;
    }
    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS)
        return 1;
    apr_pool_create(&pool, NULL);
    for (const command *c = commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            rc = c->run(argc - 1, argv + 1, pool);
    if (rc < 0) {
        fprintf(stderr, "wirehook: unknown command '%s'\n", argv[1]);
        rc = usage(stderr, 2);
    }
    apr_pool_destroy(pool);
    apr_terminate();
    return rc;
}
