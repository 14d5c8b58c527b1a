/* The self-contained wirehook.cgi (CGI_LINK=static) loads no shared
 * object and never asks NSS. In a static glibc program both would need,
 * at run time, the shared libraries of the glibc it was built with, which
 * the hosts this file is copied to do not have (or have in another
 * version). A few are still referenced by code the CGI links but never
 * runs: SQLite's load_extension and OpenSSL's provider and engine modules
 * (dlopen), APR's user, group and address functions (getpwnam_r ...,
 * getaddrinfo), OpenSSL's BIO_gethostbyname. The link maps each of them
 * to the function below (ld --wrap, the Makefile's CGI_NO_NSS_DL), so
 * glibc's versions are not linked at all and a path nobody foresaw fails
 * cleanly instead of loading anything. The link is made with
 * --fatal-warnings: glibc's warning for a new such reference stops it. */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stddef.h>

#define WH_NO_DL "wirehook.cgi is self-contained: it loads no shared object"

void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlsym(void *handle, const char *name);
int __wrap_dlclose(void *handle);
char *__wrap_dlerror(void);
int __wrap_dladdr(const void *addr, Dl_info *info);
int __wrap_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t n,
                      struct passwd **out);
int __wrap_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t n,
                      struct passwd **out);
int __wrap_getgrnam_r(const char *name, struct group *gr, char *buf, size_t n,
                      struct group **out);
int __wrap_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t n,
                      struct group **out);
int __wrap_getaddrinfo(const char *node, const char *service,
                       const struct addrinfo *hints, struct addrinfo **res);
void __wrap_freeaddrinfo(struct addrinfo *res);
int __wrap_getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
                       socklen_t hostlen, char *serv, socklen_t servlen,
                       int flags);
struct hostent *__wrap_gethostbyname(const char *name);
int __wrap_getservbyname_r(const char *name, const char *proto,
                           struct servent *se, char *buf, size_t n,
                           struct servent **out);

void *__wrap_dlopen(const char *file, int mode)
{
    (void)file;
    (void)mode;
    return NULL;
}

void *__wrap_dlsym(void *handle, const char *name)
{
    (void)handle;
    (void)name;
    return NULL;
}

int __wrap_dlclose(void *handle)
{
    (void)handle;
    return -1;
}

char *__wrap_dlerror(void)
{
    static char why[] = WH_NO_DL;
    return why;
}

int __wrap_dladdr(const void *addr, Dl_info *info)
{
    (void)addr;
    (void)info;
    return 0;
}

int __wrap_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t n,
                      struct passwd **out)
{
    (void)name; (void)pw; (void)buf; (void)n;
    *out = NULL;
    return ENOSYS;
}

int __wrap_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t n,
                      struct passwd **out)
{
    (void)uid; (void)pw; (void)buf; (void)n;
    *out = NULL;
    return ENOSYS;
}

int __wrap_getgrnam_r(const char *name, struct group *gr, char *buf, size_t n,
                      struct group **out)
{
    (void)name; (void)gr; (void)buf; (void)n;
    *out = NULL;
    return ENOSYS;
}

int __wrap_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t n,
                      struct group **out)
{
    (void)gid; (void)gr; (void)buf; (void)n;
    *out = NULL;
    return ENOSYS;
}

int __wrap_getaddrinfo(const char *node, const char *service,
                       const struct addrinfo *hints, struct addrinfo **res)
{
    (void)node; (void)service; (void)hints;
    *res = NULL;
    return EAI_FAIL;
}

/* Never given anything: getaddrinfo above allocates nothing. */
void __wrap_freeaddrinfo(struct addrinfo *res)
{
    (void)res;
}

int __wrap_getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
                       socklen_t hostlen, char *serv, socklen_t servlen,
                       int flags)
{
    (void)sa; (void)salen; (void)host; (void)hostlen; (void)serv;
    (void)servlen; (void)flags;
    return EAI_FAIL;
}

struct hostent *__wrap_gethostbyname(const char *name)
{
    (void)name;
    h_errno = NO_RECOVERY;
    return NULL;
}

int __wrap_getservbyname_r(const char *name, const char *proto,
                           struct servent *se, char *buf, size_t n,
                           struct servent **out)
{
    (void)name; (void)proto; (void)se; (void)buf; (void)n;
    *out = NULL;
    return ENOSYS;
}
