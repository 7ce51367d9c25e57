/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-drive-list.h"
#include "ferry-removable-drive.h"

/**
 * FerryDriveList:
 * The drives files can be dropped on, live: a GListModel of
 * FerryDestination that follows a GVolumeMonitor as drives are plugged in
 * and pulled out, in the order Nautilus's Send To lists them (by name,
 * then by when they came). Mounts can also be added by hand, which is how
 * tests bring in drives of their own making.
 */
struct _FerryDriveList
{
  GObject parent_instance;

  GVolumeMonitor *monitor;
  GPtrArray *drives; /* FerryDestination */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FerryDriveList,
                               ferry_drive_list,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *model)
{
  return FERRY_TYPE_DESTINATION;
}

static guint
get_n_items (GListModel *model)
{
  return FERRY_DRIVE_LIST (model)->drives->len;
}

static gpointer
get_item (GListModel *model, guint position)
{
  FerryDriveList *self = FERRY_DRIVE_LIST (model);

  if (position >= self->drives->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->drives, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static gboolean
find_mount (FerryDriveList *self, GMount *mount, guint *position)
{
  for (guint i = 0; i < self->drives->len; i++)
    if (ferry_destination_get_mount (g_ptr_array_index (self->drives, i)) == mount)
      {
        *position = i;
        return TRUE;
      }
  return FALSE;
}

/* After every drive listed before it (Send To's order too): a drive
 * plugged in again comes back to its place, and one of the same name as
 * a drive listed already comes after it. */
static guint
place_for (FerryDriveList *self, GMount *mount)
{
  guint position = self->drives->len;

  while (position > 0)
    {
      FerryDestination *before = g_ptr_array_index (self->drives, position - 1);

      if (ferry_mount_compare_for_listing (ferry_destination_get_mount (before), mount) <= 0)
        break;
      position--;
    }
  return position;
}

/* A mount that changed (remounted, or its filesystem relabelled) may
 * have more or less room, or be read-only now. */
static void
on_listed_mount_changed (GMount *mount, FerryDriveList *self)
{
  guint position;

  if (find_mount (self, mount, &position))
    ferry_destination_refresh_space (g_ptr_array_index (self->drives, position));
}

void
ferry_drive_list_add_mount (FerryDriveList *self, GMount *mount)
{
  guint position;

  g_return_if_fail (FERRY_IS_DRIVE_LIST (self));
  if (!ferry_mount_is_removable_drive (mount) || find_mount (self, mount, &position))
    return;
  position = place_for (self, mount);
  g_ptr_array_insert (self->drives, (int) position, ferry_destination_new_for_mount (mount));
  g_signal_connect_object (mount, "changed", G_CALLBACK (on_listed_mount_changed), self, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
}

static void
take_out (FerryDriveList *self, guint position)
{
  GMount *mount = ferry_destination_get_mount (g_ptr_array_index (self->drives, position));

  g_signal_handlers_disconnect_by_data (mount, self);
  g_ptr_array_remove_index (self->drives, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
}

void
ferry_drive_list_remove_mount (FerryDriveList *self, GMount *mount)
{
  guint position;

  g_return_if_fail (FERRY_IS_DRIVE_LIST (self));
  if (!find_mount (self, mount, &position))
    return;
  ferry_destination_set_plugged (g_ptr_array_index (self->drives, position), FALSE);
  take_out (self, position);
}

/* The drive @file is on, if it is on one of the list. */
FerryDestination *
ferry_drive_list_find (FerryDriveList *self, GFile *file)
{
  g_return_val_if_fail (FERRY_IS_DRIVE_LIST (self), NULL);
  for (guint i = 0; i < self->drives->len; i++)
    {
      FerryDestination *drive = g_ptr_array_index (self->drives, i);
      GFile *root = ferry_destination_get_root (drive);

      if (g_file_equal (root, file) || g_file_has_prefix (file, root))
        return drive;
    }
  return NULL;
}

static void
on_mount_added (GVolumeMonitor *monitor, GMount *mount, FerryDriveList *self)
{
  ferry_drive_list_add_mount (self, mount);
}

static void
on_mount_removed (GVolumeMonitor *monitor, GMount *mount, FerryDriveList *self)
{
  ferry_drive_list_remove_mount (self, mount);
}

/* A mount can become a drive to offer or stop being one while mounted
 * (shadowed by another mount of the same drive, or not any more): the
 * list asks the same question Send To asks each time it is shown. Not
 * offered any more is not unplugged: the drive is still there. */
static void
on_mount_changed (GVolumeMonitor *monitor, GMount *mount, FerryDriveList *self)
{
  guint position;
  gboolean listed = find_mount (self, mount, &position);

  if (ferry_mount_is_removable_drive (mount))
    ferry_drive_list_add_mount (self, mount);
  else if (listed)
    take_out (self, position);
}

/* @monitor: (nullable): where drives come from; NULL for a list that is
 *   only filled by hand (tests). */
FerryDriveList *
ferry_drive_list_new (GVolumeMonitor *monitor)
{
  FerryDriveList *self = g_object_new (FERRY_TYPE_DRIVE_LIST, NULL);
  GList *mounts;

  if (monitor == NULL)
    return self;
  self->monitor = g_object_ref (monitor);
  g_signal_connect_object (monitor, "mount-added", G_CALLBACK (on_mount_added), self, 0);
  g_signal_connect_object (monitor, "mount-removed", G_CALLBACK (on_mount_removed), self, 0);
  g_signal_connect_object (monitor, "mount-changed", G_CALLBACK (on_mount_changed), self, 0);
  mounts = g_volume_monitor_get_mounts (monitor);
  for (GList *l = mounts; l != NULL; l = l->next)
    ferry_drive_list_add_mount (self, l->data);
  g_list_free_full (mounts, g_object_unref);
  return self;
}

static void
ferry_drive_list_finalize (GObject *object)
{
  FerryDriveList *self = FERRY_DRIVE_LIST (object);

  g_clear_object (&self->monitor);
  g_ptr_array_unref (self->drives);
  G_OBJECT_CLASS (ferry_drive_list_parent_class)->finalize (object);
}

static void
ferry_drive_list_class_init (FerryDriveListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ferry_drive_list_finalize;
}

static void
ferry_drive_list_init (FerryDriveList *self)
{
  self->drives = g_ptr_array_new_with_free_func (g_object_unref);
}
