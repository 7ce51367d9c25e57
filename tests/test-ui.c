/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Ferry window under Xvfb: what a person sees and can do. Drives are
 * made up (FerryTestMount) over scratch folders, so plugging, unplugging
 * and ejecting are under the test's control. */
#include "config.h"

#include <string.h>

#include <gdk/x11/gdkx.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-destination-row.h"
#include "ferry-drive-list.h"
#include "ferry-test-stick.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-transfer-row.h"
#include "ferry-unsupported-dialog.h"
#include "ferry-unsupported-private.h"
#include "ferry-window.h"

typedef FerryTestWindow Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (f, "ui", "SANDISK", 660, 660);
}

/* A phone-sized window: what it asks must fit it. */
static void
fixture_set_up_narrow (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (f, "ui", "SANDISK", 360, 640);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_test_window_tear_down (f);
}

static void
save_screenshot (Fixture *f, const char *name)
{
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->window), name);
}

static GtkWindow *
wait_for_dialog (Fixture *f)
{
  return ferry_test_ui_wait_for_dialog (GTK_WINDOW (f->window));
}

static void
click_response (GtkWindow *dialog, const char *label)
{
  ferry_test_ui_click_response (dialog, label);
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

/* How far below the top of its box @widget is laid out. */
static double
y_in_parent (GtkWidget *widget)
{
  graphene_point_t point;

  g_assert_true (gtk_widget_compute_point (widget, gtk_widget_get_parent (widget),
                                           &GRAPHENE_POINT_INIT (0, 0), &point));
  return point.y;
}

/* A closed revealer takes no room: the files waiting for a drive, when
 * there are none, left the box's 24 px of spacing above "Drives" (48 px
 * under the header bar where the layout has 24), as a transfer's closed
 * eject and error parts did under its count. */
static void
test_closed_revealers_take_no_room (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  GtkWidget *staged = ferry_test_ui_find (GTK_WIDGET (f->window), GTK_TYPE_REVEALER, NULL);
  GtkWidget *below;

  g_assert_nonnull (staged);
  ferry_test_ui_wait (300);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (staged)));
  below = gtk_widget_get_next_sibling (staged);
  g_assert_cmpfloat (y_in_parent (below), ==, 0);
}

/* Drives appear and disappear as they are plugged in and pulled out. */
static void
test_drives_listed (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) first = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  g_autoptr (FerryTestMount) second = ferry_test_window_plug_in (f, "SD Card");

  g_assert_nonnull (ferry_test_window_drive_row (f, "SanDisk Cruzer"));
  g_assert_nonnull (ferry_test_window_drive_row (f, "SD Card"));
  g_assert_false (gtk_widget_get_mapped (
      ferry_test_ui_find (GTK_WIDGET (f->window), ADW_TYPE_STATUS_PAGE, NULL)));

  ferry_drive_list_remove_mount (f->drives, G_MOUNT (first));
  ferry_test_ui_wait (100);
  g_assert_null (ferry_test_window_drive_row (f, "SanDisk Cruzer"));
  g_assert_nonnull (ferry_test_window_drive_row (f, "SD Card"));
}

/* Files dropped on a drive are copied there; the row reaches "done", and
 * once the data is on the drive Ferry says so and offers to eject it. */
static void
test_drop_copies_and_offers_eject (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  GSList *files;
  FerryTransferRow *row;

  ferry_test_write_random (ferry_test_path (f->src, "photo.jpg", NULL), 3 * 1024 * 1024, 1);
  ferry_test_make_dirs (ferry_test_path (f->src, "album", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "album", "one.jpg", NULL), 200000, 2);
  files = ferry_test_ui_files_in (f->src, "photo.jpg", "album", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);

  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on SanDisk Cruzer");
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
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "You can now unplug SanDisk Cruzer");
  g_assert_cmpuint (ferry_test_mount_get_n_ejects (mount), ==, 1);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (row), ==, FERRY_EJECT_DONE);
}

static gboolean
row_done (gpointer data)
{
  return g_str_has_prefix (ferry_transfer_row_get_status (data), "Done");
}

/* Drops @name (in src/) on the drive and returns its row once done. */
static FerryTransferRow *
drop_and_finish (Fixture *f, const char *drive, const char *name)
{
  GSList *files = ferry_test_ui_files_in (f->src, name, NULL);
  FerryTransferRow *row;

  g_assert_true (ferry_destination_row_drop_files (ferry_test_window_drive_row (f, drive), files));
  g_slist_free_full (files, g_object_unref);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_true (ferry_test_ui_wait_until (row_done, row, 20000));
  ferry_test_ui_wait (300);
  return row;
}

/* Several transfers done to one drive offer to eject it once, on the
 * newest: each had said "All data is on …" with its own Eject button.
 * Dismissed, the newest passes the offer on to the one before. */
static void
test_eject_offered_once (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  FerryTransferRow *first, *second;

  ferry_test_write_text (ferry_test_path (f->src, "one.txt", NULL), "one\n");
  ferry_test_write_text (ferry_test_path (f->src, "two.txt", NULL), "two\n");
  first = drop_and_finish (f, "SanDisk Cruzer", "one.txt");
  g_assert_cmpint (ferry_transfer_row_get_eject_state (first), ==, FERRY_EJECT_READY);
  second = drop_and_finish (f, "SanDisk Cruzer", "two.txt");
  g_assert_true (second != first);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (second), ==, FERRY_EJECT_READY);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (first), ==, FERRY_EJECT_NONE);

  gtk_widget_activate_action (GTK_WIDGET (second), "transfer.dismiss", NULL);
  ferry_test_ui_wait (300);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (first), ==, FERRY_EJECT_READY);
}

/* A transfer into a folder on a drive is titled with that folder, as the
 * drive list names it: "photos" to the drive and to a folder on it had
 * read alike. */
static void
test_title_names_folder_on_drive (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  g_autoptr (GFile) source = g_file_new_build_filename (f->src, "photos", NULL);
  g_autoptr (GFile) folder = g_file_new_build_filename (f->stick, "Trips", "2026", NULL);
  g_autoptr (FerryJob) job = NULL;
  FerryTransferRow *row;
  GtkWidget *title;

  ferry_test_make_dirs (g_file_peek_path (source));
  ferry_test_make_dirs (g_file_peek_path (folder));
  job = ferry_job_new (&source, 1, folder);
  ferry_job_pause (job);
  ferry_queue_add (f->queue, job);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_nonnull (row);
  title = ferry_test_ui_find_label (GTK_WIDGET (row), "“photos” to ");
  g_assert_nonnull (title);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (title)), ==,
                   "“photos” to SanDisk Cruzer › Trips/2026");
  ferry_queue_remove (f->queue, job);
}

/* The title of a paused transfer of @name to CRUZER, as a 400 px wide
 * window shows it. */
static char *
narrow_title_shown (Fixture *f, const char *name)
{
  g_autoptr (GFile) source = g_file_new_build_filename (f->src, name, NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (f->stick);
  g_autoptr (FerryJob) job = ferry_job_new (&source, 1, folder);
  g_autofree char *shown = NULL;
  GtkWidget *row;
  GtkWidget *title;

  ferry_test_write_text (g_file_peek_path (source), "video");
  gtk_window_set_default_size (GTK_WINDOW (f->window), 400, 660);
  ferry_job_pause (job);
  ferry_queue_add (f->queue, job);
  ferry_test_ui_wait (500);
  row = ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL);
  title = ferry_test_ui_find_label (row, " to CRUZER");
  g_assert_nonnull (title);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window)), <=, 400);
  shown = ferry_test_ui_label_shown_text (GTK_LABEL (title));
  save_screenshot (f, strlen (name) > 40 ? "title-narrow-long.png" : "title-narrow.png");
  ferry_queue_remove (f->queue, job);
  return g_steal_pointer (&shown);
}

/* In a narrow window a transfer's title says what goes where: a short
 * name whole (the title wraps), a long one cut short in its middle, on
 * its third line, with "” to CRUZER" whole after it (before, the title
 * was one line cut short in its middle: "“big-video.mp4” to CRUZER" read
 * "“big-vid…  CRUZER"). */
static void
test_title_narrow (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "CRUZER");
  const char *long_name = "Holiday video from the summer of 2026 at the lake, the whole "
                          "afternoon, uncut.mp4";
  g_autofree char *short_shown = narrow_title_shown (f, "big-video.mp4");
  g_autofree char *long_shown = narrow_title_shown (f, long_name);

  g_assert_cmpstr (short_shown, ==, "“big-video.mp4” to CRUZER");
  g_assert_true (g_str_has_prefix (long_shown, "“Holiday video"));
  g_assert_true (g_str_has_suffix (long_shown, "” to CRUZER"));
  g_assert_nonnull (strstr (long_shown, "…"));
}

static GtkWidget *
find_eject_when_done (FerryTransferRow *row)
{
  g_autoptr (GList) toggles = ferry_test_ui_find_all (GTK_WIDGET (row), GTK_TYPE_TOGGLE_BUTTON);

  g_assert_cmpuint (g_list_length (toggles), ==, 1);
  return toggles->data;
}

/* Eject When Done chosen shows in the accent colour and says the drive
 * will be ejected: on, the flat toggle had looked as if pointed at. */
static void
test_eject_when_done_shows (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  g_autoptr (GFile) source = g_file_new_build_filename (f->src, "film.mkv", NULL);
  g_autoptr (GFile) stick = g_file_new_for_path (f->stick);
  g_autoptr (FerryJob) job = NULL;
  FerryTransferRow *row;
  GtkWidget *toggle;

  ferry_test_write_random (g_file_peek_path (source), 1024 * 1024, 5);
  job = ferry_job_new (&source, 1, stick);
  ferry_job_pause (job);
  ferry_queue_add (f->queue, job);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  toggle = find_eject_when_done (row);
  g_assert_true (gtk_widget_get_visible (toggle));
  g_assert_false (gtk_widget_has_css_class (toggle, "accent"));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (toggle), ==, "Eject When Done");

  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), TRUE);
  g_assert_true (gtk_widget_has_css_class (toggle, "accent"));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (toggle), ==,
                   "SanDisk Cruzer will be ejected when done");
  save_screenshot (f, "eject-when-done");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), FALSE);
  g_assert_false (gtk_widget_has_css_class (toggle, "accent"));
  ferry_queue_remove (f->queue, job);
}

static gboolean
window_active (gpointer data)
{
  return gtk_window_is_active (data);
}

/* Files deleted on a drive outside Ferry (in a file manager): back in
 * Ferry's window, the drive's free space is read again. It stayed as
 * it was when the drive was plugged in. */
static void
test_free_space_read_when_active (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  FerryDestinationRow *row = ferry_test_window_drive_row (f, "SanDisk Cruzer");
  FerryDestination *drive = ferry_destination_row_get_destination (row);
  g_autofree char *big = g_build_filename (f->stick, "big.bin", NULL);
  guint64 before;
  int fd;

  ferry_test_ui_wait (300);
  before = ferry_destination_get_free (drive);
  fd = open (big, O_WRONLY | O_CREAT | O_EXCL, 0644);
  g_assert_cmpint (fd, >=, 0);
  /* Far more than other tests beside this one free or take meanwhile. */
  g_assert_cmpint (posix_fallocate (fd, 0, (off_t) 4 << 30), ==, 0);
  close (fd);
  if (!ferry_test_ui_can_press_keys ())
    {
      g_test_skip ("no X display to give the window the focus");
      return;
    }
  /* The window gets the focus, as when a person comes back to it (no
   * window manager here to take it away first: the change is told as
   * GTK tells it). */
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "shift");
  g_assert_true (ferry_test_ui_wait_until (window_active, f->window, 5000));
  g_object_notify (G_OBJECT (f->window), "is-active");
  ferry_test_ui_wait (500);
  g_assert_cmpuint (ferry_destination_get_free (drive), <, before - ((guint64) 2 << 30));
  g_assert_cmpint (unlink (big), ==, 0);
}

/* A drive that refuses to eject (busy): the person is told why, and can
 * try again. */
static void
test_eject_busy (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "Busy Stick");
  g_autoptr (GError) busy = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY, "Target is busy");
  GSList *files;
  FerryTransferRow *row;
  GtkWindow *dialog;

  ferry_test_write_random (ferry_test_path (f->src, "a.bin", NULL), 100000, 3);
  files = ferry_test_ui_files_in (f->src, "a.bin", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "Busy Stick"), files));
  g_slist_free_full (files, g_object_unref);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on Busy Stick");

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
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "Gone Stick");
  g_autoptr (FerryDestinationRow) row
      = g_object_ref (ferry_test_window_drive_row (f, "Gone Stick"));
  GSList *files;

  ferry_test_write_random (ferry_test_path (f->src, "a.bin", NULL), 1000, 4);
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
  files = ferry_test_ui_files_in (f->src, "a.bin", NULL);
  g_assert_false (ferry_destination_row_drop_files (row, files));
  g_slist_free_full (files, g_object_unref);
  g_assert_null (ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_false (g_file_test (ferry_test_path (f->stick, "a.bin", NULL), G_FILE_TEST_EXISTS));
}

/* A copy asked for from outside (Nautilus' D-Bus call, `ferry
 * --destination`) into what is not a folder is refused, clearly, with
 * nothing written: a free name became a file of that name before. */
static void
test_copy_into_non_folder (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) missing = g_file_new_build_filename (f->scratch, "NOPE", NULL);
  g_autoptr (GFile) file = g_file_new_build_filename (f->scratch, "list.txt", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  GSList *files;
  GList *sources = NULL;

  ferry_test_write_text (ferry_test_path (f->src, "song.ogg", NULL), "la la la\n");
  ferry_test_write_text (g_file_peek_path (file), "milk\n");
  files = ferry_test_ui_files_in (f->src, "song.ogg", NULL);
  for (GSList *l = files; l != NULL; l = l->next)
    sources = g_list_append (sources, l->data);

  g_assert_false (ferry_window_copy (f->window, sources, missing, &error));
  g_assert_nonnull (strstr (error->message, "NOPE” does not exist"));
  g_clear_error (&error);
  g_assert_false (ferry_window_copy (f->window, sources, file, &error));
  g_assert_nonnull (strstr (error->message, "list.txt” is not a folder"));

  ferry_test_ui_wait (500);
  g_assert_null (ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_false (g_file_query_exists (missing, NULL));
  g_assert_true (g_file_get_contents (g_file_peek_path (file), &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "milk\n");
  g_list_free (sources);
  g_slist_free_full (files, g_object_unref);
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
 * the copy waiting for it. "Rename", with the name it offers, keeps both:
 * the copy goes under a new name. */
static void
test_conflict_keep_both (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  GSList *files;
  GtkWindow *dialog;

  ferry_test_write_text (ferry_test_path (f->src, "notes.txt", NULL), "new notes\n");
  ferry_test_write_text (ferry_test_path (f->stick, "notes.txt", NULL), "old notes\n");
  files = ferry_test_ui_files_in (f->src, "notes.txt", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);

  dialog = wait_for_dialog (f);
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "Replace “notes.txt”?");
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (dialog), "Already There"));
  save_screenshot (f, "conflict.png");
  click_response (dialog, "_Rename");
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
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  GSList *files;
  GtkWindow *dialog;
  GtkWidget *check;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.txt", i);
      ferry_test_write_text (ferry_test_path (f->src, name, NULL), "new\n");
      ferry_test_write_text (ferry_test_path (f->stick, name, NULL), "old\n");
    }
  files = ferry_test_ui_files_in (f->src, "f0.txt", "f1.txt", "f2.txt", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
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

/* An emulated USB stick (FUSE throttle, loop device, ext4) mounted in
 * the scratch folder, or NULL after g_test_skip(). */
static FerryTestStick *
new_stick_or_skip (Fixture *f, const char *label, guint64 rate)
{
  g_autofree char *workdir = g_build_filename (f->scratch, "stick-work", NULL);
  g_autofree char *mountpoint = g_build_filename (f->scratch, label, NULL);

  return ferry_test_stick_new_or_skip (workdir, mountpoint, label, 96 * 1024 * 1024, rate);
}

/* A stick the test made, shown as the drive @name. */
static FerryTestMount *
plug_in_stick (Fixture *f, const char *name, FerryTestStick *stick)
{
  return ferry_test_ui_plug_in (f->drives, name, ferry_test_stick_get_mountpoint (stick));
}

static GtkProgressBar *
durable_bar (FerryTransferRow *row)
{
  g_autoptr (GList) bars = ferry_test_ui_find_all (GTK_WIDGET (row), GTK_TYPE_PROGRESS_BAR);

  for (GList *l = bars; l != NULL; l = l->next)
    if (gtk_widget_has_css_class (l->data, "durable"))
      return l->data;
  g_error ("the transfer row has no bar of durable bytes");
}

static gboolean
writing_to_device (gpointer data)
{
  return g_str_has_prefix (ferry_transfer_row_get_status (data), "Writing to SanDisk Cruzer:");
}

/* While the window shows a copy to a slow drive, its bar is never ahead of
 * what the device completed (counted by the emulator's block device). */
static void
assert_bar_behind_device (FerryTransferRow *row, FerryTestStick *stick, guint64 sectors_before)
{
  g_auto (FerryProgress) p = { 0 };
  guint64 completed = (ferry_test_stick_get_sectors_written (stick) - sectors_before) * 512;
  double shown;

  ferry_job_get_progress (ferry_transfer_row_get_job (row), &p);
  shown = gtk_progress_bar_get_fraction (durable_bar (row)) * (double) p.bytes_total;
  if (shown > (double) completed + 1024 * 1024)
    g_error ("the bar shows %.0f bytes on the drive, the drive completed %" G_GUINT64_FORMAT, shown,
             completed);
}

/* Drops @files (taken) on "SanDisk Cruzer", a slow drive: the row of
 * their transfer, once it writes to the drive. */
static FerryTransferRow *
drop_on_slow_cruzer (Fixture *f, GSList *files)
{
  FerryTransferRow *row;

  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_true (ferry_test_ui_wait_until (writing_to_device, row, 20000));
  return row;
}

/* A drive that writes at 6 MB/s: the copy is found slow by measuring, the
 * row says it is writing to the drive, and the bar follows the drive. */
static void
test_slow_drive_progress (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip (f, "CRUZER", 6 * 1024 * 1024);
  g_autoptr (FerryTestMount) mount = NULL;
  FerryTransferRow *row;
  GSList *files;
  guint64 sectors_before;
  gboolean shot = FALSE;

  if (stick == NULL)
    return;
  mount = plug_in_stick (f, "SanDisk Cruzer", stick);
  ferry_test_write_random (ferry_test_path (f->src, "Holiday video.mp4", NULL), 40 * 1024 * 1024,
                           11);
  ferry_test_make_dirs (ferry_test_path (f->src, "Photos", NULL));
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *name = g_strdup_printf ("IMG_%04u.jpg", 2301 + i);
      ferry_test_write_random (ferry_test_path (f->src, "Photos", name, NULL), 300000, 20 + i);
    }

  sectors_before = ferry_test_stick_get_sectors_written (stick);
  files = ferry_test_ui_files_in (f->src, "Holiday video.mp4", "Photos", NULL);
  row = drop_on_slow_cruzer (f, files);

  while (ferry_job_get_phase (ferry_transfer_row_get_job (row)) < FERRY_PHASE_DONE)
    {
      assert_bar_behind_device (row, stick, sectors_before);
      /* Far in, with the rate and time left shown under the bar. */
      if (!shot && gtk_progress_bar_get_fraction (durable_bar (row)) > 0.35
          && strstr (ferry_transfer_row_get_count (row), "/s") != NULL)
        {
          save_screenshot (f, "copying.png");
          shot = TRUE;
        }
      ferry_test_ui_wait (100);
    }
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_DONE);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on SanDisk Cruzer");
  ferry_test_assert_trees_equal (
      ferry_test_path (f->src, "Photos", NULL),
      ferry_test_path (ferry_test_stick_get_mountpoint (stick), "Photos", NULL),
      FERRY_TEST_COMPARE_ALL);
  ferry_test_assert_files_equal (
      ferry_test_path (f->src, "Holiday video.mp4", NULL),
      ferry_test_path (ferry_test_stick_get_mountpoint (stick), "Holiday video.mp4", NULL));
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
}

static gboolean
rate_shown (gpointer data)
{
  return strstr (ferry_transfer_row_get_count (data), "/s") != NULL;
}

/* What the row says under its bar, every quarter of a second for @ms,
 * each change once. */
static GPtrArray *
watch_count (FerryTransferRow *row, guint ms)
{
  GPtrArray *seen = g_ptr_array_new_with_free_func (g_free);

  for (guint waited = 0; waited < ms; waited += 250)
    {
      const char *count = ferry_transfer_row_get_count (row);

      if (seen->len == 0 || g_strcmp0 (g_ptr_array_index (seen, seen->len - 1), count) != 0)
        g_ptr_array_add (seen, g_strdup (count));
      ferry_test_ui_wait (250);
    }
  return seen;
}

/* A drive that stops taking data mid-copy: the row's rate and time left
 * change as it waits, and it says it waits for the drive; it had stayed
 * at "11.4 MB/s · 4 seconds left" for as long as the drive stalled, for
 * nothing moved to make it redraw. */
static void
test_stalled_drive (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip (f, "CRUZER", 6 * 1024 * 1024);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GPtrArray) seen = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *seen_all = NULL;
  FerryTransferRow *row;
  GSList *files;
  guint n_seen;

  if (stick == NULL)
    return;
  mount = plug_in_stick (f, "SanDisk Cruzer", stick);
  ferry_test_write_random (ferry_test_path (f->src, "Holiday video.mp4", NULL), 60 * 1024 * 1024,
                           11);
  files = ferry_test_ui_files_in (f->src, "Holiday video.mp4", NULL);
  row = drop_on_slow_cruzer (f, files);
  g_assert_true (ferry_test_ui_wait_until (rate_shown, row, 20000));

  /* A byte a second: nothing reaches the drive. */
  g_assert_true (ferry_test_stick_set_rate (stick, 1, &error));
  g_assert_no_error (error);
  seen = watch_count (row, 6000);
  save_screenshot (f, "stalled.png");
  /* The drive takes data again before any assertion, or a failure
   * waits for it. */
  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  g_assert_no_error (error);
  n_seen = seen->len;
  g_ptr_array_add (seen, NULL);
  seen_all = g_strjoinv ("\n  ", (char **) seen->pdata);
  if (n_seen < 4 || !g_str_has_suffix (g_ptr_array_index (seen, n_seen - 1),
                                       " · waiting for SanDisk Cruzer"))
    g_error ("while the drive took nothing, the row said:\n  %s", seen_all);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on SanDisk Cruzer");
  ferry_test_assert_files_equal (
      ferry_test_path (f->src, "Holiday video.mp4", NULL),
      ferry_test_path (ferry_test_stick_get_mountpoint (stick), "Holiday video.mp4", NULL));
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
}

static gboolean
job_of_row_ended (gpointer data)
{
  return job_ended (ferry_transfer_row_get_job (data));
}

/* Files on a dying stick: each file that cannot be read is listed with
 * its reason; the rest is copied. Retry copies what failed once the stick
 * reads again. */
static void
test_error_list_and_retry (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip (f, "OLDSTICK", 0);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *broken = NULL;
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (GList) rows = NULL;
  FerryTransferRow *row;
  GSList *files;
  struct stat st;

  if (stick == NULL)
    return;
  mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  broken = g_build_filename (ferry_test_stick_get_mountpoint (stick), "wedding.mov", NULL);
  ferry_test_write_random (broken, 2 * 1024 * 1024, 12);
  ferry_test_write_text (ferry_test_path (f->src, "guests.txt", NULL), "Ana\nBruno\n");
  /* Only the data is unreadable: its name and size are known already. */
  g_assert_true (ferry_test_stick_remount (stick, &error));
  g_assert_no_error (error);
  g_assert_cmpint (lstat (broken, &st), ==, 0);
  g_assert_true (ferry_test_stick_set_fail_reads (stick, TRUE, &error));
  g_assert_no_error (error);

  files = ferry_test_ui_files_in (f->src, "guests.txt", NULL);
  files = g_slist_append (files, g_file_new_for_path (broken));
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);
  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_true (ferry_test_ui_wait_until (job_of_row_ended, row, 20000));
  ferry_test_ui_wait (400); /* the list is revealed */

  g_assert_cmpstr (ferry_transfer_row_get_status (row), ==, "1 item could not be copied");
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "wedding.mov"));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), broken)); /* in the reason */
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "Input/output error"));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "1 of 2 items"));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "guests.txt", NULL),
                                 ferry_test_path (f->stick, "guests.txt", NULL));
  /* Nothing half-written under the final name, no temporary file. */
  g_assert_cmpuint (ferry_test_count_entries (f->stick), ==, 1);
  save_screenshot (f, "errors.png");

  g_assert_true (ferry_test_stick_set_fail_reads (stick, FALSE, &error));
  g_assert_no_error (error);
  /* A retry copies as the settings say now, like any transfer. */
  g_settings_set_boolean (settings, "verify", TRUE);
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.retry", NULL);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on SanDisk Cruzer");
  g_settings_reset (settings, "verify");
  ferry_test_assert_files_equal (broken, ferry_test_path (f->stick, "wedding.mov", NULL));
  /* The retry replaced the failed transfer's row. */
  rows = ferry_test_ui_find_all (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW);
  g_assert_cmpuint (g_list_length (rows), ==, 1);
  g_assert_true (ferry_job_get_verify (ferry_transfer_row_get_job (rows->data)));
}

static gboolean
job_writing (gpointer data)
{
  g_auto (FerryProgress) p = { 0 };

  ferry_job_get_progress (data, &p);
  return p.phase == FERRY_PHASE_COPYING && p.bytes_written >= 2 * 1024 * 1024;
}

static FerryTransferRow *
only_row (Fixture *f)
{
  g_autoptr (GList) rows = ferry_test_ui_find_all (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW);

  g_assert_cmpuint (g_list_length (rows), ==, 1);
  return rows->data;
}

/* Issue 14: a stick pulled out in the middle of a copy left its mount
 * folder, empty, on the system disk, and Retry copied into that folder,
 * onto the system disk, and said "Done". Now the copy fails, Retry
 * writes nothing there, and the row says the stick is not plugged in. */
static void
test_retry_after_unplug (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_stick_or_skip (f, "CRUZER", 2 * 1024 * 1024);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;
  const char *folder;
  FerryTransferRow *row;
  GSList *files;

  if (stick == NULL)
    return;
  folder = ferry_test_stick_get_mountpoint (stick);
  mount = plug_in_stick (f, "SanDisk Cruzer", stick);
  ferry_test_write_random (ferry_test_path (f->src, "Holiday video.mp4", NULL), 24 * 1024 * 1024,
                           14);
  /* Written the way a USB stick is, from the first byte. */
  g_settings_set_enum (settings, "device-mode", FERRY_DEVICE_MODE_SLOW);
  files = ferry_test_ui_files_in (f->src, "Holiday video.mp4", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);
  row = only_row (f);
  g_assert_true (ferry_test_ui_wait_until (job_writing, ferry_transfer_row_get_job (row), 20000));

  /* Pulled out: the device fails, the mount goes, its folder stays, and
   * the drive list hears of it as it would from the system. */
  g_assert_true (ferry_test_stick_set_fail_writes (stick, TRUE, &error));
  g_assert_true (ferry_test_stick_unmount_lazily (stick, &error));
  g_assert_no_error (error);
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
  g_assert_true (ferry_test_ui_wait_until (job_of_row_ended, row, 30000));
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_FAILED);
  g_assert_cmpuint (ferry_job_get_n_failures (ferry_transfer_row_get_job (row)), >=, 1);
  ferry_test_ui_wait (400); /* the list and its Retry are revealed */
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "_Retry"));

  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.retry", NULL);
  row = only_row (f);
  g_assert_true (ferry_test_ui_wait_until (job_of_row_ended, row, 20000));
  g_settings_reset (settings, "device-mode");
  g_assert_cmpstr (ferry_transfer_row_get_status (row), ==, "“CRUZER” is not plugged in");
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "“CRUZER” is not plugged in"));
  g_assert_cmpuint (ferry_test_count_entries (folder), ==, 0);
  ferry_test_ui_wait (400); /* Retry is revealed, for once it is plugged in again */
  g_assert_true (gtk_widget_get_mapped (ferry_test_ui_find_label (GTK_WIDGET (row), "_Retry")));
  save_screenshot (f, "retry-not-plugged-in.png");

  /* Plugged in again: Retry copies it there. */
  g_assert_true (ferry_test_stick_set_fail_writes (stick, FALSE, &error));
  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  g_assert_true (ferry_test_stick_mount_again (stick, &error));
  g_assert_no_error (error);
  g_clear_object (&mount);
  mount = plug_in_stick (f, "SanDisk Cruzer", stick);
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.retry", NULL);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on SanDisk Cruzer");
  ferry_test_assert_files_equal (ferry_test_path (f->src, "Holiday video.mp4", NULL),
                                 ferry_test_path (folder, "Holiday video.mp4", NULL));
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
}

/* What a transfer row is seen to do with its job's notify::progress:
 * before the row's own handler runs, the test blots out its status; after
 * it, the row must have written it again from the job. */
typedef struct
{
  FerryTransferRow *row; /* once the queue made it */
  GtkLabel *status;
  guint n_notified;
  guint n_redrawn;
  gint64 first_at;
  gint64 last_at;
} RowWatch;

#define BLOTTED "(blotted out by the test)"

static GtkLabel *
status_label (FerryTransferRow *row)
{
  g_autoptr (GList) labels = ferry_test_ui_find_all (GTK_WIDGET (row), GTK_TYPE_LABEL);

  for (GList *l = labels; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_label_get_label (l->data), ferry_transfer_row_get_status (row)) == 0)
      return l->data;
  g_error ("the transfer row shows no status");
}

/* Connected before the row exists, so it runs before the row's handler.
 * A job that has ended shows its outcome, which no notification redraws. */
static void
blot_status (FerryJob *job, GParamSpec *pspec, RowWatch *watch)
{
  if (watch->status != NULL && ferry_job_get_phase (job) < FERRY_PHASE_DONE)
    gtk_label_set_label (watch->status, BLOTTED);
}

static void
check_redrawn (FerryJob *job, GParamSpec *pspec, RowWatch *watch)
{
  gint64 now = g_get_monotonic_time ();

  if (watch->n_notified++ == 0)
    watch->first_at = now;
  watch->last_at = now;
  if (ferry_job_get_phase (job) >= FERRY_PHASE_DONE)
    return;
  g_assert_cmpstr (gtk_label_get_label (watch->status), !=, BLOTTED);
  watch->n_redrawn++;
}

static gboolean
job_copying (gpointer data)
{
  return ferry_job_get_phase (data) == FERRY_PHASE_COPYING;
}

static gboolean
progress_watched (FerryJob *job)
{
  return g_signal_has_handler_pending (job, g_signal_lookup ("notify", FERRY_TYPE_JOB),
                                       g_quark_from_static_string ("progress"), FALSE);
}

/* The transfer list is the queue's model: a job queued by anyone gets a
 * row with no call to the window, the row redraws itself on its job's
 * notify::progress (ten times a second at most) up to its done text, and
 * a job taken out of the queue takes its row with it. */
static void
test_rows_follow_queue (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) source = g_file_new_build_filename (f->src, "film.mkv", NULL);
  g_autoptr (GFile) destination = g_file_new_for_path (f->stick);
  g_autoptr (FerryJob) job = ferry_job_new (&source, 1, destination);
  RowWatch watch = { 0 };

  ferry_test_write_random (ferry_test_path (f->src, "film.mkv", NULL), 8 * 1024 * 1024, 41);
  g_assert_false (progress_watched (job));
  /* Held at its first chunk, the job stays in "copying" until resumed. */
  ferry_job_pause (job);
  g_signal_connect (job, "notify::progress", G_CALLBACK (blot_status), &watch);
  ferry_queue_add (f->queue, job);

  watch.row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_nonnull (watch.row);
  g_assert_true (ferry_transfer_row_get_job (watch.row) == job);
  g_assert_true (progress_watched (job));
  watch.status = status_label (watch.row);
  g_signal_connect (job, "notify::progress", G_CALLBACK (check_redrawn), &watch);

  /* While it is held, the job's own ticks redraw the row. */
  g_assert_true (ferry_test_ui_wait_until (job_copying, job, 10000));
  ferry_test_ui_wait (500);
  g_assert_cmpuint (watch.n_redrawn, >, 0);
  /* What holds it, then how far it got, not what it would be doing. */
  g_assert_true (g_str_has_prefix (ferry_transfer_row_get_status (watch.row), "Paused: "));
  g_assert_true (
      g_str_has_suffix (ferry_transfer_row_get_status (watch.row), " of 8.4\u00a0MB copied"));

  ferry_job_resume (job);
  g_assert_true (ferry_test_ui_wait_until (row_done, watch.row, 20000));
  ferry_test_ui_wait (300); /* the last notification, if it was still to come */
  g_assert_true (row_done (watch.row));
  g_assert_cmpuint (watch.n_notified, <=, 2 + (watch.last_at - watch.first_at) / 100000);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "film.mkv", NULL),
                                 ferry_test_path (f->stick, "film.mkv", NULL));

  g_signal_handlers_disconnect_by_data (job, &watch);
  ferry_queue_remove (f->queue, job);
  g_assert_null (ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_false (progress_watched (job));
}

typedef struct
{
  GtkWidget *row;
  GtkWidget *scroller;
} InView;

static GtkWidget *
find_transfer_row (Fixture *f, FerryJob *job)
{
  g_autoptr (GList) rows = ferry_test_ui_find_all (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW);

  for (GList *l = rows; l != NULL; l = l->next)
    if (ferry_transfer_row_get_job (l->data) == job)
      return l->data;
  g_assert_not_reached ();
}

static gboolean
scrolled_to_end (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment)
         >= gtk_adjustment_get_upper (adjustment) - 1;
}

static void
scroll_to_end (GtkWidget *scroller)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  g_assert_true (ferry_test_ui_wait_until (scrolled_to_end, adjustment, 5000));
  ferry_test_ui_wait (100);
}

static gboolean
row_in_view (gpointer data)
{
  InView *view = data;
  graphene_rect_t bounds;

  return gtk_widget_compute_bounds (view->row, view->scroller, &bounds)
         && bounds.size.height > 40 && bounds.origin.y >= 0
         && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (view->scroller);
}

/* The row in view, and still so once it has grown to its full height. */
static void
assert_in_view (InView *view)
{
  g_assert_true (ferry_test_ui_wait_until (row_in_view, view, 5000));
  ferry_test_ui_wait (800);
  g_assert_true (row_in_view (view));
}

/* A window too short for its drives, folders and first transfer. */
static void
fixture_set_up_short (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (f, "ui", "SANDISK", 660, 320);
}

/* A transfer queued below the window's foot comes into view: whoever
 * dropped files on a drive at the top saw nothing happen. Each new one
 * goes at the top of the transfers and shows too, once the list was
 * scrolled to its end. */
static void
test_new_row_shows (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) destination = g_file_new_for_path (f->stick);
  g_autoptr (GPtrArray) jobs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GFile) first_source = g_file_new_build_filename (f->src, "part0.bin", NULL);
  InView view = { NULL, NULL };

  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("part%u.bin", i);
      g_autoptr (GFile) source = g_file_new_build_filename (f->src, name, NULL);
      FerryJob *job = ferry_job_new (&source, 1, destination);

      ferry_test_write_random (g_file_peek_path (source), 1024 * 1024, i + 1);
      ferry_job_pause (job);
      g_ptr_array_add (jobs, job);
      ferry_queue_add (f->queue, job);
      view.row = find_transfer_row (f, job);
      view.scroller = gtk_widget_get_ancestor (view.row, GTK_TYPE_SCROLLED_WINDOW);
      assert_in_view (&view);
      if (i == 0)
        {
          GtkAdjustment *adjustment
              = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (view.scroller));
          g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >, 0);
        }
    }
  save_screenshot (f, "new-row-shows");
  /* The list at its end, the next one comes at its top. */
  scroll_to_end (view.scroller);
  g_ptr_array_add (jobs, ferry_job_new (&first_source, 1, destination));
  ferry_job_pause (g_ptr_array_index (jobs, jobs->len - 1));
  ferry_queue_add (f->queue, g_ptr_array_index (jobs, jobs->len - 1));
  view.row = find_transfer_row (f, g_ptr_array_index (jobs, jobs->len - 1));
  assert_in_view (&view);
  for (guint i = 0; i < jobs->len; i++)
    ferry_queue_remove (f->queue, g_ptr_array_index (jobs, i));
}

/* Where @widget's centre is on the X screen, for xdotool. */
static void
screen_point (GtkWidget *widget, int window_x, int window_y, int *x, int *y)
{
  GtkNative *native = gtk_widget_get_native (widget);
  graphene_rect_t bounds;
  double dx, dy;

  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (native), &bounds));
  gtk_native_get_surface_transform (native, &dx, &dy);
  *x = window_x + (int) (dx + bounds.origin.x + bounds.size.width / 2);
  *y = window_y + (int) (dy + bounds.origin.y + bounds.size.height / 2);
}

/* Runs xdotool with @args while the window keeps answering events. */
static void
xdotool (const char *const *args)
{
  ferry_test_ui_xdotool (args);
}

static void
move_window (const char *xid, int x, int y)
{
  g_autofree char *sx = g_strdup_printf ("%d", x);
  g_autofree char *sy = g_strdup_printf ("%d", y);

  xdotool ((const char *[]){ "windowmove", "--sync", xid, sx, sy, NULL });
  ferry_test_ui_wait (200);
}

/* Starts the drag source helper (another process, as a file manager
 * would be) with @files; returns where its label is, relative to its
 * window. */
static GSubprocess *
start_drag_source (const char *const *files, int *x, int *y)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *line = NULL;
  GSubprocess *process;

  g_ptr_array_add (argv, (gpointer) g_getenv ("FERRY_DRAG_SOURCE"));
  for (guint i = 0; files[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) files[i]);
  g_ptr_array_add (argv, NULL);
  process = ferry_test_ui_spawn ((const char *const *) argv->pdata, &line);
  g_assert_cmpint (sscanf (line, "ready %d %d", x, y), ==, 2);
  return process;
}

/* A real drag from another program: the pointer presses on the other
 * window's files, moves onto the drive in Ferry's window, and lets go. */
static void
test_drag_from_another_app (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  g_autofree char *photo = g_build_filename (f->src, "beach photo.jpg", NULL);
  g_autofree char *album = g_build_filename (f->src, "Album", NULL);
  g_autoptr (GSubprocess) source = NULL;
  g_autofree char *ferry_xid = NULL;
  g_autofree char *from_x = NULL, *from_y = NULL, *to_x = NULL, *to_y = NULL;
  int label_x, label_y, drive_x, drive_y;

  if (g_find_program_in_path ("xdotool") == NULL || g_getenv ("FERRY_DRAG_SOURCE") == NULL
      || !GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("a drag between programs needs X11 and xdotool");
      return;
    }
  ferry_test_write_random (photo, 1024 * 1024, 30);
  ferry_test_make_dirs (ferry_test_path (album, "2024", NULL));
  ferry_test_write_random (ferry_test_path (album, "2024", "sea.png", NULL), 50000, 31);

  /* No window manager places the windows: put them side by side. */
  ferry_xid = g_strdup_printf (
      "%lu", (gulong) gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (f->window))));
  move_window (ferry_xid, 0, 0);
  source = start_drag_source ((const char *[]){ photo, album, NULL }, &label_x, &label_y);
  xdotool ((const char *[]){ "search", "--sync", "--name", "^Ferry drag source$", "windowmove",
                             "--sync", "%@", "700", "100", NULL });
  screen_point (GTK_WIDGET (ferry_test_window_drive_row (f, "SanDisk Cruzer")), 0, 0, &drive_x,
                &drive_y);

  from_x = g_strdup_printf ("%d", 700 + label_x);
  from_y = g_strdup_printf ("%d", 100 + label_y);
  to_x = g_strdup_printf ("%d", drive_x);
  to_y = g_strdup_printf ("%d", drive_y);
  xdotool ((const char *[]){ "mousemove", "--sync", from_x, from_y, NULL });
  /* Past the drag threshold, across, onto the drive, and let go. */
  xdotool ((const char *[]){ "mousedown",
                             "1",
                             "sleep",
                             "0.2",
                             "mousemove_relative",
                             "--",
                             "-30",
                             "0",
                             "sleep",
                             "0.2",
                             "mousemove",
                             "400",
                             "300",
                             "sleep",
                             "0.2",
                             "mousemove",
                             to_x,
                             to_y,
                             "sleep",
                             "0.3",
                             "mousemove_relative",
                             "--",
                             "2",
                             "2",
                             "sleep",
                             "0.3",
                             "mouseup",
                             "1",
                             NULL });

  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on SanDisk Cruzer");
  ferry_test_assert_files_equal (photo, ferry_test_path (f->stick, "beach photo.jpg", NULL));
  ferry_test_assert_trees_equal (album, ferry_test_path (f->stick, "Album", NULL),
                                 FERRY_TEST_COMPARE_ALL);
  g_subprocess_force_exit (source);
}

/* Closing while copying asks first. */
static void
test_close_asks (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "SanDisk Cruzer");
  GSList *files;
  GtkWindow *dialog;

  ferry_test_write_random (ferry_test_path (f->src, "big.bin", NULL), 256 * 1024 * 1024, 9);
  files = ferry_test_ui_files_in (f->src, "big.bin", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "SanDisk Cruzer"), files));
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

/* ------------------------------------------------------------------ */
/* Entries a drive cannot store as they are                            */

typedef struct
{
  FerryUnsupportedKind kind;
  const char *path;
  const char *adapted;
  guint64 size;
} ExampleItem;

/* What a copy of a notes folder, a film and a few odd files to a FAT32
 * stick finds, as the engine would report it. */
static const ExampleItem example_items[] = {
  { FERRY_UNSUPPORTED_NAME_CHARACTERS, "Notes/ratio 16:9.txt", "ratio 16：9.txt", 120 },
  { FERRY_UNSUPPORTED_NAME_CHARACTERS, "Notes/why?.txt", "why？.txt", 80 },
  { FERRY_UNSUPPORTED_NAME_CHARACTERS, "Notes/<draft>.md", "＜draft＞.md", 2400 },
  { FERRY_UNSUPPORTED_NAME_CHARACTERS, "Notes/a|b.txt", "a｜b.txt", 10 },
  { FERRY_UNSUPPORTED_TOO_LARGE, "film.mkv", NULL, G_GUINT64_CONSTANT (6200000000) },
  { FERRY_UNSUPPORTED_CASE_COLLISION, "Photos/img_0001.jpg", "img_0001 (2).jpg", 900000 },
  { FERRY_UNSUPPORTED_CASE_COLLISION, "Photos/IMG_0002.JPG", "IMG_0002 (2).JPG", 900000 },
  { FERRY_UNSUPPORTED_SYMLINK, "Notes/latest.txt", "latest.txt", 0 },
  { FERRY_UNSUPPORTED_SPECIAL_FILE, "build/events", NULL, 0 },
};

static FerryUnsupportedReport *
new_report (const char *filesystem, const ExampleItem *examples, guint n)
{
  g_autoptr (GPtrArray) items
      = g_ptr_array_new_with_free_func ((GDestroyNotify) ferry_unsupported_item_free);
  g_autoptr (GFile) destination = g_file_new_for_path ("/media/STICK");

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GFile) source = g_file_new_build_filename ("/home/ana", examples[i].path, NULL);
      g_ptr_array_add (items, _ferry_unsupported_item_new (examples[i].kind, source,
                                                           examples[i].path, examples[i].adapted,
                                                           examples[i].size));
    }
  return _ferry_unsupported_report_new (filesystem, destination, items);
}

static GtkWindow *
ask_about (Fixture *f, FerryUnsupportedReport *report)
{
  FerryUnsupportedDialog *dialog
      = ferry_unsupported_dialog_new (GTK_WINDOW (f->window), report, "STICK");

  gtk_window_present (GTK_WINDOW (dialog));
  return wait_for_dialog (f);
}

/* The answer the report was given, -1 for none yet. */
static int
answer_of (FerryUnsupportedReport *report)
{
  FerryAnswer *answer = _ferry_unsupported_report_get_answer (report);
  int action = -1;

  if (_ferry_answer_is_given (answer))
    action = _ferry_answer_wait (answer, NULL, -1, NULL);
  _ferry_answer_unref (answer);
  return action;
}

/* The labels of the dialog's list of groups, in order, joined by "|". */
static char *
group_texts (GtkWindow *dialog)
{
  GtkWidget *list = ferry_test_ui_find (GTK_WIDGET (dialog), GTK_TYPE_LIST_BOX, NULL);
  g_autoptr (GList) labels = NULL;
  g_autoptr (GString) text = g_string_new (NULL);

  g_assert_nonnull (list);
  labels = ferry_test_ui_find_all (list, GTK_TYPE_LABEL);
  for (GList *l = labels; l != NULL; l = l->next)
    g_string_append_printf (text, "%s%s", l == labels ? "" : "|", gtk_label_get_label (l->data));
  return g_strdup (text->str);
}

/* The dialog over its window (ferry_test_ui_screenshot_dialog), into
 * $FERRY_SCREENSHOT_DIR when set. */
static void
save_dialog_screenshot (Fixture *f, GtkWindow *dialog, const char *name)
{
  const char *dir = g_getenv ("FERRY_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  ferry_test_ui_screenshot_dialog (GTK_WIDGET (f->window), GTK_WIDGET (dialog), path);
}

/* The question names the drive and its format, lists the items by what
 * is wrong with them, the first names of each with what Adapt calls
 * them, and "Adapt" answers the copy waiting for it. */
static void
test_unsupported_dialog_adapt (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (f, "STICK");
  g_autoptr (FerryUnsupportedReport) report
      = new_report ("FAT32", example_items, G_N_ELEMENTS (example_items));
  GtkWindow *dialog = ask_about (f, report);
  const char *body = adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog));
  g_autofree char *groups = group_texts (dialog);

  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "Some Items Cannot Be Copied as They Are");
  g_assert_true (g_str_has_prefix (body, "STICK is formatted FAT32, which cannot store 9 of the "
                                         "items being copied as they are."));
  g_assert_nonnull (strstr (body, "look-alike characters"));
  g_assert_nonnull (strstr (body, "links as the files they point to"));
  g_assert_nonnull (strstr (body, "What cannot be adapted is skipped."));
  g_assert_cmpstr (groups, ==,
                   "4 names use characters this drive cannot store|"
                   "ratio 16:9.txt → ratio 16：9.txt\nwhy?.txt → why？.txt\n"
                   "<draft>.md → ＜draft＞.md\nand 1 more|"
                   "2 names differ only in capitals|"
                   "img_0001.jpg → img_0001 (2).jpg\nIMG_0002.JPG → IMG_0002 (2).JPG|"
                   /* g_format_size() keeps number and unit together */
                   "1 file is larger than 4.3\xc2\xa0GB, the most a FAT32 drive can hold|"
                   "film.mkv (6.2\xc2\xa0GB)|"
                   "1 link|latest.txt|"
                   "1 special file (FIFO, socket or device)|events");
  g_assert_cmpstr (adw_message_dialog_get_close_response (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "cancel");
  g_assert_cmpint (adw_message_dialog_get_response_appearance (ADW_MESSAGE_DIALOG (dialog),
                                                               "adapt"),
                   ==, ADW_RESPONSE_SUGGESTED);
  save_dialog_screenshot (f, dialog, "unsupported-dialog.png");

  g_assert_cmpint (answer_of (report), ==, -1);
  click_response (dialog, "_Adapt");
  g_assert_cmpint (answer_of (report), ==, FERRY_UNSUPPORTED_ACTION_ADAPT);
}

static void
test_unsupported_dialog_skip (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryUnsupportedReport) report
      = new_report ("exFAT", example_items, G_N_ELEMENTS (example_items));

  click_response (ask_about (f, report), "_Skip These");
  g_assert_cmpint (answer_of (report), ==, FERRY_UNSUPPORTED_ACTION_SKIP);
}

/* Escape, or closing the dialog, cancels the copy: nothing was agreed
 * to, so nothing is written. */
static void
test_unsupported_dialog_close (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryUnsupportedReport) report
      = new_report ("exFAT", example_items, G_N_ELEMENTS (example_items));
  GtkWindow *dialog = ask_about (f, report);

  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (dialog), "_Cancel"));
  gtk_window_close (dialog);
  ferry_test_ui_wait (100);
  g_assert_null (ferry_test_ui_find_dialog (GTK_WINDOW (f->window)));
  g_assert_cmpint (answer_of (report), ==, FERRY_UNSUPPORTED_ACTION_CANCEL);
}

/* Nothing to adapt (a file too large, a FIFO): no "Adapt" to promise
 * what it cannot do; skipping is what is offered. */
static void
test_unsupported_dialog_only_skippable (Fixture *f, gconstpointer data)
{
  static const ExampleItem items[] = {
    { FERRY_UNSUPPORTED_TOO_LARGE, "film.mkv", NULL, G_GUINT64_CONSTANT (6200000000) },
  };
  g_autoptr (FerryUnsupportedReport) report = new_report ("FAT32", items, G_N_ELEMENTS (items));
  GtkWindow *dialog = ask_about (f, report);
  AdwMessageDialog *message = ADW_MESSAGE_DIALOG (dialog);

  g_assert_true (g_str_has_prefix (adw_message_dialog_get_body (message),
                                   "STICK is formatted FAT32, which cannot store 1 of the items "
                                   "being copied as it is."));
  g_assert_false (adw_message_dialog_has_response (message, "adapt"));
  g_assert_cmpint (adw_message_dialog_get_response_appearance (message, "skip"), ==,
                   ADW_RESPONSE_SUGGESTED);
  g_assert_nonnull (
      ferry_test_ui_find_label (GTK_WIDGET (dialog), "1 file is larger than 4.3\xc2\xa0GB"));
  click_response (dialog, "_Skip These");
  g_assert_cmpint (answer_of (report), ==, FERRY_UNSUPPORTED_ACTION_SKIP);
}

/* In a 360 px window the dialog fits, its text wrapped, and a long list
 * scrolls with the answers still on screen. */
static void
test_unsupported_dialog_narrow (Fixture *f, gconstpointer data)
{
  g_autoptr (GArray) many = g_array_new (FALSE, FALSE, sizeof (ExampleItem));
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GList) labels = NULL;
  GtkWidget *scrolled;
  GtkWindow *dialog;
  int width;

  g_array_append_vals (many, example_items, G_N_ELEMENTS (example_items));
  for (guint i = 0; i < 10; i++)
    {
      char *name = g_strdup_printf ("a-very-long-name-without-spaces-%u-%s.txt", i,
                                    "that-a-drive-cannot-store:as-it-is");
      ExampleItem item = { i % 2 ? FERRY_UNSUPPORTED_NAME_ENDING : FERRY_UNSUPPORTED_NAME_RESERVED,
                           name, "x", 1 };
      g_ptr_array_add (names, name);
      g_array_append_val (many, item);
    }
  report = new_report ("NTFS", (const ExampleItem *) many->data, many->len);
  dialog = ask_about (f, report);
  width = gtk_widget_get_width (GTK_WIDGET (dialog));
  g_assert_cmpint (width, <=, 360);
  labels = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_LABEL);
  for (GList *l = labels; l != NULL; l = l->next)
    g_assert_cmpint (gtk_widget_get_width (l->data), <=, width);
  scrolled = ferry_test_ui_find (GTK_WIDGET (dialog), GTK_TYPE_SCROLLED_WINDOW, NULL);
  g_assert_cmpint (gtk_widget_get_height (scrolled), <=, 280);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (dialog)), <=, 640);
  save_dialog_screenshot (f, dialog, "unsupported-dialog-narrow.png");
  click_response (dialog, "_Adapt");
  g_assert_cmpint (answer_of (report), ==, FERRY_UNSUPPORTED_ACTION_ADAPT);
}

static FerryTestStick *
new_exfat_stick_or_skip (Fixture *f)
{
  g_autofree char *workdir = g_build_filename (f->scratch, "stick-work", NULL);
  g_autofree char *mountpoint = g_build_filename (f->scratch, "STICK", NULL);
  const FerryTestStickOptions options = {
    .workdir = workdir,
    .mountpoint = mountpoint,
    .label = "STICK",
    .size_bytes = 64 * 1024 * 1024,
    .fs = FERRY_TEST_STICK_FS_EXFAT,
  };

  return ferry_test_stick_new_or_skip_full (&options);
}

/* Notes with names exFAT cannot store, a link and a FIFO. */
static void
make_odd_notes (Fixture *f)
{
  ferry_test_make_dirs (ferry_test_path (f->src, "Notes", NULL));
  ferry_test_write_text (ferry_test_path (f->src, "Notes", "ratio 16:9.txt", NULL), "wide\n");
  ferry_test_write_text (ferry_test_path (f->src, "Notes", "why?.txt", NULL), "because\n");
  ferry_test_write_text (ferry_test_path (f->src, "Notes", "plain.txt", NULL), "plain\n");
  g_assert_cmpint (symlink ("plain.txt", ferry_test_path (f->src, "Notes", "latest.txt", NULL)), ==,
                   0);
  g_assert_cmpint (mkfifo (ferry_test_path (f->src, "Notes", "events", NULL), 0644), ==, 0);
}

static gboolean
shows_adaptations (gpointer data)
{
  GtkWidget *expander = ferry_test_ui_find (data, ADW_TYPE_EXPANDER_ROW, NULL);

  return expander != NULL && gtk_widget_get_mapped (expander);
}

/* A real copy to an exFAT stick asks once; after "Adapt" the renamed
 * files and the followed link are on the stick, the FIFO is not, and
 * the transfer row says so, with each old and new name in its list. */
static void
test_unsupported_adapt_on_exfat (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_exfat_stick_or_skip (f);
  g_autoptr (FerryTestMount) mount = NULL;
  const char *drive;
  FerryTransferRow *row;
  AdwExpanderRow *expander;
  GtkWindow *dialog;
  GSList *files;

  if (stick == NULL)
    return;
  drive = ferry_test_stick_get_mountpoint (stick);
  mount = plug_in_stick (f, "STICK", stick);
  make_odd_notes (f);
  files = ferry_test_ui_files_in (f->src, "Notes", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "STICK"), files));
  g_slist_free_full (files, g_object_unref);

  dialog = wait_for_dialog (f);
  g_assert_true (FERRY_IS_UNSUPPORTED_DIALOG (dialog));
  g_assert_true (g_str_has_prefix (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)),
                                   "STICK is formatted exFAT, which cannot store 4 of the items "
                                   "being copied as they are."));
  g_assert_nonnull (
      ferry_test_ui_find_label (GTK_WIDGET (dialog), "ratio 16:9.txt → ratio 16：9.txt"));
  click_response (dialog, "_Adapt");
  g_assert_true (ferry_test_ui_wait_until (job_ended, only_job (f), 20000));
  g_assert_cmpint (ferry_job_get_phase (only_job (f)), ==, FERRY_PHASE_DONE);

  ferry_test_assert_files_equal (ferry_test_path (f->src, "Notes", "ratio 16:9.txt", NULL),
                                 ferry_test_path (drive, "Notes", "ratio 16：9.txt", NULL));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "Notes", "why?.txt", NULL),
                                 ferry_test_path (drive, "Notes", "why？.txt", NULL));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "Notes", "plain.txt", NULL),
                                 ferry_test_path (drive, "Notes", "latest.txt", NULL));
  g_assert_false (
      g_file_test (ferry_test_path (drive, "Notes", "events", NULL), G_FILE_TEST_EXISTS));

  row = FERRY_TRANSFER_ROW (
      ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_true (ferry_test_ui_wait_until (shows_adaptations, row, 5000));
  expander = ADW_EXPANDER_ROW (ferry_test_ui_find (GTK_WIDGET (row), ADW_TYPE_EXPANDER_ROW, NULL));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (expander)), ==,
                   "3 items adapted for exFAT, 1 skipped");
  g_assert_true (g_str_has_prefix (ferry_transfer_row_get_status (row), "Done: "));
  g_assert_true (g_str_has_suffix (ferry_transfer_row_get_status (row), " copied, 1 item skipped"));
  adw_expander_row_set_expanded (expander, TRUE);
  ferry_test_ui_wait (500); /* the expander's animation */
  g_assert_nonnull (
      ferry_test_ui_find_label (GTK_WIDGET (row), "ratio 16:9.txt → ratio 16：9.txt"));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "why?.txt → why？.txt"));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "Copied as the file it points to"));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "A FIFO, socket or device"));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "Skipped"));
  save_screenshot (f, "unsupported-done.png");
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
}

/* Copies to verify on an exFAT stick, dropped by a person who may not
 * read the drive itself (not root, not in "disk": the test takes the
 * effective user nobody while it copies). exfat-fuse reads the drive
 * through the kernel's cache of it, which only the drive's owner may
 * drop, so the copies may come back from memory: the row says they were
 * not verified on the drive, and its tooltip why. The file copied is on
 * the stick, where nobody may read it. */
static void
test_verify_from_cache (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestStick) stick = new_exfat_stick_or_skip (f);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GFile) clip = NULL;
  g_autoptr (GSList) files = NULL;
  const char *drive;
  GtkWidget *status;
  gboolean dropped, ended;

  if (stick == NULL)
    return;
  drive = ferry_test_stick_get_mountpoint (stick);
  ferry_test_make_dirs (ferry_test_path (drive, "Camera", NULL));
  ferry_test_write_random (ferry_test_path (drive, "Camera", "clip.mp4", NULL), 2000000, 31);
  mount = plug_in_stick (f, "STICK", stick);
  g_settings_set_boolean (settings, "verify", TRUE);
  clip = g_file_new_for_path (ferry_test_path (drive, "Camera", "clip.mp4", NULL));
  files = g_slist_prepend (NULL, clip);
  /* Nothing is asserted as nobody: a failure must leave root to tear
   * the stick down. */
  g_assert_cmpint (seteuid (65534), ==, 0);
  dropped = ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "STICK"), files);
  ended = dropped && ferry_test_ui_wait_until (job_ended, only_job (f), 20000);
  g_assert_cmpint (seteuid (0), ==, 0);
  g_settings_reset (settings, "verify");
  g_assert_true (dropped);
  g_assert_true (ended);
  g_assert_cmpint (ferry_job_get_phase (only_job (f)), ==, FERRY_PHASE_DONE);
  /* The row hears of the end from the main loop, after the job's phase is set. */
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "copied, not verified on the drive");
  status = ferry_test_ui_find_label (GTK_WIDGET (f->window), "copied, not verified on the drive");
  g_assert_nonnull (status);
  g_assert_true (g_str_has_prefix (gtk_widget_get_tooltip_text (status),
                                   "The copies were read back through the drive’s FUSE driver"));
  ferry_test_assert_files_equal (ferry_test_path (drive, "Camera", "clip.mp4", NULL),
                                 ferry_test_path (drive, "clip.mp4", NULL));
  /* Not verified is not unsafe: the copy is on the drive, and Eject is offered. */
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on STICK");
  ferry_test_ui_wait (500); /* the revealer's animation */
  save_screenshot (f, "verify-from-cache.png");
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
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
  ADD ("/ui/eject-offered-once", test_eject_offered_once);
  ADD ("/ui/title-names-folder-on-drive", test_title_names_folder_on_drive);
  ADD ("/ui/title-narrow", test_title_narrow);
  ADD ("/ui/free-space-read-when-active", test_free_space_read_when_active);
  ADD ("/ui/closed-revealers-take-no-room", test_closed_revealers_take_no_room);
  ADD ("/ui/drop-on-unplugged", test_drop_on_unplugged);
  ADD ("/ui/copy-into-non-folder", test_copy_into_non_folder);
  ADD ("/ui/rows-follow-queue", test_rows_follow_queue);
  ADD ("/ui/eject-when-done-shows", test_eject_when_done_shows);
  g_test_add ("/ui/new-row-shows", Fixture, NULL, fixture_set_up_short, test_new_row_shows,
              fixture_tear_down);
  ADD ("/ui/conflict/keep-both", test_conflict_keep_both);
  ADD ("/ui/conflict/apply-to-all", test_conflict_apply_to_all);
  ADD ("/ui/close-asks", test_close_asks);
  ADD ("/ui/drag-from-another-app", test_drag_from_another_app);
  ADD ("/ui/slow-drive-progress", test_slow_drive_progress);
  ADD ("/ui/stalled-drive", test_stalled_drive);
  ADD ("/ui/error-list-and-retry", test_error_list_and_retry);
  ADD ("/ui/retry-after-unplug", test_retry_after_unplug);
  ADD ("/ui/unsupported/dialog-adapt", test_unsupported_dialog_adapt);
  ADD ("/ui/unsupported/dialog-skip", test_unsupported_dialog_skip);
  ADD ("/ui/unsupported/dialog-close", test_unsupported_dialog_close);
  ADD ("/ui/unsupported/dialog-only-skippable", test_unsupported_dialog_only_skippable);
  ADD ("/ui/unsupported/adapt-on-exfat", test_unsupported_adapt_on_exfat);
  ADD ("/ui/verify-from-cache", test_verify_from_cache);
#undef ADD
  g_test_add ("/ui/unsupported/dialog-narrow", Fixture, NULL, fixture_set_up_narrow,
              test_unsupported_dialog_narrow, fixture_tear_down);
  return g_test_run ();
}
