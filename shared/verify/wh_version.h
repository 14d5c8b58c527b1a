#ifndef WH_VERSION_H
#define WH_VERSION_H
/* wirehook's version, written once: the build takes it from the first
 * line of debian/changelog (the Makefile's WH_VERSION), so the packages,
 * wirehook --version, the module's start-up line, server-status and the
 * CGI all say the same. */

/* "1.1.1", or "unknown" for a build without debian/changelog. */
const char *wh_version(void);

#endif
