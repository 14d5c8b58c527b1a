/* Placeholder until the send command lands (owned by its own issue). */
#include "commands.h"
#include <stdio.h>

int wh_cmd_send(int argc, const char *const *argv, apr_pool_t *p)
{
    (void)argc; (void)argv; (void)p;
    fprintf(stderr, "wirehook send: not built yet\n");
    return 1;
}
