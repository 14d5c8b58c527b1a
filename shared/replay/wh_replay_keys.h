#ifndef WH_REPLAY_KEYS_H
#define WH_REPLAY_KEYS_H
/* Replay protection's configuration keys (rows of verify/wh_key.h). */
#include "verify/wh_key.h"

extern const wh_key wh_replay_keys[];

#endif
