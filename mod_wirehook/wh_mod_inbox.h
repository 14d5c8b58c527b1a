#ifndef WH_MOD_INBOX_H
#define WH_MOD_INBOX_H
/* `SetHandler wirehook`: the inbox endpoint. */
#include "wh_mod_config.h"

void wh_mod_inbox_register(void);
int wh_mod_is_inbox(const request_rec *r);
/* The inbox's handler (r's handler is wirehook): stores a verified POST,
 * serves the listing and the payment views; answers r and returns OK. */
int wh_mod_inbox_run(request_rec *r);

#endif
