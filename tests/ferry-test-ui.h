/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-destination-row.h"
#include "ferry-drive-list.h"
#include "ferry-window.h"

G_BEGIN_DECLS

void ferry_test_ui_init (int *argc, char ***argv);
void ferry_test_ui_wait (guint ms);
gboolean ferry_test_ui_wait_until (gboolean (*condition) (gpointer data),
                                   gpointer data,
                                   guint timeout_ms);
void ferry_test_ui_screenshot (GtkWidget *widget, const char *path);
void ferry_test_ui_save_screenshot (GtkWidget *widget, const char *name);
GtkWidget *ferry_test_ui_find (GtkWidget *root, GType type, const char *name);
GtkWidget *ferry_test_ui_find_label (GtkWidget *root, const char *contains);
GList *ferry_test_ui_find_all (GtkWidget *root, GType type);
GtkWindow *ferry_test_ui_find_dialog (GtkWindow *parent);

typedef struct
{
  char *scratch;
  char *src;
  char *stick; /* the folder a made-up drive stands for */
  FerryQueue *queue;
  FerryDriveList *drives;
  FerryWindow *window;
} FerryTestWindow;

void ferry_test_window_set_up (FerryTestWindow *f,
                               const char *label,
                               const char *drive_folder,
                               int width,
                               int height);
void ferry_test_window_tear_down (FerryTestWindow *f);
FerryDestinationRow *ferry_test_window_drive_row (FerryTestWindow *f, const char *name);
GSList *ferry_test_ui_files_in (const char *dir, ...) G_GNUC_NULL_TERMINATED;
void ferry_test_ui_assert_label_soon (GtkWidget *root, const char *text);

#define FERRY_TYPE_TEST_MOUNT (ferry_test_mount_get_type ())
G_DECLARE_FINAL_TYPE (FerryTestMount, ferry_test_mount, FERRY, TEST_MOUNT, GObject)

FerryTestMount *ferry_test_mount_new (const char *name, const char *root_path);
void ferry_test_mount_set_eject_error (FerryTestMount *self, const GError *error);
guint ferry_test_mount_get_n_ejects (FerryTestMount *self);

FerryTestMount *ferry_test_window_plug_in (FerryTestWindow *f, const char *name);
char *ferry_test_ui_space_of (const char *folder);
char *ferry_test_ui_label_shown_text (GtkLabel *label);
FerryTestMount *ferry_test_ui_plug_in (FerryDriveList *drives, const char *name, const char *folder);

void ferry_test_ui_xdotool (const char *const *args);
gboolean ferry_test_ui_can_press_keys (void);
void ferry_test_ui_press_keys (GtkWindow *window, const char *keys);
GSubprocess *ferry_test_ui_spawn (const char *const *argv, char **line);
GtkWindow *ferry_test_ui_wait_for_dialog (GtkWindow *parent);
void ferry_test_ui_click_response (GtkWindow *dialog, const char *label);
GdkTexture *ferry_test_ui_render (GtkWidget *widget);
void ferry_test_ui_load_app_style (void);
void ferry_test_ui_screenshot_dialog (GtkWidget *window, GtkWidget *dialog, const char *path);

G_END_DECLS
