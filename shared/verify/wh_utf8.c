/* UTF-8 well-formedness (Unicode 15, table 3-7): shared by the one pass
 * over a body (shared/verify/wh_schema.c), the schema's length limits and
 * the query-string parser. */
#include "wh_utf8.h"

#include <limits.h>

/* The second-byte ranges are what exclude overlong forms, UTF-16
 * surrogates (ED A0..BF) and code points above U+10FFFF. */
apr_size_t wh_utf8_seq_len(const unsigned char *u, apr_size_t avail)
{
    unsigned char lo = 0x80, hi = 0xBF;
    apr_size_t n;

    if (u[0] < 0x80)
        return 1;
    if (u[0] >= 0xC2 && u[0] <= 0xDF)
        n = 2;
    else if (u[0] >= 0xE0 && u[0] <= 0xEF)
        n = 3;
    else if (u[0] >= 0xF0 && u[0] <= 0xF4)
        n = 4;
    else
        return 0;
    if (u[0] == 0xE0)
        lo = 0xA0;
    else if (u[0] == 0xED)
        hi = 0x9F;
    else if (u[0] == 0xF0)
        lo = 0x90;
    else if (u[0] == 0xF4)
        hi = 0x8F;
    if (avail < n || u[1] < lo || u[1] > hi)
        return 0;
    for (apr_size_t k = 2; k < n; k++)
        if ((u[k] & 0xC0) != 0x80)
            return 0;
    return n;
}

long wh_utf8_length(const char *s, apr_size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t i = 0, n;
    long count = 0;

    if (!s)
        return len ? -1 : 0;
    if (len > (apr_size_t)LONG_MAX)
        return -1;
    for (; i < len; i += n, count++)
        if ((n = wh_utf8_seq_len(u + i, len - i)) == 0)
            return -1;
    return count;
}
