#ifndef WH_CONFIG_LINT_H
#define WH_CONFIG_LINT_H
/* The mistakes docs/troubleshooting.md lists that a configuration's files
 * can hold without any parser refusing them, found where they are made:
 * by `wirehook configtest`, `wirehook.cgi --configtest` and, through the
 * module, `apache2 -t` and httpd's start. Each message names the file,
 * the line and the fix, never a byte of a secret.
 *
 * Refused (by wh_config_finalize_parts, so every host refuses it):
 *   SigningSecretFile and BasicAuthFile naming one file.
 * Refused by the loaders themselves (wh_secrets.c, wh_htpasswd.c):
 *   a byte-order mark at the start of a secret or htpasswd file.
 * Warned (wh_config_lint_warnings):
 *   a secret with a space or tab at either end, or in quotes, which
 *   would be part of it; a secret line that looks like an htpasswd line;
 *   ForwardSecretFile naming the bank's SigningSecretFile.
 * A ForwardSecretFile others can read is wh_config_permission_warnings'. */
#include "wh_config.h"

#include <apr_pools.h>
#include <apr_tables.h>

/* The bytes a Windows editor may put before the first line. */
#define WH_UTF8_BOM "\xEF\xBB\xBF"
#define WH_UTF8_BOM_LEN 3

/* SigningSecretFile and BasicAuthFile naming one file (links and other
 * spellings included): the rule with its fix, or NULL. */
const char *wh_lint_secret_is_htpasswd(apr_pool_t *p, const char *secret_file,
                                       const char *htpasswd_file);

/* The warnings about the secret files of parts (WH_PART_SECRETS: the
 * signing secret; WH_PART_FORWARD: the forward secret, which it reads),
 * one a line, or NULL. A file that cannot be read gives no warning here
 * (the loaders report it). */
const char *wh_config_lint_warnings(apr_pool_t *p, const wh_config *cfg,
                                    unsigned parts);

/* What is likely wrong with one line of a secret file (its line ending
 * removed), or NULL: the rule and the fix, for a message
 * "KEY FILE:LINE: <rule>". */
const char *wh_secret_line_problem(const char *line, apr_size_t len);

/* The message for a file whose first line starts with WH_UTF8_BOM. */
#define WH_BOM_RULE                                                           \
    "starts with a byte-order mark (EF BB BF, written by some Windows "      \
    "editors), which would be read as part of the line: save the file as "   \
    "UTF-8 without it, or rewrite it with printf"

/* The module's inbox handler (SetHandler wirehook) in a section that no
 * WirehookConfig reaches: the message with its fix. section: how httpd
 * names the section, e.g. "<Location /v1/wires>". */
const char *wh_lint_inbox_without_config(apr_pool_t *p, const char *section);

#endif
