/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <blkid.h>
#include <fcntl.h>
#include <libudev.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ferry-block-facts.h"
#include "ferry-fs.h"

/* The entries of a FAT16 top folder as mkfs.fat and Windows make it. */
#define FAT16_TOP_FOLDER_ENTRIES 512

void
ferry_block_facts_clear (FerryBlockFacts *facts)
{
  g_clear_pointer (&facts->type, g_free);
  g_clear_pointer (&facts->uuid, g_free);
  g_clear_pointer (&facts->label, g_free);
  facts->fat_cluster = 0;
  facts->fat_root_entries = 0;
}

/* FAT's BIOS parameter block: bytes per sector at 11, sectors per cluster
 * at 13, and the entries of the top folder at 17 (FAT12 and FAT16 give
 * it a fixed size, 512 entries as mkfs.fat makes it; 0 on FAT32, where
 * it grows as other folders do). FUSE FAT drivers do not report the
 * cluster: fusefat's statfs always says 1024 (its files' st_blksize is
 * right, but its folders' is not). */
static void
read_fat_boot_sector (int fd, FerryBlockFacts *facts)
{
  guchar sector[512];
  guint bytes_per_sector, sectors_per_cluster;

  if (pread (fd, sector, sizeof sector, 0) != (ssize_t) sizeof sector)
    return;
  bytes_per_sector = sector[11] | (sector[12] << 8);
  sectors_per_cluster = sector[13];
  if (bytes_per_sector < 512 || bytes_per_sector > 4096
      || (bytes_per_sector & (bytes_per_sector - 1)) != 0
      || sectors_per_cluster == 0 || (sectors_per_cluster & (sectors_per_cluster - 1)) != 0)
    return;
  facts->fat_cluster = (guint64) bytes_per_sector * sectors_per_cluster;
  facts->fat_root_entries = sector[17] | (sector[18] << 8);
}

static gboolean
is_fat (const char *type)
{
  return g_strcmp0 (type, "vfat") == 0 || g_strcmp0 (type, "msdos") == 0;
}

static char *
dup_value (blkid_probe probe, const char *name)
{
  const char *value = NULL;

  if (blkid_probe_lookup_value (probe, name, &value, NULL) != 0 || value == NULL
      || value[0] == '\0')
    return NULL;
  return g_strdup (value);
}

static void
probe_with_blkid (int fd, FerryBlockFacts *facts)
{
  blkid_probe probe = blkid_new_probe ();

  if (probe == NULL)
    return;
  if (blkid_probe_set_device (probe, fd, 0, 0) == 0
      && blkid_probe_enable_superblocks (probe, 1) == 0
      && blkid_probe_set_superblocks_flags (
             probe, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL)
             == 0
      && blkid_do_safeprobe (probe) == 0)
    {
      facts->type = dup_value (probe, "TYPE");
      facts->uuid = dup_value (probe, "UUID");
      facts->label = dup_value (probe, "LABEL");
    }
  blkid_free_probe (probe);
  if (is_fat (facts->type))
    read_fat_boot_sector (fd, facts);
}

static void
take_udev_value (struct udev_device *device, const char *name, char **value)
{
  const char *found = udev_device_get_property_value (device, name);

  if (*value == NULL && found != NULL && found[0] != '\0')
    *value = g_strdup (found);
}

/* What udev's own blkid probe found, for people who may not read the
 * device (its /dev/disk/by-uuid and by-label links come from the same).
 * It does not keep the size of a FAT16 top folder, but says the drive is
 * FAT16 (a camera's SD card of 2 GB or less is, by the SD standard): its
 * top folder then holds 512 entries, the size mkfs.fat and Windows give
 * it, and the drive says it is full past them with space to spare. */
static void
probe_with_udev (dev_t devnum, FerryBlockFacts *facts)
{
  struct udev *udev = udev_new ();
  struct udev_device *device = NULL;

  if (udev == NULL)
    return;
  device = udev_device_new_from_devnum (udev, 'b', devnum);
  if (device != NULL)
    {
      take_udev_value (device, "ID_FS_TYPE", &facts->type);
      take_udev_value (device, "ID_FS_UUID", &facts->uuid);
      take_udev_value (device, "ID_FS_LABEL", &facts->label);
      if (facts->fat_cluster == 0
          && g_strcmp0 (udev_device_get_property_value (device, "ID_FS_VERSION"), "FAT16") == 0)
        facts->fat_root_entries = FAT16_TOP_FOLDER_ENTRIES;
      udev_device_unref (device);
    }
  udev_unref (udev);
}

/* The block device beneath a filesystem: its own device number for a
 * kernel filesystem on one and for a "fuseblk" mount (exfat-fuse,
 * ntfs-3g), or the device a FUSE mount names as its source (fusefat -o
 * fsname=/dev/sdb1). Anonymous numbers (major 0) belong to filesystems
 * on no device of their own: tmpfs, overlay, network, FUSE over a file. */
static gboolean
block_device_of (dev_t dev, const char *source, dev_t *devnum)
{
  struct stat st;

  if (major (dev) != 0)
    {
      *devnum = dev;
      return TRUE;
    }
  if (source != NULL && g_path_is_absolute (source) && stat (source, &st) == 0
      && S_ISBLK (st.st_mode))
    {
      *devnum = st.st_rdev;
      return TRUE;
    }
  return FALSE;
}

/**
 * ferry_block_facts_read:
 * @dev: the st_dev of the filesystem's files
 * @source: (nullable): its mount source, from the mount table
 *
 * Fills @facts from the block device beneath the filesystem. FALSE when
 * it is on none; fields stay NULL where nothing could be learnt.
 */
gboolean
ferry_block_facts_read (FerryBlockFacts *facts, dev_t dev, const char *source)
{
  g_autofree char *by_number = NULL;
  ferry_autofd fd = -1;
  struct stat st;
  dev_t devnum;

  if (!block_device_of (dev, source, &devnum))
    return FALSE;
  if (source != NULL && g_path_is_absolute (source) && stat (source, &st) == 0
      && S_ISBLK (st.st_mode) && st.st_rdev == devnum)
    fd = open (source, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      by_number = g_strdup_printf ("/dev/block/%u:%u", major (devnum), minor (devnum));
      fd = open (by_number, O_RDONLY | O_CLOEXEC);
    }
  if (fd >= 0)
    probe_with_blkid (fd, facts);
  if (facts->type == NULL || facts->uuid == NULL || facts->label == NULL
      || (is_fat (facts->type) && facts->fat_cluster == 0))
    probe_with_udev (devnum, facts);
  return TRUE;
}

/**
 * ferry_block_is_write_protected:
 * @dev: the st_dev of the filesystem's files
 * @source: (nullable): its mount source, from the mount table
 *
 * Whether the block device beneath the filesystem refuses writes itself
 * (its sysfs "ro"): an SD card whose lock switch is on, a stick with a
 * write-protect switch, a device the kernel was told to keep read-only.
 * A filesystem only mounted read-only is not.
 */
gboolean
ferry_block_is_write_protected (dev_t dev, const char *source)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  dev_t devnum;

  if (!block_device_of (dev, source, &devnum))
    return FALSE;
  path = g_strdup_printf ("/sys/dev/block/%u:%u/ro", major (devnum), minor (devnum));
  return g_file_get_contents (path, &text, NULL, NULL) && g_strstrip (text)[0] == '1';
}

/**
 * ferry_block_ext4_kept_clusters:
 * The clusters ext4 on the device @dev keeps back for its own metadata
 * (its reserved_clusters in sysfs, 2 % of the drive up to 4,096): statfs
 * counts them free (f_bfree), and not even root can write a file into
 * them. FALSE where sysfs does not say.
 */
gboolean
ferry_block_ext4_kept_clusters (dev_t dev, guint64 *clusters)
{
  g_autofree char *link = g_strdup_printf ("/sys/dev/block/%u:%u", major (dev), minor (dev));
  g_autofree char *target = g_file_read_link (link, NULL);
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;

  if (target == NULL)
    return FALSE;
  /* ext4 names its folder as the kernel names the device ("sdb1") */
  name = g_path_get_basename (target);
  path = g_build_filename ("/sys/fs/ext4", name, "reserved_clusters", NULL);
  return g_file_get_contents (path, &text, NULL, NULL)
         && g_ascii_string_to_unsigned (g_strstrip (text), 10, 0, G_MAXUINT64, clusters, NULL);
}
