#ifndef WH_MOD_CHECK_H
#define WH_MOD_CHECK_H
/* The configuration's mistakes, reported by `apache2 -t` and at start. */
#include "wh_mod_config.h"

void wh_mod_check_register(void);

#endif
