/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Ferry window under Xvfb: what a person sees and can do. Drives are
 * made up (FerryTestMount) over scratch folders, so plugging, unplugging
 * and ejecting are under the test's control. */
#include "config.h"

#include <string.h>

#include "ferry-destination-row.h"
#include "ferry-drive-list.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-transfer-row.h"
#include "ferry-window.h"

typedef struct
{
  char *scratch;
  char *src;
  char *stick;
  FerryQueue *queue;
  FerryDriveList *drives;
  FerryWindow *window;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->scratch = ferry_test_scratch_new ("ui");
  f->src = g_build_filename (f->scratch, "src", NULL);
  f->stick = g_build_filename (f->scratch, "SANDISK", NULL);
  ferry_test_make_dirs (f->src);
  ferry_test_make_dirs (f->stick);
  f->queue = ferry_queue_new ();
  f->drives = ferry_drive_list_new (NULL);
  f->window = ferry_window_new (NULL, f->queue, f->drives);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 560, 640);
  gtk_window_present (GTK_WINDOW (f->window));
  ferry_test_ui_wait (200);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_queue_cancel_all (f->queue);
  gtk_window_destroy (GTK_WINDOW (f->window));
  ferry_test_ui_wait (100);
  g_clear_object (&f->queue);
  g_clear_object (&f->drives);
  ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->stick);
}

static void
save_screenshot (Fixture *f, const char *name)
{
  const char *dir = g_getenv ("FERRY_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  ferry_test_ui_screenshot (GTK_WIDGET (f->window), path);
}

static FerryTestMount *
plug_in (Fixture *f, const char *name)
{
  FerryTestMount *mount = ferry_test_mount_new (name, f->stick);

  ferry_drive_list_add_mount (f->drives, G_MOUNT (mount));
  ferry_test_ui_wait (100);
  return mount;
}

static FerryDestinationRow *
drive_row (Fixture *f, const char *name)
{
  g_autoptr (GList) rows
      = ferry_test_ui_find_all (GTK_WIDGET (f->window), FERRY_TYPE_DESTINATION_ROW);

  for (GList *l = rows; l != NULL; l = l->next)
    if (g_strcmp0 (ferry_destination_get_name (ferry_destination_row_get_destination (l->data)),
                   name)
        == 0)
      return l->data;
  return NULL;
}

static gboolean
label_shown (gpointer data)
{
  const char **args = data;
  return ferry_test_ui_find_label (GTK_WIDGET (args[0]), args[1]) != NULL;
}

static void
assert_label_soon (Fixture *f, const char *text)
{
  const void *args[] = { f->window, text };

  if (!ferry_test_ui_wait_until (label_shown, args, 20000))
    g_error ("the window never showed “%s”", text);
}

static GtkWindow *
wait_for_dialog (Fixture *f)
{
  for (guint i = 0; i < 500; i++)
    {
      GtkWindow *dialog = ferry_test_ui_find_dialog (GTK_WINDOW (f->window));
      if (dialog != NULL)
        {
          ferry_test_ui_wait (300); /* shown, laid out, mapped */
          return dialog;
        }
      ferry_test_ui_wait (20);
    }
  g_error ("no dialog was shown");
}

/* Clicks the dialog's button labelled @label, as a person would: the
 * dialog answers and closes. */
static void
click_response (GtkWindow *dialog, const char *label)
{
  g_autoptr (GList) buttons = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_BUTTON);

  for (GList *l = buttons; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_button_get_label (l->data), label) == 0)
      {
        /* The dialog is destroyed once it answered. */
        g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
        gtk_widget_activate (l->data);
        for (guint i = 0; i < 50 && dialog != NULL && gtk_widget_get_visible (GTK_WIDGET (dialog));
             i++)
          ferry_test_ui_wait (20);
        g_assert_true (dialog == NULL || !gtk_widget_get_visible (GTK_WIDGET (dialog)));
        if (dialog != NULL)
          g_object_remove_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
        return;
      }
  g_error ("no button “%s” in the dialog", label);
}

/* With no drive, no folder and no transfer, the window says what to do. */
static void
test_empty (Fixture *f, gconstpointer data)
{
  GtkWidget *status = ferry_test_ui_find (GTK_WIDGET (f->window), ADW_TYPE_STATUS_PAGE, NULL);

  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_mapped (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "Plug In a Drive");
  save_screenshot (f, "empty.png");
}

/* Drives appear and disappear as they are plugged in and pulled out. */
static void
test_drives_listed (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) first = plug_in (f, "SanDisk Cruzer");
  g_autoptr (FerryTestMount) second = plug_in (f, "SD Card");

  g_assert_nonnull (drive_row (f, "SanDisk Cruzer"));
  g_assert_nonnull (drive_row (f, "SD Card"));
  g_assert_false (gtk_widget_get_mapped (
      ferry_test_ui_find (GTK_WIDGET (f->window), ADW_TYPE_STATUS_PAGE, NULL)));

  ferry_drive_list_remove_mount (f->drives, G_MOUNT (first));
  ferry_test_ui_wait (100);
  g_assert_null (drive_row (f, "SanDisk Cruzer"));
  g_assert_nonnull (drive_row (f, "SD Card"));
}

static GSList *
files_in (const char *dir, ...)
{
  GSList *files = NULL;
  va_list args;

  va_start (args, dir);
  for (const char *name = va_arg (args, const char *); name != NULL;
       name = va_arg (args, const char *))
    files = g_slist_append (files, g_file_new_build_filename (dir, name, NULL));
  va_end (args);
  return files;
}

/* Files dropped on a drive are copied there; the row reaches "done", and
 * once the data is on the drive Ferry says so and offers to eject it. */
static void
test_drop_copies_and_offers_eject (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "SanDisk Cruzer");
  GSList *files;
  FerryTransferRow *row;

  ferry_test_write_random (ferry_test_path (f->src, "photo.jpg", NULL), 3 * 1024 * 1024, 1);
  ferry_test_make_dirs (ferry_test_path (f->src, "album", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "album", "one.jpg", NULL), 200000, 2);
  files = files_in (f->src, "photo.jpg", "album", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);

  assert_label_soon (f, "All data is on SanDisk Cruzer");
  ferry_test_ui_wait (500); /* the revealer's animation */
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_DONE);
  g_assert_true (g_str_has_prefix (ferry_transfer_row_get_status (row), "Done"));
  g_assert_cmpint (ferry_transfer_row_get_eject_state (row), ==, FERRY_EJECT_READY);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "photo.jpg", NULL),
                                 ferry_test_path (f->stick, "photo.jpg", NULL));
  ferry_test_assert_trees_equal (ferry_test_path (f->src, "album", NULL),
                                 ferry_test_path (f->stick, "album", NULL), FERRY_TEST_COMPARE_ALL);
  save_screenshot (f, "eject.png");

  /* Eject: then the drive may be pulled out. */
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.eject", NULL);
  assert_label_soon (f, "You can now unplug SanDisk Cruzer");
  g_assert_cmpuint (ferry_test_mount_get_n_ejects (mount), ==, 1);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (row), ==, FERRY_EJECT_DONE);
}

/* A drive that refuses to eject (busy): the person is told why, and can
 * try again. */
static void
test_eject_busy (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "Busy Stick");
  g_autoptr (GError) busy = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY, "Target is busy");
  GSList *files;
  FerryTransferRow *row;
  GtkWindow *dialog;

  ferry_test_write_random (ferry_test_path (f->src, "a.bin", NULL), 100000, 3);
  files = files_in (f->src, "a.bin", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f, "Busy Stick"), files));
  g_slist_free_full (files, g_object_unref);
  assert_label_soon (f, "All data is on Busy Stick");

  ferry_test_mount_set_eject_error (mount, busy);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.eject", NULL);
  ferry_test_ui_wait (300);
  dialog = ferry_test_ui_find_dialog (GTK_WINDOW (f->window));
  g_assert_nonnull (dialog);
  g_assert_true (ADW_IS_MESSAGE_DIALOG (dialog));
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "Could Not Eject Busy Stick");
  g_assert_cmpstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), ==, "Target is busy");
  g_assert_cmpint (ferry_transfer_row_get_eject_state (row), ==, FERRY_EJECT_READY);
  click_response (dialog, "_Close");
  g_assert_null (ferry_test_ui_find_dialog (GTK_WINDOW (f->window)));
}

/* Dropping on a drive pulled out meanwhile is refused, clearly. */
static void
test_drop_on_unplugged (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "Gone Stick");
  g_autoptr (FerryDestinationRow) row = g_object_ref (drive_row (f, "Gone Stick"));
  GSList *files;

  ferry_test_write_random (ferry_test_path (f->src, "a.bin", NULL), 1000, 4);
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
  files = files_in (f->src, "a.bin", NULL);
  g_assert_false (ferry_destination_row_drop_files (row, files));
  g_slist_free_full (files, g_object_unref);
  g_assert_null (ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_false (g_file_test (ferry_test_path (f->stick, "a.bin", NULL), G_FILE_TEST_EXISTS));
}

static FerryJob *
only_job (Fixture *f)
{
  FerryTransferRow *row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));

  g_assert_nonnull (row);
  return ferry_transfer_row_get_job (row);
}

static gboolean
job_ended (gpointer data)
{
  return ferry_job_get_phase (data) >= FERRY_PHASE_DONE;
}

/* A file already on the drive: the window asks, and the answer goes to
 * the copy waiting for it. "Keep Both" copies under a new name. */
static void
test_conflict_keep_both (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "SanDisk Cruzer");
  GSList *files;
  GtkWindow *dialog;

  ferry_test_write_text (ferry_test_path (f->src, "notes.txt", NULL), "new notes\n");
  ferry_test_write_text (ferry_test_path (f->stick, "notes.txt", NULL), "old notes\n");
  files = files_in (f->src, "notes.txt", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);

  dialog = wait_for_dialog (f);
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "Replace “notes.txt”?");
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (dialog), "Already There"));
  save_screenshot (f, "conflict.png");
  click_response (dialog, "_Keep Both");
  g_assert_true (ferry_test_ui_wait_until (job_ended, only_job (f), 10000));

  g_assert_cmpint (ferry_job_get_phase (only_job (f)), ==, FERRY_PHASE_DONE);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "notes.txt", NULL),
                                 ferry_test_path (f->stick, "notes (2).txt", NULL));
  {
    g_autofree char *old = NULL;
    g_assert_true (
        g_file_get_contents (ferry_test_path (f->stick, "notes.txt", NULL), &old, NULL, NULL));
    g_assert_cmpstr (old, ==, "old notes\n");
  }
}

/* "Apply to all": one question for several conflicts. */
static void
test_conflict_apply_to_all (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "SanDisk Cruzer");
  GSList *files;
  GtkWindow *dialog;
  GtkWidget *check;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.txt", i);
      ferry_test_write_text (ferry_test_path (f->src, name, NULL), "new\n");
      ferry_test_write_text (ferry_test_path (f->stick, name, NULL), "old\n");
    }
  files = files_in (f->src, "f0.txt", "f1.txt", "f2.txt", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);

  dialog = wait_for_dialog (f);
  check = ferry_test_ui_find (GTK_WIDGET (dialog), GTK_TYPE_CHECK_BUTTON, NULL);
  g_assert_nonnull (check);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  click_response (dialog, "_Replace");
  g_assert_true (ferry_test_ui_wait_until (job_ended, only_job (f), 10000));

  /* Asked once: no second question came. */
  ferry_test_ui_wait (300);
  g_assert_null (ferry_test_ui_find_dialog (GTK_WINDOW (f->window)));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.txt", i);
      g_autofree char *text = NULL;
      g_assert_true (
          g_file_get_contents (ferry_test_path (f->stick, name, NULL), &text, NULL, NULL));
      g_assert_cmpstr (text, ==, "new\n");
    }
}

/* Closing while copying asks first. */
static void
test_close_asks (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "SanDisk Cruzer");
  GSList *files;
  GtkWindow *dialog;

  ferry_test_write_random (ferry_test_path (f->src, "big.bin", NULL), 256 * 1024 * 1024, 9);
  files = files_in (f->src, "big.bin", NULL);
  g_assert_true (ferry_destination_row_drop_files (drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);
  ferry_job_pause (only_job (f));
  ferry_test_ui_wait (200);

  gtk_window_close (GTK_WINDOW (f->window));
  dialog = wait_for_dialog (f);
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "Stop Copying?");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window)));
  click_response (dialog, "_Keep Copying");
  ferry_test_ui_wait (100);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window)));
  ferry_job_resume (only_job (f));
}

int
main (int argc, char **argv)
{
  ferry_test_ui_init (&argc, &argv);
  ferry_engine_init ();

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/ui/empty", test_empty);
  ADD ("/ui/drives-listed", test_drives_listed);
  ADD ("/ui/drop-copies-and-offers-eject", test_drop_copies_and_offers_eject);
  ADD ("/ui/eject-busy", test_eject_busy);
  ADD ("/ui/drop-on-unplugged", test_drop_on_unplugged);
  ADD ("/ui/conflict/keep-both", test_conflict_keep_both);
  ADD ("/ui/conflict/apply-to-all", test_conflict_apply_to_all);
  ADD ("/ui/close-asks", test_close_asks);
#undef ADD
  return g_test_run ();
}
