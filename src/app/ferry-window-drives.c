/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The drives in the window: listed as they come and go, one of them
 * selected for Add Files… and Paste, and ejected once nothing in the
 * queue writes to them any more. */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-destination-row.h"
#include "ferry-window-private.h"

/* The drive @file is on, or else the folder itself. For a drive it is
 * the list's own object, so that everything going to one drive shares
 * it (and its eject state). */
FerryDestination *
_ferry_window_destination_for (FerryWindow *self, GFile *file)
{
  FerryDestination *drive = ferry_drive_list_find (self->drives, file);

  if (drive != NULL)
    return g_object_ref (drive);
  return ferry_destination_new_for_folder (file);
}

static FerryDestinationRow *
find_drive_row (FerryWindow *self, FerryDestination *destination)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->drive_list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (FERRY_IS_DESTINATION_ROW (child)
        && ferry_destination_row_get_destination (FERRY_DESTINATION_ROW (child)) == destination)
      return FERRY_DESTINATION_ROW (child);
  return NULL;
}

/* The drive a transfer went to as it is mounted now: its own mount, or
 * the one it got when it was plugged in again or remounted. */
static FerryDestination *
mounted_now (FerryWindow *self, FerryDestination *destination)
{
  if (ferry_destination_get_plugged (destination))
    return destination;
  return ferry_drive_list_find (self->drives, ferry_destination_get_root (destination));
}

/* What an ended transfer's row says about its drive now. It speaks of
 * the mount it ran on: once the drive is mounted again, what it said
 * ("All data is on", "You can now unplug") no longer holds. */
static FerryEjectState
eject_state_for (FerryWindow *self, FerryTransferRow *row)
{
  FerryDestination *destination = ferry_transfer_row_get_destination (row);
  FerryEjectState state = ferry_transfer_row_get_eject_state (row);
  FerryPhase phase = ferry_job_get_phase (ferry_transfer_row_get_job (row));
  FerryDestination *now;

  if (ferry_destination_get_kind (destination) != FERRY_DESTINATION_DRIVE
      || phase < FERRY_PHASE_DONE)
    return state;
  now = mounted_now (self, destination);
  if (now != NULL && ferry_destination_get_write_protected (now))
    return FERRY_EJECT_WRITE_PROTECTED;
  if (now != NULL && ferry_destination_get_read_only (now))
    return FERRY_EJECT_READ_ONLY;
  if (phase != FERRY_PHASE_DONE || (now != NULL && now != destination))
    return FERRY_EJECT_NONE;
  if (state == FERRY_EJECT_EJECTING || state == FERRY_EJECT_DONE)
    return state;
  if (now == NULL)
    return FERRY_EJECT_GONE;
  if (!ferry_destination_can_eject (destination))
    return FERRY_EJECT_NONE;
  if (ferry_queue_has_work_on (self->queue, ferry_destination_get_root (destination)))
    return FERRY_EJECT_WAITING;
  return FERRY_EJECT_READY;
}

/* Whether @state speaks of the drive as a whole (it can be ejected, is
 * being, was, or is gone), not of what its transfer met. */
static gboolean
is_about_drive (FerryEjectState state)
{
  return state == FERRY_EJECT_READY || state == FERRY_EJECT_WAITING || state == FERRY_EJECT_GONE
         || state == FERRY_EJECT_EJECTING || state == FERRY_EJECT_DONE;
}

/* A drive can be ejected once nothing in the queue writes to it; until
 * then its rows say why not. Said once a drive, on its newest transfer
 * (the list's first): four transfers done to one stick had shown "All
 * data is on KINGSTON" and an Eject button four times. */
void
_ferry_window_update_eject_offers (FerryWindow *self)
{
  g_autoptr (GHashTable) spoken_for
      = g_hash_table_new ((GHashFunc) g_file_hash, (GEqualFunc) g_file_equal);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->queue)); i++)
    {
      FerryTransferRow *row = _ferry_window_get_transfer_row (self, i);
      FerryDestination *destination = ferry_transfer_row_get_destination (row);
      FerryEjectState state = eject_state_for (self, row);

      /* Asked once: a drive that refuses is not asked again and again. */
      if (state == FERRY_EJECT_READY && ferry_transfer_row_get_eject_when_done (row))
        {
          ferry_transfer_row_set_eject_when_done (row, FALSE);
          _ferry_window_eject (self, destination);
          state = ferry_transfer_row_get_eject_state (row);
        }
      if (is_about_drive (state)
          && !g_hash_table_add (spoken_for, ferry_destination_get_root (destination)))
        state = FERRY_EJECT_NONE;
      if (state != ferry_transfer_row_get_eject_state (row))
        ferry_transfer_row_set_eject_state (row, state);
    }

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->drives)); i++)
    {
      g_autoptr (FerryDestination) drive = g_list_model_get_item (G_LIST_MODEL (self->drives), i);
      FerryDestinationRow *row = find_drive_row (self, drive);

      if (row != NULL)
        ferry_destination_row_set_busy (
            row, ferry_queue_has_work_on (self->queue, ferry_destination_get_root (drive)));
    }
}

static void
set_rows_eject_state (FerryWindow *self, FerryDestination *destination, FerryEjectState state)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->queue)); i++)
    {
      FerryTransferRow *row = _ferry_window_get_transfer_row (self, i);

      if (ferry_transfer_row_get_destination (row) == destination
          && ferry_transfer_row_get_eject_state (row) != FERRY_EJECT_NONE)
        ferry_transfer_row_set_eject_state (row, state);
    }
}

static void
on_ejected (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryWindow) self = user_data;
  FerryDestination *destination = FERRY_DESTINATION (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  if (!ferry_destination_eject_finish (destination, result, &error))
    {
      g_autofree char *heading
          = g_strdup_printf (_ ("Could Not Eject %s"), ferry_destination_get_name (destination));
      set_rows_eject_state (self, destination, FERRY_EJECT_READY);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED_HANDLED))
        _ferry_window_show_error (self, heading, error->message);
      return;
    }
  set_rows_eject_state (self, destination, FERRY_EJECT_DONE);
  text = g_strdup_printf (_ ("You can now unplug %s"), ferry_destination_get_name (destination));
  _ferry_window_toast (self, text);
}

void
_ferry_window_eject (FerryWindow *self, FerryDestination *destination)
{
  g_autoptr (GMountOperation) operation = gtk_mount_operation_new (GTK_WINDOW (self));

  if (ferry_queue_has_work_on (self->queue, ferry_destination_get_root (destination)))
    {
      g_autofree char *text
          = g_strdup_printf (_ ("%s cannot be ejected while files are being copied to it"),
                             ferry_destination_get_name (destination));
      _ferry_window_toast (self, text);
      return;
    }
  set_rows_eject_state (self, destination, FERRY_EJECT_EJECTING);
  ferry_destination_eject_async (destination, operation, NULL, on_ejected, g_object_ref (self));
}

/* The drive Add Files… and Paste copy to: the one selected in the list,
 * with the keyboard (the arrows, Enter or Space; Tab only moves the
 * focus) or a click. */
FerryDestination *
_ferry_window_get_selected_drive (FerryWindow *self)
{
  GtkListBoxRow *row = gtk_list_box_get_selected_row (self->drive_list);

  if (row == NULL || !FERRY_IS_DESTINATION_ROW (row))
    return NULL;
  return ferry_destination_row_get_destination (FERRY_DESTINATION_ROW (row));
}

/* While any drive is plugged in, one is selected: the first, until the
 * person picks another, and the first again when that one goes. */
static void
keep_a_drive_selected (FerryWindow *self)
{
  GtkListBoxRow *first = gtk_list_box_get_row_at_index (self->drive_list, 0);

  if (first != NULL && gtk_list_box_get_selected_row (self->drive_list) == NULL)
    gtk_list_box_select_row (self->drive_list, first);
}

/* Each drive row shows whether it is the one selected. */
static void
on_drive_selected (GtkListBox *list, FerryWindow *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (FERRY_IS_DESTINATION_ROW (child))
      ferry_destination_row_set_selected (
          FERRY_DESTINATION_ROW (child), gtk_list_box_row_is_selected (GTK_LIST_BOX_ROW (child)));
}

/**
 * ferry_window_eject_drive:
 * Ejects the drive whose root is @root, as its Eject button does (the
 * notification of a finished copy offers it too).
 */
void
ferry_window_eject_drive (FerryWindow *self, GFile *root)
{
  FerryDestination *drive;

  g_return_if_fail (FERRY_IS_WINDOW (self));
  drive = ferry_drive_list_find (self->drives, root);
  if (drive == NULL)
    {
      g_autofree char *name = g_file_get_basename (root);
      g_autofree char *text = g_strdup_printf (_ ("%s is no longer plugged in"), name);
      _ferry_window_toast (self, text);
      return;
    }
  _ferry_window_eject (self, drive);
}

static void
on_drives_changed (GListModel *model, guint position, guint removed, guint added, FerryWindow *self)
{
  keep_a_drive_selected (self);
  _ferry_window_update_page (self);
  _ferry_window_update_eject_offers (self);
}

/* Each drive's free space read again, after something the window did
 * not copy freed some (or took some). */
void
_ferry_window_refresh_drives_space (FerryWindow *self)
{
  GListModel *drives = G_LIST_MODEL (self->drives);

  for (guint i = 0; i < g_list_model_get_n_items (drives); i++)
    {
      g_autoptr (FerryDestination) drive = g_list_model_get_item (drives, i);

      ferry_destination_refresh_space (drive);
    }
}

/* Back in Ferry's window after files were deleted on a drive (in a file
 * manager), its free space is read again: it stayed as it was when the
 * drive was plugged in or last copied to. */
static void
on_active_changed (FerryWindow *self, GParamSpec *pspec, gpointer user_data)
{
  if (gtk_window_is_active (GTK_WINDOW (self)))
    _ferry_window_refresh_drives_space (self);
}

/* The drive list follows the drives plugged in, a row each. */
void
_ferry_window_bind_drives (FerryWindow *self)
{
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_active_changed), NULL);
  gtk_list_box_bind_model (self->drive_list, G_LIST_MODEL (self->drives),
                           _ferry_window_create_destination_row, self, NULL);
  g_signal_connect_object (self->drive_list, "selected-rows-changed",
                           G_CALLBACK (on_drive_selected), self, 0);
  g_signal_connect_object (self->drives, "items-changed", G_CALLBACK (on_drives_changed), self, 0);
  keep_a_drive_selected (self);
}
