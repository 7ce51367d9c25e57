/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "ferry-block-facts.h"
#include "ferry-fs-id.h"
#include "ferry-fs.h"

void
ferry_fs_id_clear (FerryFsId *id)
{
  id->dev = 0;
  g_clear_pointer (&id->uuid, g_free);
  g_clear_pointer (&id->label, g_free);
}

void
ferry_fs_id_copy (FerryFsId *dest, const FerryFsId *src)
{
  ferry_fs_id_clear (dest);
  dest->dev = src->dev;
  dest->uuid = g_strdup (src->uuid);
  dest->label = g_strdup (src->label);
}

gboolean
ferry_fs_id_is_known (const FerryFsId *id)
{
  return id->dev != 0;
}

/**
 * ferry_fs_id_read:
 * Fills @id (cleared first) for the filesystem whose files have the
 * st_dev @dev: its UUID and label from the block device beneath it (see
 * ferry_block_facts_read()), else the name of the folder it is mounted on
 * (none for "/").
 */
void
ferry_fs_id_read (FerryFsId *id, dev_t dev)
{
  g_auto (FerryBlockFacts) facts = { 0 };
  g_autofree char *source = NULL;
  g_autofree char *mount_point = NULL;

  ferry_fs_id_clear (id);
  id->dev = dev;
  ferry_fs_find_mount_point (dev, NULL, &source, &mount_point);
  ferry_block_facts_read (&facts, dev, source);
  id->uuid = g_steal_pointer (&facts.uuid);
  id->label = g_steal_pointer (&facts.label);
  /* The root filesystem's folder names nothing a person would call it:
   * no name then ("… of 3.0 GB is on the drive"). */
  if (id->label == NULL && mount_point != NULL && strcmp (mount_point, "/") != 0)
    id->label = g_path_get_basename (mount_point);
}

gboolean
ferry_fs_id_read_fd (FerryFsId *id, int fd)
{
  struct stat st;

  if (fstat (fd, &st) != 0)
    return FALSE;
  ferry_fs_id_read (id, st.st_dev);
  return TRUE;
}

/**
 * ferry_fs_id_read_path:
 * The filesystem @path leads to now (following links), or, where @path
 * no longer exists, the one its nearest existing parent is on: a folder
 * on a stick pulled out is gone, its mount folder on the disk below is
 * not. FALSE when no folder on the way can be looked at.
 */
gboolean
ferry_fs_id_read_path (FerryFsId *id, const char *path)
{
  g_autofree char *here = g_strdup (path);
  struct stat st;

  while (stat (here, &st) != 0)
    {
      g_autofree char *up = NULL;

      if (errno != ENOENT && errno != ENOTDIR)
        return FALSE;
      up = g_path_get_dirname (here);
      if (g_str_equal (up, here))
        return FALSE;
      g_free (here);
      here = g_steal_pointer (&up);
    }
  ferry_fs_id_read (id, st.st_dev);
  return TRUE;
}

/**
 * ferry_fs_id_same:
 * Whether @a and @b are one filesystem. Where both have a UUID, the UUID
 * says: a stick replugged is the same filesystem even when it comes back
 * as another device (sdc1 where it was sdb1), and another stick given
 * the same device number is not. Without one, the device number says.
 */
gboolean
ferry_fs_id_same (const FerryFsId *a, const FerryFsId *b)
{
  if (!ferry_fs_id_is_known (a) || !ferry_fs_id_is_known (b))
    return FALSE;
  if (a->uuid != NULL && b->uuid != NULL)
    return g_str_equal (a->uuid, b->uuid);
  return a->dev == b->dev;
}

/**
 * ferry_fs_id_find_mount_point:
 * Where the filesystem @id (one with a UUID) is mounted now, wherever
 * that is: a stick plugged in again may come back elsewhere
 * (/media/ana/STICK1 while /media/ana/STICK was still held). NULL when
 * it is not mounted, or has no UUID to be found by.
 */
char *
ferry_fs_id_find_mount_point (const FerryFsId *id)
{
  g_autoptr (GArray) mounts = NULL;

  if (id->uuid == NULL)
    return NULL;
  mounts = ferry_fs_list_device_mounts ();
  for (guint i = 0; i < mounts->len; i++)
    {
      const FerryDeviceMount *mount = &g_array_index (mounts, FerryDeviceMount, i);
      g_auto (FerryFsId) now = { 0 };

      ferry_fs_id_read (&now, mount->dev);
      if (ferry_fs_id_same (id, &now))
        return g_strdup (mount->mount_point);
    }
  return NULL;
}
