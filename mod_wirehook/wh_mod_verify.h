#ifndef WH_MOD_VERIFY_H
#define WH_MOD_VERIFY_H
/* The request path: verification and the guard. */

/* Registers the request path's hooks: the early check in fixups and the
 * guard in front of every handler. */
void wh_mod_verify_register(void);

#endif
