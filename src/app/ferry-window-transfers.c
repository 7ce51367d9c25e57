/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The transfers in the window: one row for each job of the queue, made
 * and dropped as the queue's model changes, each following its job on
 * its own. Here too: retrying, dismissing and clearing those finished,
 * the notice when a copy ends unseen, and no suspend while anything is
 * copied. */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-window-private.h"

/* The row of the job at @position of the queue: the list box is bound to
 * the queue, so its rows stand in the same order. */
FerryTransferRow *
_ferry_window_get_transfer_row (FerryWindow *self, guint position)
{
  return FERRY_TRANSFER_ROW (gtk_list_box_get_row_at_index (self->transfer_list, (int) position));
}

FerryTransferRow *
_ferry_window_find_transfer_row (FerryWindow *self, FerryJob *job)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->queue)); i++)
    {
      g_autoptr (FerryJob) item = g_list_model_get_item (G_LIST_MODEL (self->queue), i);

      if (item == job)
        return _ferry_window_get_transfer_row (self, i);
    }
  return NULL;
}

/* Every job the window starts, a retry too: the person's settings, and
 * files already there (copied meanwhile, or the first time) are asked
 * about, never overwritten unasked; so are entries the drive cannot
 * store as they are, never renamed or left out unasked. */
void
_ferry_window_start_job (FerryWindow *self, FerryJob *job)
{
  ferry_job_set_conflict_policy (job, FERRY_CONFLICT_POLICY_ASK);
  ferry_job_set_unsupported_policy (job, FERRY_UNSUPPORTED_POLICY_ASK);
  ferry_job_set_verify (job, g_settings_get_boolean (self->settings, "verify"));
  ferry_job_set_device_mode (job, g_settings_get_enum (self->settings, "device-mode"));
  ferry_job_set_n_workers (job, g_get_num_processors ());
  ferry_job_set_keeps_journal (job, TRUE);
  ferry_queue_add (self->queue, job);
}

static gboolean
job_finished (FerryJob *job)
{
  return ferry_job_get_phase (job) >= FERRY_PHASE_DONE;
}

/* "Clear Finished" is there while a transfer has ended. */
static void
update_clear_finished (FerryWindow *self)
{
  gboolean any = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->queue)) && !any; i++)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (self->queue), i);

      any = job_finished (job);
    }
  _ferry_window_enable_action (self, "clear-finished", any);
  gtk_widget_set_visible (self->clear_finished_button, any);
}

/* Every transfer that ended (done, failed or cancelled) leaves the list;
 * those still running stay. */
void
_ferry_window_clear_finished (FerryWindow *self)
{
  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (self->queue)); i > 0; i--)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (self->queue), i - 1);

      if (job_finished (job))
        ferry_queue_remove (self->queue, job);
    }
}

static void
on_row_dismiss (FerryTransferRow *row, FerryWindow *self)
{
  ferry_queue_remove (self->queue, ferry_transfer_row_get_job (row));
}

/* The sources of @failures, by the folder each was going to. */
static GHashTable *
sources_by_folder (GPtrArray *failures)
{
  GHashTable *by_folder = g_hash_table_new_full (
      g_file_hash, (GEqualFunc) g_file_equal, g_object_unref, (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < failures->len; i++)
    {
      FerryFailure *failure = g_ptr_array_index (failures, i);
      g_autoptr (GFile) parent = g_file_get_parent (failure->destination);
      GPtrArray *list = g_hash_table_lookup (by_folder, parent);

      if (list == NULL)
        {
          list = g_ptr_array_new_with_free_func (g_object_unref);
          g_hash_table_insert (by_folder, g_object_ref (parent), list);
        }
      g_ptr_array_add (list, g_object_ref (failure->source));
    }
  return by_folder;
}

/* A retry writes only to the drive @failed was going to: a drive pulled
 * out leaves its mount folder behind on the disk below, and the retry
 * says the drive is not plugged in instead of writing there. */
static void
start_retry (FerryWindow *self, FerryJob *failed, GPtrArray *sources, GFile *folder)
{
  g_autoptr (FerryJob) job = ferry_job_new ((GFile *const *) sources->pdata, sources->len, folder);

  ferry_job_set_retry_of (job, failed);
  _ferry_window_start_job (self, job);
}

/* Retry, after a transfer went on past files that failed: those files,
 * each again to where it was going. After one that something stopped (its
 * drive full or failing, or not plugged in before it began): all of it
 * again, the same sources to the same place, so it goes on from where the
 * drive's data ends when its journal was kept (files it never began are
 * no failures, and retrying only the failed file left them out). The new
 * transfers take the old one's place. */
static void
on_row_retry (FerryTransferRow *row, FerryWindow *self)
{
  FerryJob *failed = ferry_transfer_row_get_job (row);
  const GError *outcome = ferry_transfer_row_get_outcome (row);
  g_autoptr (GPtrArray) failures = NULL;
  g_autoptr (GHashTable) by_folder = NULL;
  GHashTableIter iter;
  gpointer folder, sources;

  if (!g_error_matches (outcome, FERRY_ERROR, FERRY_ERROR_PARTIAL))
    {
      start_retry (self, failed, ferry_job_get_sources (failed), ferry_job_get_destination (failed));
      on_row_dismiss (row, self);
      return;
    }
  failures = ferry_job_dup_failures (failed);
  by_folder = sources_by_folder (failures);
  g_hash_table_iter_init (&iter, by_folder);
  while (g_hash_table_iter_next (&iter, &folder, &sources))
    start_retry (self, failed, sources, folder);
  on_row_dismiss (row, self);
}

static void
on_transfer_row_eject (FerryTransferRow *row, FerryWindow *self)
{
  _ferry_window_eject (self, ferry_transfer_row_get_destination (row));
}

/* A row for each job, whoever queued it. Where it goes is looked up
 * again from the job's destination: the same drive object as the drive
 * list's while the drive is plugged in. */
static GtkWidget *
create_transfer_row (gpointer item, gpointer user_data)
{
  FerryWindow *self = user_data;
  FerryJob *job = item;
  g_autoptr (FerryDestination) destination
      = _ferry_window_destination_for (self, ferry_job_get_destination (job));
  FerryTransferRow *row = ferry_transfer_row_new (job, destination);
  const GError *outcome = NULL;

  /* One that ended before this window was made shows how. */
  if (ferry_queue_get_outcome (self->queue, job, &outcome))
    ferry_transfer_row_finished (row, outcome);
  _ferry_window_ask_questions_of (self, job);
  g_signal_connect (row, "dismiss", G_CALLBACK (on_row_dismiss), self);
  g_signal_connect (row, "retry", G_CALLBACK (on_row_retry), self);
  g_signal_connect (row, "eject", G_CALLBACK (on_transfer_row_eject), self);
  return GTK_WIDGET (row);
}

/* While transfers run, no suspend. */
static void
on_queue_busy (FerryQueue *queue, GParamSpec *pspec, FerryWindow *self)
{
  gboolean busy = ferry_queue_get_busy (queue);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (busy && self->inhibit_cookie == 0 && app != NULL)
    self->inhibit_cookie = gtk_application_inhibit (
        app, GTK_WINDOW (self), GTK_APPLICATION_INHIBIT_SUSPEND, _ ("Files are being copied"));
  else if (!busy && self->inhibit_cookie != 0 && app != NULL)
    {
      gtk_application_uninhibit (app, self->inhibit_cookie);
      self->inhibit_cookie = 0;
    }
  _ferry_window_update_eject_offers (self);
}

/* A copy that ends while the person looks elsewhere is told of; for a
 * drive that can be ejected now, with an Eject button (app.eject-drive,
 * the drive's root), unless it is ejected anyway. */
static void
notify_finished (FerryWindow *self, FerryTransferRow *row, const GError *error)
{
  GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  FerryDestination *destination = ferry_transfer_row_get_destination (row);
  GFile *root = ferry_destination_get_root (destination);
  g_autoptr (GNotification) notification = NULL;
  g_autofree char *body = NULL;

  if (app == NULL || gtk_window_is_active (GTK_WINDOW (self))
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  notification = g_notification_new (error ? _ ("Copy Failed") : _ ("Copy Finished"));
  body = error
             ? ferry_destination_describe_error (destination, error)
             : g_strdup_printf (_ ("All data is on %s"), ferry_destination_get_name (destination));
  g_notification_set_body (notification, body);
  if (error == NULL && ferry_destination_get_kind (destination) == FERRY_DESTINATION_DRIVE
      && ferry_destination_can_eject (destination)
      && !ferry_transfer_row_get_eject_when_done (row)
      && !ferry_queue_has_work_on (self->queue, root))
    {
      g_autofree char *uri = g_file_get_uri (root);
      g_notification_add_button_with_target (notification, _ ("Eject"), "app.eject-drive", "s",
                                             uri);
    }
  g_application_send_notification (app, NULL, notification);
}

/* Only the queue knows why a job ended: its row is told. */
static void
on_job_finished (FerryQueue *queue, FerryJob *job, GError *error, FerryWindow *self)
{
  FerryTransferRow *row = _ferry_window_find_transfer_row (self, job);

  if (row == NULL)
    return;
  ferry_transfer_row_finished (row, error);
  /* What the copy took, or what a copy that did not fit left, shows. */
  ferry_destination_refresh_space (ferry_transfer_row_get_destination (row));
  notify_finished (self, row, error);
  update_clear_finished (self);
  _ferry_window_update_eject_offers (self);
  _ferry_window_close_if_stopped (self);
}

/* How long a new row is kept in view as it is laid out and grows (its
 * parts revealed). */
#define SHOW_NEW_ROW_USEC (600 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  GtkWidget *row;
  gint64 mapped_at; /* frame time it was first seen mapped; 0 before */
} NewRow;

static void
new_row_free (gpointer data)
{
  NewRow *new_row = data;

  g_object_unref (new_row->row);
  g_free (new_row);
}

/* The new row shows in the window, while it is laid out and grows: the
 * window scrolled up to where it starts if above, or down until it ends
 * if below (its top first where it is taller than the window). */
static gboolean
bring_into_view (GtkWidget *scroller, GdkFrameClock *clock, gpointer data)
{
  NewRow *new_row = data;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  graphene_rect_t bounds;
  double top, past_foot;

  if (gtk_widget_get_root (new_row->row) == NULL)
    return G_SOURCE_REMOVE;
  if (!gtk_widget_get_mapped (new_row->row) || gtk_widget_get_height (scroller) == 0
      || !gtk_widget_compute_bounds (new_row->row, scroller, &bounds))
    return G_SOURCE_CONTINUE;
  if (new_row->mapped_at == 0)
    new_row->mapped_at = now;
  top = bounds.origin.y;
  past_foot = top + bounds.size.height - gtk_widget_get_height (scroller);
  if (top < 0 || past_foot > 0)
    gtk_adjustment_set_value (adjustment,
                              gtk_adjustment_get_value (adjustment) + MIN (top, MAX (past_foot, 0)));
  return now - new_row->mapped_at < SHOW_NEW_ROW_USEC ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
show_when_laid_out (FerryWindow *self, GtkListBoxRow *row)
{
  NewRow *new_row = g_new0 (NewRow, 1);

  new_row->row = g_object_ref (GTK_WIDGET (row));
  gtk_widget_add_tick_callback (GTK_WIDGET (self->content_scroller), bring_into_view, new_row,
                                new_row_free);
}

static void
on_queue_changed (GListModel *model, guint position, guint removed, guint added, FerryWindow *self)
{
  /* A transfer just queued (at the top of the list) shows: below the
   * drives and folders it may start past the window's foot, and whoever
   * dropped files on a drive would not see their copy start. */
  if (added > 0)
    show_when_laid_out (self, gtk_list_box_get_row_at_index (self->transfer_list, position));
  update_clear_finished (self);
  _ferry_window_update_page (self);
  _ferry_window_update_eject_offers (self);
}

/* The transfer list is the queue's model. Bound first, so that the rows
 * are there when the window hears of a change. */
void
_ferry_window_bind_queue (FerryWindow *self)
{
  gtk_list_box_bind_model (self->transfer_list, G_LIST_MODEL (self->queue), create_transfer_row,
                           self, NULL);
  g_signal_connect_object (self->queue, "items-changed", G_CALLBACK (on_queue_changed), self, 0);
  g_signal_connect_object (self->queue, "notify::busy", G_CALLBACK (on_queue_busy), self, 0);
  g_signal_connect_object (self->queue, "job-finished", G_CALLBACK (on_job_finished), self, 0);
  update_clear_finished (self);
  _ferry_window_update_eject_offers (self);
}
