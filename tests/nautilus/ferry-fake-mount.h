/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAKE_MOUNT (ferry_fake_mount_get_type ())

G_DECLARE_FINAL_TYPE (FerryFakeMount, ferry_fake_mount, FERRY, FAKE_MOUNT, GObject)

typedef enum
{
  FERRY_FAKE_MOUNT_NONE = 0,
  FERRY_FAKE_MOUNT_CAN_EJECT = 1 << 0,
  FERRY_FAKE_MOUNT_CAN_UNMOUNT = 1 << 1,
} FerryFakeMountFlags;

GMount *ferry_fake_mount_new (const char *name, GFile *root, GDrive *drive, gboolean can_eject);
GMount *ferry_fake_mount_new_full (const char *name,
                                   GFile *root,
                                   GDrive *drive,
                                   FerryFakeMountFlags flags);

G_END_DECLS
