/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "ferry-drive-list.h"
#include "ferry-fake-drive.h"
#include "ferry-fake-file-info.h"
#include "ferry-fake-mount.h"
#include "ferry-fake-volume-monitor.h"
#include "ferry-removable-drive.h"
#include "ferry-test-menu.h"
#include "ferry-test-type-module.h"
#include "ferry-test-util.h"

/*
 * Which mounts Ferry offers to copy to, over every kind of drive it knows
 * (the devices of tests/devices/) and the mounts it must leave out, each
 * made up as a desktop volume monitor presents it; and that the window's
 * drive list and Nautilus's "Send To" menu offer the same ones.
 */

#define SEND_TO         "Send To"
#define COPY_WITH_FERRY "Copy with Ferry…"

/* What udisks2 (through GVfs) says of a USB stick: removable drive and
 * media, ejectable, can be powered off. */
#define STICK_DRIVE                                                                   \
  (FERRY_FAKE_DRIVE_REMOVABLE | FERRY_FAKE_DRIVE_MEDIA_REMOVABLE                      \
   | FERRY_FAKE_DRIVE_CAN_EJECT | FERRY_FAKE_DRIVE_CAN_STOP)
/* A disk on USB whose media is not removable: udisks2 calls the drive
 * removable for the bus it is on, and it can be powered off. */
#define USB_DISK_DRIVE (FERRY_FAKE_DRIVE_REMOVABLE | FERRY_FAKE_DRIVE_CAN_STOP)
#define EJECTABLE      (FERRY_FAKE_MOUNT_CAN_EJECT | FERRY_FAKE_MOUNT_CAN_UNMOUNT)
#define UNMOUNTABLE    FERRY_FAKE_MOUNT_CAN_UNMOUNT

typedef struct
{
  const char *name;
  gboolean on_drive; /* FALSE: on no drive GIO knows */
  FerryFakeDriveFlags drive;
  FerryFakeMountFlags mount;
  const char *uri; /* of the mount's root; NULL for a local folder */
  gboolean shadowed;
  gboolean offered;
} DriveKind;

static const DriveKind drive_kinds[] = {
  /* usb2-stick.umockdev: a SanDisk Cruzer Blade, removable=1, on USB. */
  { .name = "usb2-stick", .on_drive = TRUE, .drive = STICK_DRIVE, .mount = EJECTABLE,
    .offered = TRUE },
  /* usb3-ssd.umockdev, usb-hdd.umockdev: a Samsung T7 and a WD Elements,
   * removable=0, on USB. */
  { .name = "usb3-ssd", .on_drive = TRUE, .drive = USB_DISK_DRIVE, .mount = UNMOUNTABLE,
    .offered = TRUE },
  { .name = "usb-hdd", .on_drive = TRUE, .drive = USB_DISK_DRIVE, .mount = UNMOUNTABLE,
    .offered = TRUE },
  /* sd-card.umockdev: a card in the laptop's reader (mmc), removable=0;
   * udisks2 calls flash cards removable. */
  { .name = "sd-card", .on_drive = TRUE, .drive = FERRY_FAKE_DRIVE_REMOVABLE,
    .mount = UNMOUNTABLE, .offered = TRUE },
  /* luks-on-usb-stick.umockdev: the unlocked filesystem (dm-0) is on the
   * stick's drive. */
  { .name = "luks-on-usb-stick", .on_drive = TRUE, .drive = STICK_DRIVE, .mount = EJECTABLE,
    .offered = TRUE },
  /* nvme.umockdev, sata-ssd.umockdev: internal disks. udisks2 lists a
   * partition of one mounted outside the system's own places, and lets
   * it be unmounted; the drive says it stays. */
  { .name = "nvme", .on_drive = TRUE, .drive = FERRY_FAKE_DRIVE_FIXED, .mount = UNMOUNTABLE,
    .offered = FALSE },
  { .name = "sata-ssd", .on_drive = TRUE, .drive = FERRY_FAKE_DRIVE_FIXED, .mount = UNMOUNTABLE,
    .offered = FALSE },
  /* loop.umockdev: an ext4 image mounted under /media/LABEL, as the UI
   * tests and CI present a stick: on no drive, it can only be unmounted. */
  { .name = "loop", .mount = UNMOUNTABLE, .offered = TRUE },
  /* A stick mounted by hand under /media where no udisks2 runs, as GIO's
   * unix-mount monitor lists it. */
  { .name = "media-mount", .mount = UNMOUNTABLE, .offered = TRUE },
  /* Stands for the same drive as another mount, which is offered. */
  { .name = "shadowed", .on_drive = TRUE, .drive = STICK_DRIVE, .mount = EJECTABLE,
    .shadowed = TRUE, .offered = FALSE },
  /* A phone and a camera through GVfs: no local path to copy to. */
  { .name = "mtp-phone", .on_drive = TRUE, .drive = FERRY_FAKE_DRIVE_CAN_EJECT,
    .mount = EJECTABLE, .uri = "mtp://Phone/", .offered = FALSE },
  { .name = "gphoto2-camera", .mount = EJECTABLE, .uri = "gphoto2://Camera/", .offered = FALSE },
  /* A mount nobody may take away. */
  { .name = "system-mount", .mount = FERRY_FAKE_MOUNT_NONE, .offered = FALSE },
};

/* Loaded for good, as Nautilus loads its extensions. */
static FerryTestTypeModule *module;
static GType provider_type;

typedef struct
{
  char *scratch;
  GList *files; /* NautilusFileInfo: what is selected in Nautilus */
  FerryFakeVolumeMonitor *monitor;
  GMount *mount;
} Fixture;

static GMount *
make_mount (const char *scratch, const DriveKind *kind)
{
  g_autoptr (GDrive) drive = NULL;
  g_autoptr (GFile) root = NULL;

  if (kind->on_drive)
    drive = ferry_fake_drive_new (kind->name, kind->drive);
  if (kind->uri != NULL)
    root = g_file_new_for_uri (kind->uri);
  else
    {
      const char *path = ferry_test_path (scratch, kind->name, NULL);

      ferry_test_make_dirs (path);
      root = g_file_new_for_path (path);
    }
  return ferry_fake_mount_new_full (kind->name, root, drive, kind->mount);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  const DriveKind *kind = data;
  const char *selected;
  g_autoptr (GFile) file = NULL;

  f->scratch = ferry_test_scratch_new ("drive-kind");
  selected = ferry_test_path (f->scratch, "photo.jpg", NULL);
  ferry_test_write_text (selected, "photo");
  file = g_file_new_for_path (selected);
  f->files = g_list_append (NULL, ferry_fake_file_info_new (file));

  f->mount = make_mount (f->scratch, kind);
  if (kind->shadowed)
    g_mount_shadow (f->mount);
  f->monitor = ferry_fake_volume_monitor_new ();
  ferry_fake_volume_monitor_add_mount (f->monitor, f->mount);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_object_unref (f->monitor);
  g_object_unref (f->mount);
  g_list_free_full (f->files, g_object_unref);
  ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
}

/* Drops @object, and waits for it to be gone: what it asked off the main
 * thread (free space) has come back, and nothing of it outlives the test. */
static void
unref_and_wait (gpointer object)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  if (object == NULL)
    return;
  g_object_add_weak_pointer (object, &object);
  g_object_unref (object);
  while (object != NULL && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  g_assert_null (object);
}

/* Whether the window lists @mount among its drives. */
static gboolean
window_offers (GMount *mount)
{
  FerryDriveList *drives = ferry_drive_list_new (NULL);
  FerryDestination *drive;
  guint n_drives;

  ferry_drive_list_add_mount (drives, mount);
  n_drives = g_list_model_get_n_items (G_LIST_MODEL (drives));
  g_assert_cmpuint (n_drives, <=, 1);
  drive = g_list_model_get_item (G_LIST_MODEL (drives), 0);
  g_assert_true (drive == NULL || ferry_destination_get_mount (drive) == mount);
  unref_and_wait (drives);
  unref_and_wait (drive);
  return n_drives == 1;
}

/* Nautilus's menu for the selected file, built now by the extension as
 * built, over the fixture's volume monitor. */
static char *
describe_menu_now (Fixture *f)
{
  NautilusMenuProvider *provider
      = g_object_new (provider_type, "volume-monitor", f->monitor, NULL);
  char *menu = ferry_test_describe_menu (provider, f->files);

  unref_and_wait (provider);
  return menu;
}

/* Whether Nautilus's menu for the selected file sends it to @mount: the
 * extension as built, over a volume monitor that lists @mount alone. */
static gboolean
send_to_offers (Fixture *f, const DriveKind *kind)
{
  g_autofree char *menu = describe_menu_now (f);
  g_autofree char *offered = g_strdup_printf (SEND_TO " {%s}; " COPY_WITH_FERRY, kind->name);

  g_test_message ("The menu: %s", menu);
  /* Before any free space is known: a drive's name stands alone. */
  if (g_strcmp0 (menu, COPY_WITH_FERRY) != 0)
    g_assert_cmpstr (menu, ==, offered);
  return g_strcmp0 (menu, offered) == 0;
}

static void
test_drive_kind (Fixture *f, gconstpointer data)
{
  const DriveKind *kind = data;
  gboolean in_window = window_offers (f->mount);
  gboolean in_send_to = send_to_offers (f, kind);

  g_test_message ("%s: the window %s, Send To %s", kind->name,
                  in_window ? "offers it" : "leaves it out",
                  in_send_to ? "offers it" : "leaves it out");
  g_assert_cmpint (in_window, ==, in_send_to);
  g_assert_cmpint (in_window, ==, kind->offered);
  g_assert_cmpint (ferry_mount_is_removable_drive (f->mount), ==, kind->offered);
}

/* The drives @drives lists, by name: "A; B". */
static char *
describe_window (FerryDriveList *drives)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (drives)); i++)
    {
      g_autoptr (FerryDestination) drive = g_list_model_get_item (G_LIST_MODEL (drives), i);

      g_string_append_printf (out, "%s%s", i > 0 ? "; " : "", ferry_destination_get_name (drive));
    }
  return g_string_free (out, FALSE);
}

/* The drives Send To lists in @menu ("Send To {A; B}; Copy with
 * Ferry…"), as describe_window() puts them. */
static char *
send_to_drives (const char *menu)
{
  const char *start = strstr (menu, SEND_TO " {");
  const char *end;

  if (start == NULL)
    return g_strdup ("");
  start += strlen (SEND_TO " {");
  end = strchr (start, '}');
  g_assert_nonnull (end);
  return g_strndup (start, (gsize) (end - start));
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_utf8_collate (*(const char *const *) a, *(const char *const *) b);
}

/* What both should list: the kinds offered, by name. */
static char *
expected_drives (void)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (drive_kinds); i++)
    if (drive_kinds[i].offered)
      g_ptr_array_add (names, (gpointer) drive_kinds[i].name);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv ("; ", (char **) names->pdata);
}

/* Every kind of drive plugged in at once, in the order of the table
 * (not by name): the window's list and Send To name the same drives in
 * the same order, by name. */
static void
test_all_kinds_at_once (void)
{
  g_autofree char *scratch = ferry_test_scratch_new ("drive-kind");
  g_autoptr (GFile) photo = NULL;
  GList *files;
  FerryFakeVolumeMonitor *monitor = ferry_fake_volume_monitor_new ();
  FerryDriveList *drives;
  NautilusMenuProvider *provider;
  g_autofree char *menu = NULL, *in_window = NULL, *in_send_to = NULL, *expected = NULL;

  ferry_test_write_text (ferry_test_path (scratch, "photo.jpg", NULL), "photo");
  photo = g_file_new_for_path (ferry_test_path (scratch, "photo.jpg", NULL));
  files = g_list_append (NULL, ferry_fake_file_info_new (photo));
  for (guint i = 0; i < G_N_ELEMENTS (drive_kinds); i++)
    {
      g_autoptr (GMount) mount = make_mount (scratch, &drive_kinds[i]);

      if (drive_kinds[i].shadowed)
        g_mount_shadow (mount);
      ferry_fake_volume_monitor_add_mount (monitor, mount);
    }
  drives = ferry_drive_list_new (G_VOLUME_MONITOR (monitor));
  provider = g_object_new (provider_type, "volume-monitor", monitor, NULL);
  menu = ferry_test_describe_menu (provider, files);
  in_window = describe_window (drives);
  in_send_to = send_to_drives (menu);
  expected = expected_drives ();

  g_test_message ("The window: %s; Send To: %s", in_window, in_send_to);
  g_assert_cmpstr (in_send_to, ==, in_window);
  g_assert_cmpstr (in_window, ==, expected);
  unref_and_wait (provider);
  unref_and_wait (drives);
  g_object_unref (monitor);
  g_list_free_full (files, g_object_unref);
  ferry_test_remove_tree (scratch);
}

/* Whether the window's list, following @monitor, and Send To, asked now,
 * both offer the drive @name; fails the test if they disagree. */
static gboolean
both_offer (FerryDriveList *drives, Fixture *f, const char *name)
{
  g_autofree char *menu = describe_menu_now (f);
  g_autofree char *in_send_to = send_to_drives (menu);
  g_autofree char *in_window = describe_window (drives);

  g_test_message ("The window: {%s}; Send To: {%s}", in_window, in_send_to);
  g_assert_cmpstr (in_window, ==, in_send_to);
  return g_strcmp0 (in_window, name) == 0;
}

/* A drive listed, then shadowed by another mount of the same drive
 * while mounted, then not any more: the window follows the volume
 * monitor's "mount-changed" as Send To does, each time. */
static void
test_drive_kind_changes (Fixture *f, gconstpointer data)
{
  const DriveKind *kind = data;
  FerryDriveList *drives = ferry_drive_list_new (G_VOLUME_MONITOR (f->monitor));

  g_assert_true (both_offer (drives, f, kind->name));
  g_mount_shadow (f->mount);
  ferry_fake_volume_monitor_change_mount (f->monitor, f->mount);
  g_assert_false (both_offer (drives, f, kind->name));
  g_mount_unshadow (f->mount);
  ferry_fake_volume_monitor_change_mount (f->monitor, f->mount);
  g_assert_true (both_offer (drives, f, kind->name));
  unref_and_wait (drives);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  module = ferry_test_type_module_load_ferry (&provider_type);
  g_assert_true (g_type_is_a (provider_type, NAUTILUS_TYPE_MENU_PROVIDER));

  for (guint i = 0; i < G_N_ELEMENTS (drive_kinds); i++)
    {
      g_autofree char *path = g_strconcat ("/drive-kind/", drive_kinds[i].name, NULL);

      g_test_add (path, Fixture, &drive_kinds[i], fixture_set_up, test_drive_kind,
                  fixture_tear_down);
    }
  g_test_add_func ("/drive-kind/all-at-once", test_all_kinds_at_once);
  g_test_add ("/drive-kind/shadowed-while-listed", Fixture, &drive_kinds[0], fixture_set_up,
              test_drive_kind_changes, fixture_tear_down);
  return g_test_run ();
}
