/* The file system a file lives on (wh_fs.h): a RAM one, which a reboot
 * empties, or a network one, where locks between machines do not hold. */
#include "wh_fs.h"
#include <apr_strings.h>
#include <string.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

/* The directory holding path into dir; 0, or -1 when too long. */
static int dir_of(const char *path, char *dir, apr_size_t len)
{
    const char *slash = strrchr(path, '/');
    apr_size_t n = slash ? (apr_size_t)(slash - path) : 0;

    if (slash == NULL)
        apr_cpystrn(dir, ".", len);
    else if (n == 0)
        apr_cpystrn(dir, "/", len);
    else if (n < len) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    else
        return -1;
    return 0;
}

int wh_fs_on_ram(const char *path)
{
#if defined(__linux__)
    char dir[4096];
    struct statfs sf;

    if (dir_of(path, dir, sizeof(dir)) != 0)
        return 0;
    return statfs(dir, &sf) == 0
           && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
#else
    (void)path;
    return 0;
#endif
}

const char *wh_fs_network_type(unsigned long f_type)
{
    /* <linux/magic.h> lacks some of these: the kernel's own values */
    static const struct {
        unsigned long magic;
        const char *name;
    } net[] = {
        { 0x6969UL, "NFS" },
        { 0x517BUL, "SMB" },
        { 0xFF534D42UL, "CIFS" },
        { 0xFE534D42UL, "SMB2" },
        { 0x5346414FUL, "AFS" },
        { 0x6B414653UL, "AFS" },
        { 0x73757245UL, "Coda" },
        { 0x00C36400UL, "CephFS" },
        { 0x01021997UL, "9p" },
    };
    for (apr_size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
        if ((f_type & 0xFFFFFFFFUL) == net[i].magic)
            return net[i].name;
    return NULL;
}

const char *wh_fs_network(const char *path)
{
#if defined(__linux__)
    char dir[4096];
    struct statfs sf;

    if (path == NULL || *path == '\0')
        return NULL;
    if (statfs(path, &sf) == 0)
        return wh_fs_network_type((unsigned long)sf.f_type);
    if (dir_of(path, dir, sizeof(dir)) != 0 || statfs(dir, &sf) != 0)
        return NULL;
    return wh_fs_network_type((unsigned long)sf.f_type);
#else
    (void)path;
    return NULL;
#endif
}
