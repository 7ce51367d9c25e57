/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <nautilus-extension.h>

#include "ferry-fake-application.h"
#include "ferry-fake-drive.h"
#include "ferry-fake-file-info.h"
#include "ferry-fake-mount.h"
#include "ferry-fake-volume-monitor.h"
#include "ferry-test-menu.h"
#include "ferry-test-type-module.h"

/*
 * The Nautilus extension as built, loaded the way Nautilus loads it, over
 * made-up drives, with a stand-in for Ferry on a private session bus.
 */

#define FERRY_OBJECT_PATH "/io/github/ferrycopy/Ferry"
#define SEND_TO           "Send To"
#define COPY_WITH_FERRY   "Copy with Ferry…"
#define CRUZER            "SanDisk Cruzer"
#define STICK             "Ölbaum Stick"

static FerryTestTypeModule *module;
static GType provider_type;
static FerryFakeApplication *ferry;

typedef enum
{
  WITH_DRIVES,
  NO_DRIVES,
} Setup;

typedef struct
{
  char *scratch;
  GPtrArray *sources; /* GFile: what is selected */
  GList *files;       /* NautilusFileInfo: the same, as Nautilus hands it over */
  GFile *roots[2];    /* of the Cruzer and the stick */
  GMount *drives[2];
  FerryFakeVolumeMonitor *monitor;
  NautilusMenuProvider *provider;
  guint updates; /* "items-updated" emitted */
  guint seen_updates;
  char *free_before; /* on the drives' filesystem, before the provider asked */
} Fixture;

/* ------------------------------------------------------------------ */
/* Helpers                                                            */

typedef gboolean (*Condition) (gpointer data);

/* Runs the main context until @done; FALSE after 10 s, so a test that
 * waits for something that never comes fails instead of hanging. */
static gboolean
spin_until (Condition done, gpointer data)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!done (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  return TRUE;
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

static char *
make_scratch (void)
{
  const char *parent = g_getenv ("FERRY_TEST_TMPDIR");
  g_autofree char *template = NULL;

  if (parent == NULL)
    parent = g_get_tmp_dir ();
  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  template = g_build_filename (parent, "nautilus-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp (template));
  return g_steal_pointer (&template);
}

static GFile *
make_file (Fixture *f, const char *name, gboolean directory)
{
  g_autofree char *path = g_build_filename (f->scratch, name, NULL);

  if (directory)
    g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  else
    g_assert_true (g_file_set_contents (path, name, -1, NULL));
  return g_file_new_for_path (path);
}

static void
remove_tree (GFile *file)
{
  g_autoptr (GFileEnumerator) children = g_file_enumerate_children (
      file, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFile *child;

  while (children != NULL && g_file_enumerator_iterate (children, NULL, &child, NULL, NULL)
         && child != NULL)
    remove_tree (child);
  g_file_delete (file, NULL, NULL);
}

/* As the menu shows it: "14.2 GB". */
static char *
dup_free_space (GFile *folder)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GFileInfo) info
      = g_file_query_filesystem_info (folder, G_FILE_ATTRIBUTE_FILESYSTEM_FREE, NULL, &error);

  g_assert_no_error (error);
  return g_format_size (g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE));
}

static char *
describe_menu (Fixture *f)
{
  return ferry_test_describe_menu (f->provider, f->files);
}

static char *
fill_in_free_space (const char *pattern, const char *free_space)
{
  GString *menu = g_string_new (pattern);

  g_string_replace (menu, "@FREE@", free_space, 0);
  return g_string_free (menu, FALSE);
}

/* @pattern: the menu expected, with @FREE@ for the free space. The disk
 * under the scratch folder is shared with other tests, so its free space
 * may move while the provider asks: the figure from before or after is
 * right. */
static void
assert_menu_with_free_space (Fixture *f, const char *pattern)
{
  g_autofree char *menu = describe_menu (f);
  g_autofree char *free_after = dup_free_space (f->roots[0]);
  g_autofree char *expected_before = fill_in_free_space (pattern, f->free_before);
  g_autofree char *expected_after = fill_in_free_space (pattern, free_after);

  g_test_message ("The menu: %s", menu);
  if (g_strcmp0 (menu, expected_before) != 0)
    g_assert_cmpstr (menu, ==, expected_after);
}

/* ------------------------------------------------------------------ */
/* Fixture                                                            */

static GMount *
add_mount (Fixture *f, const char *name, GFile *root, GDrive *drive, gboolean can_eject)
{
  g_autoptr (GMount) mount = ferry_fake_mount_new (name, root, drive, can_eject);

  ferry_fake_volume_monitor_add_mount (f->monitor, mount);
  return mount; /* the monitor holds it */
}

/* Mounts that are not removable drives, which the menu must leave out. */
static void
add_other_mounts (Fixture *f)
{
  g_autoptr (GDrive) disk = ferry_fake_drive_new ("Internal Disk", FERRY_FAKE_DRIVE_FIXED);
  g_autoptr (GDrive) card = ferry_fake_drive_new ("Card Reader", FERRY_FAKE_DRIVE_REMOVABLE);
  g_autoptr (GDrive) phone = ferry_fake_drive_new ("Phone", FERRY_FAKE_DRIVE_CAN_EJECT);
  g_autoptr (GFile) system = make_file (f, "system", TRUE);
  g_autoptr (GFile) shadowed = make_file (f, "shadowed", TRUE);
  /* A network share as GIO's volume monitor presents one (gvfs): no
   * local path. A share mounted by hand under /media has one, and looks
   * exactly like a stick mounted by hand: both front ends offer it, which
   * tests/test-drive-kind.c checks. */
  g_autoptr (GFile) share = g_file_new_for_uri ("smb://server/share/");
  g_autoptr (GFile) mtp = g_file_new_for_uri ("mtp://phone/");

  add_mount (f, "System", system, disk, FALSE);
  g_mount_shadow (add_mount (f, "Shadowed", shadowed, card, TRUE));
  add_mount (f, "Phone", mtp, phone, TRUE);
  add_mount (f, "Share", share, NULL, FALSE);
}

static void
add_drives (Fixture *f)
{
  g_autoptr (GDrive) cruzer = ferry_fake_drive_new (CRUZER, FERRY_FAKE_DRIVE_REMOVABLE);

  f->roots[0] = make_file (f, "SanDisk drive", TRUE);
  f->roots[1] = make_file (f, "Ölbaum stick", TRUE);
  f->drives[0] = g_object_ref (add_mount (f, CRUZER, f->roots[0], cruzer, TRUE));
  /* On no drive GIO knows, but it can be ejected. */
  f->drives[1] = g_object_ref (add_mount (f, STICK, f->roots[1], NULL, TRUE));
}

/* Files and a folder, with spaces and letters beyond ASCII in names. */
static void
select_files (Fixture *f)
{
  const char *names[] = { "a.txt", "with space.txt", "Ünïcödé ✓ fïle.txt" };

  f->sources = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_add (f->sources, make_file (f, names[i], FALSE));
  g_ptr_array_add (f->sources, make_file (f, "Folder with späces", TRUE));
  for (guint i = 0; i < f->sources->len; i++)
    f->files
        = g_list_append (f->files, ferry_fake_file_info_new (g_ptr_array_index (f->sources, i)));
}

static void
on_items_updated (NautilusMenuProvider *provider, Fixture *f)
{
  f->updates++;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->scratch = make_scratch ();
  f->monitor = ferry_fake_volume_monitor_new ();
  select_files (f);
  add_other_mounts (f);
  if (GPOINTER_TO_INT (data) == WITH_DRIVES)
    add_drives (f);
  f->free_before = dup_free_space (f->sources->pdata[0]);

  f->provider = g_object_new (provider_type, "volume-monitor", f->monitor, NULL);
  g_signal_connect (f->provider, "items-updated", G_CALLBACK (on_items_updated), f);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) scratch = g_file_new_for_path (f->scratch);

  g_signal_handlers_disconnect_by_data (f->provider, f);
  g_object_unref (f->provider);
  g_object_unref (f->monitor);
  g_list_free_full (f->files, g_object_unref);
  g_ptr_array_unref (f->sources);
  for (guint i = 0; i < G_N_ELEMENTS (f->drives); i++)
    {
      g_clear_object (&f->drives[i]);
      g_clear_object (&f->roots[i]);
    }
  remove_tree (scratch);
  g_free (f->scratch);
  g_free (f->free_before);
}

/* ------------------------------------------------------------------ */
/* The module                                                         */

static void
test_module_types (void)
{
  const GType *types = NULL;
  int n_types = -1;

  ferry_test_type_module_list_types (module, &types, &n_types);
  g_assert_cmpint (n_types, ==, 1);
  g_assert_cmpstr (g_type_name (types[0]), ==, "FerryNautilusProvider");
  g_assert_true (g_type_is_a (types[0], NAUTILUS_TYPE_MENU_PROVIDER));
  g_assert_true (G_TYPE_IS_INSTANTIATABLE (types[0]));
}

/* Nautilus makes providers with no properties: drives then come from
 * the system's volume monitor. */
static void
test_module_default_monitor (void)
{
  g_autoptr (GObject) provider = g_object_new (provider_type, NULL);
  g_autoptr (GVolumeMonitor) system = g_volume_monitor_get ();
  g_autoptr (GVolumeMonitor) monitor = NULL;

  g_object_get (provider, "volume-monitor", &monitor, NULL);
  g_assert_true (monitor == system);
}

/* ------------------------------------------------------------------ */
/* The menu                                                           */

static gboolean
free_space_shown (gpointer data)
{
  Fixture *f = data;
  g_autofree char *menu = NULL;

  if (f->updates == f->seen_updates)
    return FALSE;
  f->seen_updates = f->updates;
  menu = describe_menu (f);
  /* Neither name stands alone any more. */
  return strstr (menu, "{" CRUZER ";") == NULL && strstr (menu, " " STICK "}") == NULL;
}

static void
test_menu_drives (Fixture *f, gconstpointer data)
{
  g_autofree char *first = describe_menu (f);

  /* Nothing ran yet: the free space is not known, and the menu does not
   * wait for it. */
  g_assert_cmpstr (first, ==, SEND_TO " {" CRUZER "; " STICK "}; " COPY_WITH_FERRY);
  g_assert_cmpuint (f->updates, ==, 0);

  g_assert_true (spin_until (free_space_shown, f));
  assert_menu_with_free_space (f, SEND_TO " {" CRUZER " — @FREE@ free; " STICK
                                          " — @FREE@ free}; " COPY_WITH_FERRY);
}

static NautilusMenuItem *
find_item (GList *items, const char *label_start)
{
  for (GList *l = items; l != NULL; l = l->next)
    {
      g_autofree char *label = ferry_test_dup_item_string (l->data, "label");

      if (g_str_has_prefix (label, label_start))
        return l->data;
    }
  g_assert_not_reached ();
}

static void
assert_tip (NautilusMenuItem *item, const char *expected)
{
  g_autofree char *tip = ferry_test_dup_item_string (item, "tip");

  g_assert_cmpstr (tip, ==, expected);
}

static void
test_menu_tips (Fixture *f, gconstpointer data)
{
  GList *items = nautilus_menu_provider_get_file_items (f->provider, f->files);
  GList *drive_items = ferry_test_dup_submenu_items (find_item (items, SEND_TO));

  assert_tip (find_item (items, SEND_TO),
              "Copy the selected items to a removable drive with Ferry");
  assert_tip (find_item (items, COPY_WITH_FERRY),
              "Open the selected items in Ferry to choose where to copy them");
  assert_tip (find_item (drive_items, CRUZER), "Copy the selected items to " CRUZER " with Ferry");
  assert_tip (find_item (drive_items, STICK), "Copy the selected items to " STICK " with Ferry");
  ferry_test_free_items (drive_items);
  ferry_test_free_items (items);
}

static void
test_menu_no_drives (Fixture *f, gconstpointer data)
{
  g_autofree char *menu = describe_menu (f);

  g_assert_cmpstr (menu, ==, COPY_WITH_FERRY);
}

static void
assert_menu (Fixture *f, const char *expected)
{
  g_autofree char *menu = describe_menu (f);

  g_assert_cmpstr (menu, ==, expected);
}

static gboolean
cruzer_free_space_shown (gpointer data)
{
  Fixture *f = data;
  g_autofree char *menu = NULL;

  if (f->updates == f->seen_updates)
    return FALSE;
  f->seen_updates = f->updates;
  menu = describe_menu (f);
  return strstr (menu, "{" CRUZER "}") == NULL;
}

/* Drives come and go, and Nautilus is told to build the menu again. The
 * main context does not run until the end, so no free space is known
 * before. */
static void
test_menu_updates (Fixture *f, gconstpointer data)
{
  g_autoptr (GMount) cruzer = g_object_ref (f->drives[0]);

  ferry_fake_volume_monitor_remove_mount (f->monitor, cruzer);
  g_assert_cmpuint (f->updates, ==, 1);
  assert_menu (f, SEND_TO " {" STICK "}; " COPY_WITH_FERRY);

  ferry_fake_volume_monitor_remove_mount (f->monitor, f->drives[1]);
  g_assert_cmpuint (f->updates, ==, 2);
  assert_menu (f, COPY_WITH_FERRY);

  ferry_fake_volume_monitor_add_mount (f->monitor, cruzer);
  g_assert_cmpuint (f->updates, ==, 3);
  assert_menu (f, SEND_TO " {" CRUZER "}; " COPY_WITH_FERRY);

  /* Shadowed by another mount of the same drive: not offered twice. */
  g_mount_shadow (cruzer);
  ferry_fake_volume_monitor_change_mount (f->monitor, cruzer);
  g_assert_cmpuint (f->updates, ==, 4);
  assert_menu (f, COPY_WITH_FERRY);
  g_mount_unshadow (cruzer);
  ferry_fake_volume_monitor_change_mount (f->monitor, cruzer);
  g_assert_cmpuint (f->updates, ==, 5);

  f->seen_updates = f->updates;
  g_assert_true (spin_until (cruzer_free_space_shown, f));
  assert_menu_with_free_space (f, SEND_TO " {" CRUZER " — @FREE@ free}; " COPY_WITH_FERRY);
}

static gboolean
read_only_shown (gpointer data)
{
  Fixture *f = data;
  g_autofree char *menu = describe_menu (f);

  return strstr (menu, "Locked Card — read-only") != NULL;
}

/* Whether the drive items of the menu are choosable but for the one
 * called "Locked Card". */
static gboolean
only_locked_insensitive (Fixture *f)
{
  GList *items = nautilus_menu_provider_get_file_items (f->provider, f->files);
  GList *drives = items != NULL ? ferry_test_dup_submenu_items (items->data) : NULL;
  gboolean right = drives != NULL;

  for (GList *l = drives; l != NULL; l = l->next)
    {
      g_autofree char *label = ferry_test_dup_item_string (l->data, "label");
      gboolean sensitive = TRUE;

      g_object_get (l->data, "sensitive", &sensitive, NULL);
      right &= sensitive == !g_str_has_prefix (label, "Locked Card");
    }
  ferry_test_free_items (drives);
  ferry_test_free_items (items);
  return right;
}

/* A drive mounted read-only (a card's lock switch) is shown so and
 * cannot be chosen: Ferry would only have refused the copy once chosen.
 * Its root is a read-only tmpfs, which takes root to mount; between the
 * mount and the unmount nothing aborts the test, so it always unmounts. */
static void
test_menu_read_only_drive (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) root = make_file (f, "locked", TRUE);
  g_autoptr (GDrive) card = ferry_fake_drive_new ("Locked Card", FERRY_FAKE_DRIVE_REMOVABLE);
  const char *mount[] = { "mount", "-t", "tmpfs", "-o", "ro,size=1m", "ferry-locked",
                          g_file_peek_path (root), NULL };
  const char *umount[] = { "umount", g_file_peek_path (root), NULL };
  int status = -1;

  if (getuid () != 0)
    {
      g_test_skip ("mounting a read-only drive takes root (CI runs as root)");
      return;
    }
  g_spawn_sync (NULL, (char **) mount, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status,
                NULL);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  add_mount (f, "Locked Card", root, card, TRUE);
  g_free (describe_menu (f)); /* asks the drives' facts */
  if (!spin_until (read_only_shown, f))
    g_test_fail_printf ("not said read-only: %s", describe_menu (f));
  else if (!only_locked_insensitive (f))
    g_test_fail_printf ("the read-only drive can be chosen, or another cannot");
  g_spawn_sync (NULL, (char **) umount, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status,
                NULL);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* Ferry copies local files only: no menu for others, none for nothing. */
static void
test_menu_not_local (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) remote = g_file_new_for_uri ("sftp://example.com/home/file.txt");
  GList *files = g_list_append (NULL, ferry_fake_file_info_new (remote));
  GList *items;

  files = g_list_append (files, g_object_ref (f->files->data));
  items = nautilus_menu_provider_get_file_items (f->provider, files);
  g_assert_null (items);
  g_assert_null (nautilus_menu_provider_get_file_items (f->provider, NULL));
  g_list_free_full (files, g_object_unref);
}

/* A drive is not offered for what is its own top folder or lies
 * directly in it: copied there, it would be copied onto (or into)
 * itself, which Ferry refused only after the person chose it. A file in
 * a folder of the drive may go to its top. */
static void
test_menu_leaves_out_own_drive (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) on_stick = g_file_get_child (f->roots[1], "photo.jpg");
  g_autoptr (GFile) folder = g_file_get_child (f->roots[1], "Trips");
  g_autoptr (GFile) deeper = g_file_get_child (folder, "map.png");
  GList *at_top = g_list_append (NULL, ferry_fake_file_info_new (on_stick));
  GList *the_drive = g_list_append (NULL, ferry_fake_file_info_new (f->roots[1]));
  GList *below = g_list_append (NULL, ferry_fake_file_info_new (deeper));
  g_autofree char *menu_top = NULL, *menu_drive = NULL, *menu_below = NULL;

  g_assert_true (g_file_set_contents (g_file_peek_path (on_stick), "photo", -1, NULL));
  g_assert_cmpint (g_mkdir (g_file_peek_path (folder), 0755), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (deeper), "map", -1, NULL));
  menu_top = ferry_test_describe_menu (f->provider, at_top);
  menu_drive = ferry_test_describe_menu (f->provider, the_drive);
  menu_below = ferry_test_describe_menu (f->provider, below);
  g_assert_null (strstr (menu_top, STICK));
  g_assert_nonnull (strstr (menu_top, CRUZER));
  g_assert_null (strstr (menu_drive, STICK));
  g_assert_nonnull (strstr (menu_below, STICK));
  g_list_free_full (at_top, g_object_unref);
  g_list_free_full (the_drive, g_object_unref);
  g_list_free_full (below, g_object_unref);
}

/* ------------------------------------------------------------------ */
/* Activation                                                         */

static gboolean
call_arrived (gpointer data)
{
  return ferry_fake_application_get_n_calls (ferry) >= GPOINTER_TO_UINT (data);
}

static void
on_pinged (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply
      = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

/* A connection receives replies in the order they were sent, and their
 * callbacks run in that order here: once the stand-in has answered a
 * ping sent after its answers to the extension, the extension has had
 * those (and would have failed the test had they been errors). */
static void
wait_for_answers_delivered (void)
{
  g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  gboolean done = FALSE;

  g_dbus_connection_call (bus, APPLICATION_ID, FERRY_OBJECT_PATH, "org.freedesktop.DBus.Peer",
                          "Ping", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_pinged, &done);
  g_assert_true (spin_until (is_true, &done));
}

/* Activates @item while Ferry holds its answer back: the activation must
 * return at once, and its call reach Ferry while still unanswered. Returns
 * the call's parameters, its name in @method. */
static GVariant *
activate_and_wait (NautilusMenuItem *item, char **method)
{
  guint calls = ferry_fake_application_get_n_calls (ferry);
  guint replied = ferry_fake_application_get_n_replied (ferry);
  gint64 start;
  GVariant *parameters;

  ferry_fake_application_hold_replies (ferry);
  start = g_get_monotonic_time ();
  nautilus_menu_item_activate (item);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC / 2);

  g_assert_true (spin_until (call_arrived, GUINT_TO_POINTER (calls + 1)));
  g_assert_cmpuint (ferry_fake_application_get_n_calls (ferry), ==, calls + 1);
  g_assert_cmpuint (ferry_fake_application_get_n_replied (ferry), ==, replied);
  parameters = ferry_fake_application_dup_call (ferry, calls, method);

  ferry_fake_application_release_replies (ferry);
  wait_for_answers_delivered ();
  g_assert_cmpuint (ferry_fake_application_get_n_replied (ferry), ==, replied + 1);
  return parameters;
}

/* URIs, not paths: escaped, and naming the selected files in order. */
static void
assert_source_uris (Fixture *f, const char *const *uris)
{
  g_assert_cmpuint (g_strv_length ((char **) uris), ==, f->sources->len);
  for (guint i = 0; i < f->sources->len; i++)
    {
      GFile *source = g_ptr_array_index (f->sources, i);
      g_autofree char *expected = g_file_get_uri (source);
      g_autoptr (GFile) file = g_file_new_for_uri (uris[i]);

      g_assert_cmpstr (uris[i], ==, expected);
      g_assert_true (g_str_has_prefix (uris[i], "file:///"));
      g_assert_null (strchr (uris[i], ' '));
      g_assert_true (g_file_equal (file, source));
    }
  g_assert_true (g_str_has_suffix (uris[1], "/with%20space.txt"));
  g_assert_true (
      g_str_has_suffix (uris[2], "/%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20%E2%9C%93%20f%C3%AFle.txt"));
  g_assert_true (g_str_has_suffix (uris[3], "/Folder%20with%20sp%C3%A4ces"));
}

static void
assert_copy_to (Fixture *f, GVariant *parameters, GFile *destination)
{
  g_autoptr (GVariant) targets = NULL;
  g_autoptr (GVariant) platform_data = NULL;
  g_autoptr (GVariant) target = NULL;
  g_autofree const char **uris = NULL;
  g_autofree char *expected = g_file_get_uri (destination);
  const char *action;
  const char *uri;

  g_assert_cmpstr (g_variant_get_type_string (parameters), ==, "(sava{sv})");
  g_variant_get (parameters, "(&s@av@a{sv})", &action, &targets, &platform_data);
  g_assert_cmpstr (action, ==, "copy-to");
  g_assert_cmpuint (g_variant_n_children (targets), ==, 1);
  g_variant_get_child (targets, 0, "v", &target);
  g_assert_cmpstr (g_variant_get_type_string (target), ==, "(sas)");
  g_variant_get (target, "(&s^a&s)", &uri, &uris);
  g_assert_cmpstr (uri, ==, expected);
  assert_source_uris (f, uris);
}

static void
test_activate_send_to (Fixture *f, gconstpointer data)
{
  GList *items = nautilus_menu_provider_get_file_items (f->provider, f->files);
  GList *drive_items = ferry_test_dup_submenu_items (find_item (items, SEND_TO));

  for (guint i = 0; i < G_N_ELEMENTS (f->drives); i++)
    {
      g_autofree char *method = NULL;
      g_autoptr (GVariant) parameters = NULL;

      parameters = activate_and_wait (find_item (drive_items, i == 0 ? CRUZER : STICK), &method);
      g_assert_cmpstr (method, ==, "ActivateAction");
      assert_copy_to (f, parameters, f->roots[i]);
    }
  ferry_test_free_items (drive_items);
  ferry_test_free_items (items);
}

static void
test_activate_copy_with_ferry (Fixture *f, gconstpointer data)
{
  GList *items = nautilus_menu_provider_get_file_items (f->provider, f->files);
  g_autofree char *method = NULL;
  g_autoptr (GVariant) parameters = NULL;
  g_autoptr (GVariant) platform_data = NULL;
  g_autofree const char **uris = NULL;

  parameters = activate_and_wait (find_item (items, COPY_WITH_FERRY), &method);
  g_assert_cmpstr (method, ==, "Open");
  /* org.freedesktop.Application.Open has no hint, unlike org.gtk.Application's. */
  g_assert_cmpstr (g_variant_get_type_string (parameters), ==, "(asa{sv})");
  g_variant_get (parameters, "(^a&s@a{sv})", &uris, &platform_data);
  assert_source_uris (f, uris);
  ferry_test_free_items (items);
}

/* Files shown through Recent are sent as the files they stand for. */
static void
test_activate_recent (Fixture *f, gconstpointer data)
{
  g_autoptr (GFile) recent = g_file_new_for_uri ("recent:///file%3A%2F%2F%2Fa.txt");
  GList *files = g_list_append (
      NULL, ferry_fake_file_info_new_with_target (recent, g_ptr_array_index (f->sources, 0)));
  GList *items = nautilus_menu_provider_get_file_items (f->provider, files);
  g_autofree char *expected = g_file_get_uri (g_ptr_array_index (f->sources, 0));
  g_autofree char *method = NULL;
  g_autoptr (GVariant) parameters = NULL;
  g_autoptr (GVariant) platform_data = NULL;
  g_autofree const char **uris = NULL;

  parameters = activate_and_wait (find_item (items, COPY_WITH_FERRY), &method);
  g_variant_get (parameters, "(^a&s@a{sv})", &uris, &platform_data);
  g_assert_cmpuint (g_strv_length ((char **) uris), ==, 1);
  g_assert_cmpstr (uris[0], ==, expected);
  ferry_test_free_items (items);
  g_list_free_full (files, g_object_unref);
}

/* ------------------------------------------------------------------ */

static void
add_test (const char *path, Setup setup, void (*test) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, GINT_TO_POINTER (setup), fixture_set_up, test, fixture_tear_down);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GTestDBus) bus = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  /* A session bus of the test's own: the extension's calls land there. */
  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (bus);
  ferry = ferry_fake_application_new (g_test_dbus_get_bus_address (bus));
  module = ferry_test_type_module_load_ferry (&provider_type);

  g_test_add_func ("/nautilus/module/types", test_module_types);
  g_test_add_func ("/nautilus/module/default-monitor", test_module_default_monitor);
  add_test ("/nautilus/menu/drives", WITH_DRIVES, test_menu_drives);
  add_test ("/nautilus/menu/tips", WITH_DRIVES, test_menu_tips);
  add_test ("/nautilus/menu/no-drives", NO_DRIVES, test_menu_no_drives);
  add_test ("/nautilus/menu/updates", WITH_DRIVES, test_menu_updates);
  add_test ("/nautilus/menu/not-local", WITH_DRIVES, test_menu_not_local);
  add_test ("/nautilus/menu/leaves-out-own-drive", WITH_DRIVES, test_menu_leaves_out_own_drive);
  add_test ("/nautilus/menu/read-only-drive", WITH_DRIVES, test_menu_read_only_drive);
  add_test ("/nautilus/activate/send-to", WITH_DRIVES, test_activate_send_to);
  add_test ("/nautilus/activate/copy-with-ferry", WITH_DRIVES, test_activate_copy_with_ferry);
  add_test ("/nautilus/activate/recent", NO_DRIVES, test_activate_recent);
  status = g_test_run ();

  g_clear_object (&ferry);
  g_test_dbus_down (bus);
  return status;
}
