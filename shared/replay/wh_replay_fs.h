#ifndef WH_REPLAY_FS_H
#define WH_REPLAY_FS_H
/* The file system a store's file lives on. */

/* 1 when the directory holding path is a RAM file system, which a reboot
 * empties: a store's file missing there says nothing about what was
 * accepted before. */
int wh_replay_on_ram_fs(const char *path);

#endif
