/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where copies start: files dropped on a drive or a folder, files waiting
 * for a destination ("Copy with Ferry…", `ferry FILE…`), and copies asked
 * for from outside (ferry_window_copy). */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-destination-row.h"
#include "ferry-format.h"
#include "ferry-window-private.h"

/**
 * ferry_window_copy:
 * Queues a transfer of @sources into the folder @destination. A drive
 * that was unplugged, and a destination that is not an existing folder,
 * are refused with a clear error.
 */
gboolean
ferry_window_copy (FerryWindow *self, GList *sources, GFile *destination, GError **error)
{
  g_autoptr (FerryDestination) where = NULL;
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  g_autoptr (FerryJob) job = NULL;

  g_return_val_if_fail (FERRY_IS_WINDOW (self), FALSE);
  where = _ferry_window_destination_for (self, destination);
  if (!ferry_destination_get_plugged (where))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_MOUNTED,
                   _ ("%s is no longer plugged in; plug it in again to copy to it"),
                   ferry_destination_get_name (where));
      return FALSE;
    }
  if (!ferry_destination_check_folder (destination, error))
    return FALSE;
  for (GList *l = sources; l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);
  if (files->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _ ("Nothing to copy"));
      return FALSE;
    }

  job = ferry_job_new ((GFile *const *) files->pdata, files->len, destination);
  _ferry_window_start_job (self, job);
  return TRUE;
}

/* Copies @files to @destination, or says in a notice why not. */
gboolean
_ferry_window_copy_to (FerryWindow *self, FerryDestination *destination, GList *files)
{
  g_autoptr (GError) error = NULL;

  if (!ferry_destination_get_plugged (destination))
    {
      g_autofree char *text = g_strdup_printf (_ ("%s is no longer plugged in"),
                                               ferry_destination_get_name (destination));
      _ferry_window_toast (self, text);
      return FALSE;
    }
  if (!ferry_window_copy (self, files, ferry_destination_get_root (destination), &error))
    {
      _ferry_window_toast (self, error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
on_files_dropped (FerryDestinationRow *row, GSList *files, FerryWindow *self)
{
  g_autoptr (GList) list = NULL;

  for (GSList *l = files; l != NULL; l = l->next)
    list = g_list_append (list, l->data);
  return _ferry_window_copy_to (self, ferry_destination_row_get_destination (row), list);
}

static void
on_destination_row_eject (FerryDestinationRow *row, FerryWindow *self)
{
  _ferry_window_eject (self, ferry_destination_row_get_destination (row));
}

/* A row for a drive or a folder: files dropped on it are copied there. */
GtkWidget *
_ferry_window_create_destination_row (gpointer item, gpointer user_data)
{
  FerryWindow *self = user_data;
  GtkWidget *row = ferry_destination_row_new (item);

  g_signal_connect (row, "files-dropped", G_CALLBACK (on_files_dropped), self);
  g_signal_connect (row, "eject", G_CALLBACK (on_destination_row_eject), self);
  /* What the transfers to it say depends on it being writable. */
  g_signal_connect_object (item, "notify::read-only", G_CALLBACK (_ferry_window_update_eject_offers),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (item, "notify::write-protected",
                           G_CALLBACK (_ferry_window_update_eject_offers), self, G_CONNECT_SWAPPED);
  return row;
}

/* ------------------------------------------------------------------ */
/* Files waiting for a destination                                     */

void
_ferry_window_unstage (FerryWindow *self)
{
  g_list_free_full (g_steal_pointer (&self->staged), g_object_unref);
  gtk_revealer_set_reveal_child (self->staged_revealer, FALSE);
  _ferry_window_update_page (self);
}

static gboolean
is_staged (FerryWindow *self, GFile *file)
{
  for (GList *l = self->staged; l != NULL; l = l->next)
    if (g_file_equal (l->data, file))
      return TRUE;
  return FALSE;
}

/* @files wait for a destination with those already waiting: a person who
 * opens files in Ferry twice from Files, before choosing where they go,
 * means both. Cancel lets them all go. */
void
ferry_window_stage (FerryWindow *self, GList *files)
{
  guint n;
  g_autofree char *count = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (FERRY_IS_WINDOW (self));
  for (GList *l = files; l != NULL; l = l->next)
    if (!is_staged (self, l->data))
      self->staged = g_list_append (self->staged, g_object_ref (l->data));
  n = g_list_length (self->staged);
  count = ferry_format_count (n);
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%s item is ready to copy: choose a drive or a folder",
                                       "%s items are ready to copy: choose a drive or a folder", n),
                          count);
  gtk_label_set_label (self->staged_label, text);
  gtk_revealer_set_reveal_child (self->staged_revealer, TRUE);
  _ferry_window_update_page (self);
}

/* The files waiting, if any, go to the folder just chosen. */
void
_ferry_window_copy_staged (FerryWindow *self, GFile *folder)
{
  g_autoptr (GError) error = NULL;

  if (self->staged == NULL)
    return;
  if (ferry_window_copy (self, self->staged, folder, &error))
    _ferry_window_unstage (self);
  else
    _ferry_window_toast (self, error->message);
}

/* Picking a drive or a folder copies the files waiting there. */
static void
on_row_activated (GtkListBox *list, GtkListBoxRow *row, FerryWindow *self)
{
  FerryDestination *destination;

  if (!FERRY_IS_DESTINATION_ROW (row) || self->staged == NULL)
    return;
  destination = ferry_destination_row_get_destination (FERRY_DESTINATION_ROW (row));
  if (_ferry_window_copy_to (self, destination, self->staged))
    _ferry_window_unstage (self);
}

void
_ferry_window_drops_init (FerryWindow *self)
{
  g_signal_connect (self->drive_list, "row-activated", G_CALLBACK (on_row_activated), self);
  g_signal_connect (self->folder_list, "row-activated", G_CALLBACK (on_row_activated), self);
}
