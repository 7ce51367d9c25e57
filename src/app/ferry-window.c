/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-conflict-dialog.h"
#include "ferry-destination-row.h"
#include "ferry-transfer-row.h"
#include "ferry-window.h"

#define PROGRESS_INTERVAL_MS 100 /* at most ten updates a second */
#define MAX_RECENT_FOLDERS   5

/**
 * FerryWindow:
 * The drives and folders files can be dropped on, and the transfers under
 * way. Copying happens in the engine's worker threads; the window reads
 * their progress ten times a second, answers their questions in dialogs
 * that never block anything, and offers to eject a drive once everything
 * written to it is really on it.
 */
struct _FerryWindow
{
  AdwApplicationWindow parent_instance;

  FerryQueue *queue;
  FerryDriveList *drives;
  GSettings *settings;
  GPtrArray *folders; /* FerryDestination, recent folders */
  GList *staged;      /* GFile: files waiting for a destination */
  guint progress_source;
  guint inhibit_cookie;
  gboolean closing;

  AdwToastOverlay *toasts;
  GtkStack *stack;
  GtkRevealer *staged_revealer;
  GtkLabel *staged_label;
  GtkListBox *drive_list;
  GtkListBox *folder_list;
  GtkWidget *choose_folder_row;
  GtkWidget *transfers_group;
  GtkListBox *transfer_list;
};

G_DEFINE_FINAL_TYPE (FerryWindow, ferry_window, ADW_TYPE_APPLICATION_WINDOW)

static void
toast (FerryWindow *self, const char *text)
{
  adw_toast_overlay_add_toast (self->toasts, adw_toast_new (text));
}

static void
show_error (FerryWindow *self, const char *heading, const char *body)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _ ("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ------------------------------------------------------------------ */
/* What the window shows                                               */

static GList *
transfer_rows (FerryWindow *self)
{
  GList *rows = NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->transfer_list));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (FERRY_IS_TRANSFER_ROW (child))
      rows = g_list_prepend (rows, child);
  return g_list_reverse (rows);
}

/* The empty state says what to do when there is nowhere to drop yet. */
static void
update_page (FerryWindow *self)
{
  g_autoptr (GList) transfers = transfer_rows (self);
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->drives)) == 0
                   && self->folders->len == 0 && transfers == NULL && self->staged == NULL;

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "content");
  gtk_widget_set_visible (self->transfers_group, transfers != NULL);
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

/* A drive can be ejected once nothing in the queue writes to it; until
 * then its rows say why not. */
static void
update_eject_offers (FerryWindow *self)
{
  g_autoptr (GList) rows = transfer_rows (self);

  for (GList *l = rows; l != NULL; l = l->next)
    {
      FerryTransferRow *row = l->data;
      FerryDestination *destination = ferry_transfer_row_get_destination (row);
      FerryEjectState state = ferry_transfer_row_get_eject_state (row);
      FerryPhase phase = ferry_job_get_phase (ferry_transfer_row_get_job (row));

      if (ferry_destination_get_kind (destination) != FERRY_DESTINATION_DRIVE
          || phase != FERRY_PHASE_DONE || state == FERRY_EJECT_EJECTING
          || state == FERRY_EJECT_DONE)
        continue;
      if (!ferry_destination_get_plugged (destination))
        state = FERRY_EJECT_GONE;
      else if (!ferry_destination_can_eject (destination))
        state = FERRY_EJECT_NONE;
      else if (ferry_queue_has_work_on (self->queue, ferry_destination_get_root (destination)))
        state = FERRY_EJECT_WAITING;
      else
        state = FERRY_EJECT_READY;
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
  g_autoptr (GList) rows = transfer_rows (self);

  for (GList *l = rows; l != NULL; l = l->next)
    if (ferry_transfer_row_get_destination (l->data) == destination
        && ferry_transfer_row_get_eject_state (l->data) != FERRY_EJECT_NONE)
      ferry_transfer_row_set_eject_state (l->data, state);
}

/* ------------------------------------------------------------------ */
/* Ejecting                                                            */

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
        show_error (self, heading, error->message);
      return;
    }
  set_rows_eject_state (self, destination, FERRY_EJECT_DONE);
  text = g_strdup_printf (_ ("You can now unplug %s"), ferry_destination_get_name (destination));
  toast (self, text);
}

static void
eject (FerryWindow *self, FerryDestination *destination)
{
  g_autoptr (GMountOperation) operation = gtk_mount_operation_new (GTK_WINDOW (self));

  if (ferry_queue_has_work_on (self->queue, ferry_destination_get_root (destination)))
    {
      g_autofree char *text
          = g_strdup_printf (_ ("%s cannot be ejected while files are being copied to it"),
                             ferry_destination_get_name (destination));
      toast (self, text);
      return;
    }
  set_rows_eject_state (self, destination, FERRY_EJECT_EJECTING);
  ferry_destination_eject_async (destination, operation, NULL, on_ejected, g_object_ref (self));
}

static void
on_drive_row_eject (FerryDestinationRow *row, FerryWindow *self)
{
  eject (self, ferry_destination_row_get_destination (row));
}

static void
on_transfer_row_eject (FerryTransferRow *row, FerryWindow *self)
{
  eject (self, ferry_transfer_row_get_destination (row));
}

/* ------------------------------------------------------------------ */
/* Progress                                                            */

static gboolean
on_progress_tick (gpointer user_data)
{
  FerryWindow *self = user_data;
  g_autoptr (GList) rows = transfer_rows (self);

  for (GList *l = rows; l != NULL; l = l->next)
    ferry_transfer_row_update (l->data);
  return G_SOURCE_CONTINUE;
}

/* While transfers run: progress ten times a second, and no suspend. */
static void
on_queue_busy (FerryQueue *queue, GParamSpec *pspec, FerryWindow *self)
{
  gboolean busy = ferry_queue_get_busy (queue);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (busy && self->progress_source == 0)
    self->progress_source = g_timeout_add (PROGRESS_INTERVAL_MS, on_progress_tick, self);
  else if (!busy)
    g_clear_handle_id (&self->progress_source, g_source_remove);

  if (busy && self->inhibit_cookie == 0 && app != NULL)
    self->inhibit_cookie = gtk_application_inhibit (
        app, GTK_WINDOW (self), GTK_APPLICATION_INHIBIT_SUSPEND, _ ("Files are being copied"));
  else if (!busy && self->inhibit_cookie != 0 && app != NULL)
    {
      gtk_application_uninhibit (app, self->inhibit_cookie);
      self->inhibit_cookie = 0;
    }
  update_eject_offers (self);
}

static FerryTransferRow *
find_transfer_row (FerryWindow *self, FerryJob *job)
{
  g_autoptr (GList) rows = transfer_rows (self);

  for (GList *l = rows; l != NULL; l = l->next)
    if (ferry_transfer_row_get_job (l->data) == job)
      return l->data;
  return NULL;
}

static void
notify_finished (FerryWindow *self, FerryTransferRow *row, const GError *error)
{
  GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  FerryDestination *destination = ferry_transfer_row_get_destination (row);
  g_autoptr (GNotification) notification = NULL;
  g_autofree char *body = NULL;

  if (app == NULL || gtk_window_is_active (GTK_WINDOW (self))
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  notification = g_notification_new (error ? _ ("Copy Failed") : _ ("Copy Finished"));
  body = error
             ? g_strdup (error->message)
             : g_strdup_printf (_ ("All data is on %s"), ferry_destination_get_name (destination));
  g_notification_set_body (notification, body);
  g_application_send_notification (app, NULL, notification);
}

static void
on_job_finished (FerryQueue *queue, FerryJob *job, GError *error, FerryWindow *self)
{
  FerryTransferRow *row = find_transfer_row (self, job);

  if (row == NULL)
    return;
  ferry_transfer_row_finished (row, error);
  notify_finished (self, row, error);
  update_eject_offers (self);
  if (self->closing && !ferry_queue_get_busy (self->queue))
    gtk_window_destroy (GTK_WINDOW (self));
}

/* ------------------------------------------------------------------ */
/* Conflicts                                                           */

static gboolean
on_conflict (FerryJob *job, FerryConflictRequest *request, FerryWindow *self)
{
  ferry_conflict_dialog_ask (GTK_WINDOW (self), request);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Starting transfers                                                  */

static FerryDestination *
destination_for (FerryWindow *self, GFile *file)
{
  FerryDestination *drive = ferry_drive_list_find (self->drives, file);

  if (drive != NULL)
    return g_object_ref (drive);
  return ferry_destination_new_for_folder (file);
}

static void
on_row_dismiss (FerryTransferRow *row, FerryWindow *self)
{
  ferry_queue_remove (self->queue, ferry_transfer_row_get_job (row));
  gtk_list_box_remove (self->transfer_list, GTK_WIDGET (row));
  update_page (self);
}

static void start_job (FerryWindow *self, FerryJob *job, FerryDestination *destination);

/* Retry: the files that failed, each again to where it was going. */
static void
on_row_retry (FerryTransferRow *row, FerryWindow *self)
{
  FerryJob *old = ferry_transfer_row_get_job (row);
  g_autoptr (GPtrArray) failures = ferry_job_dup_failures (old);
  g_autoptr (GHashTable) by_folder = g_hash_table_new_full (
      g_file_hash, (GEqualFunc) g_file_equal, g_object_unref, (GDestroyNotify) g_ptr_array_unref);
  GHashTableIter iter;
  gpointer folder, sources;

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

  g_hash_table_iter_init (&iter, by_folder);
  while (g_hash_table_iter_next (&iter, &folder, &sources))
    {
      GPtrArray *list = sources;
      g_autoptr (FerryJob) job = ferry_job_new ((GFile *const *) list->pdata, list->len, folder);

      start_job (self, job, ferry_transfer_row_get_destination (row));
    }
  on_row_dismiss (row, self);
}

/* Every job the window starts, a retry too: the person's settings, and
 * files already there (copied meanwhile, or the first time) are asked
 * about, never overwritten unasked. */
static void
apply_settings (FerryWindow *self, FerryJob *job)
{
  ferry_job_set_conflict_policy (job, FERRY_CONFLICT_POLICY_ASK);
  ferry_job_set_verify (job, g_settings_get_boolean (self->settings, "verify"));
  ferry_job_set_device_mode (job, g_settings_get_enum (self->settings, "device-mode"));
  ferry_job_set_n_workers (job, g_get_num_processors ());
}

static void
start_job (FerryWindow *self, FerryJob *job, FerryDestination *destination)
{
  FerryTransferRow *row;

  apply_settings (self, job);
  row = ferry_transfer_row_new (job, destination);

  g_signal_connect_object (job, "conflict", G_CALLBACK (on_conflict), self, 0);
  g_signal_connect (row, "dismiss", G_CALLBACK (on_row_dismiss), self);
  g_signal_connect (row, "retry", G_CALLBACK (on_row_retry), self);
  g_signal_connect (row, "eject", G_CALLBACK (on_transfer_row_eject), self);
  gtk_list_box_prepend (self->transfer_list, GTK_WIDGET (row));
  ferry_queue_add (self->queue, job);
  update_page (self);
  update_eject_offers (self);
}

/**
 * ferry_window_copy:
 * Queues a transfer of @sources into the folder @destination. A drive
 * that was unplugged is refused with a clear error.
 */
gboolean
ferry_window_copy (FerryWindow *self, GList *sources, GFile *destination, GError **error)
{
  g_autoptr (FerryDestination) where = destination_for (self, destination);
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  g_autoptr (FerryJob) job = NULL;

  g_return_val_if_fail (FERRY_IS_WINDOW (self), FALSE);
  if (!ferry_destination_get_plugged (where))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_MOUNTED,
                   _ ("%s is no longer plugged in; plug it in again to copy to it"),
                   ferry_destination_get_name (where));
      return FALSE;
    }
  for (GList *l = sources; l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);
  if (files->len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _ ("Nothing to copy"));
      return FALSE;
    }

  job = ferry_job_new ((GFile *const *) files->pdata, files->len, destination);
  start_job (self, job, where);
  return TRUE;
}

static gboolean
copy_to_destination (FerryWindow *self, FerryDestination *destination, GList *files)
{
  g_autoptr (GError) error = NULL;

  if (!ferry_destination_get_plugged (destination))
    {
      g_autofree char *text = g_strdup_printf (_ ("%s is no longer plugged in"),
                                               ferry_destination_get_name (destination));
      toast (self, text);
      return FALSE;
    }
  if (!ferry_window_copy (self, files, ferry_destination_get_root (destination), &error))
    {
      toast (self, error->message);
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
  return copy_to_destination (self, ferry_destination_row_get_destination (row), list);
}

/* ------------------------------------------------------------------ */
/* Files waiting for a destination ("Copy with Ferry…", Open With)     */

static void
unstage (FerryWindow *self)
{
  g_list_free_full (g_steal_pointer (&self->staged), g_object_unref);
  gtk_revealer_set_reveal_child (self->staged_revealer, FALSE);
  update_page (self);
}

static gpointer
copy_object (gconstpointer object, gpointer user_data)
{
  return g_object_ref ((gpointer) object);
}

void
ferry_window_stage (FerryWindow *self, GList *files)
{
  guint n = g_list_length (files);
  g_autofree char *text = NULL;

  g_return_if_fail (FERRY_IS_WINDOW (self));
  unstage (self);
  self->staged = g_list_copy_deep (files, copy_object, NULL);
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u item is ready to copy: choose a drive or a folder",
                                       "%u items are ready to copy: choose a drive or a folder", n),
                          n);
  gtk_label_set_label (self->staged_label, text);
  gtk_revealer_set_reveal_child (self->staged_revealer, TRUE);
  update_page (self);
}

static void
on_row_activated (GtkListBox *list, GtkListBoxRow *row, FerryWindow *self)
{
  if (!FERRY_IS_DESTINATION_ROW (row) || self->staged == NULL)
    return;
  if (copy_to_destination (
          self, ferry_destination_row_get_destination (FERRY_DESTINATION_ROW (row)), self->staged))
    unstage (self);
}

static void
unstage_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  unstage (FERRY_WINDOW (widget));
}

/* ------------------------------------------------------------------ */
/* Folders                                                             */

static GtkWidget *
create_destination_row (gpointer item, gpointer user_data)
{
  FerryWindow *self = user_data;
  GtkWidget *row = ferry_destination_row_new (item);

  g_signal_connect (row, "files-dropped", G_CALLBACK (on_files_dropped), self);
  g_signal_connect (row, "eject", G_CALLBACK (on_drive_row_eject), self);
  return row;
}

static void
load_folders (FerryWindow *self)
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
      gtk_list_box_append (self->folder_list, create_destination_row (destination, self));
    }
  update_page (self);
}

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
      if (self->staged != NULL)
        {
          g_autoptr (GError) error = NULL;
          if (ferry_window_copy (self, self->staged, folder, &error))
            unstage (self);
          else
            toast (self, error->message);
        }
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

static void
choose_folder_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  FerryWindow *self = FERRY_WINDOW (widget);
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
      _ ("Choose a Folder to Copy To"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
      _ ("_Select"), _ ("_Cancel"));

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_folder_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ------------------------------------------------------------------ */
/* Closing                                                             */

static void
on_close_response (AdwMessageDialog *dialog, const char *response, FerryWindow *self)
{
  if (g_strcmp0 (response, "stop") != 0)
    return;
  /* The window goes once every job has cleaned up after itself. */
  self->closing = TRUE;
  ferry_queue_cancel_all (self->queue);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  if (!ferry_queue_get_busy (self->queue))
    gtk_window_destroy (GTK_WINDOW (self));
}

static gboolean
on_close_request (GtkWindow *window, gpointer user_data)
{
  FerryWindow *self = FERRY_WINDOW (window);
  GtkWidget *dialog;

  if (self->closing || !ferry_queue_get_busy (self->queue))
    return FALSE;
  dialog = adw_message_dialog_new (window, _ ("Stop Copying?"),
                                   _ ("Files are still being copied. If you stop now, what is not "
                                      "copied yet will be missing at the destination."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _ ("_Keep Copying"),
                                    "stop", _ ("_Stop and Close"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "stop",
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_close_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* GObject                                                             */

static void
on_drives_changed (GListModel *model, guint position, guint removed, guint added, FerryWindow *self)
{
  update_page (self);
  update_eject_offers (self);
}

FerryWindow *
ferry_window_new (GtkApplication *application, FerryQueue *queue, FerryDriveList *drives)
{
  FerryWindow *self = g_object_new (FERRY_TYPE_WINDOW, "application", application, NULL);

  self->queue = g_object_ref (queue);
  self->drives = g_object_ref (drives);
  g_signal_connect_object (queue, "notify::busy", G_CALLBACK (on_queue_busy), self, 0);
  g_signal_connect_object (queue, "job-finished", G_CALLBACK (on_job_finished), self, 0);
  gtk_list_box_bind_model (self->drive_list, G_LIST_MODEL (drives), create_destination_row, self,
                           NULL);
  g_signal_connect_object (drives, "items-changed", G_CALLBACK (on_drives_changed), self, 0);
  load_folders (self);
  update_page (self);
  return self;
}

FerryQueue *
ferry_window_get_queue (FerryWindow *self)
{
  g_return_val_if_fail (FERRY_IS_WINDOW (self), NULL);
  return self->queue;
}

static void
ferry_window_dispose (GObject *object)
{
  FerryWindow *self = FERRY_WINDOW (object);

  g_clear_handle_id (&self->progress_source, g_source_remove);
  g_list_free_full (g_steal_pointer (&self->staged), g_object_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), FERRY_TYPE_WINDOW);
  g_clear_object (&self->queue);
  g_clear_object (&self->drives);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->folders, g_ptr_array_unref);
  G_OBJECT_CLASS (ferry_window_parent_class)->dispose (object);
}

static void
ferry_window_class_init (FerryWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ferry_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/ferrycopy/Ferry/ferry-window.ui");
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, toasts);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, staged_revealer);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, staged_label);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, drive_list);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, folder_list);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, choose_folder_row);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, transfers_group);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, transfer_list);

  gtk_widget_class_install_action (widget_class, "win.choose-folder", NULL, choose_folder_action);
  gtk_widget_class_install_action (widget_class, "win.unstage", NULL, unstage_action);
}

static void
ferry_window_init (FerryWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = g_settings_new (APPLICATION_ID);
  self->folders = g_ptr_array_new_with_free_func (g_object_unref);
  g_signal_connect_object (self->settings, "changed::recent-folders", G_CALLBACK (load_folders),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "close-request", G_CALLBACK (on_close_request), NULL);
  g_signal_connect (self->drive_list, "row-activated", G_CALLBACK (on_row_activated), self);
  g_signal_connect (self->folder_list, "row-activated", G_CALLBACK (on_row_activated), self);
}
