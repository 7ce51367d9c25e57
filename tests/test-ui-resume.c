/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Transfers cut short in the window (issue 16): when their drive is
 * plugged in, a row "“photos” to STICK", "1.2 GB of 3.0 GB copied", with Resume
 * and Discard; a transfer kept for another filesystem with the same
 * label gets none. The journals are written here as a killed run leaves
 * them, under a private $XDG_STATE_HOME. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-test-stick.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-destination-row.h"
#include "ferry-transfer-row.h"
#include "ferry-drive-list.h"

#define GB 1000000000ull

typedef struct
{
  FerryTestWindow w;
  char *journals;
} Fixture;

static char *state_dir; /* set before GLib reads it */

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  ferry_test_remove_tree (state_dir);
  f->journals = g_build_filename (state_dir, "ferry", NULL);
  ferry_test_make_dirs (f->journals);
  ferry_test_window_set_up (&f->w, "ui-resume", "STICK", 660, 560);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_test_window_tear_down (&f->w);
  ferry_test_remove_tree (state_dir);
  g_free (f->journals);
}

/* The id ferry gives the transfer of @source into @destination. */
static char *
id_for (const char *source, const char *destination)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (checksum, (const guchar *) destination, strlen (destination) + 1);
  g_checksum_update (checksum, (const guchar *) source, strlen (source) + 1);
  return g_strndup (g_checksum_get_string (checksum), 16);
}

/* A journal of @source into the drive folder (typed as @destination,
 * or as its path when NULL), on its filesystem or (@other_uuid) on
 * another one with the same label, STICK (or @label: "" for none). */
static void
write_journal_full (Fixture *f,
                    const char *source,
                    const char *destination,
                    const char *other_uuid,
                    const char *label)
{
  g_autoptr (GKeyFile) journal = g_key_file_new ();
  const char *typed = destination != NULL ? destination : f->w.stick;
  g_autofree char *id = id_for (source, typed);
  g_autofree char *name = g_strconcat (id, ".journal", NULL);
  g_autoptr (GError) error = NULL;
  const char *sources[] = { source, NULL };
  struct stat st;

  g_assert_cmpint (stat (f->w.stick, &st), ==, 0);
  g_key_file_set_string_list (journal, "transfer", "sources", sources, 1);
  g_key_file_set_string (journal, "transfer", "destination", typed);
  g_key_file_set_uint64 (journal, "transfer", "fs-dev", other_uuid ? st.st_dev + 1 : st.st_dev);
  if (other_uuid != NULL)
    g_key_file_set_string (journal, "transfer", "fs-uuid", other_uuid);
  if (label == NULL || label[0] != '\0')
    g_key_file_set_string (journal, "transfer", "fs-label", label != NULL ? label : "STICK");
  g_key_file_set_uint64 (journal, "transfer", "bytes-total", 3 * GB);
  g_key_file_set_uint64 (journal, "transfer", "bytes-durable", 12 * GB / 10);
  g_key_file_save_to_file (journal, ferry_test_path (f->journals, name, NULL), &error);
  g_assert_no_error (error);
}

static void
write_journal (Fixture *f, const char *source, const char *destination, const char *other_uuid)
{
  write_journal_full (f, source, destination, other_uuid, NULL);
}

static guint
count_journals (Fixture *f)
{
  g_autoptr (GDir) dir = g_dir_open (f->journals, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static GtkWidget *
interrupted_row (Fixture *f)
{
  GtkWidget *list = ferry_test_ui_find (GTK_WIDGET (f->w.window), GTK_TYPE_LIST_BOX,
                                        "interrupted-list");

  g_assert_nonnull (list);
  if (!gtk_widget_get_visible (gtk_widget_get_ancestor (list, ADW_TYPE_PREFERENCES_GROUP)))
    return NULL;
  return gtk_widget_get_first_child (list);
}

static GtkWidget *
find_button (GtkWidget *row, const char *label)
{
  g_autoptr (GList) buttons = ferry_test_ui_find_all (row, GTK_TYPE_BUTTON);

  for (GList *l = buttons; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_button_get_label (l->data), label) == 0)
      return l->data;
  g_error ("no button %s", label);
  return NULL;
}

static void
click (GtkWidget *row, const char *label)
{
  GtkWidget *button = find_button (row, label);

  g_assert_true (gtk_widget_get_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  ferry_test_ui_wait (200);
}

/* Discard on @row asks first, naming the transfer; @answer is the
 * button pressed in the question. */
static void
discard (Fixture *f, GtkWidget *row, const char *answer)
{
  g_autofree char *title
      = g_strdup_printf ("Discard %s?", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  GtkWindow *dialog;

  click (row, "_Discard");
  dialog = ferry_test_ui_wait_for_dialog (GTK_WINDOW (f->w.window));
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==, title);
  g_assert_cmpstr (adw_message_dialog_get_default_response (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "cancel");
  g_assert_cmpint (adw_message_dialog_get_response_appearance (ADW_MESSAGE_DIALOG (dialog),
                                                               "discard"),
                   ==, ADW_RESPONSE_DESTRUCTIVE);
  if (g_getenv ("FERRY_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *path
          = g_build_filename (g_getenv ("FERRY_SCREENSHOT_DIR"), "discard-dialog.png", NULL);

      ferry_test_ui_screenshot_dialog (GTK_WIDGET (f->w.window), GTK_WIDGET (dialog), path);
    }
  ferry_test_ui_click_response (dialog, answer);
  ferry_test_ui_wait (200);
}

/* Plugged in, the drive brings its transfer's row back, with how much is
 * on it; one kept for another filesystem called STICK does not come.
 * Discard forgets it. */
static void
test_row_and_discard (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = NULL;
  GtkWidget *row;

  write_journal (f, ferry_test_path (f->w.src, "photos", NULL), NULL, NULL);
  write_journal (f, ferry_test_path (f->w.src, "music", NULL), NULL, "0000-OTHER");
  g_assert_null (interrupted_row (f));
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  row = interrupted_row (f);
  g_assert_nonnull (row);
  g_assert_null (gtk_widget_get_next_sibling (row));
  /* g_format_size() puts a no-break space before the unit. */
  /* Named as its row was while it ran, to tell two apart. */
  ferry_test_ui_assert_label_soon (row, "“photos” to STICK");
  ferry_test_ui_assert_label_soon (row, "1.2\u00a0GB of 3.0\u00a0GB copied");
  /* The destination is named as the drive list names it, not by the
   * mount's path. */
  g_assert_null (ferry_test_ui_find_label (row, f->w.scratch));
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "interrupted.png");

  /* Asked first: Cancel keeps it. */
  discard (f, row, "_Cancel");
  g_assert_true (interrupted_row (f) == row);
  g_assert_cmpuint (count_journals (f), ==, 2);
  discard (f, row, "_Discard");
  g_assert_null (interrupted_row (f));
  g_assert_cmpuint (count_journals (f), ==, 1);
}

/* A copy into a folder on the computer's own disk, cut short, comes back
 * too (its journal names no drive: the root filesystem has no label):
 * "“photos” to Backups", "1.2 GB of 3.0 GB copied", and the folder it went
 * to. */
static void
test_row_for_own_disk (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->w.scratch, "Backups", NULL);
  g_autoptr (FerryTestMount) mount = NULL;
  GtkWidget *row;

  ferry_test_make_dirs (folder);
  write_journal_full (f, ferry_test_path (f->w.src, "photos", NULL), folder, NULL, "");
  /* The rows are read again when Ferry starts or drives change. */
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  row = interrupted_row (f);
  g_assert_nonnull (row);
  ferry_test_ui_assert_label_soon (row, "“photos” to Backups");
  ferry_test_ui_assert_label_soon (row, "1.2\u00a0GB of 3.0\u00a0GB copied");
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "interrupted-own-disk.png");
}

static gboolean
has_file (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

/* Resume copies what was not on the drive yet, and the row goes. With
 * @data, the journal is one ferry-copy kept for "STICK/": its paths as
 * typed name it, and the job resuming it is known for its own (else the
 * row came back beside the running copy, and stayed once it was done). */
static void
test_resume (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = NULL;
  const char *source = ferry_test_path (f->w.src, "notes.txt", NULL);
  const char *copy = ferry_test_path (f->w.stick, "notes.txt", NULL);
  g_autofree char *typed = data != NULL ? g_strconcat (f->w.stick, "/", NULL) : NULL;

  ferry_test_write_text (source, "cut short\n");
  write_journal (f, source, typed, NULL);
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  g_assert_nonnull (interrupted_row (f));
  click (interrupted_row (f), "_Resume");
  g_assert_null (interrupted_row (f));
  g_assert_true (ferry_test_ui_wait_until (has_file, (gpointer) copy, 20000));
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on STICK");
  ferry_test_assert_files_equal (source, copy);
  g_assert_cmpuint (count_journals (f), ==, 0);
}

/* A journal kept says the stick has part of the copy: a durability
 * point is behind it. (A journal saved before its first point says
 * nothing is there yet, and a cancel then keeps no temporary file.) */
static gboolean
point_saved (gpointer data)
{
  g_autoptr (GPtrArray) list = ferry_unfinished_list ();

  for (guint i = 0; i < list->len; i++)
    if (ferry_unfinished_get_bytes_durable (g_ptr_array_index (list, i)) > 0)
      return TRUE;
  return FALSE;
}

static gboolean
interrupted_row_shown (gpointer data)
{
  return interrupted_row (data) != NULL;
}

/* An emulated USB stick of 96 MiB taking 2 MiB a second, CRUZER,
 * mounted at @folder; NULL, the test skipped, where it cannot be made. */
static FerryTestStick *
new_cruzer (Fixture *f, const char *folder)
{
  g_autofree char *workdir = g_build_filename (f->w.scratch, "stick-work", NULL);

  return ferry_test_stick_new_or_skip (workdir, folder, "CRUZER", 96 * 1024 * 1024,
                                       2 * 1024 * 1024);
}

/* @name, in the source folder, dropped on SanDisk Cruzer. */
static void
drop_on_cruzer (Fixture *f, const char *name)
{
  GSList *files = ferry_test_ui_files_in (f->w.src, name, NULL);

  g_assert_true (ferry_destination_row_drop_files (
      ferry_test_window_drive_row (&f->w, "SanDisk Cruzer"), files));
  g_slist_free_full (files, g_object_unref);
}

/* @name dropped on SanDisk Cruzer, written the way a USB stick is, from
 * the first byte; returns once the journal has a durability point
 * behind the copy. */
static void
drop_on_cruzer_as_slow (Fixture *f, const char *name, GSettings *settings)
{
  g_settings_set_enum (settings, "device-mode", FERRY_DEVICE_MODE_SLOW);
  drop_on_cruzer (f, name);
  g_assert_true (ferry_test_ui_wait_until (point_saved, f, 30000));
}

/* CRUZER plugged in, mounted at @folder, and "Holiday video.mp4" (24
 * MiB) in the source folder; returns the mount. */
static FerryTestMount *
plug_in_cruzer_with_video (Fixture *f, const char *folder)
{
  ferry_test_write_random (ferry_test_path (f->w.src, "Holiday video.mp4", NULL),
                           24 * 1024 * 1024, 14);
  return ferry_test_ui_plug_in (f->w.drives, "SanDisk Cruzer", folder);
}

/* "Holiday video.mp4" dropped on CRUZER, mounted at @folder (see
 * drop_on_cruzer_as_slow()); returns the mount. */
static FerryTestMount *
drop_video_on_cruzer (Fixture *f, const char *folder, GSettings *settings)
{
  FerryTestMount *mount = plug_in_cruzer_with_video (f, folder);

  drop_on_cruzer_as_slow (f, "Holiday video.mp4", settings);
  return mount;
}

/* A stick pulled out once the copy has a durability point behind it: the
 * transfer's row becomes "“Holiday video.mp4” to CRUZER" (Resume waits for the
 * drive) instead of a failed row listing every file. */
static void
test_unplugged_mid_copy (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->w.scratch, "CRUZER", NULL);
  g_autoptr (FerryTestStick) stick = new_cruzer (f, folder);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;
  GtkWidget *row;

  if (stick == NULL)
    return;
  mount = drop_video_on_cruzer (f, folder, settings);
  g_assert_true (ferry_test_stick_set_fail_writes (stick, TRUE, &error));
  g_assert_true (ferry_test_stick_unmount_lazily (stick, &error));
  g_assert_no_error (error);
  g_assert_true (ferry_test_ui_wait_until (interrupted_row_shown, f, 30000));
  g_settings_reset (settings, "device-mode");
  /* The drive list hears of the unplug as it would from the system. */
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
  row = interrupted_row (f);
  ferry_test_ui_assert_label_soon (row, "“Holiday video.mp4” to CRUZER");
  ferry_test_ui_assert_label_soon (row, "of 25.2\u00a0MB copied");
  /* Resume waits for the drive, and the row says so. */
  ferry_test_ui_assert_label_soon (row, "Plug CRUZER in again to resume");
  g_assert_false (gtk_widget_get_sensitive (find_button (row, "_Resume")));
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (f->w.window), "_Retry"));
  ferry_test_ui_wait (400);
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "interrupted-unplugged.png");

  /* Plugged in again: the row no longer asks for it, and Resume finishes
   * the copy. */
  g_assert_true (ferry_test_stick_set_fail_writes (stick, FALSE, &error));
  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  g_assert_true (ferry_test_stick_mount_again (stick, &error));
  g_assert_no_error (error);
  g_clear_object (&mount);
  mount = ferry_test_ui_plug_in (f->w.drives, "SanDisk Cruzer", folder);
  ferry_test_ui_assert_label_soon (interrupted_row (f), "of 25.2\u00a0MB copied");
  g_assert_null (ferry_test_ui_find_label (interrupted_row (f), "in again to resume"));
  click (interrupted_row (f), "_Resume");
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on SanDisk Cruzer");
  ferry_test_assert_files_equal (ferry_test_path (f->w.src, "Holiday video.mp4", NULL),
                                 ferry_test_path (folder, "Holiday video.mp4", NULL));
  g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 0);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
}

static gboolean
no_transfer_row (gpointer data)
{
  Fixture *f = data;

  return ferry_test_ui_find (GTK_WIDGET (f->w.window), FERRY_TYPE_TRANSFER_ROW, NULL) == NULL;
}

/* "Holiday video.mp4" dropped on CRUZER, mounted at @folder, and
 * cancelled once the stick has part of it; returns the mount, once the
 * transfer's row has given way to an interrupted one. */
static FerryTestMount *
cancel_video_on_cruzer (Fixture *f, const char *folder, GSettings *settings)
{
  FerryTestMount *mount = drop_video_on_cruzer (f, folder, settings);
  GtkWidget *transfer = ferry_test_ui_find (GTK_WIDGET (f->w.window), FERRY_TYPE_TRANSFER_ROW, NULL);

  g_assert_nonnull (transfer);
  gtk_widget_activate_action (transfer, "transfer.cancel", NULL);
  g_assert_true (ferry_test_ui_wait_until (interrupted_row_shown, f, 30000));
  g_assert_true (ferry_test_ui_wait_until (no_transfer_row, f, 10000));
  g_settings_reset (settings, "device-mode");
  return mount;
}

static gboolean
cruzer_space_shown (gpointer data)
{
  const char *const *args = data;
  Fixture *f = (Fixture *) args[0];
  g_autofree char *expected = ferry_test_ui_space_of (args[1]);
  FerryDestinationRow *row = ferry_test_window_drive_row (&f->w, "SanDisk Cruzer");

  return g_strcmp0 (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), expected) == 0;
}

/* CRUZER's row says the free space its filesystem, mounted at @folder,
 * has now. */
static void
assert_space_shown_soon (Fixture *f, const char *folder)
{
  const void *args[] = { f, folder };

  if (!ferry_test_ui_wait_until (cruzer_space_shown, args, 5000))
    g_error ("CRUZER's row said “%s”, not “%s”",
             adw_action_row_get_subtitle (
                 ADW_ACTION_ROW (ferry_test_window_drive_row (&f->w, "SanDisk Cruzer"))),
             ferry_test_ui_space_of (folder));
}

/* Cancel on a copy to a stick that has a durability point behind it:
 * its journal is kept (the next start would offer it anyway), and so is
 * the video's temporary file, for the copy to go on from; its row gives
 * way to an interrupted "… to CRUZER" at once, and Resume there finishes
 * the copy. With @data, Discard instead takes the temporary file away
 * with the journal, although the window that wrote it still runs:
 * nothing of the transfer is left, and the drive's row says the space
 * that gave back (before, what it said when the copy stopped). */
static void
test_cancelled_mid_copy (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->w.scratch, "CRUZER", NULL);
  g_autoptr (FerryTestStick) stick = new_cruzer (f, folder);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;
  const char *source = ferry_test_path (f->w.src, "Holiday video.mp4", NULL);
  const char *copy = ferry_test_path (folder, "Holiday video.mp4", NULL);

  if (stick == NULL)
    return;
  mount = cancel_video_on_cruzer (f, folder, settings);
  ferry_test_ui_assert_label_soon (interrupted_row (f), "“Holiday video.mp4” to CRUZER");
  ferry_test_ui_assert_label_soon (interrupted_row (f), "of 25.2\u00a0MB copied");
  g_assert_null (ferry_test_ui_find_label (GTK_WIDGET (f->w.window), "Cancelled"));
  g_assert_cmpuint (count_journals (f), >, 0); /* the journal, and its log */
  ferry_test_ui_wait (400);
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "interrupted-cancelled.png");
  g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 1);

  if (data != NULL)
    {
      discard (f, interrupted_row (f), "_Discard");
      g_assert_null (interrupted_row (f));
      g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 0);
      g_assert_cmpuint (count_journals (f), ==, 0);
      assert_space_shown_soon (f, folder);
      ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
      return;
    }
  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  g_assert_no_error (error);
  click (interrupted_row (f), "_Resume");
  g_assert_null (interrupted_row (f));
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on SanDisk Cruzer");
  ferry_test_assert_files_equal (source, copy);
  g_assert_cmpuint (count_journals (f), ==, 0);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
}

/* The transfer row in the window whose job is at @phase; NULL if none. */
static GtkWidget *
transfer_row_at (Fixture *f, FerryPhase phase)
{
  g_autoptr (GList) rows = ferry_test_ui_find_all (GTK_WIDGET (f->w.window), FERRY_TYPE_TRANSFER_ROW);

  for (GList *l = rows; l != NULL; l = l->next)
    if (ferry_job_get_phase (ferry_transfer_row_get_job (l->data)) == phase)
      return l->data;
  return NULL;
}

/* The same copy made again, its first "Done" row still listed, and
 * cancelled once the stick has part of it: the cut-short copy gets its
 * interrupted row beside the "Done" one (before, its row went and none
 * came, the temporary file left on the stick with no Resume or Discard
 * for it), and Discard there takes the temporary file away. */
static void
test_cancelled_after_done (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->w.scratch, "CRUZER", NULL);
  g_autoptr (FerryTestStick) stick = new_cruzer (f, folder);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;

  if (stick == NULL)
    return;
  mount = plug_in_cruzer_with_video (f, folder);
  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  drop_on_cruzer (f, "Holiday video.mp4");
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on SanDisk Cruzer");
  g_assert_cmpint (unlink (ferry_test_path (folder, "Holiday video.mp4", NULL)), ==, 0);

  g_assert_true (ferry_test_stick_set_rate (stick, 2 * 1024 * 1024, &error));
  g_assert_no_error (error);
  drop_on_cruzer_as_slow (f, "Holiday video.mp4", settings);
  gtk_widget_activate_action (transfer_row_at (f, FERRY_PHASE_COPYING), "transfer.cancel", NULL);
  g_assert_true (ferry_test_ui_wait_until (interrupted_row_shown, f, 30000));
  g_settings_reset (settings, "device-mode");
  ferry_test_ui_assert_label_soon (interrupted_row (f), "“Holiday video.mp4” to CRUZER");
  ferry_test_ui_assert_label_soon (interrupted_row (f), "of 25.2\u00a0MB copied");
  g_assert_nonnull (transfer_row_at (f, FERRY_PHASE_DONE));
  ferry_test_ui_wait (400);
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "interrupted-beside-done.png");
  g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 1);

  discard (f, interrupted_row (f), "_Discard");
  g_assert_null (interrupted_row (f));
  g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 0);
  g_assert_cmpuint (count_journals (f), ==, 0);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
}

/* @stick unmounted and mounted at @name, once the sync a cancel gave up
 * on has let go of it (see FerrySyncfs): until the device has that data,
 * its mount is busy. */
static void
mount_elsewhere_once_let_go (FerryTestStick *stick, const char *name)
{
  g_autoptr (GError) error = NULL;

  for (guint tries = 0; tries < 100; tries++)
    {
      g_clear_error (&error);
      if (ferry_test_stick_mount_elsewhere (stick, name, &error))
        return;
      g_usleep (G_USEC_PER_SEC / 10);
    }
  g_assert_no_error (error);
}

/* Cancelled mid-copy, CRUZER is pulled out and plugged in again, and
 * comes back mounted at CRUZER1 (its old mount point still held): the
 * row is offered there, and Resume finishes the copy there, the row
 * giving way to the transfer (before, it stayed beside it, offering to
 * start it again). */
static void
test_resume_moved_mount (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->w.scratch, "CRUZER", NULL);
  g_autoptr (FerryTestStick) stick = new_cruzer (f, folder);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (GError) error = NULL;
  const char *source = ferry_test_path (f->w.src, "Holiday video.mp4", NULL);
  const char *now;

  if (stick == NULL)
    return;
  mount = cancel_video_on_cruzer (f, folder, settings);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
  g_clear_object (&mount);

  g_assert_true (ferry_test_stick_set_rate (stick, 0, &error));
  mount_elsewhere_once_let_go (stick, "CRUZER1");
  now = ferry_test_stick_get_mountpoint (stick);
  mount = ferry_test_ui_plug_in (f->w.drives, "SanDisk Cruzer", now);
  ferry_test_ui_assert_label_soon (interrupted_row (f), "of 25.2\u00a0MB copied");
  ferry_test_ui_wait (400);
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "interrupted-moved-mount.png");
  click (interrupted_row (f), "_Resume");
  g_assert_null (interrupted_row (f));
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on SanDisk Cruzer");
  ferry_test_assert_files_equal (source, ferry_test_path (now, "Holiday video.mp4", NULL));
  g_assert_cmpuint (ferry_test_count_temp_files (now), ==, 0);
  g_assert_cmpuint (count_journals (f), ==, 0);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
}

static gboolean
job_ended (gpointer data)
{
  FerryPhase phase = ferry_job_get_phase (data);

  return phase == FERRY_PHASE_FAILED || phase == FERRY_PHASE_DONE;
}

/* "Photos" (six 8 MiB pictures) dropped on CRUZER, mounted at @folder,
 * written the way a USB stick is; once the journal has a durability
 * point, another program fills the stick up (the filler's path in
 * @filler), and the stick goes at full speed from then on. Returns the transfer's job, once it has ended. */
static FerryJob *
drop_photos_and_fill (Fixture *f,
                      FerryTestStick *stick,
                      const char *folder,
                      GSettings *settings,
                      char **filler)
{
  const char *photos = ferry_test_path (f->w.src, "Photos", NULL);
  g_autoptr (FerryJob) job = NULL;
  GtkWidget *transfer;

  ferry_test_make_dirs (photos);
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *name = g_strdup_printf ("IMG_%04u.raw", i);
      ferry_test_write_random (ferry_test_path (photos, name, NULL), 8 * 1024 * 1024, 20 + i);
    }
  drop_on_cruzer_as_slow (f, "Photos", settings);
  transfer = ferry_test_ui_find (GTK_WIDGET (f->w.window), FERRY_TYPE_TRANSFER_ROW, NULL);
  g_assert_nonnull (transfer);
  job = g_object_ref (ferry_transfer_row_get_job (FERRY_TRANSFER_ROW (transfer)));
  *filler = ferry_test_fill_leaving (folder, 1024 * 1024);
  g_assert_true (ferry_test_stick_set_rate (stick, 0, NULL));
  g_assert_true (ferry_test_ui_wait_until (job_ended, job, 30000));
  g_settings_reset (settings, "device-mode");
  return g_steal_pointer (&job);
}

/* CRUZER fills up mid-copy (another program wrote to it): the transfer
 * stops at the file that did not fit, with others never begun, and its
 * row says "SanDisk Cruzer is full". Once there is room again, Retry goes
 * on with the whole transfer from where the drive's data ends, not only
 * with the file named (before, the files never begun were left out, and
 * the window said all data was on the drive). With @data, the row is
 * dismissed instead, and the transfer is offered as interrupted, the
 * file that failed counted in its size. */
static void
test_full_mid_copy (Fixture *f, gconstpointer data)
{
  g_autofree char *folder = g_build_filename (f->w.scratch, "CRUZER", NULL);
  g_autoptr (FerryTestStick) stick = new_cruzer (f, folder);
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_autofree char *filler = NULL;
  GtkWidget *transfer;

  if (stick == NULL)
    return;
  mount = ferry_test_ui_plug_in (f->w.drives, "SanDisk Cruzer", folder);
  job = drop_photos_and_fill (f, stick, folder, settings, &filler);
  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_FAILED);
  transfer = ferry_test_ui_find (GTK_WIDGET (f->w.window), FERRY_TYPE_TRANSFER_ROW, NULL);
  ferry_test_ui_wait (400);
  ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), "transfer-drive-full.png");
  ferry_test_ui_assert_label_soon (transfer, "SanDisk Cruzer is full");
  /* Its journal is kept, but the transfer's own row says why and offers
   * Retry: no second row offers to resume it beside that one. */
  g_assert_null (interrupted_row (f));

  g_assert_cmpint (unlink (filler), ==, 0);
  if (data == NULL)
    click (transfer, "_Retry");
  else
    {
      gtk_widget_activate_action (transfer, "transfer.dismiss", NULL);
      g_assert_true (ferry_test_ui_wait_until (interrupted_row_shown, f, 10000));
      ferry_test_ui_assert_label_soon (interrupted_row (f), "“Photos” to CRUZER");
      ferry_test_ui_assert_label_soon (interrupted_row (f), "of 50.3\u00a0MB copied");
      click (interrupted_row (f), "_Resume");
    }
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on SanDisk Cruzer");
  ferry_test_assert_trees_equal (ferry_test_path (f->w.src, "Photos", NULL),
                                 ferry_test_path (folder, "Photos", NULL),
                                 FERRY_TEST_COMPARE_CONTENT);
  g_assert_cmpuint (ferry_test_count_temp_files (folder), ==, 0);
  g_assert_cmpuint (count_journals (f), ==, 0);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
}

int
main (int argc, char **argv)
{
  const char *base = g_getenv ("FERRY_TEST_TMPDIR");

  state_dir = g_strdup_printf ("%s/ui-resume-state-%d", base ? base : g_get_tmp_dir (), getpid ());
  g_setenv ("XDG_STATE_HOME", state_dir, TRUE);
  ferry_test_ui_init (&argc, &argv);
  g_test_add ("/ui-resume/row-and-discard", Fixture, NULL, fixture_set_up, test_row_and_discard,
              fixture_tear_down);
  g_test_add ("/ui-resume/row-for-own-disk", Fixture, NULL, fixture_set_up, test_row_for_own_disk,
              fixture_tear_down);
  g_test_add ("/ui-resume/resume", Fixture, NULL, fixture_set_up, test_resume, fixture_tear_down);
  g_test_add ("/ui-resume/resume-typed-by-ferry-copy", Fixture, "STICK/", fixture_set_up,
              test_resume, fixture_tear_down);
  g_test_add ("/ui-resume/unplugged-mid-copy", Fixture, NULL, fixture_set_up,
              test_unplugged_mid_copy, fixture_tear_down);
  g_test_add ("/ui-resume/cancelled-mid-copy", Fixture, NULL, fixture_set_up,
              test_cancelled_mid_copy, fixture_tear_down);
  g_test_add ("/ui-resume/cancelled-then-discarded", Fixture, "discard", fixture_set_up,
              test_cancelled_mid_copy, fixture_tear_down);
  g_test_add ("/ui-resume/cancelled-after-done", Fixture, NULL, fixture_set_up,
              test_cancelled_after_done, fixture_tear_down);
  g_test_add ("/ui-resume/moved-mount", Fixture, NULL, fixture_set_up, test_resume_moved_mount,
              fixture_tear_down);
  g_test_add ("/ui-resume/full-mid-copy", Fixture, NULL, fixture_set_up, test_full_mid_copy,
              fixture_tear_down);
  g_test_add ("/ui-resume/full-mid-copy-dismissed", Fixture, "dismiss", fixture_set_up,
              test_full_mid_copy, fixture_tear_down);
  return g_test_run ();
}
