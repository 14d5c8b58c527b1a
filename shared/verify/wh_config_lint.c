/* Mistakes in a configuration's files that no parser refuses
 * (wh_config_lint.h). A secret is the whole line byte for byte
 * (wh_secrets.c), so a space, quotes or a hash line are legal secrets:
 * they are warned about, never refused, because a secret the bank really
 * chose that way must keep working. Two keys naming one file is never
 * right, and is refused. */
#include "wh_config_lint.h"
#include "wh_parse.h"

#include <apr_file_info.h>
#include <apr_strings.h>
#include <string.h>

#define LINT_FILE_MAX (1024 * 1024)   /* wh_secrets.c's limit */

/* 1 when both paths name one existing file (links and other spellings
 * included). */
static int same_file(apr_pool_t *p, const char *a, const char *b)
{
    apr_finfo_t fa, fb;

    if (!a || !b)
        return 0;
    if (apr_stat(&fa, a, APR_FINFO_IDENT, p) != APR_SUCCESS
        || apr_stat(&fb, b, APR_FINFO_IDENT, p) != APR_SUCCESS)
        return 0;
    return fa.device == fb.device && fa.inode == fb.inode;
}

const char *wh_lint_secret_is_htpasswd(apr_pool_t *p, const char *secret_file,
                                       const char *htpasswd_file)
{
    if (!same_file(p, secret_file, htpasswd_file))
        return NULL;
    return apr_psprintf(p, "%s is also BasicAuthFile's file: the signing "
                        "secret the bank gave you goes in a file of its own "
                        "(one secret a line), the htpasswd file holds its "
                        "Basic-auth user", secret_file);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* "user:" then a hash in one of the formats htpasswd writes. */
static int htpasswd_like(const char *line, apr_size_t len)
{
    static const char *const prefixes[] = { "$2y$", "$2a$", "$2b$", "$apr1$",
                                            "{SHA}", "$5$", "$6$", NULL };
    const char *colon = memchr(line, ':', len);
    apr_size_t rest;

    if (!colon || colon == line)
        return 0;
    for (const char *c = line; c < colon; c++)
        if (is_blank(*c))
            return 0;
    rest = len - (apr_size_t)(colon + 1 - line);
    for (int i = 0; prefixes[i]; i++) {
        apr_size_t n = strlen(prefixes[i]);
        if (rest > n && memcmp(colon + 1, prefixes[i], n) == 0)
            return 1;
    }
    return 0;
}

const char *wh_secret_line_problem(const char *line, apr_size_t len)
{
    if (len == 0)
        return NULL;
    if (is_blank(line[0]) || is_blank(line[len - 1]))
        return "begins or ends with a space or a tab, which is part of the "
               "secret (a secret is the whole line): remove it, unless the "
               "secret really has it";
    if (len >= 2 && (line[0] == '"' || line[0] == '\'') && line[len - 1] == line[0])
        return "is in quotes, which are part of the secret (a secret is the "
               "whole line): remove them, unless the secret really has them";
    if (htpasswd_like(line, len))
        return "looks like an htpasswd line (user:hash), not a secret: a "
               "secret file holds the secret alone, one a line";
    return NULL;
}

typedef struct {
    apr_pool_t *p;
    const char *key, *path;
    apr_array_header_t *out;
} lint_ctx;

static void lint_line(void *vctx, unsigned lineno, char *line, apr_size_t len)
{
    lint_ctx *c = vctx;
    const char *why;

    while (len && line[len - 1] == '\r')   /* as the loader reads it */
        len--;
    if ((why = wh_secret_line_problem(line, len)) != NULL)
        APR_ARRAY_PUSH(c->out, const char *) =
            apr_psprintf(c->p, "%s %s:%u: %s", c->key, c->path, lineno, why);
}

static void lint_secret_file(apr_pool_t *p, const char *key, const char *path,
                             apr_array_header_t *out)
{
    lint_ctx c = { p, key, path, out };

    if (path)
        (void)wh_parse_lines(p, path, LINT_FILE_MAX, lint_line, &c);
}

const char *wh_config_lint_warnings(apr_pool_t *p, const wh_config *cfg,
                                    unsigned parts)
{
    apr_array_header_t *out = apr_array_make(p, 2, sizeof(const char *));

    if (!cfg)
        return NULL;
    if (parts & WH_PART_SECRETS)
        lint_secret_file(p, "SigningSecretFile", cfg->signing_secret_file, out);
    if ((parts & WH_PART_FORWARD) && cfg->forward_secret_file)
        lint_secret_file(p, "ForwardSecretFile", cfg->forward_secret_file, out);
    if (same_file(p, cfg->forward_secret_file, cfg->signing_secret_file))
        APR_ARRAY_PUSH(out, const char *) = apr_psprintf(
            p, "ForwardSecretFile %s is also SigningSecretFile's file: the "
            "forwarder would sign with the bank's secret and your application "
            "would hold it; give the forwarder a secret of its own "
            "(openssl rand -hex 32)", cfg->forward_secret_file);
    return out->nelts ? apr_array_pstrcat(p, out, '\n') : NULL;
}

const char *wh_lint_inbox_without_config(apr_pool_t *p, const char *section)
{
    return apr_psprintf(p, "%s: SetHandler wirehook (the inbox) with no "
                        "WirehookConfig reaching it: every request there would "
                        "be answered 500; add WirehookConfig FILE to the same "
                        "section", section);
}
