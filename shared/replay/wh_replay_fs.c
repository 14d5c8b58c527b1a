/* Whether a store's file survives a reboot (see wh_replay_fs.h). */
#include "wh_replay_fs.h"
#include <apr_strings.h>
#include <string.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

int wh_replay_on_ram_fs(const char *path)
{
#if defined(__linux__)
    char dir[4096];
    struct statfs sf;
    const char *slash = strrchr(path, '/');
    apr_size_t n = slash ? (apr_size_t)(slash - path) : 0;

    if (slash == NULL)
        apr_cpystrn(dir, ".", sizeof(dir));
    else if (n == 0)
        apr_cpystrn(dir, "/", sizeof(dir));
    else if (n < sizeof(dir)) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    else
        return 0;
    return statfs(dir, &sf) == 0
           && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
#else
    (void)path;
    return 0;
#endif
}
