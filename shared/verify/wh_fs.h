#ifndef WH_FS_H
#define WH_FS_H
/* The file system a file lives on: the replay stores' files (lmdb, dbm)
 * and an SQLite inbox's database. */

/* 1 when the directory holding path is a RAM file system, which a reboot
 * empties: a store's file missing there says nothing about what was
 * accepted before. */
int wh_fs_on_ram(const char *path);

/* The name of the network file system (NFS, SMB/CIFS, ...) that holds
 * path (its directory when path does not exist yet), or NULL. LMDB's lock
 * and shared map, Berkeley DB's locks, and SQLite's locks and WAL index,
 * hold only among processes of one machine: a file there is not shared
 * safely by several servers (and on such a file system not always by
 * one). */
const char *wh_fs_network(const char *path);

/* The same judgement for a statfs f_type: the name, or NULL. */
const char *wh_fs_network_type(unsigned long f_type);

#endif
