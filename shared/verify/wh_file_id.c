/* File identities (wh_file_id.h): how a process notices that a file it
 * read (the secrets, the htpasswd) has changed, with a stat. */
#include "wh_file_id.h"
#include <string.h>

void wh_file_id_from_finfo(const apr_finfo_t *fi, wh_file_id *id)
{
    memset(id, 0, sizeof(*id));
    /* what a file system does not report stays 0, the same each time */
    if (fi->valid & APR_FINFO_DEV)
        id->device = fi->device;
    if (fi->valid & APR_FINFO_INODE)
        id->inode = fi->inode;
    if (fi->valid & APR_FINFO_SIZE)
        id->size = fi->size;
    if (fi->valid & APR_FINFO_MTIME)
        id->mtime = fi->mtime;
    if (fi->valid & APR_FINFO_CTIME)
        id->ctime = fi->ctime;
}

apr_status_t wh_file_id_of(apr_pool_t *p, const char *path, wh_file_id *id)
{
    apr_finfo_t fi;
    apr_status_t rv = apr_stat(&fi, path, WH_FILE_ID_WANTED, p);

    if (rv == APR_INCOMPLETE)
        rv = APR_SUCCESS;
    if (rv == APR_SUCCESS)
        wh_file_id_from_finfo(&fi, id);
    else
        memset(id, 0, sizeof(*id));
    return rv;
}

int wh_file_id_same(const wh_file_id *a, const wh_file_id *b)
{
    return a->device == b->device && a->inode == b->inode
           && a->size == b->size && a->mtime == b->mtime
           && a->ctime == b->ctime;
}
