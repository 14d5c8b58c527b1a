#ifndef WH_INBOX_KEYS_H
#define WH_INBOX_KEYS_H
/* The inbox's configuration keys (rows of verify/wh_key.h). */
#include "verify/wh_key.h"

extern const wh_key wh_inbox_keys[];

#endif
