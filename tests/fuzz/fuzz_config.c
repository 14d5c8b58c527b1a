/* Fuzz target: the configuration file reader and the other line-oriented
 * files (htpasswd, signing secrets), plus wh_config_set().
 *
 * Input: byte 0 picks the mode, the rest is the payload.
 *   mode % 4 == 0, 1  payload is a config file: wh_config_parse_file(),
 *                     then wh_config_finalize() with the two file keys
 *                     cleared so nothing outside the input is read
 *   mode % 4 == 2     payload is "key\0value": wh_config_set() twice, the
 *                     second time with override from bit 2 of the mode
 *   mode % 4 == 3     payload is an htpasswd file and a secrets file
 * Files are served from a memfd (/proc/self/fd/N): no disk I/O per input. */
#include "fuzz_common.h"
#include "verify/wh_auth.h"
#include "config/wh_config_load.h"
#include "verify/wh_signature.h"

#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static char memfd_path[64];

static const char *as_file(const uint8_t *data, size_t len)
{
    if (memfd < 0) {
        memfd = memfd_create("wh-fuzz-config", 0);
        if (memfd < 0)
            abort();
        snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    }
    if (ftruncate(memfd, 0) != 0 ||
        (len && pwrite(memfd, data, len, 0) != (ssize_t)len))
        abort();
    return memfd_path;
}

static void check_errors(const char *err)
{
    /* Errors are lines "path:line: message"; never an empty string. */
    if (err)
        WH_FUZZ_ASSERT(*err != '\0');
}

static void fuzz_file(apr_pool_t *p, const uint8_t *data, size_t len)
{
    wh_config *cfg = NULL;
    const char *err = wh_config_parse_file(p, as_file(data, len), &cfg);

    check_errors(err);
    WH_FUZZ_ASSERT(cfg != NULL);
    WH_FUZZ_ASSERT(cfg->timestamp_header && cfg->signature_header);
    WH_FUZZ_ASSERT(cfg->timestamp_tolerance >= 1 && cfg->max_body_size >= 1);
    WH_FUZZ_ASSERT(cfg->list_default_limit >= 1 && cfg->list_max_limit >= 1);
    /* Nothing the input names is opened: only the cross-key checks run. */
    cfg->signing_secret_file = NULL;
    cfg->basic_auth_file = NULL;
    err = wh_config_finalize(p, cfg);
    WH_FUZZ_ASSERT(err != NULL); /* the two required keys are missing */
    WH_FUZZ_ASSERT(cfg->secrets == NULL && cfg->users == NULL);
    if (cfg->replay_window < 2 * cfg->timestamp_tolerance)
        WH_FUZZ_ASSERT(strstr(err, "ReplayWindow") != NULL);
}

static void fuzz_set(apr_pool_t *p, const uint8_t *data, size_t len, int override)
{
    const uint8_t *nul = memchr(data, '\0', len);
    const char *key, *value;
    wh_config *cfg = wh_config_create(p);

    if (!nul)
        return;
    key = wh_fuzz_cstr(p, data, (size_t)(nul - data));
    value = wh_fuzz_cstr(p, nul + 1, len - (size_t)(nul - data) - 1);
    check_errors(wh_config_set(p, cfg, key, value, 0));
    check_errors(wh_config_set(p, cfg, key, value, override));
}

static void fuzz_line_files(apr_pool_t *p, const uint8_t *data, size_t len)
{
    apr_hash_t *users = NULL;
    apr_array_header_t *secrets = NULL;
    const char *path = as_file(data, len);
    const char *err = wh_htpasswd_load(p, path, &users);

    check_errors(err);
    if (!err)
        WH_FUZZ_ASSERT(users && apr_hash_count(users) > 0);
    err = wh_secrets_load(p, path, &secrets);
    check_errors(err);
    if (!err) {
        WH_FUZZ_ASSERT(secrets && secrets->nelts > 0);
        for (int i = 0; i < secrets->nelts; i++)
            WH_FUZZ_ASSERT(APR_ARRAY_IDX(secrets, i, wh_secret).len > 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *p;
    uint8_t mode;

    if (size < 1)
        return 0;
    mode = data[0];
    p = wh_fuzz_pool();
    switch (mode % 4) {
    case 0:
    case 1:
        fuzz_file(p, data + 1, size - 1);
        break;
    case 2:
        fuzz_set(p, data + 1, size - 1, (mode >> 2) & 1);
        break;
    default:
        fuzz_line_files(p, data + 1, size - 1);
        break;
    }
    apr_pool_destroy(p);
    return 0;
}
