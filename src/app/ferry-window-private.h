/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-conflict-dialog.h"
#include "ferry-transfer-row.h"
#include "ferry-unsupported-dialog.h"
#include "ferry-window.h"

G_BEGIN_DECLS

/* The window's state, shared by the files that each handle one concern
 * of it (ferry-window-*.c). */
struct _FerryWindow
{
  AdwApplicationWindow parent_instance;

  FerryQueue *queue; /* the transfers, listed by transfer_list */
  FerryDriveList *drives;
  GSettings *settings;
  FerryConflictQueue *conflicts;
  GPtrArray *folders; /* FerryDestination, recent folders */
  GList *staged;      /* GFile: files waiting for a destination */
  guint inhibit_cookie;
  gboolean closing;

  AdwToastOverlay *toasts;
  GtkStack *stack;
  GtkScrolledWindow *content_scroller;
  GtkRevealer *staged_revealer;
  GtkLabel *staged_label;
  GtkListBox *drive_list;
  GtkListBox *folder_list;
  GtkWidget *choose_folder_row;
  GtkWidget *clear_folders_button;
  GtkWidget *transfers_group;
  GtkWidget *clear_finished_button;
  GtkListBox *transfer_list;
  GtkWidget *interrupted_group;
  GtkListBox *interrupted_list;
  GHashTable *interrupted_here; /* ids of transfers this window saw cut short */
};

/* ferry-window.c */
void _ferry_window_update_page (FerryWindow *self);

/* ferry-window-actions.c */
void _ferry_window_actions_init (FerryWindow *self);
void _ferry_window_enable_action (FerryWindow *self, const char *name, gboolean enabled);

/* ferry-window-add.c */
void _ferry_window_add_files (FerryWindow *self);
void _ferry_window_add_folders (FerryWindow *self);
void _ferry_window_paste (FerryWindow *self);

/* ferry-window-dialogs.c */
void _ferry_window_toast (FerryWindow *self, const char *text);
void _ferry_window_show_error (FerryWindow *self, const char *heading, const char *body);
gboolean _ferry_window_close_request (GtkWindow *window);
void _ferry_window_close_if_stopped (FerryWindow *self);
void _ferry_window_ask_questions_of (FerryWindow *self, FerryJob *job);

/* ferry-window-drives.c */
void _ferry_window_bind_drives (FerryWindow *self);
FerryDestination *_ferry_window_destination_for (FerryWindow *self, GFile *file);
void _ferry_window_update_eject_offers (FerryWindow *self);
void _ferry_window_eject (FerryWindow *self, FerryDestination *destination);
FerryDestination *_ferry_window_get_selected_drive (FerryWindow *self);
void _ferry_window_refresh_drives_space (FerryWindow *self);

/* ferry-window-drops.c */
void _ferry_window_drops_init (FerryWindow *self);
GtkWidget *_ferry_window_create_destination_row (gpointer item, gpointer user_data);
void _ferry_window_unstage (FerryWindow *self);
void _ferry_window_copy_staged (FerryWindow *self, GFile *folder);
gboolean _ferry_window_copy_to (FerryWindow *self, FerryDestination *destination, GList *files);

/* ferry-window-folders.c */
void _ferry_window_folders_init (FerryWindow *self);
void _ferry_window_load_folders (FerryWindow *self);
void _ferry_window_choose_folder (FerryWindow *self);
void _ferry_window_clear_recent_folders (FerryWindow *self);

/* ferry-window-interrupted.c */
void _ferry_window_bind_interrupted (FerryWindow *self);
void _ferry_window_load_interrupted (FerryWindow *self);

/* ferry-window-transfers.c */
void _ferry_window_bind_queue (FerryWindow *self);
FerryTransferRow *_ferry_window_get_transfer_row (FerryWindow *self, guint position);
FerryTransferRow *_ferry_window_find_transfer_row (FerryWindow *self, FerryJob *job);
void _ferry_window_start_job (FerryWindow *self, FerryJob *job);
void _ferry_window_clear_finished (FerryWindow *self);

G_END_DECLS
