/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-revealer.h"
#include "ferry-window-private.h"

/**
 * FerryWindow:
 * The drives and folders files can be dropped on, and the transfers under
 * way. Copying happens in the engine's worker threads; the window lists
 * the queue's jobs, each row following its job's notifications, answers
 * their questions in dialogs that never block anything, and offers to
 * eject a drive once everything written to it is really on it.
 *
 * Each concern has a file of its own: ferry-window-actions.c (win.*),
 * -drops.c (dropping, staging, starting copies), -add.c (Add Files…,
 * Add Folders… and Paste), -drives.c (the drive list, the drive
 * selected, ejecting), -folders.c (recent folders, choosing one),
 * -transfers.c (the queue's rows, retry, finished notices, suspend) and
 * -dialogs.c (errors, the closing question, what copies ask).
 */

G_DEFINE_FINAL_TYPE (FerryWindow, ferry_window, ADW_TYPE_APPLICATION_WINDOW)

/* The empty state says what to do when there is nowhere to drop yet. */
void
_ferry_window_update_page (FerryWindow *self)
{
  gboolean transfers = g_list_model_get_n_items (G_LIST_MODEL (self->queue)) > 0;
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->drives)) == 0
                   && self->folders->len == 0 && !transfers && self->staged == NULL;

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "content");
  gtk_widget_set_visible (self->transfers_group, transfers);
}

FerryWindow *
ferry_window_new (GtkApplication *application, FerryQueue *queue, FerryDriveList *drives)
{
  FerryWindow *self = g_object_new (FERRY_TYPE_WINDOW, "application", application, NULL);

  self->queue = g_object_ref (queue);
  self->drives = g_object_ref (drives);
  _ferry_window_bind_drives (self);
  _ferry_window_bind_queue (self);
  _ferry_window_bind_interrupted (self);
  _ferry_window_load_folders (self);
  return self;
}

FerryQueue *
ferry_window_get_queue (FerryWindow *self)
{
  g_return_val_if_fail (FERRY_IS_WINDOW (self), NULL);
  return self->queue;
}

/* Whether the window is going: "Stop and Close" was chosen, and it waits
 * hidden for its copies to clean up after themselves. */
gboolean
ferry_window_get_closing (FerryWindow *self)
{
  g_return_val_if_fail (FERRY_IS_WINDOW (self), FALSE);
  return self->closing;
}

static void
ferry_window_dispose (GObject *object)
{
  FerryWindow *self = FERRY_WINDOW (object);

  /* Nothing the queue or the drives say may reach a window going away. */
  if (self->queue != NULL)
    g_signal_handlers_disconnect_by_data (self->queue, self);
  if (self->drives != NULL)
    g_signal_handlers_disconnect_by_data (self->drives, self);
  g_list_free_full (g_steal_pointer (&self->staged), g_object_unref);
  g_clear_pointer (&self->conflicts, ferry_conflict_queue_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), FERRY_TYPE_WINDOW);
  g_clear_object (&self->queue);
  g_clear_object (&self->drives);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->folders, g_ptr_array_unref);
  g_clear_pointer (&self->interrupted_here, g_hash_table_unref);
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
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, content_scroller);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, staged_revealer);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, staged_label);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, drive_list);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, folder_list);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, choose_folder_row);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, clear_folders_button);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, transfers_group);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, clear_finished_button);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, transfer_list);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, interrupted_group);
  gtk_widget_class_bind_template_child (widget_class, FerryWindow, interrupted_list);
}

/* The window opens at the size it was left at: GTK keeps default-width
 * and default-height to the size the person gave it. */
static void
remember_size (FerryWindow *self)
{
  g_settings_bind (self->settings, "window-width", self, "default-width",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-height", self, "default-height",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-maximized", self, "maximized",
                   G_SETTINGS_BIND_DEFAULT);
}

static void
ferry_window_init (FerryWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  ferry_revealer_collapse_when_closed (self->staged_revealer);
  self->settings = g_settings_new (APPLICATION_ID);
  remember_size (self);
  self->folders = g_ptr_array_new_with_free_func (g_object_unref);
  self->conflicts = ferry_conflict_queue_new (GTK_WINDOW (self));
  g_signal_connect (self, "close-request", G_CALLBACK (_ferry_window_close_request), NULL);
  _ferry_window_actions_init (self);
  _ferry_window_folders_init (self);
  _ferry_window_drops_init (self);
}
