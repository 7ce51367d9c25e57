/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Adding files without dragging them: Add Files… and Add Folders… (a
 * file chooser) and Paste (files copied in a file manager). They go to
 * the drive selected in the drive list; with none, they wait for a
 * destination, as files opened with Ferry do. */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-window-private.h"

/* What GNOME's file manager puts on the clipboard besides text/uri-list:
 * "copy" or "cut", then a URI a line. */
#define GNOME_COPIED_FILES "x-special/gnome-copied-files"

/* @files go to the selected drive, or wait for a destination. */
static void
add_files (FerryWindow *self, GList *files)
{
  FerryDestination *drive = _ferry_window_get_selected_drive (self);

  if (drive != NULL)
    _ferry_window_copy_to (self, drive, files);
  else
    ferry_window_stage (self, files);
}

static GList *
list_files (GListModel *model)
{
  GList *files = NULL;

  for (guint i = g_list_model_get_n_items (model); i > 0; i--)
    files = g_list_prepend (files, g_list_model_get_item (model, i - 1));
  return files;
}

static void
on_files_chosen (GtkNativeDialog *chooser, int response, FerryWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GListModel) chosen = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (chooser));
      GList *files = list_files (chosen);

      if (files != NULL)
        add_files (self, files);
      g_list_free_full (files, g_object_unref);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

typedef enum
{
  FERRY_CHOOSE_FILES,
  FERRY_CHOOSE_FOLDERS,
} FerryChooseKind;

/* The chooser's title says where the files will go. */
static char *
chooser_title (FerryWindow *self, FerryChooseKind kind)
{
  FerryDestination *drive = _ferry_window_get_selected_drive (self);

  if (drive == NULL)
    return g_strdup (kind == FERRY_CHOOSE_FOLDERS ? _ ("Add Folders") : _ ("Add Files"));
  return g_strdup_printf (kind == FERRY_CHOOSE_FOLDERS
                              /* TRANSLATORS: a file chooser's title, "Add Folders to SanDisk" */
                              ? _ ("Add Folders to %s")
                              /* TRANSLATORS: a file chooser's title, "Add Files to SanDisk" */
                              : _ ("Add Files to %s"),
                          ferry_destination_get_name (drive));
}

/* Several files, or several folders: GTK's chooser (and the desktop's,
 * through the portal) answers a selection of files and folders mixed
 * only by opening the folder, so folders have a chooser of their own. */
static void
choose_files (FerryWindow *self, FerryChooseKind kind)
{
  g_autofree char *title = chooser_title (self, kind);
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
      title, GTK_WINDOW (self),
      kind == FERRY_CHOOSE_FOLDERS ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
                                   : GTK_FILE_CHOOSER_ACTION_OPEN,
      _ ("_Add"), _ ("_Cancel"));

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (chooser), TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_files_chosen), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

void
_ferry_window_add_files (FerryWindow *self)
{
  choose_files (self, FERRY_CHOOSE_FILES);
}

void
_ferry_window_add_folders (FerryWindow *self)
{
  choose_files (self, FERRY_CHOOSE_FOLDERS);
}

/* ------------------------------------------------------------------ */
/* Paste                                                               */

static void
say_nothing_to_paste (FerryWindow *self)
{
  _ferry_window_toast (self, _ ("There are no files to paste: copy files or folders first"));
}

/* Only files on this computer are copied: a link copied in a web
 * browser is text/uri-list too. */
static void
paste_files (FerryWindow *self, GList *files)
{
  g_autoptr (GList) local = NULL;

  /* The window went away while the clipboard was read. */
  if (self->queue == NULL)
    return;
  for (GList *l = files; l != NULL; l = l->next)
    if (g_file_is_native (l->data))
      local = g_list_append (local, l->data);
  if (local == NULL)
    say_nothing_to_paste (self);
  else
    add_files (self, local);
}

static void
paste_failed (FerryWindow *self, const GError *error)
{
  g_autofree char *text = g_strdup_printf (_ ("Could not paste: %s"), error->message);

  if (self->queue != NULL)
    _ferry_window_toast (self, text);
}

/* Cut files are copied too: Ferry never removes a source. */
static GList *
parse_copied_files (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GList *files = NULL;

  if (lines[0] == NULL
      || (g_strcmp0 (g_strchomp (lines[0]), "copy") != 0 && g_strcmp0 (lines[0], "cut") != 0))
    return NULL;
  for (guint i = 1; lines[i] != NULL; i++)
    if (*g_strchomp (lines[i]) != '\0')
      files = g_list_prepend (files, g_file_new_for_uri (lines[i]));
  return g_list_reverse (files);
}

static void
on_copied_files_spliced (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  GList *files;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (source), result, &error) < 0)
    {
      paste_failed (self, error);
      return;
    }
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (source));
  text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  files = parse_copied_files (text);
  paste_files (self, files);
  g_list_free_full (files, g_object_unref);
}

static void
on_copied_files_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream
      = gdk_clipboard_read_finish (GDK_CLIPBOARD (source), result, NULL, &error);
  g_autoptr (GOutputStream) memory = NULL;

  if (stream == NULL)
    {
      paste_failed (self, error);
      return;
    }
  memory = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (
      memory, stream, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
      G_PRIORITY_DEFAULT, NULL, on_copied_files_spliced, g_steal_pointer (&self));
}

static void
on_file_list_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  const GValue *value = gdk_clipboard_read_value_finish (GDK_CLIPBOARD (source), result, &error);
  GSList *files;
  g_autoptr (GList) list = NULL;

  if (value == NULL)
    {
      paste_failed (self, error);
      return;
    }
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  for (GSList *l = files; l != NULL; l = l->next)
    list = g_list_append (list, l->data);
  g_slist_free (files);
  paste_files (self, list);
}

/* Files copied in a file manager: as a list of files (text/uri-list, or
 * through the portal from a sandboxed one), else as GNOME's file manager
 * also puts them. */
void
_ferry_window_paste (FerryWindow *self)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (self));
  GdkContentFormats *formats = gdk_clipboard_get_formats (clipboard);
  g_autoptr (GdkContentFormats) readable
      = gdk_content_formats_union_deserialize_gtypes (gdk_content_formats_ref (formats));

  if (gdk_content_formats_contain_gtype (readable, GDK_TYPE_FILE_LIST))
    gdk_clipboard_read_value_async (clipboard, GDK_TYPE_FILE_LIST, G_PRIORITY_DEFAULT, NULL,
                                    on_file_list_read, g_object_ref (self));
  else if (gdk_content_formats_contain_mime_type (formats, GNOME_COPIED_FILES))
    gdk_clipboard_read_async (clipboard, (const char *[]){ GNOME_COPIED_FILES, NULL },
                              G_PRIORITY_DEFAULT, NULL, on_copied_files_read, g_object_ref (self));
  else
    say_nothing_to_paste (self);
}
