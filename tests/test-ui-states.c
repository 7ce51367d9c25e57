/* SPDX-License-Identifier: GPL-3.0-or-later */
/* States that stay true (issue 15): free space read again, rows that
 * speak of the mount they ran on, a drive remounted read-only, paused
 * rows and rows waiting for an answer, the notification of a finished
 * copy with its Eject button, Eject when done, and why a copy does not
 * fit. Drives are made up (FerryTestMount); where a test needs a small
 * or read-only filesystem under one, it mounts a tmpfs there (root). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "ferry-test-stick.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-transfer-row.h"

typedef struct
{
  FerryTestWindow w;
  gboolean mounted; /* a tmpfs over w.stick */
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (&f->w, "ui-states", "STICK", 660, 660);
}

/* With $FERRY_SCREENSHOT_DIR: the window as it is, NAME-light.png and
 * NAME-dark.png. */
static void
save_screenshots (Fixture *f, const char *name)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  const char *const schemes[] = { "light", "dark" };

  if (g_getenv ("FERRY_SCREENSHOT_DIR") == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      g_autofree char *file = g_strdup_printf ("%s-%s.png", name, schemes[i]);

      adw_style_manager_set_color_scheme (style, i == 0 ? ADW_COLOR_SCHEME_FORCE_LIGHT
                                                        : ADW_COLOR_SCHEME_FORCE_DARK);
      ferry_test_ui_wait (300);
      ferry_test_ui_save_screenshot (GTK_WIDGET (f->w.window), file);
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

/* A phone-sized window: the row's buttons must fit it. */
static void
fixture_set_up_narrow (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (&f->w, "ui-states", "STICK", 360, 640);
}

static void
run_or_fail (const char *command)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL; /* kept off the test's own output, read as TAP */
  g_autofree char *err = NULL;
  int status = 0;

  if (!g_spawn_command_line_sync (command, &out, &err, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s %s", command, error->message, err ? err : "");
}

/* Unmounted even when the test failed: this runs as its teardown. */
static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_queue_cancel_all (f->w.queue);
  ferry_test_ui_wait (200);
  if (f->mounted)
    {
      g_autofree char *command = g_strdup_printf ("umount -l '%s'", f->w.stick);
      run_or_fail (command);
    }
  ferry_test_window_tear_down (&f->w);
}

/* A filesystem of @kib KiB under the made-up drive, or FALSE after
 * g_test_skip() when not root. */
static gboolean
mount_small_drive (Fixture *f, guint kib)
{
  g_autofree char *command = NULL;

  if (getuid () != 0)
    {
      g_test_skip ("mounting a small filesystem under the drive needs root");
      return FALSE;
    }
  command = g_strdup_printf ("mount -t tmpfs -o size=%uk ferry-test '%s'", kib, f->w.stick);
  run_or_fail (command);
  f->mounted = TRUE;
  return TRUE;
}

/* The row of the transfer of @name, whatever order the queue keeps. */
static FerryTransferRow *
transfer_row_of (Fixture *f, const char *name)
{
  g_autoptr (GList) rows
      = ferry_test_ui_find_all (GTK_WIDGET (f->w.window), FERRY_TYPE_TRANSFER_ROW);

  for (GList *l = rows; l != NULL; l = l->next)
    {
      GPtrArray *sources = ferry_job_get_sources (ferry_transfer_row_get_job (l->data));
      g_autofree char *basename = g_file_get_basename (g_ptr_array_index (sources, 0));

      if (g_strcmp0 (basename, name) == 0)
        return l->data;
    }
  g_error ("no transfer of %s", name);
}

static gboolean
job_of_row_ended (gpointer data)
{
  return ferry_job_get_phase (ferry_transfer_row_get_job (data)) >= FERRY_PHASE_DONE;
}

static gboolean
job_ended (gpointer data)
{
  return ferry_job_get_phase (data) >= FERRY_PHASE_DONE;
}

/* Drops @name of the source folder on the drive STICK; returns the row
 * of the new transfer, without waiting. */
static FerryTransferRow *
drop_on_stick (Fixture *f, const char *name)
{
  GSList *files = ferry_test_ui_files_in (f->w.src, name, NULL);

  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (&f->w, "STICK"), files));
  g_slist_free_full (files, g_object_unref);
  return transfer_row_of (f, name);
}

static FerryTransferRow *
copy_to_stick (Fixture *f, const char *name)
{
  FerryTransferRow *row = drop_on_stick (f, name);

  g_assert_true (ferry_test_ui_wait_until (job_of_row_ended, row, 20000));
  ferry_test_ui_wait (300);
  return row;
}

static const char *
drive_subtitle (Fixture *f)
{
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (ferry_test_window_drive_row (&f->w, "STICK")));
}

static gboolean
subtitle_is_space_now (gpointer data)
{
  Fixture *f = data;
  g_autofree char *expected = ferry_test_ui_space_of (f->w.stick);

  return g_strcmp0 (drive_subtitle (f), expected) == 0;
}

/* Item 4: the drive's free space is read again after each copy to it,
 * and when its mount changes. */
static void
test_free_space_refreshed (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = NULL;
  g_autofree char *before = NULL;

  if (!mount_small_drive (f, 4096))
    return;
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  g_assert_true (ferry_test_ui_wait_until (subtitle_is_space_now, f, 5000));
  before = g_strdup (drive_subtitle (f));

  ferry_test_write_random (ferry_test_path (f->w.src, "song.ogg", NULL), 1500000, 1);
  copy_to_stick (f, "song.ogg");
  if (!ferry_test_ui_wait_until (subtitle_is_space_now, f, 5000))
    g_error ("after the copy the drive still says “%s”", drive_subtitle (f));
  g_assert_cmpstr (drive_subtitle (f), !=, before);

  /* Written by something else, then the mount says it changed. */
  ferry_test_write_random (ferry_test_path (f->w.stick, "other.bin", NULL), 1000000, 2);
  g_signal_emit_by_name (mount, "changed");
  if (!ferry_test_ui_wait_until (subtitle_is_space_now, f, 5000))
    g_error ("after the mount changed the drive still says “%s”", drive_subtitle (f));
}

static gboolean
row_eject_is (FerryTransferRow *row, FerryEjectState state)
{
  return ferry_transfer_row_get_eject_state (row) == state;
}

static gboolean
row_ready (gpointer data)
{
  return row_eject_is (data, FERRY_EJECT_READY);
}

static gboolean
row_ejected (gpointer data)
{
  return row_eject_is (data, FERRY_EJECT_DONE);
}

/* The row's own words, not a notice over the window. */
static void
assert_row_does_not_say (FerryTransferRow *row, const char *text)
{
  GtkWidget *label = ferry_test_ui_find_label (GTK_WIDGET (row), text);

  if (label != NULL)
    g_error ("the row still says “%s”", gtk_label_get_label (GTK_LABEL (label)));
}

/* Item 5: once the drive is plugged in again, the rows of the mount
 * that went no longer promise anything about it. */
static void
test_replugged_rows_reset (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) first = ferry_test_window_plug_in (&f->w, "STICK");
  g_autoptr (FerryTestMount) second = NULL;
  g_autoptr (FerryTestMount) third = NULL;
  FerryTransferRow *ejected, *unplugged;

  ferry_test_write_random (ferry_test_path (f->w.src, "a.bin", NULL), 100000, 3);
  ferry_test_write_random (ferry_test_path (f->w.src, "b.bin", NULL), 100000, 4);

  /* Ejected, unplugged, plugged in again. */
  ejected = copy_to_stick (f, "a.bin");
  g_assert_true (ferry_test_ui_wait_until (row_ready, ejected, 5000));
  gtk_widget_activate_action (GTK_WIDGET (ejected), "transfer.eject", NULL);
  g_assert_true (ferry_test_ui_wait_until (row_ejected, ejected, 5000));
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (first));
  ferry_test_ui_wait (100);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "You can now unplug STICK");
  second = ferry_test_window_plug_in (&f->w, "STICK");
  ferry_test_ui_wait (500);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (ejected), ==, FERRY_EJECT_NONE);
  assert_row_does_not_say (ejected, "You can now unplug");

  /* Pulled out without ejecting, plugged in again. */
  unplugged = copy_to_stick (f, "b.bin");
  g_assert_true (ferry_test_ui_wait_until (row_ready, unplugged, 5000));
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on STICK");
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (second));
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "STICK was unplugged");
  third = ferry_test_window_plug_in (&f->w, "STICK");
  ferry_test_ui_wait (500);
  g_assert_cmpint (ferry_transfer_row_get_eject_state (unplugged), ==, FERRY_EJECT_NONE);
  assert_row_does_not_say (unplugged, "STICK was unplugged");
  assert_row_does_not_say (unplugged, "All data is on");
  save_screenshots (f, "replugged");
}

static gboolean
row_read_only (gpointer data)
{
  return row_eject_is (data, FERRY_EJECT_READ_ONLY);
}

/* Item 6: the system remounts the drive read-only (after an error on it):
 * GIO sees the mount go and a new one come. Its rows say what happened. */
static void
test_remounted_read_only (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) writable = NULL;
  g_autoptr (FerryTestMount) read_only = NULL;
  g_autofree char *remount = g_strdup_printf ("mount -o remount,ro '%s'", f->w.stick);
  FerryTransferRow *row;

  if (!mount_small_drive (f, 4096))
    return;
  writable = ferry_test_window_plug_in (&f->w, "STICK");
  ferry_test_write_random (ferry_test_path (f->w.src, "a.bin", NULL), 100000, 5);
  row = copy_to_stick (f, "a.bin");
  g_assert_true (ferry_test_ui_wait_until (row_ready, row, 5000));

  run_or_fail (remount);
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (writable));
  read_only = ferry_test_window_plug_in (&f->w, "STICK");
  if (!ferry_test_ui_wait_until (row_read_only, row, 5000))
    g_error ("of a drive remounted read-only, the row's drive state is %d (%d: unplugged)",
             ferry_transfer_row_get_eject_state (row), FERRY_EJECT_GONE);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "STICK is read-only now.");
  assert_row_does_not_say (row, "was unplugged");
  g_assert_true (g_str_has_prefix (drive_subtitle (f), "Read-only · "));
  save_screenshots (f, "read-only");
}

static gboolean
subtitle_says_write_protected (gpointer data)
{
  return g_str_has_prefix (drive_subtitle (data), "Write-protected · ");
}

/* An SD card whose lock switch is on: the kernel makes its device
 * read-only (here an ext4 image on a read-only loop device, which goes
 * with the unmount). Its row says so before anything is dropped, where a
 * drive merely mounted read-only says "Read-only" (above), and a drop
 * says how to unlock it. */
static void
test_write_protected_card (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = NULL;
  g_autofree char *image = g_build_filename (f->w.scratch, "card.img", NULL);
  g_autofree char *mkfs = g_strdup_printf ("mkfs.ext4 -q -F '%s' 8M", image);
  g_autofree char *command = g_strdup_printf ("mount -o loop,ro '%s' '%s'", image, f->w.stick);
  FerryTransferRow *row;

  if (getuid () != 0)
    {
      g_test_skip ("a read-only loop device needs root");
      return;
    }
  run_or_fail (mkfs);
  run_or_fail (command);
  f->mounted = TRUE;
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  if (!ferry_test_ui_wait_until (subtitle_says_write_protected, f, 5000))
    g_error ("a write-protected card's row says “%s”", drive_subtitle (f));

  ferry_test_write_random (ferry_test_path (f->w.src, "photo.jpg", NULL), 100000, 9);
  row = copy_to_stick (f, "photo.jpg");
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_FAILED);
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (row), "slide the switch to unlock it"));
  ferry_test_ui_assert_label_soon (GTK_WIDGET (row), "STICK is write-protected.");
  g_assert_cmpint (ferry_transfer_row_get_eject_state (row), ==, FERRY_EJECT_WRITE_PROTECTED);
  g_assert_cmpuint (ferry_test_count_entries (f->w.stick), ==, 1); /* lost+found */
  save_screenshots (f, "write-protected");
}

static gboolean
count_shows_rate (gpointer data)
{
  return strstr (ferry_transfer_row_get_count (data), "/s") != NULL;
}

static gboolean
status_paused (gpointer data)
{
  return g_str_has_prefix (ferry_transfer_row_get_status (data), "Paused");
}

static void
assert_no_rate (FerryTransferRow *row)
{
  const char *lines[] = { ferry_transfer_row_get_status (row), ferry_transfer_row_get_count (row) };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    if (strstr (lines[i], "/s") != NULL || strstr (lines[i], "left") != NULL)
      g_error ("the row says “%s”", lines[i]);
}

/* Item 7: a paused row shows no rate or time left. The drive writes
 * at 6 MB/s, so that the copy has a rate when it is paused. */
static void
test_paused_shows_no_rate (Fixture *f, gconstpointer data)
{
  g_autofree char *workdir = g_build_filename (f->w.scratch, "stick-work", NULL);
  g_autofree char *mountpoint = g_build_filename (f->w.scratch, "SLOW", NULL);
  g_autoptr (FerryTestStick) stick
      = ferry_test_stick_new_or_skip (workdir, mountpoint, "SLOW", 96 * 1024 * 1024, 6000000);
  g_autoptr (FerryTestMount) mount = NULL;
  g_autoptr (FerryJob) job = NULL;
  FerryTransferRow *row;
  GSList *files;

  if (stick == NULL)
    return;
  mount = ferry_test_ui_plug_in (f->w.drives, "SLOW", mountpoint);
  ferry_test_write_random (ferry_test_path (f->w.src, "video.mp4", NULL), 60 * 1024 * 1024, 6);
  files = ferry_test_ui_files_in (f->w.src, "video.mp4", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (&f->w, "SLOW"), files));
  g_slist_free_full (files, g_object_unref);
  row = transfer_row_of (f, "video.mp4");
  g_assert_true (ferry_test_ui_wait_until (count_shows_rate, row, 30000));

  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.pause", NULL);
  g_assert_true (ferry_test_ui_wait_until (status_paused, row, 5000));
  ferry_test_ui_wait (500); /* progress notified while paused */
  assert_no_rate (row);
  /* How far it got, not what it would be doing ("… on SLOW" once the
   * stick is measured slow, "… copied" before). */
  g_assert_true (g_str_has_prefix (ferry_transfer_row_get_status (row), "Paused: "));
  g_assert_nonnull (strstr (ferry_transfer_row_get_status (row), " of 62.9\u00a0MB "));
  save_screenshots (f, "paused");
  /* Cancelled with its journal kept, the row gives way to an
   * "Interrupted" one: the job is watched, not the row. */
  job = g_object_ref (ferry_transfer_row_get_job (row));
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.cancel", NULL);
  g_assert_true (ferry_test_ui_wait_until (job_ended, job, 20000));
  ferry_drive_list_remove_mount (f->w.drives, G_MOUNT (mount));
}

static gboolean
waiting_for_answer (gpointer data)
{
  return g_str_has_prefix (ferry_transfer_row_get_status (data), "Waiting for your answer");
}

static gboolean
dialog_shown (gpointer data)
{
  return ferry_test_ui_find_dialog (data) != NULL;
}

/* Item 7: while the window asks about a file already on the drive, the
 * row says it waits for the answer; once answered, it goes on. */
static void
test_waiting_for_answer (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (&f->w, "STICK");
  FerryTransferRow *row;
  GtkWindow *dialog;

  ferry_test_write_text (ferry_test_path (f->w.src, "notes.txt", NULL), "new\n");
  ferry_test_write_text (ferry_test_path (f->w.stick, "notes.txt", NULL), "old\n");
  row = drop_on_stick (f, "notes.txt");
  if (!ferry_test_ui_wait_until (waiting_for_answer, row, 20000))
    g_error ("while asking, the row says “%s”", ferry_transfer_row_get_status (row));
  assert_no_rate (row);
  save_screenshots (f, "waiting-for-answer-narrow");

  /* The row may say so a moment before the dialog is presented. */
  g_assert_true (ferry_test_ui_wait_until (dialog_shown, f->w.window, 5000));
  dialog = ferry_test_ui_find_dialog (GTK_WINDOW (f->w.window));
  g_assert_nonnull (dialog);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "skip");
  g_assert_true (ferry_test_ui_wait_until (job_of_row_ended, row, 20000));
  ferry_test_ui_wait (300);
  g_assert_false (waiting_for_answer (row));
}

/* Item 14: a transfer marked "Eject when done" ejects its drive once
 * everything is on it. */
static void
test_eject_when_done (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = ferry_test_window_plug_in (&f->w, "STICK");
  FerryTransferRow *row;
  GtkWidget *toggle;

  ferry_test_write_random (ferry_test_path (f->w.src, "photo.jpg", NULL), 3 * 1024 * 1024, 7);
  row = drop_on_stick (f, "photo.jpg");
  /* The copy's end reaches the window through its main loop: not yet. */
  toggle = ferry_test_ui_find (GTK_WIDGET (row), GTK_TYPE_TOGGLE_BUTTON, NULL);
  g_assert_nonnull (toggle);
  g_assert_true (gtk_widget_get_visible (toggle));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (toggle), ==, "Eject When Done");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (toggle), TRUE);

  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "You can now unplug STICK");
  g_assert_cmpuint (ferry_test_mount_get_n_ejects (mount), ==, 1);
  ferry_test_assert_files_equal (ferry_test_path (f->w.src, "photo.jpg", NULL),
                                 ferry_test_path (f->w.stick, "photo.jpg", NULL));
  ferry_test_ui_wait (500);
  g_assert_cmpuint (ferry_test_mount_get_n_ejects (mount), ==, 1);
}

/* Item 15: a copy that does not fit says on hover what it needs and
 * what the drive has. */
static void
test_no_room_tooltip (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = NULL;
  FerryTransferRow *row;
  GtkWidget *status;
  g_autofree char *needed = g_format_size (3000000);
  g_autofree char *free_str = g_format_size (2048 * 1024);
  g_autofree char *expected
      = g_strdup_printf ("The files need %s; STICK has %s free", needed, free_str);

  if (!mount_small_drive (f, 2048))
    return;
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  ferry_test_write_random (ferry_test_path (f->w.src, "big.iso", NULL), 3000000, 8);
  row = copy_to_stick (f, "big.iso");
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_FAILED);
  status = ferry_test_ui_find_label (GTK_WIDGET (row), "not enough space");
  g_assert_nonnull (status);
  ferry_test_ui_wait (300); /* the free space read again */
  g_assert_cmpstr (gtk_widget_get_tooltip_text (status), ==, expected);
  save_screenshots (f, "no-room");
}

/* Files deleted on a stick stay in its Trash (.Trash-$uid) until the
 * Trash is emptied: a copy that would fit once it is says so, on the row
 * itself. */
static void
test_no_room_trash (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = NULL;
  g_autofree char *trash = g_strdup_printf ("%s/.Trash-%u", f->w.stick, (guint) getuid ());
  FerryTransferRow *row;
  GtkWidget *status;

  if (!mount_small_drive (f, 2048))
    return;
  ferry_test_make_dirs (ferry_test_path (trash, "files", NULL));
  ferry_test_write_random (ferry_test_path (trash, "files", "old.iso", NULL), 1500000, 9);
  mount = ferry_test_window_plug_in (&f->w, "STICK");
  ferry_test_write_random (ferry_test_path (f->w.src, "big.iso", NULL), 1000000, 8);
  row = copy_to_stick (f, "big.iso");
  g_assert_cmpint (ferry_job_get_phase (ferry_transfer_row_get_job (row)), ==, FERRY_PHASE_FAILED);
  status = ferry_test_ui_find_label (GTK_WIDGET (row), "not enough space in “STICK”");
  g_assert_nonnull (status);
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (status)),
                            "; emptying the Trash would free 1.5\u00a0MB more"));
  save_screenshots (f, "no-room-trash");

  ferry_test_ui_wait (400); /* Retry is revealed, for once there is room */
  g_assert_true (gtk_widget_get_mapped (ferry_test_ui_find_label (GTK_WIDGET (row), "_Retry")));
  ferry_test_remove_tree (trash); /* emptied */
  gtk_widget_activate_action (GTK_WIDGET (row), "transfer.retry", NULL);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "All data is on STICK");
  ferry_test_assert_files_equal (ferry_test_path (f->w.src, "big.iso", NULL),
                                 ferry_test_path (f->w.stick, "big.iso", NULL));
}

/* ------------------------------------------------------------------ */
/* The notification of a finished copy, sent through a notification
 * server of the test's own (org.gtk.Notifications, which GIO uses when
 * someone owns it) on a private session bus.                          */

typedef struct
{
  GTestDBus *bus;
  GDBusConnection *server;
  guint owner_id;
  guint object_id;
  GVariant *last; /* a{sv}: the last notification added */
  GtkApplication *app;
} Notifications;

static const char notifications_xml[]
    = "<node><interface name='org.gtk.Notifications'>"
      "<method name='AddNotification'><arg type='s' direction='in'/>"
      "<arg type='s' direction='in'/><arg type='a{sv}' direction='in'/></method>"
      "<method name='RemoveNotification'><arg type='s' direction='in'/>"
      "<arg type='s' direction='in'/></method>"
      "</interface></node>";

static void
on_notification_call (GDBusConnection *connection,
                      const char *sender,
                      const char *path,
                      const char *interface,
                      const char *method,
                      GVariant *parameters,
                      GDBusMethodInvocation *invocation,
                      gpointer user_data)
{
  Notifications *n = user_data;

  if (g_strcmp0 (method, "AddNotification") == 0)
    {
      g_clear_pointer (&n->last, g_variant_unref);
      g_variant_get (parameters, "(&s&s@a{sv})", NULL, NULL, &n->last);
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static gboolean
name_owned (gpointer data)
{
  g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
      data, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
      "NameHasOwner", g_variant_new ("(s)", "org.gtk.Notifications"), G_VARIANT_TYPE ("(b)"),
      G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  gboolean owned = FALSE;

  if (reply != NULL)
    g_variant_get (reply, "(b)", &owned);
  return owned;
}

static void
notifications_start (Notifications *n)
{
  const GDBusInterfaceVTable vtable = { on_notification_call };
  g_autoptr (GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (notifications_xml, NULL);
  g_autoptr (GError) error = NULL;

  n->bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (n->bus);
  n->server = g_dbus_connection_new_for_address_sync (
      g_test_dbus_get_bus_address (n->bus),
      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
      NULL, NULL, &error);
  g_assert_no_error (error);
  n->object_id = g_dbus_connection_register_object (n->server, "/org/gtk/Notifications",
                                                    node->interfaces[0], &vtable, n, NULL, &error);
  g_assert_no_error (error);
  n->owner_id = g_bus_own_name_on_connection (n->server, "org.gtk.Notifications",
                                              G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
  g_assert_true (ferry_test_ui_wait_until (name_owned, n->server, 5000));

  n->app = GTK_APPLICATION (adw_application_new (APPLICATION_ID ".Test", G_APPLICATION_NON_UNIQUE));
  g_application_register (G_APPLICATION (n->app), NULL, &error);
  g_assert_no_error (error);
}

static gboolean
notified (gpointer data)
{
  return ((Notifications *) data)->last != NULL;
}

/* The first button of notification @n: its label, action and target. */
static void
first_button (GVariant *notification, char **label, char **action, char **target)
{
  g_autoptr (GVariant) buttons = g_variant_lookup_value (notification, "buttons", NULL);
  g_autoptr (GVariant) button = NULL;
  g_autoptr (GVariant) target_value = NULL;

  g_assert_nonnull (buttons);
  g_assert_cmpuint (g_variant_n_children (buttons), ==, 1);
  button = g_variant_get_child_value (buttons, 0);
  g_assert_true (g_variant_lookup (button, "label", "s", label));
  g_assert_true (g_variant_lookup (button, "action", "s", action));
  target_value = g_variant_lookup_value (button, "target", G_VARIANT_TYPE_STRING);
  g_assert_nonnull (target_value);
  *target = g_variant_dup_string (target_value, NULL);
}

/* Item 14: a copy to a removable drive that ends while the window is not
 * in front is notified, with an Eject button that ejects the drive. */
static void
test_notification_offers_eject (Fixture *f, gconstpointer data)
{
  static Notifications n;
  g_autoptr (FerryTestMount) mount = NULL;
  g_autofree char *title = NULL, *body = NULL;
  g_autofree char *label = NULL, *action = NULL, *target = NULL;
  g_autoptr (GFile) root = NULL;
  GtkWidget *elsewhere;

  notifications_start (&n);
  /* The fixture's window has no application: this one has. */
  gtk_window_destroy (GTK_WINDOW (f->w.window));
  f->w.window = ferry_window_new (n.app, f->w.queue, f->w.drives);
  gtk_window_present (GTK_WINDOW (f->w.window));
  ferry_test_ui_wait (200);
  /* The person looks at another window. */
  elsewhere = gtk_window_new ();
  gtk_window_present (GTK_WINDOW (elsewhere));
  ferry_test_ui_wait (300);
  g_assert_false (gtk_window_is_active (GTK_WINDOW (f->w.window)));

  mount = ferry_test_window_plug_in (&f->w, "STICK");
  ferry_test_write_random (ferry_test_path (f->w.src, "a.bin", NULL), 200000, 9);
  copy_to_stick (f, "a.bin");
  g_assert_true (ferry_test_ui_wait_until (notified, &n, 5000));
  g_assert_false (gtk_window_is_active (GTK_WINDOW (f->w.window)));
  g_assert_true (g_variant_lookup (n.last, "title", "s", &title));
  g_assert_true (g_variant_lookup (n.last, "body", "s", &body));
  g_assert_cmpstr (title, ==, "Copy Finished");
  g_assert_cmpstr (body, ==, "All data is on STICK");
  first_button (n.last, &label, &action, &target);
  g_assert_cmpstr (label, ==, "Eject");
  g_assert_cmpstr (action, ==, "app.eject-drive");

  /* What app.eject-drive does with the target. */
  root = g_file_new_for_uri (target);
  g_assert_cmpstr (g_file_peek_path (root), ==, f->w.stick);
  ferry_window_eject_drive (f->w.window, root);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->w.window), "You can now unplug STICK");
  g_assert_cmpuint (ferry_test_mount_get_n_ejects (mount), ==, 1);

  gtk_window_destroy (GTK_WINDOW (elsewhere));
  /* The bus and the application stay to the end of the program: the
   * application holds the bus until it shuts down, which one never run
   * does not; the bus goes with the test program. */
}

/* As root, the test's mounts are its own: they go with it, also when
 * it fails half-way. Before any thread starts (unshare needs that). */
static void
own_mounts (void)
{
  if (getuid () != 0)
    return;
  if (unshare (CLONE_NEWNS) != 0 || mount ("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    g_error ("cannot make a mount namespace for the test: %s", g_strerror (errno));
}

int
main (int argc, char **argv)
{
  own_mounts ();
  ferry_test_ui_init (&argc, &argv);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/ui/states/free-space-refreshed", test_free_space_refreshed);
  ADD ("/ui/states/replugged-rows-reset", test_replugged_rows_reset);
  ADD ("/ui/states/remounted-read-only", test_remounted_read_only);
  ADD ("/ui/states/write-protected-card", test_write_protected_card);
  ADD ("/ui/states/paused-shows-no-rate", test_paused_shows_no_rate);
  g_test_add ("/ui/states/waiting-for-answer-narrow", Fixture, NULL, fixture_set_up_narrow,
              test_waiting_for_answer, fixture_tear_down);
  ADD ("/ui/states/eject-when-done", test_eject_when_done);
  ADD ("/ui/states/notification-offers-eject", test_notification_offers_eject);
  ADD ("/ui/states/no-room-tooltip", test_no_room_tooltip);
  ADD ("/ui/states/no-room-trash", test_no_room_trash);
#undef ADD
  return g_test_run ();
}
