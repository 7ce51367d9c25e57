/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <libudev.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "ferry-block-facts.h"
#include "ferry-device.h"
#include "ferry-fs.h"

/**
 * FerryDevice:
 * What Ferry knows of the device a destination lives on: how it is
 * attached, whether it is removable or rotational, a name a person would
 * recognise, and whether that class of device is written to fast or in
 * throttled windows. Partitions are followed to their disk and stacked
 * devices (dm-crypt, LVM, md) to what they sit on.
 */
struct _FerryDevice
{
  GObject parent_instance;

  FerryDeviceBus bus;
  gboolean removable;
  gboolean rotational;
  gboolean stands_in; /* a loop, network or RAM block device */
  gboolean on_trusted_file; /* a loop device whose file is on storage fast by its class */
  guint64 size;
  char *vendor;
  char *model;
  char *name;
  char *label;
  char *display_name;
  char *block_name;
  char *fs_type;
};

G_DEFINE_FINAL_TYPE (FerryDevice, ferry_device, G_TYPE_OBJECT)

/* Filesystems whose data lives on another machine. */
static const char *const network_fs_types[] = {
  "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "glusterfs", "davfs", NULL,
};

static gboolean
is_network_fs (const char *fs_type)
{
  if (fs_type == NULL)
    return FALSE;
  /* FUSE filesystems without a block device behind them (sshfs, gvfs,
   * rclone) are remote or virtual; fuseblk ones have a device. */
  if (g_str_has_prefix (fs_type, "fuse.") || strcmp (fs_type, "fuse") == 0)
    return TRUE;
  return g_strv_contains (network_fs_types, fs_type);
}

static char *
tidy (const char *value)
{
  g_autofree char *copy = NULL;

  if (value == NULL)
    return NULL;
  copy = g_strdelimit (g_strdup (value), "_", ' ');
  g_strstrip (copy);
  return copy[0] != '\0' ? g_steal_pointer (&copy) : NULL;
}

static gboolean
sysattr_is (struct udev_device *dev, const char *attr, const char *value)
{
  const char *actual = udev_device_get_sysattr_value (dev, attr);
  return actual != NULL && g_str_has_prefix (actual, value);
}

static FerryDeviceBus
bus_from_id_bus (const char *id_bus)
{
  if (g_strcmp0 (id_bus, "usb") == 0)
    return FERRY_DEVICE_BUS_USB;
  if (g_strcmp0 (id_bus, "ata") == 0)
    return FERRY_DEVICE_BUS_ATA;
  if (g_strcmp0 (id_bus, "ieee1394") == 0)
    return FERRY_DEVICE_BUS_IEEE1394;
  return FERRY_DEVICE_BUS_UNKNOWN;
}

static FerryDeviceBus
bus_from_subsystem (const char *subsystem)
{
  if (g_strcmp0 (subsystem, "usb") == 0)
    return FERRY_DEVICE_BUS_USB;
  if (g_strcmp0 (subsystem, "mmc") == 0 || g_strcmp0 (subsystem, "mmc_host") == 0)
    return FERRY_DEVICE_BUS_MMC;
  if (g_strcmp0 (subsystem, "firewire") == 0 || g_strcmp0 (subsystem, "ieee1394") == 0)
    return FERRY_DEVICE_BUS_IEEE1394;
  if (g_strcmp0 (subsystem, "nvme") == 0)
    return FERRY_DEVICE_BUS_NVME;
  if (g_strcmp0 (subsystem, "ata") == 0)
    return FERRY_DEVICE_BUS_ATA;
  if (g_strcmp0 (subsystem, "virtio") == 0 || g_strcmp0 (subsystem, "xen") == 0)
    return FERRY_DEVICE_BUS_VIRTUAL;
  return FERRY_DEVICE_BUS_UNKNOWN;
}

/* Block devices that stand in for storage elsewhere (a file, another
 * machine, memory), whatever its speed. */
static gboolean
is_virtual_name (const char *sysname)
{
  static const char *const prefixes[] = { "loop", "ram", "zram", "nbd", "pmem", NULL };

  for (guint i = 0; prefixes[i] != NULL; i++)
    if (g_str_has_prefix (sysname, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* The bus of a whole disk: udev's ID_BUS first, then the subsystems of
 * the devices it hangs from. */
static FerryDeviceBus
classify_disk (struct udev_device *disk)
{
  FerryDeviceBus bus = bus_from_id_bus (udev_device_get_property_value (disk, "ID_BUS"));

  if (is_virtual_name (udev_device_get_sysname (disk)))
    return FERRY_DEVICE_BUS_VIRTUAL;
  for (struct udev_device *p = udev_device_get_parent (disk);
       p != NULL && bus == FERRY_DEVICE_BUS_UNKNOWN; p = udev_device_get_parent (p))
    bus = bus_from_subsystem (udev_device_get_subsystem (p));
  return bus;
}

/* A dm or md device sits on others (its "slaves"): the first one stands
 * for it, which for LUKS on a stick is the stick. */
static struct udev_device *
first_slave (struct udev *udev, struct udev_device *dev)
{
  g_autofree char *dir_path = g_build_filename (udev_device_get_syspath (dev), "slaves", NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  if (dir == NULL || (name = g_dir_read_name (dir)) == NULL)
    return NULL;
  return udev_device_new_from_subsystem_sysname (udev, "block", name);
}

static struct udev_device *
disk_of (struct udev_device *dev)
{
  if (g_strcmp0 (udev_device_get_devtype (dev), "partition") == 0)
    return udev_device_get_parent_with_subsystem_devtype (dev, "block", "disk");
  return dev;
}

/* A name from sysfs, or NULL for a number: a PCI or virtio device's
 * "vendor" is an ID like "0x1af4", which no person knows the disk by. */
static char *
tidy_name (const char *value)
{
  if (value != NULL && g_str_has_prefix (value, "0x"))
    return NULL;
  return tidy (value);
}

/* Without udev's names, the devices a disk hangs from have them: a SCSI
 * device's vendor and model, an SD card's name, an NVMe controller's
 * model. */
static void
read_names_from_parents (FerryDevice *self, struct udev_device *disk)
{
  for (struct udev_device *p = udev_device_get_parent (disk); p != NULL;
       p = udev_device_get_parent (p))
    {
      if (self->vendor == NULL)
        self->vendor = tidy_name (udev_device_get_sysattr_value (p, "vendor"));
      if (self->model == NULL)
        self->model = tidy_name (udev_device_get_sysattr_value (p, "model"));
      if (self->model == NULL && g_strcmp0 (udev_device_get_subsystem (p), "mmc") == 0)
        self->model = tidy (udev_device_get_sysattr_value (p, "name"));
      if (self->model != NULL)
        return;
    }
}

static void
read_disk (FerryDevice *self, struct udev *udev, struct udev_device *top)
{
  struct udev_device *dev = udev_device_ref (top);

  /* Down through stacked devices to real hardware, a few levels at most. */
  for (guint depth = 0; depth < 8; depth++)
    {
      struct udev_device *disk = disk_of (dev);
      struct udev_device *below = disk ? first_slave (udev, disk) : NULL;

      if (below == NULL)
        break;
      udev_device_unref (dev);
      dev = below;
    }

  struct udev_device *disk = disk_of (dev);
  if (disk != NULL)
    {
      const char *size = udev_device_get_sysattr_value (disk, "size");

      self->bus = classify_disk (disk);
      self->stands_in = is_virtual_name (udev_device_get_sysname (disk));
      self->removable = sysattr_is (disk, "removable", "1");
      self->rotational = sysattr_is (disk, "queue/rotational", "1");
      self->size = size ? g_ascii_strtoull (size, NULL, 10) * 512 : 0;
      self->vendor = tidy (udev_device_get_property_value (disk, "ID_VENDOR"));
      self->model = tidy (udev_device_get_property_value (disk, "ID_MODEL"));
      if (self->vendor == NULL || self->model == NULL)
        read_names_from_parents (self, disk);
    }
  udev_device_unref (dev);
}

static FerryDevice *device_new (dev_t devnum, const char *fs_type, const char *fs_source, guint depth);

/* Whether the file behind a loop device is on storage fast by its
 * class (a disk that is not removable, or memory): the loop is then as
 * fast, and need not be measured. A file on a removable, remote or FUSE
 * filesystem, or one gone ("(deleted)"), leaves the loop to be measured.
 * Loops on loops are followed a few levels. */
static gboolean
backing_is_fast_by_class (const char *backing_file, guint depth)
{
  g_autoptr (FerryDevice) below = NULL;
  g_autofree char *fs_type = NULL;
  g_autofree char *fs_source = NULL;
  struct stat st;

  if (backing_file == NULL || depth >= 4 || stat (backing_file, &st) != 0 || !S_ISREG (st.st_mode))
    return FALSE;
  ferry_fs_find_mount (st.st_dev, &fs_type, &fs_source);
  below = device_new (st.st_dev, fs_type, fs_source, depth + 1);
  return ferry_device_get_speed (below) == FERRY_DEVICE_SPEED_FAST
         && !ferry_device_get_speed_measured (below);
}

static void
read_loop_backing (FerryDevice *self, struct udev_device *dev, guint depth)
{
  struct udev_device *disk = disk_of (dev);
  const char *backing_file;

  if (disk == NULL || !g_str_has_prefix (udev_device_get_sysname (disk), "loop"))
    return;
  backing_file = udev_device_get_sysattr_value (disk, "loop/backing_file");
  self->on_trusted_file = backing_is_fast_by_class (backing_file, depth);
}

static char *
generic_name (FerryDeviceBus bus, gboolean removable)
{
  switch (bus)
    {
      case FERRY_DEVICE_BUS_USB:
        return g_strdup (_ ("USB drive"));
      case FERRY_DEVICE_BUS_MMC:
        return g_strdup (_ ("SD card"));
      case FERRY_DEVICE_BUS_NETWORK:
        return g_strdup (_ ("Network share"));
      case FERRY_DEVICE_BUS_VIRTUAL:
        return g_strdup (_ ("Virtual disk"));
      default:
        return g_strdup (removable ? _ ("Removable drive") : _ ("Disk"));
    }
}

/* "SanDisk Cruzer Blade", not "SanDisk SanDisk Cruzer Blade". */
static char *
join_vendor_model (const char *vendor, const char *model)
{
  if (vendor == NULL || g_ascii_strcasecmp (vendor, "ATA") == 0)
    return g_strdup (model);
  if (model == NULL)
    return g_strdup (vendor);
  if (g_ascii_strncasecmp (model, vendor, strlen (vendor)) == 0)
    return g_strdup (model);
  return g_strdup_printf ("%s %s", vendor, model);
}

static void
compose_names (FerryDevice *self, const char *fs_source)
{
  if (self->bus == FERRY_DEVICE_BUS_NETWORK)
    self->name = g_strdup (fs_source);
  else if (self->bus == FERRY_DEVICE_BUS_MMC && self->model != NULL)
    /* TRANSLATORS: an SD card and the name it gives itself, like "SD card SD64G" */
    self->name = g_strdup_printf (_ ("SD card %s"), self->model);
  else
    self->name = join_vendor_model (self->vendor, self->model);
  if (self->name == NULL)
    self->name = generic_name (self->bus, self->removable);
  if (self->size > 0)
    {
      g_autofree char *size = g_format_size (self->size);
      /* TRANSLATORS: a device and its size, like "SanDisk Cruzer Blade (16.0 GB)" */
      self->display_name = g_strdup_printf (_ ("%s (%s)"), self->name, size);
    }
  else
    self->display_name = g_strdup (self->name);
}

static struct udev_device *
lookup_block_device (struct udev *udev, dev_t devnum, const char *fs_source)
{
  struct udev_device *dev
      = major (devnum) != 0 ? udev_device_new_from_devnum (udev, 'b', devnum) : NULL;
  struct stat st;

  /* btrfs and fuseblk report an anonymous device number; the source in
   * the mount table names the real one. */
  if (dev == NULL && fs_source != NULL && g_str_has_prefix (fs_source, "/dev/")
      && stat (fs_source, &st) == 0 && S_ISBLK (st.st_mode))
    dev = udev_device_new_from_devnum (udev, 'b', st.st_rdev);
  return dev;
}

static FerryDevice *
device_new (dev_t devnum, const char *fs_type, const char *fs_source, guint depth)
{
  FerryDevice *self = g_object_new (FERRY_TYPE_DEVICE, NULL);
  struct udev *udev;
  struct udev_device *dev;

  self->fs_type = g_strdup (fs_type);
  if (is_network_fs (fs_type))
    {
      self->bus = FERRY_DEVICE_BUS_NETWORK;
      compose_names (self, fs_source);
      return self;
    }

  udev = udev_new ();
  dev = udev ? lookup_block_device (udev, devnum, fs_source) : NULL;
  if (dev != NULL)
    {
      self->block_name = g_strdup (udev_device_get_sysname (dev));
      self->label = tidy (udev_device_get_property_value (dev, "ID_FS_LABEL"));
      read_disk (self, udev, dev);
      read_loop_backing (self, dev, depth);
      udev_device_unref (dev);
    }
  if (udev != NULL)
    udev_unref (udev);
  compose_names (self, fs_source);
  return self;
}

/**
 * ferry_device_new_for_devnum:
 * @devnum: the st_dev of a file on the filesystem
 * @fs_type: (nullable): its filesystem type, from the mount table
 * @fs_source: (nullable): its mount source (a device path, or a share)
 */
FerryDevice *
ferry_device_new_for_devnum (dev_t devnum, const char *fs_type, const char *fs_source)
{
  return device_new (devnum, fs_type, fs_source, 0);
}

/**
 * ferry_device_new_for_fd:
 * The device of the filesystem an open file or folder is on.
 */
FerryDevice *
ferry_device_new_for_fd (int fd)
{
  g_autofree char *fs_type = NULL;
  g_autofree char *fs_source = NULL;
  struct stat st;

  if (fstat (fd, &st) != 0)
    return ferry_device_new_for_devnum (0, NULL, NULL);
  ferry_fs_find_mount (st.st_dev, &fs_type, &fs_source);
  return ferry_device_new_for_devnum (st.st_dev, fs_type, fs_source);
}

/**
 * ferry_device_is_write_protected_for_fd:
 * Whether the device beneath the filesystem an open file or folder is on
 * refuses writes itself (an SD card whose lock switch is on), not merely
 * a filesystem mounted read-only: a person has a switch to slide, not a
 * setting to change. Learnt from the mount table and sysfs alone, with
 * no FerryDevice and its udev walk.
 */
gboolean
ferry_device_is_write_protected_for_fd (int fd)
{
  g_autofree char *fs_source = NULL;
  struct stat st;

  if (fstat (fd, &st) != 0)
    return FALSE;
  ferry_fs_find_mount (st.st_dev, NULL, &fs_source);
  return ferry_block_is_write_protected (st.st_dev, fs_source);
}

static void
ferry_device_finalize (GObject *object)
{
  FerryDevice *self = FERRY_DEVICE (object);

  g_free (self->vendor);
  g_free (self->model);
  g_free (self->name);
  g_free (self->label);
  g_free (self->display_name);
  g_free (self->block_name);
  g_free (self->fs_type);
  G_OBJECT_CLASS (ferry_device_parent_class)->finalize (object);
}

static void
ferry_device_class_init (FerryDeviceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_device_finalize;
}

static void
ferry_device_init (FerryDevice *self)
{
}

FerryDeviceBus
ferry_device_get_bus (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), FERRY_DEVICE_BUS_UNKNOWN);
  return self->bus;
}

/* External and remote devices are the ones that stall a desktop when a
 * copy fills memory with data they take minutes to write. */
FerryDeviceSpeed
ferry_device_get_speed (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), FERRY_DEVICE_SPEED_FAST);

  switch (self->bus)
    {
      case FERRY_DEVICE_BUS_USB:
      case FERRY_DEVICE_BUS_MMC:
      case FERRY_DEVICE_BUS_IEEE1394:
      case FERRY_DEVICE_BUS_NETWORK:
        return FERRY_DEVICE_SPEED_SLOW;
      default:
        return self->removable ? FERRY_DEVICE_SPEED_SLOW : FERRY_DEVICE_SPEED_FAST;
    }
}

/**
 * ferry_device_get_speed_measured:
 * Whether a copy to a device its class calls fast measures it before it
 * trusts it: a block device that stands in for storage elsewhere (a loop
 * device on a file that may be slow, a network block device) or whose bus
 * is unknown. A disk that is not removable and sits on ATA, NVMe or virtio
 * is fast by its class, and is not measured: a window of small files makes
 * any disk's syncfs look slow. So is a loop device whose file is on such a
 * disk or in memory.
 */
gboolean
ferry_device_get_speed_measured (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), FALSE);

  if (self->block_name == NULL || ferry_device_get_speed (self) == FERRY_DEVICE_SPEED_SLOW)
    return FALSE;
  return (self->stands_in && !self->on_trusted_file) || self->bus == FERRY_DEVICE_BUS_UNKNOWN;
}

gboolean
ferry_device_get_removable (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), FALSE);
  return self->removable;
}

gboolean
ferry_device_get_rotational (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), FALSE);
  return self->rotational;
}

const char *
ferry_device_get_name (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), NULL);
  return self->name;
}

const char *
ferry_device_get_label (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), NULL);
  return self->label;
}

const char *
ferry_device_get_display_name (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), NULL);
  return self->display_name;
}

guint64
ferry_device_get_size (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), 0);
  return self->size;
}

/* The block device the filesystem is on, as named in /sys/class/block. */
const char *
ferry_device_get_block_name (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), NULL);
  return self->block_name;
}

const char *
ferry_device_get_fs_type (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), NULL);
  return self->fs_type;
}

const char *
ferry_device_bus_to_string (FerryDeviceBus bus)
{
  static const char *const names[]
      = { "unknown", "usb", "mmc", "ieee1394", "ata", "nvme", "virtual", "network" };

  g_return_val_if_fail (bus <= FERRY_DEVICE_BUS_NETWORK, "unknown");
  return names[bus];
}

/* The class as machines read it: "usb", "mmc", "nvme", "network" … */
const char *
ferry_device_get_class_name (FerryDevice *self)
{
  g_return_val_if_fail (FERRY_IS_DEVICE (self), NULL);
  return ferry_device_bus_to_string (self->bus);
}
