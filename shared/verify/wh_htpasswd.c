/* htpasswd files as httpd's mod_authn_file reads them: each line is
 * trimmed (ap_cfg_getline), blank and '#' lines are skipped, the user is
 * everything up to the first ':' and the hash is the rest (ap_getword).
 * The hash is not checked here; apr_password_validate() understands every
 * format htpasswd writes (bcrypt, apr1, SHA, crypt).
 *
 * Unlike httpd, a malformed line is an error rather than a user nobody
 * can log in as: a broken file should stop the service, not half-work.
 * Errors carry the line number only, never the line, which holds a hash. */
#include "wh_auth.h"
#include "wh_config_lint.h"
#include "wh_parse.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>

#define WH_HTPASSWD_LINE_MAX 8192 /* httpd's MAX_STRING_LEN */
#define WH_HTPASSWD_FILE_MAX (16 * 1024 * 1024)

typedef struct {
    apr_pool_t *p;
    const char *path;
    apr_hash_t *users;          /* user -> hash */
    apr_array_header_t *errors; /* of const char * */
} htpasswd_ctx;

static void line_error(htpasswd_ctx *ctx, unsigned lineno, const char *msg)
{
    APR_ARRAY_PUSH(ctx->errors, const char *) =
        apr_psprintf(ctx->p, "%s:%u: %s", ctx->path, lineno, msg);
}

/* Trims surrounding whitespace in place; returns the new start. */
static char *trim(char *line, apr_size_t *len)
{
    while (*len && apr_isspace(line[*len - 1]))
        line[--*len] = '\0';
    while (*len && apr_isspace(*line)) {
        line++;
        --*len;
    }
    return line;
}

static void add_user(htpasswd_ctx *ctx, const char *line, apr_size_t ulen,
                     const char *hash)
{
    const char *user = apr_pstrmemdup(ctx->p, line, ulen);

    /* Duplicate users: the first line wins, because mod_authn_file stops
     * at the first match and the same file must behave the same here. */
    if (apr_hash_get(ctx->users, user, APR_HASH_KEY_STRING))
        return;
    apr_hash_set(ctx->users, user, APR_HASH_KEY_STRING,
                 apr_pstrdup(ctx->p, hash));
}

static void htpasswd_line(void *vctx, unsigned lineno, char *line,
                          apr_size_t len)
{
    htpasswd_ctx *ctx = vctx;
    const char *colon;

    if (len > WH_HTPASSWD_LINE_MAX) {
        line_error(ctx, lineno, apr_psprintf(ctx->p, "htpasswd line longer "
                                             "than %d bytes",
                                             WH_HTPASSWD_LINE_MAX));
        return;
    }
    if (memchr(line, '\0', len)) {
        line_error(ctx, lineno, "malformed htpasswd line");
        return;
    }
    /* httpd would take it for part of the first user's name, whom no one
     * could then log in as */
    if (lineno == 1 && len >= WH_UTF8_BOM_LEN
        && memcmp(line, WH_UTF8_BOM, WH_UTF8_BOM_LEN) == 0) {
        line_error(ctx, lineno, WH_BOM_RULE);
        return;
    }
    line = trim(line, &len);
    if (len == 0 || *line == '#')
        return;
    colon = strchr(line, ':');
    if (!colon || colon == line || colon[1] == '\0') {
        line_error(ctx, lineno, "malformed htpasswd line");
        return;
    }
    add_user(ctx, line, (apr_size_t)(colon - line), colon + 1);
}

/* Relative work of one apr_password_validate() call on hash: what an
 * unknown user's check must cost so that timing tells nothing. bcrypt is
 * 2^cost rounds of its key schedule; SHA-crypt states its rounds (5000
 * when unstated); apr1 is 1000 MD5 rounds; SHA1 and DES crypt are one
 * hash. Only the order matters. */
static apr_uint64_t hash_work(const char *h)
{
    if ((strncmp(h, "$2y$", 4) == 0 || strncmp(h, "$2a$", 4) == 0 ||
         strncmp(h, "$2b$", 4) == 0) && apr_isdigit(h[4]) && apr_isdigit(h[5])) {
        int cost = (h[4] - '0') * 10 + (h[5] - '0');
        return cost <= 31 ? (apr_uint64_t)1000 << cost : 0;
    }
    if (strncmp(h, "$5$", 3) == 0 || strncmp(h, "$6$", 3) == 0) {
        const char *r = strstr(h, "$rounds=");
        apr_int64_t n = r ? apr_atoi64(r + 8) : 5000;
        return n > 0 ? (apr_uint64_t)n : 5000;
    }
    if (strncmp(h, "$apr1$", 6) == 0)
        return 1000;
    return 1;
}

const char *wh_htpasswd_decoy(apr_hash_t *users)
{
    const char *best = NULL;
    apr_uint64_t best_work = 0;

    if (!users)
        return NULL;
    for (apr_hash_index_t *hi = apr_hash_first(NULL, users); hi;
         hi = apr_hash_next(hi)) {
        const char *h = apr_hash_this_val(hi);
        apr_uint64_t w = hash_work(h);
        /* strcmp breaks ties: the same file always gives the same decoy */
        if (!best || w > best_work || (w == best_work && strcmp(h, best) < 0)) {
            best = h;
            best_work = w;
        }
    }
    return best;
}

const char *wh_htpasswd_load(apr_pool_t *p, const char *path,
                             apr_hash_t **users)
{
    return wh_htpasswd_load_ex(p, path, users, NULL);
}

const char *wh_htpasswd_load_ex(apr_pool_t *p, const char *path,
                                apr_hash_t **users, wh_file_id *id)
{
    htpasswd_ctx ctx;
    const char *err;

    ctx.p = p;
    ctx.path = path;
    ctx.users = apr_hash_make(p);
    ctx.errors = apr_array_make(p, 1, sizeof(const char *));
    err = wh_parse_lines_ex(p, path, WH_HTPASSWD_FILE_MAX, htpasswd_line, &ctx,
                            id);
    if (err)
        return err;
    if (ctx.errors->nelts)
        return apr_array_pstrcat(p, ctx.errors, '\n');
    if (apr_hash_count(ctx.users) == 0)
        return apr_psprintf(p, "%s: no users in htpasswd file", path);
    *users = ctx.users;
    return NULL;
}
