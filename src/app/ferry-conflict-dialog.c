/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-conflict-dialog.h"

/* Questions wait their turn: one dialog at a time per window. The engine
 * worker that asked waits for its answer on its own thread; the window
 * goes on updating meanwhile. */
#define PENDING_KEY "ferry-conflict-pending"

static void show_next (GtkWindow *parent);

static char *
describe (GFile *file, guint64 size, GDateTime *modified, gboolean is_dir)
{
  g_autofree char *when = g_date_time_format (modified, "%x %X");
  g_autofree char *size_str = g_format_size (size);

  if (is_dir)
    /* TRANSLATORS: a folder's last change, like "Folder, modified 11/20/26 10:01:22" */
    return g_strdup_printf (_ ("Folder, modified %s"), when);
  /* TRANSLATORS: "1.2 MB, modified 11/20/26 10:01:22" */
  return g_strdup_printf (_ ("%s, modified %s"), size_str, when);
}

static GtkWidget *
comparison (FerryConflictRequest *request, GtkWidget **apply_to_all)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *existing = adw_action_row_new ();
  GtkWidget *incoming = adw_action_row_new ();
  g_autofree char *existing_text
      = describe (ferry_conflict_request_get_destination (request),
                  ferry_conflict_request_get_destination_size (request),
                  ferry_conflict_request_get_destination_modified (request),
                  ferry_conflict_request_get_destination_is_dir (request));
  g_autofree char *incoming_text = describe (ferry_conflict_request_get_source (request),
                                             ferry_conflict_request_get_source_size (request),
                                             ferry_conflict_request_get_source_modified (request),
                                             ferry_conflict_request_get_source_is_dir (request));

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (existing), _ ("Already There"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (existing), existing_text);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (incoming), _ ("Being Copied"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (incoming), incoming_text);
  gtk_list_box_append (GTK_LIST_BOX (list), existing);
  gtk_list_box_append (GTK_LIST_BOX (list), incoming);
  gtk_box_append (GTK_BOX (box), list);

  *apply_to_all = gtk_check_button_new_with_mnemonic (_ ("_Apply to All Conflicts"));
  gtk_box_append (GTK_BOX (box), *apply_to_all);
  return box;
}

static FerryConflictAction
action_for (const char *response)
{
  if (g_strcmp0 (response, "replace") == 0)
    return FERRY_CONFLICT_ACTION_REPLACE;
  if (g_strcmp0 (response, "merge") == 0)
    return FERRY_CONFLICT_ACTION_MERGE;
  if (g_strcmp0 (response, "keep-both") == 0)
    return FERRY_CONFLICT_ACTION_KEEP_BOTH;
  if (g_strcmp0 (response, "cancel") == 0)
    return FERRY_CONFLICT_ACTION_CANCEL;
  return FERRY_CONFLICT_ACTION_SKIP;
}

static void
on_response (AdwMessageDialog *dialog, const char *response, FerryConflictRequest *request)
{
  GtkCheckButton *apply_to_all = g_object_get_data (G_OBJECT (dialog), "apply-to-all");
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (dialog));

  ferry_conflict_request_answer (request, action_for (response),
                                 gtk_check_button_get_active (apply_to_all));
  g_object_set_data (G_OBJECT (parent), "ferry-conflict-showing", NULL);
  show_next (parent);
}

static void
show (GtkWindow *parent, FerryConflictRequest *request)
{
  gboolean is_dir = ferry_conflict_request_get_source_is_dir (request);
  g_autofree char *name = g_file_get_basename (ferry_conflict_request_get_destination (request));
  g_autofree char *display = g_filename_display_name (name);
  g_autofree char *heading
      = g_strdup_printf (is_dir ? _ ("Merge Folder “%s”?") : _ ("Replace “%s”?"), display);
  GtkWidget *apply_to_all = NULL;
  GtkWidget *dialog = adw_message_dialog_new (
      parent, heading,
      is_dir ? _ ("A folder with this name is already there. Merging puts the copied files into "
                  "it, asking again for each file that is already there.")
             : _ ("A file with this name is already there. Replacing it overwrites it with the one "
                  "being copied."));

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog),
                                      comparison (request, &apply_to_all));
  g_object_set_data (G_OBJECT (dialog), "apply-to-all", apply_to_all);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _ ("_Cancel Copy"),
                                    "skip", _ ("_Skip"), "keep-both", _ ("_Keep Both"), NULL);
  if (is_dir)
    adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "merge", _ ("_Merge"));
  else
    {
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "replace", _ ("_Replace"));
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "replace",
                                                  ADW_RESPONSE_DESTRUCTIVE);
    }
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), is_dir ? "merge" : "skip");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "skip");
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_response), g_object_ref (request),
                         (GClosureNotify) (void (*) (void)) g_object_unref, 0);
  g_object_set_data (G_OBJECT (parent), "ferry-conflict-showing", dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
show_next (GtkWindow *parent)
{
  GQueue *pending = g_object_get_data (G_OBJECT (parent), PENDING_KEY);
  g_autoptr (FerryConflictRequest) request = NULL;

  if (pending == NULL || g_object_get_data (G_OBJECT (parent), "ferry-conflict-showing") != NULL)
    return;
  /* A request the job stopped waiting for (cancelled) needs no dialog. */
  while ((request = g_queue_pop_head (pending)) != NULL
         && ferry_conflict_request_get_answered (request))
    g_clear_object (&request);
  if (request != NULL)
    show (parent, request);
}

static void
free_pending (gpointer data)
{
  g_queue_free_full (data, g_object_unref);
}

/**
 * ferry_conflict_dialog_ask:
 * Asks what to do about @request in a dialog over @parent, after the
 * questions already showing; the answer goes to the request.
 */
void
ferry_conflict_dialog_ask (GtkWindow *parent, FerryConflictRequest *request)
{
  GQueue *pending = g_object_get_data (G_OBJECT (parent), PENDING_KEY);

  if (pending == NULL)
    {
      pending = g_queue_new ();
      g_object_set_data_full (G_OBJECT (parent), PENDING_KEY, pending, free_pending);
    }
  g_queue_push_tail (pending, g_object_ref (request));
  show_next (parent);
}
