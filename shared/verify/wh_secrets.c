/* Signing secret file: one secret per line, so a new secret can be added
 * next to the old one while the sender rotates (every secret is tried).
 *
 * A line is the secret byte for byte (a UTF-8 "kéy" is its UTF-8 bytes);
 * only the line terminator (trailing CR/LF) is removed. There is no
 * comment syntax and no other trimming, because a secret may start with
 * '#' or end in a space, and silently changing it would make every
 * signature fail for reasons nobody can see (wh_config_lint.c warns about
 * such lines instead). Empty lines are skipped; a byte-order mark before
 * the first line is refused.
 *
 * Errors name the file and line, never any byte of a secret. */
#include "wh_signature.h"
#include "wh_config.h"
#include "wh_config_lint.h"
#include "wh_parse.h"

#include <apr_strings.h>
#include <string.h>

#define WH_SECRET_LINE_MAX 4096
#define WH_SECRET_FILE_MAX (1024 * 1024)

typedef struct {
    apr_pool_t *p;
    const char *path;
    apr_array_header_t *secrets; /* of wh_secret */
    apr_array_header_t *errors;  /* of const char * */
} secrets_ctx;

static void secret_line(void *vctx, unsigned lineno, char *line,
                        apr_size_t len)
{
    secrets_ctx *ctx = vctx;
    wh_secret *s;

    while (len && line[len - 1] == '\r')
        len--;
    if (len == 0)
        return;
    /* Never a secret anyone chose: refused, so that a file saved by such
     * an editor stops the start (or keeps the version in use, when it is
     * re-read) instead of failing every signature. */
    if (lineno == 1 && len >= WH_UTF8_BOM_LEN
        && memcmp(line, WH_UTF8_BOM, WH_UTF8_BOM_LEN) == 0) {
        APR_ARRAY_PUSH(ctx->errors, const char *) =
            apr_psprintf(ctx->p, "%s:1: %s", ctx->path, WH_BOM_RULE);
        return;
    }
    if (len > WH_SECRET_LINE_MAX) {
        APR_ARRAY_PUSH(ctx->errors, const char *) =
            apr_psprintf(ctx->p, "%s:%u: secret longer than %d bytes",
                         ctx->path, lineno, WH_SECRET_LINE_MAX);
        return;
    }
    s = apr_array_push(ctx->secrets);
    /* NUL-terminated for convenience only; len is authoritative. */
    s->key = (const unsigned char *)apr_pstrmemdup(ctx->p, line, len);
    s->len = len;
    wh_secret_prepare(ctx->p, s);
}

const char *wh_secrets_load(apr_pool_t *p, const char *path,
                            apr_array_header_t **secrets)
{
    return wh_secrets_load_ex(p, path, secrets, NULL);
}

const char *wh_secrets_load_ex(apr_pool_t *p, const char *path,
                               apr_array_header_t **secrets, wh_file_id *id)
{
    secrets_ctx ctx;
    const char *err;

    ctx.p = p;
    ctx.path = path;
    ctx.secrets = apr_array_make(p, 2, sizeof(wh_secret));
    ctx.errors = apr_array_make(p, 1, sizeof(const char *));
    err = wh_parse_lines_ex(p, path, WH_SECRET_FILE_MAX, secret_line, &ctx, id);
    if (err)
        return err;
    if (ctx.errors->nelts)
        return apr_array_pstrcat(p, ctx.errors, '\n');
    if (ctx.secrets->nelts == 0)
        return apr_psprintf(p, "%s: no signing secret in file", path);
    *secrets = ctx.secrets;
    return NULL;
}
