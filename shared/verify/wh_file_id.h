#ifndef WH_FILE_ID_H
#define WH_FILE_ID_H
/* What tells one version of a file from the next without reading it:
 * device, inode, size, modification and change times. A file rewritten in
 * place (htpasswd), replaced by a rename, or touched, gets another
 * identity. */
#include <apr_file_info.h>
#include <apr_pools.h>

typedef struct {
    apr_dev_t device;
    apr_ino_t inode;
    apr_off_t size;
    apr_time_t mtime;
    apr_time_t ctime;
} wh_file_id;

/* What apr_stat / apr_file_info_get must be asked for. */
#define WH_FILE_ID_WANTED (APR_FINFO_SIZE | APR_FINFO_IDENT | APR_FINFO_MTIME \
                           | APR_FINFO_CTIME)

void wh_file_id_from_finfo(const apr_finfo_t *fi, wh_file_id *id);
/* The identity of path now (one stat): APR_SUCCESS, or why not (*id is
 * then zeroed). */
apr_status_t wh_file_id_of(apr_pool_t *p, const char *path, wh_file_id *id);
/* 1 when both identities name the same version of a file. */
int wh_file_id_same(const wh_file_id *a, const wh_file_id *b);

#endif
