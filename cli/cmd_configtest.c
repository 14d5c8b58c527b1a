#include "commands.h"
#include "cli_util.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_config.h"
#include <apr_strings.h>
#include <stdio.h>

#define CONFIGTEST_USAGE "configtest CONFIG"

int wh_cmd_configtest(int argc, const char *const *argv, apr_pool_t *p)
{
    wh_config *cfg = NULL;
    const char *err, *warn, *files;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " CONFIGTEST_USAGE "\n\n"
               "Reads CONFIG as mod_wirehook and wirehook.cgi would (including the secret\n"
               "and htpasswd files) and prints `Syntax OK`, or each error as file:line and\n"
               "exits 1. Warns about secret files that others can read.\n");
        return 0;
    }
    if (argc != 2)
        return wh_cli_usage(CONFIGTEST_USAGE);
    if ((err = wh_config_load(p, argv[1], &cfg))) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    warn = wh_config_permission_warnings(p, cfg);
    if ((files = wh_inbox_file_warnings(p, cfg)))
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if (warn) {
        char *lines = apr_pstrdup(p, warn), *state = NULL;
        for (char *l = apr_strtok(lines, "\n", &state); l; l = apr_strtok(NULL, "\n", &state))
            fprintf(stderr, "warning: %s\n", l);
    }
    printf("Syntax OK\n");
    return 0;
}
