/* Shared plumbing for the libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * Each target defines LLVMFuzzerTestOneInput(). APR is initialised once on
 * the first input; every input then gets a fresh sub-pool that is
 * destroyed afterwards, so AddressSanitizer's leak check sees anything the
 * core allocates outside its pools. Built two ways (build/fuzz.mk): with
 * clang -fsanitize=fuzzer for `make fuzz`, and with regress_main.c as a
 * plain ASan/UBSan program for `make fuzz-regress`. */
#ifndef WH_FUZZ_COMMON_H
#define WH_FUZZ_COMMON_H
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Process-wide pool, created on first use and never destroyed. */
static inline apr_pool_t *wh_fuzz_root(void)
{
    static apr_pool_t *root;
    if (!root) {
        if (apr_initialize() != APR_SUCCESS ||
            apr_pool_create(&root, NULL) != APR_SUCCESS)
            abort();
    }
    return root;
}

static inline apr_pool_t *wh_fuzz_pool(void)
{
    apr_pool_t *p;
    if (apr_pool_create(&p, wh_fuzz_root()) != APR_SUCCESS)
        abort();
    return p;
}

/* A NUL-terminated copy of data[0..len), as a C-string host would pass it
 * (anything after an embedded NUL is simply not seen). */
static inline char *wh_fuzz_cstr(apr_pool_t *p, const uint8_t *data, size_t len)
{
    return apr_pstrmemdup(p, (const char *)data, len);
}

/* Fails the run loudly: libFuzzer and the regress driver both report the
 * abort with the input that caused it. */
#define WH_FUZZ_ASSERT(cond)                                                \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__,     \
                    __LINE__, #cond);                                       \
            abort();                                                        \
        }                                                                   \
    } while (0)

#endif
