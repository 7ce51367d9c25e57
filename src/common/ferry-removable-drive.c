/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-removable-drive.h"

/* A drive someone can pull out: it says so itself, or it can be ejected or
 * powered off before it is. */
static gboolean
drive_can_be_pulled_out (GDrive *drive)
{
  return g_drive_is_removable (drive) || g_drive_is_media_removable (drive)
         || g_drive_can_eject (drive) || g_drive_can_stop (drive);
}

/**
 * ferry_mount_is_removable_drive:
 * @mount: a mount a volume monitor lists
 *
 * Whether @mount is a drive a person plugs in and pulls out again, which
 * Ferry offers to copy to: in the window's drive list and in Nautilus's
 * "Send To" menu alike, by this one rule.
 *
 * - Not shadowed: another mount of the same drive stands for it.
 * - A local path: Ferry copies local files only, so a phone or camera
 *   over MTP or gphoto2 is left out.
 * - It can be ejected; or, on a drive GIO knows (udisks2 presents one),
 *   that drive says it can be pulled out (removable, removable media,
 *   ejectable, can be powered off); or, on no drive (GIO's unix-mount
 *   monitor, as for a stick mounted by hand under /media or a loop
 *   image), the mount can be unmounted. udisks2 lets any mount be
 *   unmounted, an internal disk's too, so there the drive has the last
 *   word; the unix-mount monitor leaves the system's own mounts out.
 *
 * Asks nothing that blocks: Nautilus calls this on its main thread.
 */
gboolean
ferry_mount_is_removable_drive (GMount *mount)
{
  g_autoptr (GFile) root = NULL;
  g_autoptr (GDrive) drive = NULL;

  g_return_val_if_fail (G_IS_MOUNT (mount), FALSE);

  if (g_mount_is_shadowed (mount))
    return FALSE;
  root = g_mount_get_root (mount);
  if (!g_file_is_native (root))
    return FALSE;
  if (g_mount_can_eject (mount))
    return TRUE;
  drive = g_mount_get_drive (mount);
  if (drive != NULL)
    return drive_can_be_pulled_out (drive);
  return g_mount_can_unmount (mount);
}
