#ifndef WH_MOD_CONFIG_INBOX_H
#define WH_MOD_CONFIG_INBOX_H
#include "wh_mod_config.h"

/* The configuration's inbox in this child, opened on first use (NULL: cannot
 * be opened now; tried again after a few seconds). */
wh_inbox *wh_mod_inbox_get(request_rec *r, wh_mod_config *config);

#endif
