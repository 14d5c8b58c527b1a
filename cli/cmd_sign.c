#include "commands.h"
#include "cli_util.h"
#include "verify/wh_signature.h"
#include <apr_strings.h>
#include <apr_time.h>
#include <stdio.h>

#define SIGN_USAGE "sign --secret-file F --url URL [--method POST] [--timestamp TS] [BODY_FILE|-]"

int wh_cmd_sign(int argc, const char *const *argv, apr_pool_t *p)
{
    static const apr_getopt_option_t opts[] = {
        { "secret-file", 's', 1, "file whose first secret signs" },
        { "url", 'u', 1, "the URL exactly as the receiver checks it" },
        { "method", 'm', 1, "HTTP method (POST)" },
        { "timestamp", 't', 1, "timestamp header value (now, in seconds)" },
        { NULL, 0, 0, NULL }
    };
    const char *secret_file = NULL, *url = NULL, *method = "POST", *ts = NULL;
    const char *arg, *err, *input = NULL;
    apr_getopt_t *os = wh_cli_getopt(p, argc, argv, opts);
    apr_array_header_t *secrets;
    unsigned char raw[WH_SIG_RAW_LEN];
    char hex[65], *body;
    apr_size_t body_len;
    apr_status_t rv;
    int ch;

    if (wh_cli_wants_help(argc, argv)) {
        printf("usage: wirehook " SIGN_USAGE "\n\n"
               "Prints HMAC-SHA256(secret, METHOD + URL + BODY + TIMESTAMP) as 64 lowercase\n"
               "hex digits. The first secret in the file signs (the others are older keys\n"
               "that receivers still accept during rotation).\n");
        return 0;
    }
    if (!os)
        return 1;
    while ((rv = apr_getopt_long(os, opts, &ch, &arg)) == APR_SUCCESS) {
        switch (ch) {
        case 's': secret_file = arg; break;
        case 'u': url = arg; break;
        case 'm': method = arg; break;
        case 't': ts = arg; break;
        }
    }
    if (rv != APR_EOF || !secret_file || !url || os->argc - os->ind > 1)
        return wh_cli_usage(SIGN_USAGE);
    if (os->ind < os->argc)
        input = os->argv[os->ind];
    if (!ts)
        ts = apr_psprintf(p, "%" APR_TIME_T_FMT, apr_time_sec(apr_time_now()));
    if ((err = wh_secrets_load(p, secret_file, &secrets)) ||
        (err = wh_cli_read_input(p, input, WH_CLI_MAX_INPUT, &body, &body_len))) {
        fprintf(stderr, "wirehook sign: %s\n", err);
        return 1;
    }
    const wh_secret *key = &APR_ARRAY_IDX(secrets, 0, wh_secret);
    if (wh_signature_compute(key->key, key->len, method, url, body, body_len, ts, raw) != 0) {
        fprintf(stderr, "wirehook sign: HMAC computation failed\n");
        return 1;
    }
    wh_signature_hex(raw, hex);
    printf("%s\n", hex);
    return 0;
}
