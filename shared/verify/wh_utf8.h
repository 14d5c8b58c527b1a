#ifndef WH_UTF8_H
#define WH_UTF8_H
#include <apr.h>

/* Length of the well-formed UTF-8 sequence at u (at most avail bytes
 * readable), or 0 when it is not one: overlong forms, UTF-16 surrogates
 * and code points above U+10FFFF are not. avail must be at least 1. */
apr_size_t wh_utf8_seq_len(const unsigned char *u, apr_size_t avail);

/* Counts UTF-8 code points; -1 when s is not valid UTF-8. */
long wh_utf8_length(const char *s, apr_size_t len);

#endif
