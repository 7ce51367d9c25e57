/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-fake-drive.h"

/**
 * FerryFakeDrive:
 * A GDrive of the test's making: a name and whether it can be pulled out,
 * its media can, and it can be ejected or stopped, which is all Ferry asks
 * of a drive before offering it.
 */
struct _FerryFakeDrive
{
  GObject parent_instance;

  char *name;
  FerryFakeDriveFlags flags;
};

static void drive_iface_init (GDriveIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FerryFakeDrive,
                               ferry_fake_drive,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_DRIVE, drive_iface_init))

static char *
get_name (GDrive *drive)
{
  return g_strdup (FERRY_FAKE_DRIVE (drive)->name);
}

static GIcon *
get_icon (GDrive *drive)
{
  return g_themed_icon_new ("drive-removable-media");
}

static gboolean
has_volumes (GDrive *drive)
{
  return FALSE;
}

static GList *
get_volumes (GDrive *drive)
{
  return NULL;
}

static gboolean
is_removable (GDrive *drive)
{
  return (FERRY_FAKE_DRIVE (drive)->flags & FERRY_FAKE_DRIVE_REMOVABLE) != 0;
}

static gboolean
is_media_removable (GDrive *drive)
{
  return (FERRY_FAKE_DRIVE (drive)->flags & FERRY_FAKE_DRIVE_MEDIA_REMOVABLE) != 0;
}

static gboolean
can_eject (GDrive *drive)
{
  return (FERRY_FAKE_DRIVE (drive)->flags & FERRY_FAKE_DRIVE_CAN_EJECT) != 0;
}

static gboolean
can_stop (GDrive *drive)
{
  return (FERRY_FAKE_DRIVE (drive)->flags & FERRY_FAKE_DRIVE_CAN_STOP) != 0;
}

static void
drive_iface_init (GDriveIface *iface)
{
  iface->get_name = get_name;
  iface->get_icon = get_icon;
  iface->has_volumes = has_volumes;
  iface->get_volumes = get_volumes;
  iface->is_removable = is_removable;
  iface->is_media_removable = is_media_removable;
  iface->can_eject = can_eject;
  iface->can_stop = can_stop;
}

static void
ferry_fake_drive_finalize (GObject *object)
{
  g_free (FERRY_FAKE_DRIVE (object)->name);
  G_OBJECT_CLASS (ferry_fake_drive_parent_class)->finalize (object);
}

static void
ferry_fake_drive_class_init (FerryFakeDriveClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_fake_drive_finalize;
}

static void
ferry_fake_drive_init (FerryFakeDrive *self)
{
}

GDrive *
ferry_fake_drive_new (const char *name, FerryFakeDriveFlags flags)
{
  FerryFakeDrive *self = g_object_new (FERRY_TYPE_FAKE_DRIVE, NULL);

  self->name = g_strdup (name);
  self->flags = flags;
  return G_DRIVE (self);
}
