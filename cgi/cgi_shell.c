/* wirehook.cgi run from a shell, by the account that owns it: --version,
 * --configtest, --help. main() comes here only when no request is in the
 * environment (no GATEWAY_INTERFACE or REQUEST_METHOD), so a client
 * never reaches it: a query string without '=' is handed to a CGI
 * program as arguments. */
#include "cgi.h"
#include "inbox/wh_inbox_files.h"
#include "verify/wh_config_lint.h"
#include "verify/wh_version.h"
#include <apr_strings.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define WH_CGI_USAGE                                                                  \
    "usage: %s --configtest | --version | --help\n"                                   \
    "A CGI program: httpd runs it for each request. From a shell:\n"                  \
    "  --configtest  which configuration file it would read (and where it looked),\n" \
    "                whether every file it names can be read and the inbox\n"         \
    "                created and written, as the user running it; warnings about\n"   \
    "                files others can read. Exit 0 when usable, 1 otherwise.\n"       \
    "  --version     the libraries it carries and their versions.\n"

static void print_lines(FILE *out, const char *prefix, const char *text)
{
    const char *s = text;

    while (s && *s) {
        const char *nl = strchr(s, '\n');
        int n = nl ? (int)(nl - s) : (int)strlen(s);
        fprintf(out, "%s%.*s\n", prefix, n, s);
        s = nl ? nl + 1 : NULL;
    }
}

static int version(apr_pool_t *p)
{
    const char *from = wh_cgi_built_from();

#ifdef WH_CGI_SELF_CONTAINED
    printf("wirehook.cgi %s, self-contained (CGI_LINK=static): it carries\n",
           wh_version());
#else
    printf(
        "wirehook.cgi %s, dynamic (CGI_LINK=dynamic): the system's libraries,\n"
        "updated with the system:\n",
        wh_version());
#endif
    print_lines(stdout, "  ", wh_cgi_versions(p));
    if (from) {
        printf("built from the Debian packages:\n");
        for (char *state = NULL,
                  *w = apr_strtok(apr_pstrdup(p, from), " ", &state);
             w; w = apr_strtok(NULL, " ", &state))
            printf("  %s\n", w);
        printf(
            "A security update of any of them reaches this program only when it is rebuilt:\n"
            "make, then copy the new build/wirehook.cgi over this one.\n");
    }
    return 0;
}

/* Whether this user can create the SQLite database in dir, or write it
 * and the files SQLite and wirehook keep beside it (left by another user,
 * say the web server's before suEXEC, they stop every store). */
static const char *inbox_access(apr_pool_t *p, const char *db)
{
    static const char *const beside[] = {"-wal", "-shm", "-lock", "-auth",
                                         NULL};
    const char *dir = wh_inbox_file_dir(p, db);
    struct stat st;

    if (access(dir, W_OK | X_OK) != 0)
        return apr_psprintf(p, "its directory %s cannot be written: %s", dir,
                            strerror(errno));
    if (stat(db, &st) != 0)
        return errno == ENOENT
                   ? NULL
                   : apr_psprintf(p, "%s: %s", db, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return apr_psprintf(p, "%s is not a regular file", db);
    for (int i = -1; i < 0 || beside[i]; i++) {
        const char *f = i < 0 ? db : apr_pstrcat(p, db, beside[i], NULL);
        if (access(f, F_OK) == 0 && access(f, R_OK | W_OK) != 0)
            return apr_psprintf(p, "%s cannot be read and written: %s", f,
                                strerror(errno));
    }
    return NULL;
}

static int configtest(apr_pool_t *p, const char *argv0)
{
    wh_cgi_io io = wh_cgi_stdio();
    const char *script = wh_cgi_script_path(p, &io, argv0);
    wh_config_found found;
    wh_config *cfg = NULL;
    const char *err, *warn, *w, *db;
    int bad = 0;

    printf(
        "script: %s\nrunning as uid %lu, gid %lu (under suEXEC the CGI runs as the "
        "script's owner; without it, as the web server's user)\n",
        script ? script : "(unknown)", (unsigned long)getuid(),
        (unsigned long)getgid());
    err = wh_cgi_load_config(p, environ, script, &cfg, &found, NULL);
    printf("looked for the configuration in, in order:\n");
    for (int i = 0; i < found.places->nelts; i++) {
        const wh_config_place *pl = &APR_ARRAY_IDX(found.places, i,
                                                   wh_config_place);
        printf("  %s: %s (%s)\n", pl->rule, pl->path ? pl->path : "-",
               wh_config_place_state(pl));
    }
    if (found.path)
        printf("configuration: %s\n", found.path);
    else
        printf("configuration: no file\n");
    if (err) {
        print_lines(stdout, "error: ", err);
        return 1;
    }
    /* finalize has read them: this user can */
    printf("SigningSecretFile %s: readable\n", cfg->signing_secret_file);
    printf("BasicAuthFile %s: readable\n", cfg->basic_auth_file);
    if (cfg->console_readers_file)
        printf("ConsoleReaders %s: readable\n", cfg->console_readers_file);
    if (cfg->console_operators_file)
        printf("ConsoleOperators %s: readable\n", cfg->console_operators_file);
    if ((w = wh_inbox_network_fs(p, cfg)) != NULL) {
        printf("error: %s\n", w);
        bad = 1;
    }
    else if ((db = wh_inbox_sqlite_file(cfg)) != NULL) {
        if ((w = inbox_access(p, db)) != NULL) {
            printf("error: InboxParams %s: %s\n", db, w);
            bad = 1;
        }
        else {
            printf(
                "InboxParams %s: %s\n", db,
                access(db, F_OK) == 0
                    ? "can be written"
                    : "can be created and written (the first stored notification creates it)");
        }
    }
    else {
        printf("InboxParams: %s, not checked here\n",
               cfg->inbox_driver == WH_INBOX_PGSQL   ? "a PostgreSQL database"
               : cfg->inbox_driver == WH_INBOX_MYSQL ? "a MariaDB or MySQL database"
                   : "an SQLite URI or :memory:");
    }
    warn = wh_config_permission_warnings(p, cfg);
    if ((w = wh_inbox_file_warnings(p, cfg)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", w, NULL) : w;
    if ((w = wh_cgi_config_file_warning(p, found.path, 1)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", w, NULL) : w;
    if ((w = wh_config_lint_warnings(p, cfg, WH_PART_SECRETS)) != NULL)
        warn = warn ? apr_pstrcat(p, warn, "\n", w, NULL) : w;
    print_lines(stdout, "warning: ", warn);
    fputs(bad ? "not usable\n" : "Syntax OK\n", stdout);
    return bad;
}

int wh_cgi_shell(apr_pool_t *p, int argc, const char *const *argv)
{
    const char *me = argv[0] ? argv[0] : "wirehook.cgi";

    if (argc == 2 && strcmp(argv[1], "--version") == 0)
        return version(p);
    if (argc == 2 && strcmp(argv[1], "--configtest") == 0)
        return configtest(p, argv[0]);
    if (argc == 2
        && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf(WH_CGI_USAGE, me);
        return 0;
    }
    fprintf(stderr, WH_CGI_USAGE, me);
    return 2;
}
