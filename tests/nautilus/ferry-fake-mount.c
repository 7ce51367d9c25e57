/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-fake-mount.h"

/**
 * FerryFakeMount:
 * A GMount of the test's making over any folder, with or without a drive.
 * Shadowing is GIO's own (g_mount_shadow), which works on any GMount.
 */
struct _FerryFakeMount
{
  GObject parent_instance;

  char *name;
  GFile *root;
  GDrive *drive;
  FerryFakeMountFlags flags;
};

static void mount_iface_init (GMountIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FerryFakeMount,
                               ferry_fake_mount,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_MOUNT, mount_iface_init))

static GFile *
get_root (GMount *mount)
{
  return g_object_ref (FERRY_FAKE_MOUNT (mount)->root);
}

static char *
get_name (GMount *mount)
{
  return g_strdup (FERRY_FAKE_MOUNT (mount)->name);
}

static GIcon *
get_icon (GMount *mount)
{
  return g_themed_icon_new ("drive-removable-media");
}

static char *
get_uuid (GMount *mount)
{
  return NULL;
}

static GVolume *
get_volume (GMount *mount)
{
  return NULL;
}

static GDrive *
get_drive (GMount *mount)
{
  GDrive *drive = FERRY_FAKE_MOUNT (mount)->drive;

  return drive != NULL ? g_object_ref (drive) : NULL;
}

static gboolean
can_unmount (GMount *mount)
{
  return (FERRY_FAKE_MOUNT (mount)->flags & FERRY_FAKE_MOUNT_CAN_UNMOUNT) != 0;
}

static gboolean
can_eject (GMount *mount)
{
  return (FERRY_FAKE_MOUNT (mount)->flags & FERRY_FAKE_MOUNT_CAN_EJECT) != 0;
}

static void
mount_iface_init (GMountIface *iface)
{
  iface->get_root = get_root;
  iface->get_name = get_name;
  iface->get_icon = get_icon;
  iface->get_uuid = get_uuid;
  iface->get_volume = get_volume;
  iface->get_drive = get_drive;
  iface->can_unmount = can_unmount;
  iface->can_eject = can_eject;
}

static void
ferry_fake_mount_finalize (GObject *object)
{
  FerryFakeMount *self = FERRY_FAKE_MOUNT (object);

  g_free (self->name);
  g_object_unref (self->root);
  g_clear_object (&self->drive);
  G_OBJECT_CLASS (ferry_fake_mount_parent_class)->finalize (object);
}

static void
ferry_fake_mount_class_init (FerryFakeMountClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_fake_mount_finalize;
}

static void
ferry_fake_mount_init (FerryFakeMount *self)
{
}

/* @drive: (nullable): what the mount is on; NULL as for a mount that is
 *   not on a drive GIO knows (a loop device, a FUSE mount).
 * @flags: whether it can be ejected, unmounted. */
GMount *
ferry_fake_mount_new_full (const char *name, GFile *root, GDrive *drive, FerryFakeMountFlags flags)
{
  FerryFakeMount *self = g_object_new (FERRY_TYPE_FAKE_MOUNT, NULL);

  self->name = g_strdup (name);
  self->root = g_object_ref (root);
  self->drive = drive != NULL ? g_object_ref (drive) : NULL;
  self->flags = flags;
  return G_MOUNT (self);
}

/* A mount that can be unmounted, as every mount both GIO's unix-mount
 * monitor and udisks2 list, and maybe ejected. */
GMount *
ferry_fake_mount_new (const char *name, GFile *root, GDrive *drive, gboolean can_eject)
{
  FerryFakeMountFlags flags = FERRY_FAKE_MOUNT_CAN_UNMOUNT;

  if (can_eject)
    flags |= FERRY_FAKE_MOUNT_CAN_EJECT;
  return ferry_fake_mount_new_full (name, root, drive, flags);
}
