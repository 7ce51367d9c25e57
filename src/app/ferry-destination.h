/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  FERRY_DESTINATION_DRIVE,  /* a mounted removable drive */
  FERRY_DESTINATION_FOLDER, /* a folder chosen by the person */
} FerryDestinationKind;

#define FERRY_TYPE_DESTINATION (ferry_destination_get_type ())

G_DECLARE_FINAL_TYPE (FerryDestination, ferry_destination, FERRY, DESTINATION, GObject)

gboolean ferry_destination_check_folder (GFile *folder, GError **error);

FerryDestination *ferry_destination_new_for_mount (GMount *mount);
FerryDestination *ferry_destination_new_for_folder (GFile *folder);

FerryDestinationKind ferry_destination_get_kind (FerryDestination *self);
GMount *ferry_destination_get_mount (FerryDestination *self);
GFile *ferry_destination_get_root (FerryDestination *self);
const char *ferry_destination_get_name (FerryDestination *self);
GIcon *ferry_destination_get_icon (FerryDestination *self);
char *ferry_destination_dup_space (FerryDestination *self);
guint64 ferry_destination_get_free (FerryDestination *self);
gboolean ferry_destination_get_read_only (FerryDestination *self);
gboolean ferry_destination_get_write_protected (FerryDestination *self);
gboolean ferry_destination_get_plugged (FerryDestination *self);
void ferry_destination_set_plugged (FerryDestination *self, gboolean plugged);
gboolean ferry_destination_can_eject (FerryDestination *self);
void ferry_destination_refresh_space (FerryDestination *self);
char *ferry_destination_name_paths (FerryDestination *self, const char *text);
gboolean ferry_destination_failed_unplugged (FerryDestination *self, const GError *error);
char *ferry_destination_describe_error (FerryDestination *self, const GError *error);

void ferry_destination_eject_async (FerryDestination *self,
                                    GMountOperation *operation,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data);
gboolean ferry_destination_eject_finish (FerryDestination *self,
                                         GAsyncResult *result,
                                         GError **error);

G_END_DECLS
