/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every way into the window, under Xvfb, and the small things a person
 * expects of it: drives that keep their places when plugged in again.
 * Drives are made up (FerryTestMount) over scratch folders. */
#include "config.h"

#include <string.h>

#include "ferry-destination-row.h"
#include "ferry-drive-list.h"
#include "ferry-test-ui.h"
#include "ferry-test-util.h"
#include "ferry-window.h"

typedef FerryTestWindow Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  ferry_test_window_set_up (f, "ui-ways", "STICK", 660, 660);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  ferry_test_window_tear_down (f);
}

/* A made-up drive called @name over a folder of its own, @folder. */
static FerryTestMount *
plug_in (Fixture *f, const char *name, const char *folder)
{
  const char *root = ferry_test_path (f->scratch, folder, NULL);
  FerryTestMount *mount;

  ferry_test_make_dirs (root);
  mount = ferry_test_mount_new (name, root);
  ferry_drive_list_add_mount (f->drives, G_MOUNT (mount));
  ferry_test_ui_wait (100);
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

int
main (int argc, char **argv)
{
  ferry_test_ui_init (&argc, &argv);
  ferry_engine_init ();

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/ui-ways/drive-order", test_drive_order);
#undef ADD
  return g_test_run ();
}
