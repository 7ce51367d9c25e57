/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-fake-volume-monitor.h"

/**
 * FerryFakeVolumeMonitor:
 * A volume monitor whose mounts the test plugs in and pulls out, with the
 * signals a real one emits.
 */
struct _FerryFakeVolumeMonitor
{
  GVolumeMonitor parent_instance;

  GList *mounts; /* GMount, in the order they were added */
};

G_DEFINE_FINAL_TYPE (FerryFakeVolumeMonitor, ferry_fake_volume_monitor, G_TYPE_VOLUME_MONITOR)

static GList *
get_connected_drives (GVolumeMonitor *monitor)
{
  return NULL;
}

static GList *
get_volumes (GVolumeMonitor *monitor)
{
  return NULL;
}

static GList *
get_mounts (GVolumeMonitor *monitor)
{
  GList *mounts = NULL;

  for (GList *l = FERRY_FAKE_VOLUME_MONITOR (monitor)->mounts; l != NULL; l = l->next)
    mounts = g_list_prepend (mounts, g_object_ref (l->data));
  return g_list_reverse (mounts);
}

static GVolume *
get_volume_for_uuid (GVolumeMonitor *monitor, const char *uuid)
{
  return NULL;
}

static GMount *
get_mount_for_uuid (GVolumeMonitor *monitor, const char *uuid)
{
  return NULL;
}

static void
ferry_fake_volume_monitor_finalize (GObject *object)
{
  g_list_free_full (FERRY_FAKE_VOLUME_MONITOR (object)->mounts, g_object_unref);
  G_OBJECT_CLASS (ferry_fake_volume_monitor_parent_class)->finalize (object);
}

static void
ferry_fake_volume_monitor_class_init (FerryFakeVolumeMonitorClass *klass)
{
  GVolumeMonitorClass *monitor_class = G_VOLUME_MONITOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ferry_fake_volume_monitor_finalize;
  monitor_class->get_connected_drives = get_connected_drives;
  monitor_class->get_volumes = get_volumes;
  monitor_class->get_mounts = get_mounts;
  monitor_class->get_volume_for_uuid = get_volume_for_uuid;
  monitor_class->get_mount_for_uuid = get_mount_for_uuid;
}

static void
ferry_fake_volume_monitor_init (FerryFakeVolumeMonitor *self)
{
}

FerryFakeVolumeMonitor *
ferry_fake_volume_monitor_new (void)
{
  return g_object_new (FERRY_TYPE_FAKE_VOLUME_MONITOR, NULL);
}

void
ferry_fake_volume_monitor_add_mount (FerryFakeVolumeMonitor *self, GMount *mount)
{
  self->mounts = g_list_append (self->mounts, g_object_ref (mount));
  g_signal_emit_by_name (self, "mount-added", mount);
}

void
ferry_fake_volume_monitor_remove_mount (FerryFakeVolumeMonitor *self, GMount *mount)
{
  GList *link = g_list_find (self->mounts, mount);

  g_assert_nonnull (link);
  self->mounts = g_list_remove_link (self->mounts, link);
  g_signal_emit_by_name (self, "mount-removed", mount);
  g_list_free_full (link, g_object_unref);
}

void
ferry_fake_volume_monitor_change_mount (FerryFakeVolumeMonitor *self, GMount *mount)
{
  g_signal_emit_by_name (self, "mount-changed", mount);
}
