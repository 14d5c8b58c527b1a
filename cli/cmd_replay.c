/* wirehook replay init --config F: makes a new replay store usable at
 * once. A store several servers share (redis, memcache) cannot tell a new
 * store from one flushed behind wirehook's back, so without a word it
 * treats it as emptied and answers notifications signed in the first
 * TimestampTolerance 503. This command writes the epoch marker "new, judge
 * everything" -- only when the store has no marker, so running it again,
 * or on a store in use, changes nothing. */
#include "commands.h"
#include "cli_util.h"
#include "config/wh_config_load.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_shared.h"
#include <apr_strings.h>
#include <stdio.h>
#include <string.h>

#define REPLAY_USAGE "replay init --config CONFIG"

static int replay_init(apr_pool_t *p, const char *config)
{
    wh_config *cfg = NULL;
    wh_replay_model m;
    wh_replay_store *st = NULL;
    const char *err, *spec;
    apr_time_t since = 0;
    int rv;

    if ((err = wh_config_load(p, config, &cfg))) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    spec = wh_replay_spec_display(p, cfg->replay_cache_provider,
                                  cfg->replay_cache_args);
    if ((err = wh_replay_model_make(p, cfg->replay_cache_provider,
                                    cfg->replay_cache_args, &m))) {
        fprintf(stderr, "wirehook replay: ReplayCache %s: %s\n", spec, err);
        return 1;
    }
    if (!m.shared) {
        printf("ReplayCache %s: nothing to do: a store of one machine is "
               "judged at httpd's start (lmdb: its state file; dbm: a file "
               "created then is new; shmcb: empty at every start)\n", spec);
        return 0;
    }
    err = wh_replay_shared_open(p, &m, cfg->inbox_params, 1, &st);
    if (err) {
        fprintf(stderr, "wirehook replay: ReplayCache %s: %s\n", spec, err);
        return 1;
    }
    rv = st->ops->init(st, p, &since, &err);
    if (rv < 0) {
        fprintf(stderr, "wirehook replay: ReplayCache %s: %s\n", spec,
                err ? err : "failed");
        return 1;
    }
    if (rv > 0)
        printf("ReplayCache %s: marked new: every server naming it judges "
               "every notification at once\n", spec);
    else if (since == 0)
        printf("ReplayCache %s: already marked new: unchanged\n", spec);
    else {
        char date[APR_RFC822_DATE_LEN];
        apr_rfc822_date(date, since);
        printf("ReplayCache %s: already has an epoch marker (it remembers "
               "since %s): unchanged\n", spec, date);
    }
    return 0;
}

int wh_cmd_replay(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "config", 'c', 1, "wirehook configuration file (ReplayCache)" },
        { NULL, 0, 0, NULL }
    };
    const char *config = NULL, *arg;
    apr_getopt_t *os;
    apr_status_t rv;
    int ch;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " REPLAY_USAGE "\n\n"
               "init: makes the replay store named by CONFIG's ReplayCache usable at\n"
               "once. A new redis or memcached store cannot be told from one emptied\n"
               "behind wirehook's back, and is otherwise answered 503 for\n"
               "TimestampTolerance after its first use. Writes the store's epoch marker\n"
               "\"new\" only when it has none, so it never changes a store in use.\n"
               "Run it once, before the first server uses a new store. A pgsql or mysql\n"
               "store is new when wirehook creates its table, and lmdb, dbm and shmcb\n"
               "decide at httpd's start: for them it has nothing to do.\n\n"
               "  --config CONFIG   the configuration file (module or CGI format)\n");
        return 0;
    }
    os = wh_cli_getopt(p, argc, argv, opts);
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        if (ch == 'c')
            config = arg;
    }
    if (rv != APR_EOF || !config || os->ind + 1 != os->argc
        || strcmp(os->argv[os->ind], "init") != 0)
        return wh_cli_usage(REPLAY_USAGE);
    return replay_init(p, config);
}
