#ifndef WH_VERIFY_KEYS_H
#define WH_VERIFY_KEYS_H
/* verify/'s configuration keys: the bank's credentials, the request's
 * checks, and the CGI's log level (rows of wh_key.h). */
#include "wh_key.h"

extern const wh_key wh_verify_keys[];

#endif
