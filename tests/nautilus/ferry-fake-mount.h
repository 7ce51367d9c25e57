/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAKE_MOUNT (ferry_fake_mount_get_type ())

G_DECLARE_FINAL_TYPE (FerryFakeMount, ferry_fake_mount, FERRY, FAKE_MOUNT, GObject)

GMount *ferry_fake_mount_new (const char *name, GFile *root, GDrive *drive, gboolean can_eject);

G_END_DECLS
