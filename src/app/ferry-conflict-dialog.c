/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ferry-conflict-dialog.h"
#include "ferry-conflict-facts.h"

/**
 * FerryConflictQueue:
 * The conflict questions of one window, asked one at a time in the order
 * they came: two dialogs at once would leave a person guessing which
 * file each is about. The engine worker that asked waits for its answer
 * on its own thread, so the window goes on updating meanwhile. A question
 * dropped unanswered (the queue was freed with its window) makes its
 * file fail, as the engine does with every request nobody answers.
 *
 * Before a question is shown, both files are looked at off the main
 * thread (FerryConflictFacts): their thumbnails, and whether they are
 * the same, in which case the dialog says so and offers Skip first.
 */
struct _FerryConflictQueue
{
  GtkWindow *parent;         /* not a reference: the window owns the queue */
  GQueue pending;            /* FerryConflictRequest, the oldest first */
  GtkWindow *showing;        /* the dialog on screen, or NULL */
  GCancellable *cancellable; /* of the facts being gathered, or NULL */
};

/* What a dialog needs when it is answered: the question, whether the
 * answer goes for every conflict of the copy, and the new name. */
typedef struct
{
  FerryConflictRequest *request;
  GtkCheckButton *apply_to_all; /* the dialog's own, alive as long as it */
  GtkEditable *new_name;
} Question;

static void
question_free (gpointer data, GClosure *closure)
{
  Question *question = data;

  g_object_unref (question->request);
  g_free (question);
}

/* "Today 14:02", "Yesterday 09:15", else the full date in the words of
 * the person's language: "23 November 2026, 14:02", never "11/23/26". */
static char *
format_when (GDateTime *when)
{
  g_autoptr (GDateTime) local = g_date_time_to_local (when);
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autoptr (GDateTime) yesterday = g_date_time_add_days (now, -1);
  int y, m, d;

  g_date_time_get_ymd (local, &y, &m, &d);
  if (g_date_time_get_year (now) == y && g_date_time_get_month (now) == m
      && g_date_time_get_day_of_month (now) == d)
    /* TRANSLATORS: when a file was changed today, in g_date_time_format()'s
     * codes, like "Today 14:02" */
    return g_date_time_format (local, _ ("Today %H:%M"));
  if (g_date_time_get_year (yesterday) == y && g_date_time_get_month (yesterday) == m
      && g_date_time_get_day_of_month (yesterday) == d)
    /* TRANSLATORS: when a file was changed yesterday, in g_date_time_format()'s
     * codes, like "Yesterday 09:15" */
    return g_date_time_format (local, _ ("Yesterday %H:%M"));
  /* TRANSLATORS: when a file was changed, a full date in g_date_time_format()'s
   * codes (%B is the month's name), like "23 November 2026, 14:02" */
  return g_date_time_format (local, _ ("%-e %B %Y, %H:%M"));
}

static char *
describe (guint64 size, GDateTime *modified, gboolean is_dir)
{
  g_autofree char *when = format_when (modified);
  g_autofree char *size_str = g_format_size (size);

  if (is_dir)
    /* TRANSLATORS: a folder's last change, like "Folder, modified Today 10:01" */
    return g_strdup_printf (_ ("Folder, modified %s"), when);
  /* TRANSLATORS: "1.2 MB, modified Yesterday 10:01" */
  return g_strdup_printf (_ ("%s, modified %s"), size_str, when);
}

/* One of the two files: what it is called in the dialog, its picture,
 * its size and when it was changed. */
static GtkWidget *
file_row (const char *title, GIcon *picture, const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *image = gtk_image_new_from_gicon (picture);

  gtk_image_set_pixel_size (GTK_IMAGE (image), 48);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), image);
  return row;
}

/* A name the engine takes for one: not empty, not "." or "..", no "/". */
static gboolean
is_a_name (const char *name)
{
  return *name != '\0' && strcmp (name, ".") != 0 && strcmp (name, "..") != 0
         && strchr (name, '/') == NULL;
}

static void
on_new_name_changed (GtkEditable *editable, AdwMessageDialog *dialog)
{
  adw_message_dialog_set_response_enabled (dialog, "rename",
                                           is_a_name (gtk_editable_get_text (editable)));
}

/* Enter in the name renames, as the Rename button would, and the
 * question goes as after a click: adw_message_dialog_response() only
 * answers, and the dialog stayed, its buttons dead, under the next. */
static void
on_new_name_activated (AdwEntryRow *row, AdwMessageDialog *dialog)
{
  if (!adw_message_dialog_get_response_enabled (dialog, "rename"))
    return;
  adw_message_dialog_response (dialog, "rename");
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static GtkWidget *
comparison (FerryConflictRequest *request, const FerryConflictFacts *facts, Question *question)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *new_name = adw_entry_row_new ();
  GtkWidget *apply_to_all = gtk_check_button_new_with_mnemonic (_ ("_Apply to All Conflicts"));
  const char *suggested = ferry_conflict_request_get_suggested_name (request);
  g_autofree char *existing = describe (ferry_conflict_request_get_destination_size (request),
                                        ferry_conflict_request_get_destination_modified (request),
                                        ferry_conflict_request_get_destination_is_dir (request));
  g_autofree char *incoming = describe (ferry_conflict_request_get_source_size (request),
                                        ferry_conflict_request_get_source_modified (request),
                                        ferry_conflict_request_get_source_is_dir (request));

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_list_box_append (GTK_LIST_BOX (list),
                       file_row (_ ("Already There"), facts->existing_icon, existing));
  gtk_list_box_append (GTK_LIST_BOX (list),
                       file_row (_ ("Being Copied"), facts->incoming_icon, incoming));
  /* What Rename calls the copy: at first what Keep Both would. */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (new_name), _ ("Rename To"));
  gtk_editable_set_text (GTK_EDITABLE (new_name), suggested ? suggested : "");
  gtk_list_box_append (GTK_LIST_BOX (list), new_name);
  gtk_box_append (GTK_BOX (box), list);
  gtk_box_append (GTK_BOX (box), apply_to_all);
  question->apply_to_all = GTK_CHECK_BUTTON (apply_to_all);
  question->new_name = GTK_EDITABLE (new_name);
  return box;
}

static FerryConflictAction
action_for (const char *response)
{
  if (g_strcmp0 (response, "replace") == 0)
    return FERRY_CONFLICT_ACTION_REPLACE;
  if (g_strcmp0 (response, "merge") == 0)
    return FERRY_CONFLICT_ACTION_MERGE;
  if (g_strcmp0 (response, "cancel") == 0)
    return FERRY_CONFLICT_ACTION_CANCEL;
  return FERRY_CONFLICT_ACTION_SKIP;
}

/* Rename with the name offered is Keep Both, which "apply to all" can
 * give every later conflict; a name typed is for this file alone. */
static void
on_response (AdwMessageDialog *dialog, const char *response, Question *question)
{
  gboolean all = gtk_check_button_get_active (question->apply_to_all);
  const char *name = gtk_editable_get_text (question->new_name);

  if (g_strcmp0 (response, "rename") != 0)
    ferry_conflict_request_answer (question->request, action_for (response), all);
  else if (g_strcmp0 (name, ferry_conflict_request_get_suggested_name (question->request)) == 0)
    ferry_conflict_request_answer (question->request, FERRY_CONFLICT_ACTION_KEEP_BOTH, all);
  else
    ferry_conflict_request_answer_rename (question->request, name);
}

/* The answers. When both files are the same, copying would change
 * nothing: Skip is offered first, as the suggested answer in the place
 * of the foremost one (the last: on the right, or on top when the
 * answers are stacked in a narrow window). */
static void
add_responses (AdwMessageDialog *dialog, gboolean is_dir, gboolean same)
{
  adw_message_dialog_add_response (dialog, "cancel", _ ("_Cancel Copy"));
  if (!same)
    adw_message_dialog_add_response (dialog, "skip", _ ("_Skip"));
  adw_message_dialog_add_response (dialog, "rename", _ ("_Rename"));
  if (is_dir)
    adw_message_dialog_add_response (dialog, "merge", _ ("_Merge"));
  else
    {
      adw_message_dialog_add_response (dialog, "replace", _ ("_Replace"));
      adw_message_dialog_set_response_appearance (dialog, "replace", ADW_RESPONSE_DESTRUCTIVE);
    }
  if (same)
    {
      adw_message_dialog_add_response (dialog, "skip", _ ("_Skip"));
      adw_message_dialog_set_response_appearance (dialog, "skip", ADW_RESPONSE_SUGGESTED);
    }
  adw_message_dialog_set_default_response (dialog, is_dir ? "merge" : "skip");
  adw_message_dialog_set_close_response (dialog, "skip");
}

/* Whether the two files were last changed at the same moment, as near
 * as a FAT drive stores it (2 s). */
static gboolean
same_dates (FerryConflictRequest *request)
{
  GDateTime *incoming = ferry_conflict_request_get_source_modified (request);
  GDateTime *existing = ferry_conflict_request_get_destination_modified (request);

  return incoming != NULL && existing != NULL
         && ABS (g_date_time_difference (incoming, existing)) < 2 * G_TIME_SPAN_SECOND;
}

static const char *
body_for (FerryConflictRequest *request, gboolean is_dir, gboolean same)
{
  if (is_dir)
    return _ ("A folder with this name is already there. Merging puts the copied files into it, "
              "asking again for each file that is already there.");
  /* Same bytes, other dates: skipping keeps the date of the one there,
   * which "the same" would have hidden. */
  if (same && !same_dates (request))
    return _ ("Both files have the same content but different dates: skipping this one keeps "
              "the one there with its own date.");
  if (same)
    return _ ("Both files are the same: skipping this one leaves nothing out.");
  return _ ("A file with this name is already there. Replacing it overwrites it with the one "
            "being copied.");
}

/* A dialog over @parent asking what to do about @request; the response
 * chosen answers it. Closing the dialog skips the file. */
static GtkWidget *
dialog_new (GtkWindow *parent, FerryConflictRequest *request, const FerryConflictFacts *facts)
{
  gboolean is_dir = ferry_conflict_request_get_source_is_dir (request);
  gboolean same = !is_dir && facts->same_content;
  g_autofree char *name = g_file_get_basename (ferry_conflict_request_get_destination (request));
  g_autofree char *display = g_filename_display_name (name);
  g_autofree char *heading = is_dir ? g_strdup_printf (_ ("Merge Folder “%s”?"), display)
                             : same ? g_strdup_printf (_ ("“%s” Is Already There"), display)
                                    : g_strdup_printf (_ ("Replace “%s”?"), display);
  Question *question = g_new0 (Question, 1);
  GtkWidget *dialog = adw_message_dialog_new (parent, heading, body_for (request, is_dir, same));

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog),
                                      comparison (request, facts, question));
  add_responses (ADW_MESSAGE_DIALOG (dialog), is_dir, same);
  on_new_name_changed (question->new_name, ADW_MESSAGE_DIALOG (dialog));
  g_signal_connect (question->new_name, "changed", G_CALLBACK (on_new_name_changed), dialog);
  g_signal_connect (question->new_name, "entry-activated", G_CALLBACK (on_new_name_activated),
                    dialog);
  question->request = g_object_ref (request);
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
show (FerryConflictQueue *self, FerryConflictRequest *request, const FerryConflictFacts *facts)
{
  self->showing = g_object_ref (GTK_WINDOW (dialog_new (self->parent, request, facts)));
  g_signal_connect_after (self->showing, "response", G_CALLBACK (on_answered), self);
  gtk_window_present (self->showing);
}

/* Files that could not be looked at are asked about all the same, with
 * the pictures of their kinds. */
static void
on_facts (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FerryConflictRequest *request = FERRY_CONFLICT_REQUEST (source);
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryConflictFacts) facts
      = ferry_conflict_facts_gather_finish (request, result, &error);
  FerryConflictQueue *self = user_data;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return; /* the queue is gone */
  g_clear_object (&self->cancellable);
  if (facts == NULL)
    {
      gboolean is_dir = ferry_conflict_request_get_source_is_dir (request);

      facts = g_new0 (FerryConflictFacts, 1);
      facts->existing_icon = g_themed_icon_new (is_dir ? "folder" : "text-x-generic");
      facts->incoming_icon = g_object_ref (facts->existing_icon);
    }
  /* A request the job stopped waiting for (cancelled) needs no dialog. */
  if (ferry_conflict_request_get_answered (request))
    show_next (self);
  else
    show (self, request, facts);
}

static void
show_next (FerryConflictQueue *self)
{
  g_autoptr (FerryConflictRequest) request = NULL;

  if (self->showing != NULL || self->cancellable != NULL)
    return;
  while ((request = g_queue_pop_head (&self->pending)) != NULL
         && ferry_conflict_request_get_answered (request))
    g_clear_object (&request);
  if (request == NULL)
    return;
  self->cancellable = g_cancellable_new ();
  ferry_conflict_facts_gather_async (request, self->cancellable, on_facts, self);
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
  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      g_clear_object (&self->cancellable);
    }
  if (self->showing != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->showing, self);
      gtk_window_destroy (self->showing);
      g_object_unref (self->showing);
    }
  g_free (self);
}
