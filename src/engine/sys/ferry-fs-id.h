/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/**
 * FerryFsId:
 * Which filesystem a folder is on, so that a job writes only to the one
 * it was planned on. A stick pulled out leaves its mount folder behind,
 * empty, on the disk below: the same path then leads somewhere else.
 */
typedef struct
{
  dev_t dev;   /* the st_dev of its files; 0 while unknown */
  char *uuid;  /* the filesystem's UUID; NULL when it has none, or it cannot be read */
  char *label; /* for people: the filesystem's label, else its mount folder's name; may be NULL */
} FerryFsId;

void ferry_fs_id_read (FerryFsId *id, dev_t dev);
gboolean ferry_fs_id_read_fd (FerryFsId *id, int fd);
gboolean ferry_fs_id_read_path (FerryFsId *id, const char *path);
gboolean ferry_fs_id_is_known (const FerryFsId *id);
gboolean ferry_fs_id_same (const FerryFsId *a, const FerryFsId *b);
void ferry_fs_id_copy (FerryFsId *dest, const FerryFsId *src);
char *ferry_fs_id_find_mount_point (const FerryFsId *id);
void ferry_fs_id_clear (FerryFsId *id);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryFsId, ferry_fs_id_clear)

G_END_DECLS
