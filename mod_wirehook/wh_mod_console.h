#ifndef WH_MOD_CONSOLE_H
#define WH_MOD_CONSOLE_H
/* `SetHandler wirehook-console`: the operator's console (shared/console/)
 * under httpd's own authentication and authorization. */
#include "wh_mod_config.h"

void wh_mod_console_register(void);
int wh_mod_is_console(const request_rec *r);
/* The console's answer to r (the guard runs it, as it runs the inbox). */
int wh_mod_console_run(request_rec *r);

#endif
