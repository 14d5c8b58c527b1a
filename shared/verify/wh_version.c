/* The version string (wh_version.h). Only this file is compiled with it,
 * so a new version rebuilds one object. */
#include "wh_version.h"

#ifndef WH_VERSION
#define WH_VERSION "unknown"
#endif

const char *wh_version(void)
{
    return WH_VERSION;
}
