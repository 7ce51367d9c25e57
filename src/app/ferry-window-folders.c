/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The folders in the window: "Choose Folder…" and the ones used lately,
 * remembered in the settings until cleared. */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-window-private.h"

#define MAX_RECENT_FOLDERS 5

void
_ferry_window_load_folders (FerryWindow *self)
{
  g_auto (GStrv) uris = g_settings_get_strv (self->settings, "recent-folders");
  GtkWidget *child;

  while ((child = gtk_widget_get_next_sibling (self->choose_folder_row)) != NULL)
    gtk_list_box_remove (self->folder_list, child);
  g_ptr_array_set_size (self->folders, 0);
  for (guint i = 0; uris[i] != NULL; i++)
    {
      g_autoptr (GFile) folder = g_file_new_for_uri (uris[i]);
      FerryDestination *destination = ferry_destination_new_for_folder (folder);

      g_ptr_array_add (self->folders, destination);
      gtk_list_box_append (self->folder_list,
                           _ferry_window_create_destination_row (destination, self));
    }
  _ferry_window_enable_action (self, "clear-recent-folders", self->folders->len > 0);
  gtk_widget_set_visible (self->clear_folders_button, self->folders->len > 0);
  _ferry_window_update_page (self);
}

/* "Clear Recent": the folders used lately are forgotten; the list
 * follows the settings. */
void
_ferry_window_clear_recent_folders (FerryWindow *self)
{
  g_settings_reset (self->settings, "recent-folders");
}

/* The folder goes first, and the oldest beyond MAX_RECENT_FOLDERS goes. */
static void
remember_folder (FerryWindow *self, GFile *folder)
{
  g_auto (GStrv) old = g_settings_get_strv (self->settings, "recent-folders");
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *uri = g_file_get_uri (folder);
  g_auto (GStrv) uris = NULL;
  guint n = 1;

  g_strv_builder_add (builder, uri);
  for (guint i = 0; old[i] != NULL && n < MAX_RECENT_FOLDERS; i++)
    if (g_strcmp0 (old[i], uri) != 0)
      {
        g_strv_builder_add (builder, old[i]);
        n++;
      }
  uris = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "recent-folders", (const char *const *) uris);
}

static void
on_folder_chosen (GtkNativeDialog *chooser, int response, FerryWindow *self)
{
  g_autoptr (GFile) folder = NULL;

  if (response == GTK_RESPONSE_ACCEPT
      && (folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser))) != NULL)
    {
      remember_folder (self, folder);
      _ferry_window_copy_staged (self, folder);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

void
_ferry_window_choose_folder (FerryWindow *self)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
      _ ("Choose a Folder to Copy To"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
      _ ("_Select"), _ ("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_folder_chosen), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* The list follows the settings, whoever changes them. */
void
_ferry_window_folders_init (FerryWindow *self)
{
  g_signal_connect_object (self->settings, "changed::recent-folders",
                           G_CALLBACK (_ferry_window_load_folders), self, G_CONNECT_SWAPPED);
}
