#include "commands.h"
#include "cli_util.h"
#include "configtest_as.h"
#include "inbox/wh_inbox_files.h"
#include "inbox/wh_inbox_purge.h"
#include "config/wh_config_load.h"
#include "verify/wh_config_lint.h"
#include "forward/wh_forward.h"
#include "replay/wh_replay.h"
#include "verify/wh_fs.h"
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONFIGTEST_USAGE "configtest [--as USER] CONFIG | --keys"

static void print_lines(const char *prefix, const char *text)
{
    char *lines = strdup(text), *state = NULL;

    for (char *l = lines ? strtok_r(lines, "\n", &state) : NULL; l;
         l = strtok_r(NULL, "\n", &state))
        fprintf(stderr, "%s%s\n", prefix, l);
    free(lines);
}

/* Every key's row, one a line, tab-separated: name, kind, the value's
 * name, default, bounds or values, help; "-" for none. The order is the
 * table's and the columns only ever grow at the end: the documentation's
 * checks, the man page and the fuzzer's dictionary read this. */
static int print_keys(apr_pool_t *p)
{
    for (const wh_key *const *t = wh_config_keys(); *t; t++)
        for (const wh_key *k = *t; k->name; k++) {
            wh_key_text d;
            wh_key_describe(p, k, &d);
            printf("%s\t%s\t%s\t%s\t%s\t%s\n", k->name, d.kind, d.arg,
                   d.dflt, d.range, k->help);
        }
    return 0;
}

/* What the module refuses at startup about ReplayCache: a provider or
 * arguments it cannot use, and (for an absolute path: a relative one is
 * httpd's ServerRoot's) a store file on a network file system. */
static const char *replay_problem(apr_pool_t *p, const wh_config *cfg)
{
    wh_replay_model m;
    const char *err = wh_replay_model_make(p, cfg->replay_cache_provider,
                                           cfg->replay_cache_args, &m);
    const char *file = NULL, *net;

    if (err)
        return err;
    if (strcmp(m.provider, "lmdb") == 0)
        file = m.path;
    else if (strcmp(m.provider, "dbm") == 0)
        file = m.args;
    if (file && file[0] == '/' && (net = wh_fs_network(file)) != NULL)
        return apr_psprintf(p, "%s is on a network file system (%s), where a "
                            "store's locks hold for no one: several servers "
                            "share redis, memcache, pgsql or mysql; one server "
                            "keeps lmdb or dbm on a local disk", file, net);
    return NULL;
}

int wh_cmd_configtest(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "as", 'a', 1, "the user the server reads the files as" },
        { "keys", 'k', 0, "print every key" },
        { NULL, 0, 0, NULL }
    };
    wh_config *cfg = NULL;
    const char *err, *warn, *files, *arg, *as = NULL, *config, *why = NULL;
    apr_array_header_t *warnings = apr_array_make(p, 4, sizeof(const char *));
    apr_array_header_t *errors = apr_array_make(p, 4, sizeof(const char *));
    apr_getopt_t *os;
    apr_status_t rv;
    int ch, keys = 0;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " CONFIGTEST_USAGE "\n\n"
               "Reads CONFIG as mod_wirehook and wirehook.cgi would (including the secret\n"
               "and htpasswd files) and prints `Syntax OK`, or each error as file:line and\n"
               "exits 1. Warns about secret files that others can read, and about the\n"
               "mistakes docs/troubleshooting.md lists (a secret with spaces or quotes\n"
               "around it, an htpasswd line in a secret file), each with its fix.\n\n"
               "Then checks, as the user the server runs as, what that user will read\n"
               "and write: the configuration file, the secret and htpasswd files (a\n"
               "warning: the module reads them as root at start, but as that user after\n"
               "a change, and the CGI at each request) and the inbox (an error: every\n"
               "writer opens it as that user).\n"
               "  --as USER   that user; run as root, the default is $APACHE_RUN_USER\n"
               "              (apache2's envvars), else www-data when it exists; run as\n"
               "              anyone else, that user alone can be checked\n\n"
               "--keys prints every key the format knows, one a line, tab-separated:\n"
               "name, kind, argument, default, bounds or values, help (\"-\": none).\n");
        return 0;
    }
    if (!(os = wh_cli_getopt(p, argc, argv, opts)))
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        if (ch == 'a')
            as = arg;
        else if (ch == 'k')
            keys = 1;
    }
    if (rv == APR_EOF && keys && !as && os->argc == os->ind)
        return print_keys(p);
    if (rv != APR_EOF || keys || os->argc - os->ind != 1)
        return wh_cli_usage(CONFIGTEST_USAGE);
    config = os->argv[os->ind];
    if ((err = wh_config_load(p, config, &cfg))) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if ((err = replay_problem(p, cfg))) {
        fprintf(stderr, "%s: ReplayCache: %s\n", config, err);
        return 1;
    }
    if ((err = wh_inbox_network_fs(p, cfg))) {
        fprintf(stderr, "%s: %s\n", config, err);
        return 1;
    }
    warn = wh_config_permission_warnings(p, cfg);
    if ((files = wh_inbox_file_warnings(p, cfg)))
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if ((files = wh_config_lint_warnings(p, cfg, WH_PART_VERIFY | WH_PART_FORWARD)))
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if ((files = wh_forward_unit_warning(p, cfg)))
        warn = warn ? apr_pstrcat(p, warn, "\n", files, NULL) : files;
    if (warn)
        print_lines("warning: ", warn);

    if (as && geteuid() != 0) {
        fprintf(stderr, "wirehook configtest: --as needs root (to take on that "
                "user's ids)\n");
        return 2;
    }
    if (!as)
        as = wh_configtest_default_user();
    if (!as && geteuid() == 0)
        fprintf(stderr, "note: not checked as the web server's user (no www-data "
                "here): give --as USER\n");
    else if (wh_configtest_as(p, cfg, config, as, warnings, errors, &why) != 0)
        fprintf(stderr, "warning: not checked as user %s: %s\n", as ? as : "-", why);
    for (int i = 0; i < warnings->nelts; i++)
        fprintf(stderr, "warning: %s\n", APR_ARRAY_IDX(warnings, i, const char *));
    for (int i = 0; i < errors->nelts; i++)
        fprintf(stderr, "%s\n", APR_ARRAY_IDX(errors, i, const char *));
    if (errors->nelts)
        return 1;
    /* what the inbox keeps, said also when it is everything */
    if ((why = wh_inbox_retention_note(p, cfg)) != NULL)
        fprintf(stderr, "note: %s\n", why);
    printf("Syntax OK\n");
    return 0;
}
