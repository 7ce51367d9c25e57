/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

G_BEGIN_DECLS

/**
 * FerryDeviceBus:
 * How the device holding a destination is attached, as udev tells (or,
 * for network and FUSE filesystems, the filesystem type).
 */
typedef enum
{
  FERRY_DEVICE_BUS_UNKNOWN,
  FERRY_DEVICE_BUS_USB,
  FERRY_DEVICE_BUS_MMC, /* SD and MMC cards */
  FERRY_DEVICE_BUS_IEEE1394,
  FERRY_DEVICE_BUS_ATA,
  FERRY_DEVICE_BUS_NVME,
  FERRY_DEVICE_BUS_VIRTUAL, /* loop, virtio, RAM disks */
  FERRY_DEVICE_BUS_NETWORK, /* NFS, SMB, sshfs, gvfs */
} FerryDeviceBus;

/**
 * FerryDeviceSpeed:
 * What the device's class implies for the copy: fast internal disks get
 * the fast strategy; removable and remote ones are written to in
 * throttled windows.
 */
typedef enum
{
  FERRY_DEVICE_SPEED_FAST,
  FERRY_DEVICE_SPEED_SLOW,
} FerryDeviceSpeed;

#define FERRY_TYPE_DEVICE (ferry_device_get_type ())

G_DECLARE_FINAL_TYPE (FerryDevice, ferry_device, FERRY, DEVICE, GObject)

FerryDevice *ferry_device_new_for_fd (int fd);
FerryDevice *ferry_device_new_for_devnum (dev_t devnum, const char *fs_type, const char *fs_source);
gboolean ferry_device_is_write_protected_for_fd (int fd);

FerryDeviceBus ferry_device_get_bus (FerryDevice *self);
FerryDeviceSpeed ferry_device_get_speed (FerryDevice *self);
gboolean ferry_device_get_speed_measured (FerryDevice *self);
gboolean ferry_device_get_removable (FerryDevice *self);
gboolean ferry_device_get_rotational (FerryDevice *self);
const char *ferry_device_get_name (FerryDevice *self);
const char *ferry_device_get_label (FerryDevice *self);
const char *ferry_device_get_display_name (FerryDevice *self);
guint64 ferry_device_get_size (FerryDevice *self);
const char *ferry_device_get_block_name (FerryDevice *self);
const char *ferry_device_get_fs_type (FerryDevice *self);
const char *ferry_device_get_class_name (FerryDevice *self);

const char *ferry_device_bus_to_string (FerryDeviceBus bus);

G_END_DECLS
