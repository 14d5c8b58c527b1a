#ifndef WH_CONSOLE_KEYS_H
#define WH_CONSOLE_KEYS_H
/* The console's configuration keys (rows of verify/wh_key.h). */
#include "verify/wh_key.h"

extern const wh_key wh_console_keys[];

#endif
