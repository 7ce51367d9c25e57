/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAKE_DRIVE (ferry_fake_drive_get_type ())

G_DECLARE_FINAL_TYPE (FerryFakeDrive, ferry_fake_drive, FERRY, FAKE_DRIVE, GObject)

typedef enum
{
  FERRY_FAKE_DRIVE_FIXED = 0,
  FERRY_FAKE_DRIVE_REMOVABLE = 1 << 0,
  FERRY_FAKE_DRIVE_CAN_EJECT = 1 << 1,
  FERRY_FAKE_DRIVE_CAN_STOP = 1 << 2,
  FERRY_FAKE_DRIVE_MEDIA_REMOVABLE = 1 << 3,
} FerryFakeDriveFlags;

GDrive *ferry_fake_drive_new (const char *name, FerryFakeDriveFlags flags);

G_END_DECLS
