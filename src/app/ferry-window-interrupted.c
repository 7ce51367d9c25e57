/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Transfers cut short (Ferry or the session ended, a drive pulled out):
 * a row each, "“photos” to STICK" over "1.2 GB of 3.0 GB copied", with
 * Resume and Discard, for those whose drive is plugged in (the same filesystem, not
 * one with the same label), at start-up and whenever drives change, and
 * for one that this window saw cut short, whose drive may come back. */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-transfer-title.h"
#include "ferry-window-private.h"

static GQuark
unfinished_quark (void)
{
  return g_quark_from_static_string ("ferry-unfinished");
}

/* Transfers in the list keep journals too: not rows of their own. One
 * running goes on itself; one stopped by its drive filling up or failing
 * says why on its row, whose Retry goes on from the journal. Once that
 * row is dismissed, the transfer is offered here. A row of the same
 * files to the same folder that ended well is not the transfer (its
 * journal went when it ended): the same copy made again and cut short
 * is offered beside its "Done" row. */
static gboolean
is_listed (FerryWindow *self, FerryUnfinished *unfinished)
{
  GListModel *jobs = G_LIST_MODEL (self->queue);

  for (guint i = 0; i < g_list_model_get_n_items (jobs); i++)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (jobs, i);
      const GError *error = NULL;

      if (ferry_queue_get_outcome (self->queue, job, &error) && error == NULL)
        continue;
      if (ferry_unfinished_is_of_job (unfinished, job))
        return TRUE;
    }
  return FALSE;
}

static FerryUnfinished *
unfinished_of (GtkWidget *button)
{
  GtkWidget *row = gtk_widget_get_ancestor (button, ADW_TYPE_ACTION_ROW);

  return g_object_get_qdata (G_OBJECT (row), unfinished_quark ());
}

static void
on_resume_clicked (GtkButton *button, FerryWindow *self)
{
  g_autoptr (FerryJob) job = ferry_unfinished_new_job (unfinished_of (GTK_WIDGET (button)));

  _ferry_window_start_job (self, job);
  _ferry_window_load_interrupted (self);
}

static void
on_discard_response (AdwMessageDialog *dialog, const char *response, FerryWindow *self)
{
  if (g_strcmp0 (response, "discard") != 0)
    return;
  ferry_unfinished_discard (g_object_get_qdata (G_OBJECT (dialog), unfinished_quark ()));
  _ferry_window_load_interrupted (self);
  /* The part of the file it was writing is gone: its drive (wherever it
   * is mounted now) has that room again. */
  _ferry_window_refresh_drives_space (self);
}

/* Discard cannot be undone (the part copied of a big file goes, and
 * with it hours on a slow stick), and sits beside Resume: asked first. */
static void
on_discard_clicked (GtkButton *button, FerryWindow *self)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (button), ADW_TYPE_ACTION_ROW);
  FerryUnfinished *unfinished = unfinished_of (GTK_WIDGET (button));
  /* TRANSLATORS: asked before forgetting a transfer cut short, like
   * "Discard “photos” to STICK?" */
  g_autofree char *heading = g_strdup_printf (
      _ ("Discard %s?"), adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  GtkWidget *dialog = adw_message_dialog_new (
      GTK_WINDOW (self), heading,
      _ ("Files copied whole stay where they are. What was copied of the others is deleted, "
         "and the transfer can no longer be resumed."));

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _ ("_Cancel"), "discard",
                                    _ ("_Discard"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_qdata_full (G_OBJECT (dialog), unfinished_quark (), g_object_ref (unfinished),
                           g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_discard_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static GtkWidget *
new_button (FerryWindow *self, const char *label, GCallback clicked, gboolean suggested)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  if (suggested)
    gtk_widget_add_css_class (button, "suggested-action");
  g_signal_connect_object (button, "clicked", clicked, self, 0);
  return button;
}

/* Where the transfer went, as the drive list names it ("STICK › photos")
 * while its own filesystem is @present; else the folder's path. */
static char *
describe_destination (FerryWindow *self, FerryUnfinished *unfinished, gboolean present)
{
  const char *path = ferry_unfinished_get_destination (unfinished);
  g_autoptr (GFile) folder = g_file_new_for_path (path);
  g_autoptr (FerryDestination) destination = NULL;

  if (!present)
    return g_strdup (path);
  destination = _ferry_window_destination_for (self, folder);
  return ferry_destination_name_paths (destination, path);
}

/* Named as its row was while it ran ("“Holidays” to STICK"), to tell
 * two cut short apart; on a drive with no name, by its folder. */
static char *
new_title (FerryUnfinished *unfinished)
{
  const char *const *sources = ferry_unfinished_get_sources (unfinished);
  const char *label = ferry_unfinished_get_label (unfinished);
  g_autoptr (GFile) first = g_file_new_for_path (sources[0]);
  g_autofree char *folder = NULL;

  if (label == NULL)
    {
      g_autofree char *name
          = g_path_get_basename (ferry_unfinished_get_destination (unfinished));
      folder = g_filename_display_name (name);
    }
  return ferry_transfer_title (g_strv_length ((char **) sources), first,
                               label != NULL ? label : folder);
}

/* How much of it is on the drive, the first line under its title. */
static char *
new_amount (FerryUnfinished *unfinished)
{
  g_autofree char *durable = g_format_size (ferry_unfinished_get_bytes_durable (unfinished));
  g_autofree char *total = g_format_size (ferry_unfinished_get_bytes_total (unfinished));

  /* TRANSLATORS: how much of a transfer cut short is on its drive, like
   * "1.2 GB of 3.0 GB copied" */
  return g_strdup_printf (_ ("%s of %s copied"), durable, total);
}

/* Why Resume is greyed out, said on the row itself: a tooltip on a
 * button that cannot be pressed is found by few. */
static char *
new_unplugged_hint (FerryUnfinished *unfinished)
{
  const char *label = ferry_unfinished_get_label (unfinished);

  if (label != NULL)
    /* TRANSLATORS: on a transfer cut short whose drive is gone, like
     * "Plug CRUZER in again to resume" */
    return g_strdup_printf (_ ("Plug %s in again to resume"), label);
  return g_strdup (_ ("Plug the drive in again to resume"));
}

/* How much is on the drive, why Resume waits, if it does, and the
 * folder the transfer went to. */
static char *
new_subtitle (FerryWindow *self, FerryUnfinished *unfinished, gboolean present)
{
  g_autofree char *amount = new_amount (unfinished);
  g_autofree char *where = describe_destination (self, unfinished, present);
  g_autofree char *hint = NULL;

  if (present)
    return g_markup_printf_escaped ("%s\n%s", amount, where);
  hint = new_unplugged_hint (unfinished);
  return g_markup_printf_escaped ("%s\n%s\n%s", amount, hint, where);
}

/* Whether the drive is there is asked once a row: each asking reads the
 * filesystem. */
static GtkWidget *
new_row (FerryWindow *self, FerryUnfinished *unfinished)
{
  gboolean present = ferry_unfinished_is_present (unfinished);
  g_autofree char *title = new_title (unfinished);
  g_autofree char *subtitle = new_subtitle (self, unfinished, present);
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *resume = new_button (self, _ ("_Resume"), G_CALLBACK (on_resume_clicked), TRUE);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_widget_set_sensitive (resume, present);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), resume);
  adw_action_row_add_suffix (
      ADW_ACTION_ROW (row), new_button (self, _ ("_Discard"), G_CALLBACK (on_discard_clicked), FALSE));
  g_object_set_qdata_full (G_OBJECT (row), unfinished_quark (), g_object_ref (unfinished),
                           g_object_unref);
  return row;
}

static gboolean
is_shown (FerryWindow *self, FerryUnfinished *unfinished)
{
  if (is_listed (self, unfinished))
    return FALSE;
  return ferry_unfinished_is_present (unfinished)
         || g_hash_table_contains (self->interrupted_here, ferry_unfinished_get_id (unfinished));
}

/* The rows made again from the journals kept. */
void
_ferry_window_load_interrupted (FerryWindow *self)
{
  g_autoptr (GPtrArray) list = ferry_unfinished_list ();
  GtkWidget *child;
  gboolean any = FALSE;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->interrupted_list))) != NULL)
    gtk_list_box_remove (self->interrupted_list, child);
  for (guint i = 0; i < list->len; i++)
    {
      FerryUnfinished *unfinished = g_ptr_array_index (list, i);

      if (!is_shown (self, unfinished))
        continue;
      gtk_list_box_append (self->interrupted_list, new_row (self, unfinished));
      any = TRUE;
    }
  gtk_widget_set_visible (self->interrupted_group, any);
  if (any)
    gtk_stack_set_visible_child_name (self->stack, "content");
}

/* A transfer whose drive was pulled out, its journal kept: its row says
 * so instead of listing every file it did not copy. One cancelled keeps
 * its journal too (a drive Ferry measures or finds slow), and would come
 * back as interrupted the next time Ferry starts: it does so now, with
 * how much is on the drive, Resume and Discard. A failure with the drive
 * there keeps its own row, which names the files. */
static void
on_job_finished (FerryQueue *queue, FerryJob *job, GError *error, FerryWindow *self)
{
  g_autoptr (GPtrArray) list = NULL;
  gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  if (error == NULL)
    return;
  list = ferry_unfinished_list ();
  for (guint i = 0; i < list->len; i++)
    {
      FerryUnfinished *unfinished = g_ptr_array_index (list, i);

      if (!ferry_unfinished_is_of_job (unfinished, job)
          || (!cancelled && ferry_unfinished_is_present (unfinished)))
        continue;
      g_hash_table_add (self->interrupted_here, g_strdup (ferry_unfinished_get_id (unfinished)));
      ferry_queue_remove (queue, job);
      break;
    }
  _ferry_window_load_interrupted (self);
}

static void
on_list_changed (GListModel *list, guint position, guint removed, guint added, FerryWindow *self)
{
  _ferry_window_load_interrupted (self);
}

void
_ferry_window_bind_interrupted (FerryWindow *self)
{
  self->interrupted_here = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_signal_connect_object (self->drives, "items-changed", G_CALLBACK (on_list_changed), self, 0);
  /* A transfer's row dismissed may leave its journal to be offered. */
  g_signal_connect_object (self->queue, "items-changed", G_CALLBACK (on_list_changed), self, 0);
  g_signal_connect_object (self->queue, "job-finished", G_CALLBACK (on_job_finished), self,
                           G_CONNECT_AFTER);
  _ferry_window_load_interrupted (self);
}
