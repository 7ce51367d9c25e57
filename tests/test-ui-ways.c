/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every way into the window, under Xvfb: Add Files…, Add Folders… and
 * Paste onto the drive selected with the keyboard, the shortcuts (and
 * their window), quitting; and the small things a person expects of it:
 * drives that keep their places when plugged in again, a window that
 * keeps its size, finished transfers and recent folders that can be
 * cleared. Drives are made up (FerryTestMount) over scratch folders; keys
 * are pressed for real (xdotool), and files are copied to the clipboard
 * by another program, as a file manager would. The window is Ferry's
 * application's, for its shortcuts. */
#include "config.h"

#include <gdk/x11/gdkx.h>
#include <string.h>

#include "ferry-application.h"
#include "ferry-destination-row.h"
#include "ferry-drive-list.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-transfer-row.h"
#include "ferry-window.h"

typedef FerryTestWindow Fixture;

/* Registered once, on the test's own bus: its shortcuts are the
 * window's. */
static FerryApplication *app;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (f, "ui-ways", "STICK", 660, 660);
  gtk_window_set_application (GTK_WINDOW (f->window), GTK_APPLICATION (app));
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

static void
save_dialog_screenshot (GtkWindow *dialog, const char *name)
{
  ferry_test_ui_save_screenshot (GTK_WIDGET (dialog), name);
}

/* A made-up drive called @name over a folder of its own, @folder. */
static FerryTestMount *
plug_in (Fixture *f, const char *name, const char *folder)
{
  const char *root = ferry_test_path (f->scratch, folder, NULL);
  FerryTestMount *mount;

  ferry_test_make_dirs (root);
  mount = ferry_test_ui_plug_in (f->drives, name, root);
  return mount;
}

static void
unplug (Fixture *f, FerryTestMount *mount)
{
  ferry_drive_list_remove_mount (f->drives, G_MOUNT (mount));
  ferry_test_ui_wait (100);
}

/* The drives as the window shows them, top to bottom, and where each
 * one's files are: "Backup (b); SD Card (sd)". */
static char *
describe_drive_rows (Fixture *f)
{
  GtkWidget *list = ferry_test_ui_find (GTK_WIDGET (f->window), GTK_TYPE_LIST_BOX, "drive-list");
  GString *out = g_string_new (NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (FERRY_IS_DESTINATION_ROW (row))
      {
        FerryDestination *drive
            = ferry_destination_row_get_destination (FERRY_DESTINATION_ROW (row));
        g_autofree char *folder = g_file_get_basename (ferry_destination_get_root (drive));

        g_string_append_printf (out, "%s%s (%s)", out->len > 0 ? "; " : "",
                                ferry_destination_get_name (drive), folder);
      }
  return g_string_free (out, FALSE);
}

static void
assert_drive_rows (Fixture *f, const char *expected)
{
  g_autofree char *rows = describe_drive_rows (f);

  g_assert_cmpstr (rows, ==, expected);
}

/* Drives are listed by name, then by when they were plugged in: one
 * pulled out and plugged in again comes back to its place, not to the
 * end; of two sticks called alike, the one plugged in again goes last. */
static void
test_drive_order (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) sd = plug_in (f, "SD Card", "sd");
  g_autoptr (FerryTestMount) backup = plug_in (f, "Backup", "b");
  g_autoptr (FerryTestMount) cruzer = plug_in (f, "SanDisk Cruzer", "cruzer");
  g_autoptr (FerryTestMount) first = plug_in (f, "STICK", "one");
  g_autoptr (FerryTestMount) second = plug_in (f, "STICK", "two");

  /* LC_ALL=C.UTF-8: names sort as their characters do. */
  assert_drive_rows (f, "Backup (b); SD Card (sd); STICK (one); STICK (two); "
                        "SanDisk Cruzer (cruzer)");

  unplug (f, backup);
  unplug (f, sd);
  assert_drive_rows (f, "STICK (one); STICK (two); SanDisk Cruzer (cruzer)");
  g_clear_object (&sd);
  sd = plug_in (f, "SD Card", "sd");
  ferry_drive_list_add_mount (f->drives, G_MOUNT (backup));
  ferry_test_ui_wait (100);
  assert_drive_rows (f, "Backup (b); SD Card (sd); STICK (one); STICK (two); "
                        "SanDisk Cruzer (cruzer)");

  unplug (f, first);
  ferry_drive_list_add_mount (f->drives, G_MOUNT (first));
  ferry_test_ui_wait (100);
  assert_drive_rows (f, "Backup (b); SD Card (sd); STICK (two); STICK (one); "
                        "SanDisk Cruzer (cruzer)");
}

/* ------------------------------------------------------------------ */
/* The drive files are added to                                        */

static GtkListBox *
drive_list (Fixture *f)
{
  return GTK_LIST_BOX (
      ferry_test_ui_find (GTK_WIDGET (f->window), GTK_TYPE_LIST_BOX, "drive-list"));
}

/* The name of the drive selected in the list, NULL for none. */
static const char *
selected_drive (Fixture *f)
{
  GtkListBoxRow *row = gtk_list_box_get_selected_row (drive_list (f));

  if (row == NULL || !FERRY_IS_DESTINATION_ROW (row))
    return NULL;
  return ferry_destination_get_name (
      ferry_destination_row_get_destination (FERRY_DESTINATION_ROW (row)));
}

/* Whether the row of the drive @name shows the check mark. */
static gboolean
check_mark_shown (Fixture *f, const char *name)
{
  g_autoptr (GList) images = ferry_test_ui_find_all (
      GTK_WIDGET (ferry_test_window_drive_row (f, name)), GTK_TYPE_IMAGE);

  for (GList *l = images; l != NULL; l = l->next)
    if (gtk_widget_get_mapped (l->data)
        && g_strcmp0 (gtk_image_get_icon_name (l->data), "object-select-symbolic") == 0)
      return TRUE;
  return FALSE;
}

/* The drive @name is the one selected, and the only one marked so. */
static void
assert_selected (Fixture *f, const char *name, const char *const *others)
{
  g_assert_cmpstr (selected_drive (f), ==, name);
  g_assert_true (check_mark_shown (f, name));
  for (guint i = 0; others[i] != NULL; i++)
    g_assert_false (check_mark_shown (f, others[i]));
}

static gboolean
focus_in_drive_list (Fixture *f)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  return focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (drive_list (f)));
}

/* Tab, as often as it takes, into the drive list. */
static void
tab_to_drive_list (Fixture *f)
{
  for (guint i = 0; i < 12 && !focus_in_drive_list (f); i++)
    ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Tab");
  g_assert_true (focus_in_drive_list (f));
}

static gboolean
skip_without_keyboard (void)
{
  if (ferry_test_ui_can_press_keys ())
    return FALSE;
  g_test_skip ("pressing keys needs X11 and xdotool");
  return TRUE;
}

/* Without a mouse: Tab into the drive list, the arrows move the
 * selection (shown by a check mark), Space and Enter keep it. The first
 * drive is selected until then, and again when the selected one goes. */
static void
test_keyboard_selects_drive (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "Beta", "b");
  g_autoptr (FerryTestMount) gamma = plug_in (f, "Gamma", "c");

  if (skip_without_keyboard ())
    return;
  assert_selected (f, "Alpha", (const char *[]){ "Beta", "Gamma", NULL });
  tab_to_drive_list (f);
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Down");
  assert_selected (f, "Beta", (const char *[]){ "Alpha", "Gamma", NULL });
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Down");
  assert_selected (f, "Gamma", (const char *[]){ "Alpha", "Beta", NULL });
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Up");
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "space");
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Return");
  assert_selected (f, "Beta", (const char *[]){ "Alpha", "Gamma", NULL });
  save_screenshot (f, "drive-selected.png");

  unplug (f, beta);
  assert_selected (f, "Alpha", (const char *[]){ "Gamma", NULL });
}

/* Selects the drive @n rows below the first with the keyboard. */
static void
select_drive_with_keys (Fixture *f, guint n)
{
  tab_to_drive_list (f);
  for (guint i = 0; i < n; i++)
    ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Down");
}

/* @keys pressed until the focus leaves the drive list (at most 8 times),
 * the drive @name staying selected at each press. */
static void
press_out_of_drive_list (Fixture *f, const char *keys, const char *name, const char *const *others)
{
  for (guint i = 0; i < 8 && focus_in_drive_list (f); i++)
    {
      ferry_test_ui_press_keys (GTK_WINDOW (f->window), keys);
      assert_selected (f, name, others);
    }
  g_assert_false (focus_in_drive_list (f));
}

/* Tab moves the focus through the drive list, to each row and its Eject
 * button and on past the list, without choosing a drive: the check mark
 * stays where the arrows put it, on the way there and back with
 * Shift+Tab (before, the row Tab came to was chosen, and a person who
 * tabbed past the list to Choose Folder… added files to the last drive).
 * Enter on a row Tab came to chooses it. */
static void
test_tab_keeps_drive (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "Beta", "b");
  g_autoptr (FerryTestMount) gamma = plug_in (f, "Gamma", "c");
  GtkWidget *gamma_row = GTK_WIDGET (ferry_test_window_drive_row (f, "Gamma"));
  const char *const not_beta[] = { "Alpha", "Gamma", NULL };

  if (skip_without_keyboard ())
    return;
  select_drive_with_keys (f, 1);
  assert_selected (f, "Beta", not_beta);
  press_out_of_drive_list (f, "Tab", "Beta", not_beta);
  save_screenshot (f, "tab-past-drives.png");
  press_out_of_drive_list (f, "shift+Tab", "Beta", not_beta);

  tab_to_drive_list (f);
  for (guint i = 0; i < 4 && !gtk_widget_has_focus (gamma_row); i++)
    ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Tab");
  g_assert_true (gtk_widget_has_focus (gamma_row));
  assert_selected (f, "Beta", not_beta);
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Return");
  assert_selected (f, "Gamma", (const char *[]){ "Alpha", "Beta", NULL });
  /* The arrows go on from the row Tab came to: back to Beta's row (by
   * its Eject button), and Up chooses Alpha. */
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "shift+Tab");
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "shift+Tab");
  assert_selected (f, "Gamma", (const char *[]){ "Alpha", "Beta", NULL });
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "Up");
  assert_selected (f, "Alpha", (const char *[]){ "Beta", "Gamma", NULL });
}

/* ------------------------------------------------------------------ */
/* Add Files… and Add Folders…                                         */

typedef struct
{
  Fixture *f;
  GType type;
} DialogWait;

static gboolean
dialog_shown (gpointer data)
{
  DialogWait *wait = data;
  GtkWindow *dialog = ferry_test_ui_find_dialog (GTK_WINDOW (wait->f->window));

  return dialog != NULL && G_TYPE_CHECK_INSTANCE_TYPE (dialog, wait->type);
}

/* The window of @type opened over the fixture's, once laid out. */
static GtkWindow *
wait_for_window_of_type (Fixture *f, GType type)
{
  DialogWait wait = { f, type };

  g_assert_true (ferry_test_ui_wait_until (dialog_shown, &wait, 10000));
  ferry_test_ui_wait (300);
  return ferry_test_ui_find_dialog (GTK_WINDOW (f->window));
}

/* The file chooser the window opened: with no portal, GTK's own dialog
 * stands in for the desktop's. */
static GtkWindow *
wait_for_chooser (Fixture *f)
{
  return wait_for_window_of_type (f, GTK_TYPE_FILE_CHOOSER);
}

static guint
n_chosen (GtkWindow *dialog)
{
  g_autoptr (GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));

  return g_list_model_get_n_items (files);
}

static void
press_add (GtkWindow *dialog)
{
  g_autoptr (GList) buttons = ferry_test_ui_find_all (GTK_WIDGET (dialog), GTK_TYPE_BUTTON);

  for (GList *l = buttons; l != NULL; l = l->next)
    if (g_strcmp0 (gtk_button_get_label (l->data), "_Add") == 0)
      {
        gtk_widget_activate (l->data);
        return;
      }
  g_error ("the chooser has no _Add button");
}

/* Opens @folder in the chooser, selects all it lists with Ctrl+A, as a
 * person picking several would, and presses _Add. The folder is loaded
 * in the background: Ctrl+A is pressed again until all @n_wanted are. */
static void
choose_all_in (GtkWindow *dialog, const char *folder, guint n_wanted)
{
  g_autoptr (GFile) where = g_file_new_for_path (folder);
  g_autoptr (GError) error = NULL;

  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), where, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 20 && n_chosen (dialog) != n_wanted; i++)
    {
      ferry_test_ui_wait (200);
      ferry_test_ui_press_keys (dialog, "ctrl+a");
    }
  g_assert_cmpuint (n_chosen (dialog), ==, n_wanted);
  press_add (dialog);
}

/* Ctrl+O: several files chosen at once go to the drive selected. */
static void
test_add_files (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "Beta", "b");
  GtkWindow *chooser;

  if (skip_without_keyboard ())
    return;
  ferry_test_make_dirs (ferry_test_path (f->src, "pick", NULL));
  ferry_test_write_random (ferry_test_path (f->src, "pick", "photo.jpg", NULL), 300000, 51);
  ferry_test_write_text (ferry_test_path (f->src, "pick", "notes.txt", NULL), "notes");
  ferry_test_write_text (ferry_test_path (f->src, "left.txt", NULL), "not chosen");
  select_drive_with_keys (f, 1);

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "ctrl+o");
  chooser = wait_for_chooser (f);
  g_assert_cmpstr (gtk_window_get_title (chooser), ==, "Add Files to Beta");
  save_dialog_screenshot (chooser, "add-files.png");
  choose_all_in (chooser, ferry_test_path (f->src, "pick", NULL), 2);

  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on Beta");
  ferry_test_assert_files_equal (ferry_test_path (f->src, "pick", "photo.jpg", NULL),
                                 ferry_test_path (f->scratch, "b", "photo.jpg", NULL));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "pick", "notes.txt", NULL),
                                 ferry_test_path (f->scratch, "b", "notes.txt", NULL));
  g_assert_false (g_file_test (ferry_test_path (f->scratch, "b", "left.txt", NULL),
                               G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (ferry_test_path (f->scratch, "a", "photo.jpg", NULL),
                               G_FILE_TEST_EXISTS));
}

/* src/folders/: Album/2024/sea.png and Docs/letter.txt. */
static char *
make_folders (Fixture *f)
{
  char *folders = g_build_filename (f->src, "folders", NULL);

  ferry_test_make_dirs (ferry_test_path (folders, "Album", "2024", NULL));
  ferry_test_write_random (ferry_test_path (folders, "Album", "2024", "sea.png", NULL), 80000, 52);
  ferry_test_make_dirs (ferry_test_path (folders, "Docs", NULL));
  ferry_test_write_text (ferry_test_path (folders, "Docs", "letter.txt", NULL), "Dear…");
  ferry_test_write_text (ferry_test_path (f->src, "left.txt", NULL), "not chosen");
  return folders;
}

static void
assert_folders_on (Fixture *f, const char *folders, const char *drive_folder)
{
  ferry_test_assert_trees_equal (ferry_test_path (folders, "Album", NULL),
                                 ferry_test_path (f->scratch, drive_folder, "Album", NULL),
                                 FERRY_TEST_COMPARE_ALL);
  ferry_test_assert_trees_equal (ferry_test_path (folders, "Docs", NULL),
                                 ferry_test_path (f->scratch, drive_folder, "Docs", NULL),
                                 FERRY_TEST_COMPARE_ALL);
  g_assert_false (g_file_test (ferry_test_path (f->scratch, drive_folder, "left.txt", NULL),
                               G_FILE_TEST_EXISTS));
}

/* Shift+Ctrl+O: several folders chosen at once, with all they hold. */
static void
test_add_folders (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "Beta", "b");
  g_autofree char *folders = NULL;
  GtkWindow *chooser;

  if (skip_without_keyboard ())
    return;
  folders = make_folders (f);
  ferry_test_write_text (ferry_test_path (folders, "loose.txt", NULL), "a file");
  select_drive_with_keys (f, 1);

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "shift+ctrl+o");
  chooser = wait_for_chooser (f);
  g_assert_cmpstr (gtk_window_get_title (chooser), ==, "Add Folders to Beta");
  /* A folder chooser lists folders only. */
  choose_all_in (chooser, folders, 2);

  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on Beta");
  assert_folders_on (f, folders, "b");
}

/* With no drive plugged in, files added wait for a destination. */
static void
test_add_files_without_drive (Fixture *f, gconstpointer data)
{
  g_autolist (GFile) more = NULL;
  GtkWindow *chooser;

  if (skip_without_keyboard ())
    return;
  ferry_test_make_dirs (ferry_test_path (f->src, "pick", NULL));
  ferry_test_write_text (ferry_test_path (f->src, "pick", "a.txt", NULL), "a");
  ferry_test_write_text (ferry_test_path (f->src, "pick", "b.txt", NULL), "b");

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "ctrl+o");
  chooser = wait_for_chooser (f);
  g_assert_cmpstr (gtk_window_get_title (chooser), ==, "Add Files");
  choose_all_in (chooser, ferry_test_path (f->src, "pick", NULL), 2);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window),
                                   "2 items are ready to copy: choose a drive or a folder");

  /* Files opened in Ferry again (`ferry FILE…`) join those waiting,
   * each once. */
  ferry_test_write_text (ferry_test_path (f->src, "c.txt", NULL), "c");
  more = g_list_append (more, g_file_new_for_path (ferry_test_path (f->src, "pick", "b.txt", NULL)));
  more = g_list_append (more, g_file_new_for_path (ferry_test_path (f->src, "c.txt", NULL)));
  ferry_window_stage (f->window, more);
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window),
                                   "3 items are ready to copy: choose a drive or a folder");
}

/* ------------------------------------------------------------------ */
/* Paste                                                               */

typedef struct
{
  Fixture *f;
  const char *format;
} ClipboardWait;

static gboolean
clipboard_holds (gpointer data)
{
  ClipboardWait *wait = data;
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (wait->f->window));

  return gdk_content_formats_contain_mime_type (gdk_clipboard_get_formats (clipboard),
                                                wait->format);
}

/* Another program copies @paths as @format, as a file manager would,
 * and holds the clipboard until it is stopped; returns once the window
 * sees what it holds. */
static GSubprocess *
copy_in_another_program (Fixture *f, const char *format, const char *const *paths)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *line = NULL;
  ClipboardWait wait = { f, format };
  GSubprocess *process;

  g_ptr_array_add (argv, (gpointer) g_getenv ("FERRY_CLIPBOARD_SOURCE"));
  g_ptr_array_add (argv, (gpointer) format);
  for (guint i = 0; paths[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) paths[i]);
  g_ptr_array_add (argv, NULL);
  process = ferry_test_ui_spawn ((const char *const *) argv->pdata, &line);
  g_assert_cmpstr (line, ==, "ready");
  g_assert_true (ferry_test_ui_wait_until (clipboard_holds, &wait, 10000));
  return process;
}

static gboolean
skip_without_clipboard_source (void)
{
  if (skip_without_keyboard ())
    return TRUE;
  if (g_getenv ("FERRY_CLIPBOARD_SOURCE") != NULL)
    return FALSE;
  g_test_skip ("FERRY_CLIPBOARD_SOURCE names no program to copy files with");
  return TRUE;
}

/* Ctrl+V of a folder and a file copied in a file manager, as @format
 * (the test's data), lands on the drive selected. */
static void
test_paste (Fixture *f, gconstpointer data)
{
  const char *format = data;
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "Beta", "b");
  g_autofree char *folders = NULL;
  g_autofree char *album = NULL, *letter = NULL;
  g_autoptr (GSubprocess) source = NULL;

  if (skip_without_clipboard_source ())
    return;
  folders = make_folders (f);
  album = g_build_filename (folders, "Album", NULL);
  letter = g_build_filename (folders, "Docs", "letter.txt", NULL);
  source = copy_in_another_program (f, format, (const char *[]){ album, letter, NULL });
  select_drive_with_keys (f, 1);

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "ctrl+v");
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window), "All data is on Beta");
  ferry_test_assert_trees_equal (album, ferry_test_path (f->scratch, "b", "Album", NULL),
                                 FERRY_TEST_COMPARE_ALL);
  ferry_test_assert_files_equal (letter, ferry_test_path (f->scratch, "b", "letter.txt", NULL));
  g_assert_false (g_file_test (ferry_test_path (f->scratch, "a", "Album", NULL),
                               G_FILE_TEST_EXISTS));
  g_subprocess_force_exit (source);
}

/* Text on the clipboard is no files: the window says so. */
static void
test_paste_text (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (GSubprocess) source = NULL;

  if (skip_without_clipboard_source ())
    return;
  ferry_test_write_text (ferry_test_path (f->src, "a.txt", NULL), "a");
  source = copy_in_another_program (
      f, "text/plain", (const char *[]){ ferry_test_path (f->src, "a.txt", NULL), NULL });

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "ctrl+v");
  ferry_test_ui_assert_label_soon (GTK_WIDGET (f->window),
                                   "There are no files to paste: copy files or folders first");
  g_assert_false (g_file_test (ferry_test_path (f->scratch, "a", "a.txt", NULL),
                               G_FILE_TEST_EXISTS));
  g_subprocess_force_exit (source);
}

/* ------------------------------------------------------------------ */
/* The keyboard                                                        */

/* What the shortcuts window lists: "Title: keys; …". */
static char *
describe_shortcuts (GtkWindow *shortcuts)
{
  g_autoptr (GList) rows
      = ferry_test_ui_find_all (GTK_WIDGET (shortcuts), GTK_TYPE_SHORTCUTS_SHORTCUT);
  GString *out = g_string_new (NULL);

  /* Its search page holds copies of them, not shown. */
  for (GList *l = rows; l != NULL; l = l->next)
    {
      GtkWidget *label = ferry_test_ui_find (l->data, GTK_TYPE_SHORTCUT_LABEL, NULL);
      g_autofree char *title = NULL;

      if (!gtk_widget_get_mapped (l->data))
        continue;
      g_object_get (l->data, "title", &title, NULL);
      g_string_append_printf (out, "%s%s: %s", out->len > 0 ? "; " : "", title,
                              gtk_shortcut_label_get_accelerator (GTK_SHORTCUT_LABEL (label)));
    }
  return g_string_free (out, FALSE);
}

/* Ctrl+? opens the shortcuts window, which lists every way in with the
 * keys that do it; so does F1. (It said "and help", which Ferry has
 * none of, and left out F10.) */
static void
test_shortcuts_window (Fixture *f, gconstpointer data)
{
  const char *const keys[] = { "ctrl+question", "F1" };

  if (skip_without_keyboard ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkWindow *shortcuts;
      g_autofree char *listed = NULL;

      ferry_test_ui_press_keys (GTK_WINDOW (f->window), keys[i]);
      shortcuts = wait_for_window_of_type (f, GTK_TYPE_SHORTCUTS_WINDOW);
      listed = describe_shortcuts (shortcuts);
      g_assert_cmpstr (listed, ==,
                       "Add files to the selected drive: <Control>o; "
                       "Add folders to the selected drive: <Shift><Control>o; "
                       "Paste files copied in a file manager: <Control>v; "
                       "Select another drive: Up Down; "
                       "Keyboard shortcuts: <Control>question F1; "
                       "Open the main menu: F10; "
                       "Close the window: <Control>w; Quit: <Control>q");
      if (i == 0)
        save_dialog_screenshot (shortcuts, "shortcuts.png");
      gtk_window_close (shortcuts);
      ferry_test_ui_wait (200);
    }
}

/* Main menu ▸ About Ferry: the window opens over Ferry's, with the
 * project's pages, and credits no translator in English (an untranslated
 * "translator-credits" given to it was a critical warning, which ends
 * a program run with G_DEBUG=fatal-criticals). */
static void
test_about (Fixture *f, gconstpointer data)
{
  AdwAboutWindow *about;

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  about = ADW_ABOUT_WINDOW (wait_for_window_of_type (f, ADW_TYPE_ABOUT_WINDOW));
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (about)) == GTK_WINDOW (f->window));
  g_assert_cmpstr (adw_about_window_get_application_name (about), ==, "Ferry");
  g_assert_cmpstr (adw_about_window_get_version (about), ==, PACKAGE_VERSION);
  g_assert_cmpstr (adw_about_window_get_website (about), ==, "https://github.com/ferrycopy/ferry");
  g_assert_cmpstr (adw_about_window_get_issue_url (about), ==,
                   "https://github.com/ferrycopy/ferry/issues");
  g_assert_cmpstr (adw_about_window_get_translator_credits (about), ==, NULL);
  save_dialog_screenshot (GTK_WINDOW (about), "about.png");
  gtk_window_close (GTK_WINDOW (about));
  ferry_test_ui_wait (200);
}

static FerryJob *
only_job (Fixture *f)
{
  g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (f->queue), 0);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->queue)), ==, 1);
  return job;
}

static gboolean
weak_pointer_cleared (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Keeps an eye on the fixture's window, which is to go. */
static void
watch_window (Fixture *f, gpointer *window)
{
  *window = f->window;
  g_object_add_weak_pointer (*window, window);
}

/* Waits for the window watched to be gone, then gives the fixture a
 * window to tear down. */
static void
assert_window_goes (Fixture *f, gpointer *window)
{
  g_assert_true (ferry_test_ui_wait_until (weak_pointer_cleared, window, 10000));
  f->window = ferry_window_new (NULL, f->queue, f->drives);
}

/* Drops a file of @mb MB (@seed) on the drive "Alpha" and holds its
 * copy, paused: the only job. */
static FerryJob *
drop_big_paused (Fixture *f, guint mb, guint seed)
{
  GSList *files;
  FerryJob *job;

  ferry_test_write_random (ferry_test_path (f->src, "big.bin", NULL), mb * 1024 * 1024, seed);
  files = ferry_test_ui_files_in (f->src, "big.bin", NULL);
  g_assert_true (
      ferry_destination_row_drop_files (ferry_test_window_drive_row (f, "Alpha"), files));
  g_slist_free_full (files, g_object_unref);
  job = only_job (f);
  ferry_job_pause (job);
  return job;
}

/* Ctrl+Q while a copy runs asks first, with the question closing the
 * window asks: Keep Copying keeps it all; Stop and Close stops the copy
 * (nothing half-written is left under its name) and the window goes. */
static void
test_quit_asks (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "Alpha", "a");
  GtkWindow *dialog;
  FerryJob *job;
  gpointer window;

  if (skip_without_keyboard ())
    return;
  job = drop_big_paused (f, 64, 53);

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "ctrl+q");
  dialog = ferry_test_ui_wait_for_dialog (GTK_WINDOW (f->window));
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==,
                   "Stop Copying?");
  ferry_test_ui_click_response (dialog, "_Keep Copying");
  ferry_test_ui_wait (200);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (f->window)));
  g_assert_cmpint (ferry_job_get_phase (job), <, FERRY_PHASE_DONE);

  ferry_test_ui_press_keys (GTK_WINDOW (f->window), "ctrl+q");
  dialog = ferry_test_ui_wait_for_dialog (GTK_WINDOW (f->window));
  watch_window (f, &window);
  ferry_test_ui_click_response (dialog, "_Stop and Close");
  assert_window_goes (f, &window);
  g_assert_cmpint (ferry_job_get_phase (job), ==, FERRY_PHASE_CANCELLED);
  g_assert_false (g_file_test (ferry_test_path (f->scratch, "a", "big.bin", NULL),
                               G_FILE_TEST_EXISTS));
}

static gboolean
job_has_ended (gpointer data)
{
  return ferry_job_get_phase (data) >= FERRY_PHASE_DONE;
}

/* A window made after transfers ended (the last one closed while copies
 * ran, and a new one opened to ask) shows each as it ended: a cancelled
 * one read "Copying: 0 bytes of 8.4 MB" with Pause and Cancel, for good,
 * since only the end's signal, long past, said how it ended. */
static void
test_late_window_shows_outcomes (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "Alpha", "a");
  GtkWidget *late;
  FerryTransferRow *row;
  FerryJob *job;

  job = drop_big_paused (f, 8, 54);
  ferry_job_cancel (job);
  g_assert_true (ferry_test_ui_wait_until (job_has_ended, job, 10000));
  ferry_test_ui_wait (200);

  late = GTK_WIDGET (ferry_window_new (NULL, f->queue, f->drives));
  gtk_window_present (GTK_WINDOW (late));
  ferry_test_ui_wait (300);
  row = FERRY_TRANSFER_ROW (ferry_test_ui_find (late, FERRY_TYPE_TRANSFER_ROW, NULL));
  g_assert_nonnull (row);
  g_assert_cmpstr (ferry_transfer_row_get_status (row), ==, "Cancelled");
  gtk_window_destroy (GTK_WINDOW (late));
}

/* A Ferry window of the application other than @going, shown. */
static GtkWindow *
other_window_shown (GtkWindow *going)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (FERRY_IS_WINDOW (l->data) && l->data != going && gtk_widget_get_visible (l->data))
      return l->data;
  return NULL;
}

/* Files handed to Ferry (`ferry FILE`, Nautilus) just after "Stop and
 * Close" go to a new window, not to the one going: that one, hidden
 * while its copies clean up, was shown again with the files, then went,
 * taking them along (or a copy started from it ran with no window). */
static void
test_request_while_closing (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) mount = plug_in (f, "Alpha", "a");
  g_autoptr (GFile) notes = g_file_new_build_filename (f->src, "notes.txt", NULL);
  GtkWindow *dialog, *going = GTK_WINDOW (f->window), *other;
  gpointer window;

  ferry_test_write_text (g_file_peek_path (notes), "notes\n");
  drop_big_paused (f, 8, 55);
  gtk_window_close (going);
  dialog = ferry_test_ui_wait_for_dialog (going);
  watch_window (f, &window);
  /* Answered, and the files come before the copy has cleaned up. */
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "stop");
  gtk_window_destroy (dialog);
  g_application_open (G_APPLICATION (app), &notes, 1, "");
  other = other_window_shown (going);
  g_assert_nonnull (other);
  assert_window_goes (f, &window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (other)));
  gtk_window_destroy (other);
}

/* With nothing being copied, Ctrl+Q quits and Ctrl+W closes the window
 * at once (the keys are the test's data). */
static void
test_keys_close_window (Fixture *f, gconstpointer data)
{
  gpointer window;

  if (skip_without_keyboard ())
    return;
  watch_window (f, &window);
  ferry_test_ui_press_keys (GTK_WINDOW (f->window), data);
  assert_window_goes (f, &window);
}

/* ------------------------------------------------------------------ */
/* What the window keeps and what can be cleared                       */

/* The first mapped button under @root with @label, or @tooltip. */
static GtkWidget *
find_button (GtkWidget *root, const char *label, const char *tooltip)
{
  g_autoptr (GList) buttons = ferry_test_ui_find_all (root, GTK_TYPE_BUTTON);

  for (GList *l = buttons; l != NULL; l = l->next)
    if (gtk_widget_get_mapped (l->data)
        && ((label != NULL && g_strcmp0 (gtk_button_get_label (l->data), label) == 0)
            || (tooltip != NULL
                && g_strcmp0 (gtk_widget_get_tooltip_text (l->data), tooltip) == 0)))
      return l->data;
  return NULL;
}

/* Clicks the button labelled @label (or with @tooltip) under @root. */
static void
click (GtkWidget *root, const char *label, const char *tooltip)
{
  GtkWidget *button = find_button (root, label, tooltip);

  if (button == NULL)
    g_error ("no button “%s” is shown", label != NULL ? label : tooltip);
  g_assert_true (gtk_widget_is_sensitive (button));
  gtk_widget_activate (button);
  /* A button activated shows itself pressed for 250 ms, then clicks. */
  ferry_test_ui_wait (500);
}

/* The window opens at the size it was left at: resized by the person
 * (through the X server, as a window manager would), closed, opened
 * again. */
static void
test_remembers_size (Fixture *f, gconstpointer data)
{
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (f->window));
  g_autofree char *xid = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
  FerryWindow *again;
  int width, height, left_width, left_height;
  gpointer window;

  if (skip_without_keyboard ())
    return;
  ferry_test_ui_xdotool ((const char *[]){ "windowsize", "--sync", xid, "720", "480", NULL });
  ferry_test_ui_wait (300);
  /* The X window holds the client-side frame's edges besides. */
  width = gtk_widget_get_width (GTK_WIDGET (f->window));
  height = gtk_widget_get_height (GTK_WIDGET (f->window));
  g_test_message ("resized to %d×%d", width, height);
  g_assert_cmpint (ABS (width - 720), <=, 20);
  g_assert_cmpint (ABS (height - 480), <=, 20);
  watch_window (f, &window);
  gtk_window_close (GTK_WINDOW (f->window));
  assert_window_goes (f, &window);

  again = ferry_window_new (GTK_APPLICATION (app), f->queue, f->drives);
  gtk_window_present (GTK_WINDOW (again));
  ferry_test_ui_wait (300);
  left_width = gtk_widget_get_width (GTK_WIDGET (again));
  left_height = gtk_widget_get_height (GTK_WIDGET (again));
  gtk_window_destroy (GTK_WINDOW (again));
  g_assert_cmpint (left_width, ==, width);
  g_assert_cmpint (left_height, ==, height);
}

static guint
n_folder_rows (Fixture *f)
{
  GtkWidget *list = ferry_test_ui_find (GTK_WIDGET (f->window), GTK_TYPE_LIST_BOX, "folder-list");
  g_autoptr (GList) rows = ferry_test_ui_find_all (list, FERRY_TYPE_DESTINATION_ROW);

  return g_list_length (rows);
}

/* "Clear Recent" forgets the folders used lately; Choose Folder… stays. */
static void
test_clear_recent_folders (Fixture *f, gconstpointer data)
{
  /* A drive keeps the lists shown when no folder is left. */
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_auto (GStrv) left = NULL;
  const char *folders[] = { "Photos", "Work", NULL };
  g_autoptr (GStrvBuilder) uris = g_strv_builder_new ();
  g_auto (GStrv) recent = NULL;

  for (guint i = 0; folders[i] != NULL; i++)
    {
      g_autoptr (GFile) folder = g_file_new_build_filename (f->scratch, folders[i], NULL);
      g_autofree char *uri = g_file_get_uri (folder);

      ferry_test_make_dirs (g_file_peek_path (folder));
      g_strv_builder_add (uris, uri);
    }
  recent = g_strv_builder_end (uris);
  g_settings_set_strv (settings, "recent-folders", (const char *const *) recent);
  ferry_test_ui_wait (200);
  g_assert_cmpuint (n_folder_rows (f), ==, 2);
  save_screenshot (f, "recent-folders.png");

  click (GTK_WIDGET (f->window), "Clear Recent", NULL);
  g_assert_cmpuint (n_folder_rows (f), ==, 0);
  left = g_settings_get_strv (settings, "recent-folders");
  g_assert_cmpuint (g_strv_length (left), ==, 0);
  g_assert_null (find_button (GTK_WIDGET (f->window), "Clear Recent", NULL));
  g_assert_nonnull (ferry_test_ui_find_label (GTK_WIDGET (f->window), "Choose Folder…"));
}

/* The job of the transfer of @name (a source's name). */
static FerryJob *
job_of (Fixture *f, const char *name)
{
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (f->queue)); i++)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (f->queue), i);
      g_autofree char *source = g_file_get_basename (ferry_job_get_sources (job)->pdata[0]);

      if (g_strcmp0 (source, name) == 0)
        return job;
    }
  return NULL;
}

static gboolean
job_done (gpointer job)
{
  return ferry_job_get_phase (job) == FERRY_PHASE_DONE;
}

/* Drops @name of src/ on the drive @drive and waits for it to be done,
 * unless @pause holds it at its start. */
static FerryJob *
copy_to (Fixture *f, const char *name, const char *drive, gboolean pause)
{
  GSList *files = ferry_test_ui_files_in (f->src, name, NULL);
  FerryJob *job;

  g_assert_true (ferry_destination_row_drop_files (ferry_test_window_drive_row (f, drive), files));
  g_slist_free_full (files, g_object_unref);
  job = job_of (f, name);
  if (pause)
    ferry_job_pause (job);
  else
    g_assert_true (ferry_test_ui_wait_until (job_done, job, 20000));
  return job;
}

static guint
n_transfer_rows (Fixture *f)
{
  g_autoptr (GList) rows
      = ferry_test_ui_find_all (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW);

  return g_list_length (rows);
}

/* "Clear Finished" takes every transfer that ended out of the list and
 * leaves the one still running; a finished one goes alone with its
 * "Remove From List" button. */
static void
test_clear_finished (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "Alpha", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "Beta", "b");
  FerryJob *big;

  ferry_test_write_text (ferry_test_path (f->src, "one.txt", NULL), "one");
  ferry_test_write_text (ferry_test_path (f->src, "two.txt", NULL), "two");
  ferry_test_write_random (ferry_test_path (f->src, "big.bin", NULL), 32 * 1024 * 1024, 54);
  g_assert_null (find_button (GTK_WIDGET (f->window), "Clear Finished", NULL));
  copy_to (f, "one.txt", "Alpha", FALSE);
  copy_to (f, "two.txt", "Beta", FALSE);
  big = copy_to (f, "big.bin", "Beta", TRUE);
  ferry_test_ui_wait (300);
  g_assert_cmpuint (n_transfer_rows (f), ==, 3);
  save_screenshot (f, "clear-finished.png");

  click (GTK_WIDGET (f->window), "Clear Finished", NULL);
  g_assert_cmpuint (n_transfer_rows (f), ==, 1);
  g_assert_true (job_of (f, "big.bin") == big);
  g_assert_null (find_button (GTK_WIDGET (f->window), "Clear Finished", NULL));
  ferry_test_assert_files_equal (ferry_test_path (f->src, "one.txt", NULL),
                                 ferry_test_path (f->scratch, "a", "one.txt", NULL));

  ferry_job_resume (big);
  g_assert_true (ferry_test_ui_wait_until (job_done, big, 30000));
  ferry_test_ui_wait (300);
  click (GTK_WIDGET (ferry_test_ui_find (GTK_WIDGET (f->window), FERRY_TYPE_TRANSFER_ROW, NULL)),
         NULL, "Remove From List");
  g_assert_cmpuint (n_transfer_rows (f), ==, 0);
  ferry_test_assert_files_equal (ferry_test_path (f->src, "big.bin", NULL),
                                 ferry_test_path (f->scratch, "b", "big.bin", NULL));
}

/* At a phone's width and in dark style, every new control is shown and
 * the window still fits: the selected drive's check mark, Add Files…,
 * Clear Finished and Clear Recent. */
static void
test_narrow_and_dark (Fixture *f, gconstpointer data)
{
  g_autoptr (FerryTestMount) alpha = plug_in (f, "SanDisk Cruzer Blade", "a");
  g_autoptr (FerryTestMount) beta = plug_in (f, "SD Card", "b");
  g_autoptr (GSettings) settings = g_settings_new (APPLICATION_ID);
  g_autoptr (GFile) folder = g_file_new_build_filename (f->scratch, "Photos", NULL);
  g_autofree char *uri = g_file_get_uri (folder);
  AdwStyleManager *style = adw_style_manager_get_default ();
  int minimum;

  ferry_test_make_dirs (g_file_peek_path (folder));
  g_settings_set_strv (settings, "recent-folders", (const char *const[]){ uri, NULL });
  ferry_test_write_text (ferry_test_path (f->src, "notes.txt", NULL), "notes");
  copy_to (f, "notes.txt", "SD Card", FALSE);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 360, 720);
  for (guint dark = 0; dark < 2; dark++)
    {
      adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK
                                                      : ADW_COLOR_SCHEME_FORCE_LIGHT);
      ferry_test_ui_wait (500);
      gtk_widget_measure (GTK_WIDGET (f->window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL,
                          NULL, NULL);
      g_assert_cmpint (minimum, <=, 360);
      g_assert_true (check_mark_shown (f, "SanDisk Cruzer Blade"));
      g_assert_nonnull (find_button (GTK_WIDGET (f->window), NULL, "Add Files…"));
      g_assert_nonnull (find_button (GTK_WIDGET (f->window), "Clear Finished", NULL));
      g_assert_nonnull (find_button (GTK_WIDGET (f->window), "Clear Recent", NULL));
      save_screenshot (f, dark ? "narrow-dark.png" : "narrow-light.png");
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  g_settings_reset (settings, "recent-folders");
}

/* A copy that ends while the window is not focused (no window manager
 * gives the focus back after a dialog) is told of in a notification: a
 * desktop has a notification server, and so does the test's bus. */
static void
on_notify_called (GDBusConnection *connection,
                  const char *sender,
                  const char *object_path,
                  const char *interface_name,
                  const char *method_name,
                  GVariant *parameters,
                  GDBusMethodInvocation *invocation,
                  gpointer user_data)
{
  static guint32 last_id;

  if (g_strcmp0 (method_name, "Notify") == 0)
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", ++last_id));
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
serve_notifications (void)
{
  static const char xml[]
      = "<node><interface name='org.freedesktop.Notifications'>"
        "<method name='Notify'><arg type='s'/><arg type='u'/><arg type='s'/><arg type='s'/>"
        "<arg type='s'/><arg type='as'/><arg type='a{sv}'/><arg type='i'/>"
        "<arg type='u' direction='out'/></method>"
        "<method name='CloseNotification'><arg type='u'/></method>"
        "</interface></node>";
  static const GDBusInterfaceVTable vtable = { on_notify_called, NULL, NULL, { 0 } };
  /* The name is the connection's as long as it lives: all the test. */
  static GDBusConnection *bus;
  g_autoptr (GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (xml, NULL);
  g_autoptr (GVariant) reply = NULL;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_assert_nonnull (bus);
  g_dbus_connection_register_object (bus, "/org/freedesktop/Notifications",
                                     node->interfaces[0], &vtable, NULL, NULL, NULL);
  reply = g_dbus_connection_call_sync (
      bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
      "RequestName", g_variant_new ("(su)", "org.freedesktop.Notifications", 0),
      G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  g_assert_nonnull (reply);
}

/* The file chooser remembers the files chosen (recently-used.xbel) and
 * GTK keeps settings: in the test's scratch folder, not the home's. */
static void
keep_desktop_files_in_scratch (void)
{
  const char *scratch = g_getenv ("FERRY_TEST_TMPDIR");
  g_autofree char *home
      = g_build_filename (scratch != NULL ? scratch : g_get_tmp_dir (), "ui-ways-home", NULL);
  const char *const dirs[][2] = {
    { "XDG_DATA_HOME", "data" },
    { "XDG_CONFIG_HOME", "config" },
    { "XDG_CACHE_HOME", "cache" },
  };

  /* What an earlier run chose is not to be offered as recent. */
  if (g_file_test (home, G_FILE_TEST_IS_DIR))
    ferry_test_remove_tree (home);
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *dir = g_build_filename (home, dirs[i][1], NULL);

      g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
      g_setenv (dirs[i][0], dir, TRUE);
    }
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  GTestDBus *bus;
  g_autofree char *display = NULL;
  int status;

  keep_desktop_files_in_scratch ();
  ferry_test_ui_init (&argc, &argv);
  ferry_engine_init ();
  /* A session bus of the test's own, as a desktop has one (copies that
   * end send notifications through it). GTestDBus hides the display
   * from programs started later: xdotool needs it. */
  display = g_strdup (g_getenv ("DISPLAY"));
  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (bus);
  if (display != NULL)
    g_setenv ("DISPLAY", display, TRUE);
  serve_notifications ();
  app = ferry_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/ui-ways/drive-order", test_drive_order);
  ADD ("/ui-ways/keyboard-selects-drive", test_keyboard_selects_drive);
  ADD ("/ui-ways/tab-keeps-drive", test_tab_keeps_drive);
  ADD ("/ui-ways/add-files", test_add_files);
  ADD ("/ui-ways/add-folders", test_add_folders);
  ADD ("/ui-ways/add-files-without-drive", test_add_files_without_drive);
  ADD ("/ui-ways/paste-text", test_paste_text);
  ADD ("/ui-ways/shortcuts-window", test_shortcuts_window);
  ADD ("/ui-ways/about", test_about);
  ADD ("/ui-ways/quit-asks", test_quit_asks);
  ADD ("/ui-ways/late-window-shows-outcomes", test_late_window_shows_outcomes);
  ADD ("/ui-ways/request-while-closing", test_request_while_closing);
  ADD ("/ui-ways/remembers-size", test_remembers_size);
  ADD ("/ui-ways/clear-recent-folders", test_clear_recent_folders);
  ADD ("/ui-ways/clear-finished", test_clear_finished);
  ADD ("/ui-ways/narrow-and-dark", test_narrow_and_dark);
#undef ADD
  g_test_add ("/ui-ways/quit-when-idle", Fixture, "ctrl+q", fixture_set_up,
              test_keys_close_window, fixture_tear_down);
  g_test_add ("/ui-ways/close-window", Fixture, "ctrl+w", fixture_set_up, test_keys_close_window,
              fixture_tear_down);
  g_test_add ("/ui-ways/paste/gnome-copied-files", Fixture, "x-special/gnome-copied-files",
              fixture_set_up, test_paste, fixture_tear_down);
  g_test_add ("/ui-ways/paste/uri-list", Fixture, "text/uri-list", fixture_set_up, test_paste,
              fixture_tear_down);
  status = g_test_run ();
  /* GTK keeps its connection to the bus to the end: the bus is stopped,
   * not waited for (as g_test_dbus_down() would). */
  g_test_dbus_stop (bus);
  return status;
}

