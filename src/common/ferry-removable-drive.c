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

/**
 * ferry_mount_compare_for_listing:
 * @a: (type GMount): a drive's mount
 * @b: (type GMount): another
 *
 * The order drives are listed in, in the window and in "Send To" alike:
 * by name as the person's language sorts names, so a drive plugged in
 * again comes back to its place. Drives of the same name compare equal:
 * a stable sort keeps them in the order they were mounted.
 */
int
ferry_mount_compare_for_listing (gconstpointer a, gconstpointer b)
{
  g_autofree char *name_a = g_mount_get_name (G_MOUNT ((gpointer) a));
  g_autofree char *name_b = g_mount_get_name (G_MOUNT ((gpointer) b));

  return g_utf8_collate (name_a, name_b);
}
