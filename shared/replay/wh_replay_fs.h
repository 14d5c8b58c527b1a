#ifndef WH_REPLAY_FS_H
#define WH_REPLAY_FS_H
/* The file system a store's file lives on. */

/* 1 when the directory holding path is a RAM file system, which a reboot
 * empties: a store's file missing there says nothing about what was
 * accepted before. */
int wh_replay_on_ram_fs(const char *path);

/* The name of the network file system (NFS, SMB/CIFS, ...) that holds
 * path (its directory when path does not exist yet), or NULL. LMDB's lock
 * and shared map, and Berkeley DB's locks, hold only among processes of
 * one machine: a store file there is not shared safely by several servers
 * (and on such a file system not always by one). */
const char *wh_replay_network_fs(const char *path);

/* The same judgement for a statfs f_type: the name, or NULL. */
const char *wh_replay_network_fs_type(unsigned long f_type);

#endif
