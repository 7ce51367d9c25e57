/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAKE_VOLUME_MONITOR (ferry_fake_volume_monitor_get_type ())

G_DECLARE_FINAL_TYPE (FerryFakeVolumeMonitor,
                      ferry_fake_volume_monitor,
                      FERRY,
                      FAKE_VOLUME_MONITOR,
                      GVolumeMonitor)

FerryFakeVolumeMonitor *ferry_fake_volume_monitor_new (void);
void ferry_fake_volume_monitor_add_mount (FerryFakeVolumeMonitor *self, GMount *mount);
void ferry_fake_volume_monitor_remove_mount (FerryFakeVolumeMonitor *self, GMount *mount);
void ferry_fake_volume_monitor_change_mount (FerryFakeVolumeMonitor *self, GMount *mount);

G_END_DECLS
