/* Placeholder until the pull command lands (owned by its own issue). */
#include "commands.h"
#include <stdio.h>

int wh_cmd_pull(int argc, const char *const *argv, apr_pool_t *p)
{
    (void)argc; (void)argv; (void)p;
    fprintf(stderr, "wirehook pull: not built yet\n");
    return 1;
}
