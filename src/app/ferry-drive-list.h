/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-destination.h"

G_BEGIN_DECLS

#define FERRY_TYPE_DRIVE_LIST (ferry_drive_list_get_type ())

G_DECLARE_FINAL_TYPE (FerryDriveList, ferry_drive_list, FERRY, DRIVE_LIST, GObject)

FerryDriveList *ferry_drive_list_new (GVolumeMonitor *monitor);
void ferry_drive_list_add_mount (FerryDriveList *self, GMount *mount);
void ferry_drive_list_remove_mount (FerryDriveList *self, GMount *mount);
FerryDestination *ferry_drive_list_find (FerryDriveList *self, GFile *file);

G_END_DECLS
