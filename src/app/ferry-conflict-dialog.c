/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-conflict-dialog.h"

/**
 * FerryConflictQueue:
 * The conflict questions of one window, asked one at a time in the order
 * they came: two dialogs at once would leave a person guessing which
 * file each is about. The engine worker that asked waits for its answer
 * on its own thread, so the window goes on updating meanwhile. A question
 * dropped unanswered (the queue was freed with its window) makes its
 * file fail, as the engine does with every request nobody answers.
 */
struct _FerryConflictQueue
{
  GtkWindow *parent;  /* not a reference: the window owns the queue */
  GQueue pending;     /* FerryConflictRequest, the oldest first */
  GtkWindow *showing; /* the dialog on screen, or NULL */
};

/* What a dialog needs when it is answered: the question, and whether
 * the answer goes for every conflict of the copy. */
typedef struct
{
  FerryConflictRequest *request;
  GtkCheckButton *apply_to_all; /* the dialog's own, alive as long as it */
} Question;

static void
question_free (gpointer data, GClosure *closure)
{
  Question *question = data;

  g_object_unref (question->request);
  g_free (question);
}

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
on_response (AdwMessageDialog *dialog, const char *response, Question *question)
{
  ferry_conflict_request_answer (question->request, action_for (response),
                                 gtk_check_button_get_active (question->apply_to_all));
}

/* A dialog over @parent asking what to do about @request; the response
 * chosen answers it. Closing the dialog skips the file. */
static GtkWidget *
dialog_new (GtkWindow *parent, FerryConflictRequest *request)
{
  gboolean is_dir = ferry_conflict_request_get_source_is_dir (request);
  g_autofree char *name = g_file_get_basename (ferry_conflict_request_get_destination (request));
  g_autofree char *display = g_filename_display_name (name);
  g_autofree char *heading
      = g_strdup_printf (is_dir ? _ ("Merge Folder “%s”?") : _ ("Replace “%s”?"), display);
  Question *question = g_new0 (Question, 1);
  GtkWidget *apply_to_all = NULL;
  GtkWidget *dialog = adw_message_dialog_new (
      parent, heading,
      is_dir ? _ ("A folder with this name is already there. Merging puts the copied files into "
                  "it, asking again for each file that is already there.")
             : _ ("A file with this name is already there. Replacing it overwrites it with the one "
                  "being copied."));

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog),
                                      comparison (request, &apply_to_all));
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
  question->request = g_object_ref (request);
  question->apply_to_all = GTK_CHECK_BUTTON (apply_to_all);
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_response), question, question_free, 0);
  return dialog;
}

/* ------------------------------------------------------------------ */
/* One question at a time                                              */

static void show_next (FerryConflictQueue *self);

/* Connected after the dialog's own handler, which answers the request. */
static void
on_answered (AdwMessageDialog *dialog, const char *response, FerryConflictQueue *self)
{
  g_clear_object (&self->showing);
  show_next (self);
}

static void
show_next (FerryConflictQueue *self)
{
  g_autoptr (FerryConflictRequest) request = NULL;

  if (self->showing != NULL)
    return;
  /* A request the job stopped waiting for (cancelled) needs no dialog. */
  while ((request = g_queue_pop_head (&self->pending)) != NULL
         && ferry_conflict_request_get_answered (request))
    g_clear_object (&request);
  if (request == NULL)
    return;
  self->showing = g_object_ref (GTK_WINDOW (dialog_new (self->parent, request)));
  g_signal_connect_after (self->showing, "response", G_CALLBACK (on_answered), self);
  gtk_window_present (self->showing);
}

FerryConflictQueue *
ferry_conflict_queue_new (GtkWindow *parent)
{
  FerryConflictQueue *self = g_new0 (FerryConflictQueue, 1);

  self->parent = parent;
  g_queue_init (&self->pending);
  return self;
}

/**
 * ferry_conflict_queue_ask:
 * Asks what to do about @request in a dialog over the window, after the
 * questions already asked; the answer goes to the request.
 */
void
ferry_conflict_queue_ask (FerryConflictQueue *self, FerryConflictRequest *request)
{
  g_queue_push_tail (&self->pending, g_object_ref (request));
  show_next (self);
}

/* What is not answered yet is dropped: each of those files fails. */
void
ferry_conflict_queue_free (FerryConflictQueue *self)
{
  g_queue_clear_full (&self->pending, g_object_unref);
  if (self->showing != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->showing, self);
      gtk_window_destroy (self->showing);
      g_object_unref (self->showing);
    }
  g_free (self);
}
