/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How transfers reach Ferry from outside: `ferry --destination=DIR FILE…`
 * from a terminal or a script, and the D-Bus call the Nautilus extension
 * makes, which starts Ferry when it is not running. Each test runs the
 * built `ferry` on a private session bus (GTestDBus) under Xvfb. */
#include "config.h"

#include <gio/gio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ferry-test-util.h"

#define FERRY_OBJECT_PATH "/io/github/ferrycopy/Ferry"
#define WAIT_MS           30000

/* The X display, saved before GTestDBus hides it. */
static char *display;

typedef struct
{
  GTestDBus *bus;
  GDBusConnection *connection;
  char *scratch;
  char *src;
  char *dst;
} Fixture;

static const char *
ferry_binary (void)
{
  const char *path = g_getenv ("FERRY_APP");

  g_assert_nonnull (path);
  return path;
}

/* A service file like the installed one, pointing at the built Ferry.
 * The bus GTestDBus starts has no display in its environment: the test's
 * display is passed along. */
static char *
write_service_dir (const char *scratch)
{
  char *dir = g_build_filename (scratch, "services", NULL);
  g_autofree char *contents
      = g_strdup_printf ("[D-BUS Service]\nName=%s\nExec=/usr/bin/env DISPLAY=%s %s "
                         "--gapplication-service\n",
                         APPLICATION_ID, display, ferry_binary ());

  ferry_test_make_dirs (dir);
  ferry_test_write_text (ferry_test_path (dir, APPLICATION_ID ".service", NULL), contents);
  return dir;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *services = NULL;

  f->scratch = ferry_test_scratch_new ("app-dbus");
  f->src = g_build_filename (f->scratch, "src", NULL);
  f->dst = g_build_filename (f->scratch, "Pendrive", NULL);
  ferry_test_make_dirs (f->src);
  ferry_test_make_dirs (f->dst);
  services = write_service_dir (f->scratch);

  f->bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_add_service_dir (f->bus, services);
  g_test_dbus_up (f->bus);
  g_setenv ("DISPLAY", display, TRUE);
  f->connection = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_assert_nonnull (f->connection);
}

/* The pid of whatever Ferry owns the application's name, 0 if none. */
static guint32
ferry_pid (Fixture *f)
{
  g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
      f->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
      "GetConnectionUnixProcessID", g_variant_new ("(s)", APPLICATION_ID), G_VARIANT_TYPE ("(u)"),
      G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  guint32 pid = 0;

  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);
  return pid;
}

/* Ferry stays while it has a window; the test ends it. */
static void
stop_ferry (Fixture *f)
{
  guint32 pid = ferry_pid (f);

  if (pid != 0)
    kill ((pid_t) pid, SIGTERM);
  for (guint i = 0; i < 500 && ferry_pid (f) != 0; i++)
    g_usleep (10000);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  stop_ferry (f);
  g_clear_object (&f->connection);
  g_test_dbus_down (f->bus);
  g_clear_object (&f->bus);
  ferry_test_remove_tree (f->scratch);
  g_free (f->scratch);
  g_free (f->src);
  g_free (f->dst);
}

/* The copy lands under its final name only when complete, so once the
 * name is there the bytes must match. */
static void
assert_arrives (const char *source, const char *copy)
{
  for (guint waited = 0; !g_file_test (copy, G_FILE_TEST_EXISTS); waited += 20)
    {
      if (waited > WAIT_MS)
        g_error ("%s never arrived", copy);
      g_usleep (20000);
    }
  ferry_test_assert_files_equal (source, copy);
}

static GSubprocess *
spawn_ferry (const char *const *argv, GSubprocessFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  GSubprocess *process;

  g_ptr_array_add (args, (gpointer) ferry_binary ());
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) argv[i]);
  g_ptr_array_add (args, NULL);
  process = g_subprocess_newv ((const char *const *) args->pdata, flags, &error);
  g_assert_no_error (error);
  return process;
}

typedef struct
{
  gboolean done;
  char *err;
} Ended;

static void
on_ferry_ended (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Ended *ended = user_data;
  g_autoptr (GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result, NULL, &ended->err, &error);
  g_assert_no_error (error);
  ended->done = TRUE;
}

/* Runs `ferry ARGS…` to its end; returns its exit status and what it
 * printed on standard error. A call must return at once: one that stays
 * (a Ferry with a window and a copy) fails the test. */
static int
run_ferry (const char *const *argv, char **err_out)
{
  g_autoptr (GSubprocess) process = spawn_ferry (argv, G_SUBPROCESS_FLAGS_STDERR_PIPE);
  Ended ended = { FALSE, NULL };

  g_subprocess_communicate_utf8_async (process, NULL, NULL, on_ferry_ended, &ended);
  for (guint waited = 0; !ended.done; waited += 20)
    {
      if (waited > WAIT_MS)
        {
          g_subprocess_force_exit (process);
          g_error ("`ferry %s` did not return: it stayed running", argv[0]);
        }
      g_main_context_iteration (NULL, FALSE);
      g_usleep (20000);
    }
  *err_out = ended.err;
  return g_subprocess_get_exit_status (process);
}

/* What `ferry --destination` must refuse, nothing written: a destination
 * that does not exist (it became a file of that name) or is a file, and
 * a file to copy that does not exist. The exit status says so (it was
 * 0), and standard error why. */
static void
assert_refusals (Fixture *f)
{
  g_autofree char *source = g_build_filename (f->src, "song.ogg", NULL);
  g_autofree char *missing = g_build_filename (f->scratch, "NOPE", NULL);
  g_autofree char *file = g_build_filename (f->scratch, "list.txt", NULL);
  g_autofree char *gone = g_build_filename (f->src, "gone.ogg", NULL);
  g_autofree char *to_missing = g_strdup_printf ("--destination=%s", missing);
  g_autofree char *to_file = g_strdup_printf ("--destination=%s", file);
  g_autofree char *to_dst = g_strdup_printf ("--destination=%s", f->dst);
  g_autofree char *err = NULL;
  g_autofree char *text = NULL;

  ferry_test_write_text (source, "la la la\n");
  ferry_test_write_text (file, "milk\n");
  g_assert_cmpint (run_ferry ((const char *[]){ to_missing, source, NULL }, &err), ==, 1);
  g_assert_nonnull (strstr (err, "The destination folder"));
  g_assert_nonnull (strstr (err, "NOPE” does not exist"));
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ferry ((const char *[]){ to_file, source, NULL }, &err), ==, 1);
  g_assert_nonnull (strstr (err, "list.txt” is not a folder"));
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run_ferry ((const char *[]){ to_dst, gone, NULL }, &err), ==, 1);
  g_assert_nonnull (strstr (err, "gone.ogg” does not exist"));

  /* Nothing was written, by the caller or by a Ferry that runs. */
  g_usleep (500000);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "milk\n");
  g_assert_false (g_file_test (ferry_test_path (f->dst, "song.ogg", NULL), G_FILE_TEST_EXISTS));
}

/* With no Ferry running: refused, and no Ferry stays. */
static void
test_destination_refused (Fixture *f, gconstpointer data)
{
  assert_refusals (f);
  g_assert_cmpuint (ferry_pid (f), ==, 0);
}

/* Handed to the Ferry that runs: that one refuses, and the caller's exit
 * status and standard error say why; the running Ferry stays. */
static void
test_destination_refused_by_running (Fixture *f, gconstpointer data)
{
  g_autofree char *destination = g_strdup_printf ("--destination=%s", f->dst);
  g_autofree char *first_src = g_build_filename (f->src, "first.txt", NULL);
  g_autofree char *err = NULL;
  guint32 running;

  ferry_test_write_text (first_src, "first\n");
  g_assert_cmpint (run_ferry ((const char *[]){ destination, first_src, NULL }, &err), ==, 0);
  assert_arrives (first_src, ferry_test_path (f->dst, "first.txt", NULL));
  running = ferry_pid (f);
  g_assert_cmpuint (running, !=, 0);
  assert_refusals (f);
  g_assert_cmpuint (ferry_pid (f), ==, running);
}

/* With no Ferry running, `ferry --destination` has the bus start Ferry,
 * hands it the transfer and returns, as a script needs (it had become
 * Ferry itself and returned only once its window was closed); a second
 * call hands its transfer to that Ferry and returns too. */
static void
test_destination_option (Fixture *f, gconstpointer data)
{
  g_autofree char *destination = g_strdup_printf ("--destination=%s", f->dst);
  g_autofree char *first_src = g_build_filename (f->src, "holiday photo.jpg", NULL);
  g_autofree char *second_src = g_build_filename (f->src, "notes ñ.txt", NULL);
  g_autofree char *err = NULL;
  g_autofree char *second_err = NULL;
  guint32 running;

  ferry_test_write_random (first_src, 2 * 1024 * 1024, 7);
  ferry_test_write_text (second_src, "second transfer\n");

  g_assert_cmpint (run_ferry ((const char *[]){ destination, first_src, NULL }, &err), ==, 0);
  assert_arrives (first_src, ferry_test_path (f->dst, "holiday photo.jpg", NULL));
  running = ferry_pid (f);
  g_assert_cmpuint (running, !=, 0);

  g_assert_cmpint (run_ferry ((const char *[]){ destination, second_src, NULL }, &second_err), ==,
                   0);
  assert_arrives (second_src, ferry_test_path (f->dst, "notes ñ.txt", NULL));
  g_assert_cmpuint (ferry_pid (f), ==, running);
}

/* The Nautilus extension's call: with no Ferry running, the bus starts it
 * from its service file, and the copy runs. */
static void
test_dbus_activation (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (f->src, "report.pdf", NULL);
  g_autofree char *source_uri = NULL;
  g_autofree char *destination_uri = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;
  GVariantBuilder parameter;

  ferry_test_write_random (source, 300000, 8);
  source_uri = g_filename_to_uri (source, NULL, NULL);
  destination_uri = g_filename_to_uri (f->dst, NULL, NULL);
  g_assert_cmpuint (ferry_pid (f), ==, 0);

  g_variant_builder_init (&parameter, G_VARIANT_TYPE ("av"));
  g_variant_builder_add (
      &parameter, "v",
      g_variant_new ("(s^as)", destination_uri, (const char *[]){ source_uri, NULL }));
  reply = g_dbus_connection_call_sync (f->connection, APPLICATION_ID, FERRY_OBJECT_PATH,
                                       "org.freedesktop.Application", "ActivateAction",
                                       g_variant_new ("(sava{sv})", "copy-to", &parameter, NULL),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, WAIT_MS, NULL, &error);
  g_assert_no_error (error);

  assert_arrives (source, ferry_test_path (f->dst, "report.pdf", NULL));
  g_assert_cmpuint (ferry_pid (f), !=, 0);
}

/* "Copy with Ferry…" in Nautilus: Open, as org.freedesktop.Application
 * defines it, starts Ferry with the files waiting for a destination. */
static void
test_dbus_open (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (f->src, "slides.odp", NULL);
  g_autofree char *source_uri = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;

  ferry_test_write_text (source, "slides\n");
  source_uri = g_filename_to_uri (source, NULL, NULL);
  reply = g_dbus_connection_call_sync (
      f->connection, APPLICATION_ID, FERRY_OBJECT_PATH, "org.freedesktop.Application", "Open",
      g_variant_new ("(^as@a{sv})", (const char *[]){ source_uri, NULL },
                     g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0)),
      NULL, G_DBUS_CALL_FLAGS_NONE, WAIT_MS, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ferry_pid (f), !=, 0);
  /* Nothing is copied before a destination is chosen. */
  g_assert_cmpuint (ferry_test_count_entries (f->dst), ==, 0);
}

/* A destination without files is a usage error, said plainly. */
static void
test_destination_without_files (Fixture *f, gconstpointer data)
{
  g_autofree char *destination = g_strdup_printf ("--destination=%s", f->dst);
  g_autofree char *err = NULL;

  g_autofree char *source = g_build_filename (f->src, "song.ogg", NULL);
  g_autofree char *empty_err = NULL;

  g_assert_cmpint (run_ferry ((const char *[]){ destination, NULL }, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--destination needs the files to copy after it"));
  /* An empty one (a variable not set) had been the current folder. */
  ferry_test_write_text (source, "song\n");
  g_assert_cmpint (run_ferry ((const char *[]){ "--destination=", source, NULL }, &empty_err), ==,
                   2);
  g_assert_nonnull (strstr (empty_err, "--destination needs the folder to copy into"));
  g_assert_cmpuint (ferry_pid (f), ==, 0);
}

/* `ferry --version` says it, as ferry-copy does, and starts nothing. */
static void
test_version (Fixture *f, gconstpointer data)
{
  g_autoptr (GSubprocess) process = spawn_ferry ((const char *[]){ "--version", NULL },
                                                 G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;

  g_subprocess_communicate_utf8 (process, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);
  g_assert_cmpstr (out, ==, "ferry " PACKAGE_VERSION "\n");
  g_assert_cmpuint (ferry_pid (f), ==, 0);
}

/* The org.gtk.Actions of @path, NULL while nothing answers there. */
static GStrv
list_actions (Fixture *f, const char *path)
{
  g_autoptr (GVariant) reply = g_dbus_connection_call_sync (
      f->connection, APPLICATION_ID, path, "org.gtk.Actions", "List", NULL,
      G_VARIANT_TYPE ("(as)"), G_DBUS_CALL_FLAGS_NONE, WAIT_MS, NULL, NULL);
  GStrv names = NULL;

  if (reply != NULL)
    g_variant_get (reply, "(^as)", &names);
  return names;
}

/* What the window's shortcuts do can be driven over D-Bus, as
 * org.gtk.Actions: the window's actions (add-files, paste, …) and the
 * application's quit, which ends Ferry when nothing is being copied. */
static void
test_actions_over_dbus (Fixture *f, gconstpointer data)
{
  const char *window_path = FERRY_OBJECT_PATH "/window/1";
  const char *const window_wanted[] = { "add-files", "add-folders", "paste", "show-help-overlay" };
  g_auto (GStrv) window_actions = NULL;
  g_auto (GStrv) app_actions = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) quit_reply = NULL;
  g_autoptr (GError) error = NULL;

  reply = g_dbus_connection_call_sync (
      f->connection, APPLICATION_ID, FERRY_OBJECT_PATH, "org.freedesktop.Application",
      "Activate", g_variant_new_parsed ("(@a{sv} {},)"), NULL, G_DBUS_CALL_FLAGS_NONE, WAIT_MS,
      NULL, &error);
  g_assert_no_error (error);
  for (guint waited = 0; (window_actions = list_actions (f, window_path)) == NULL; waited += 20)
    {
      if (waited > WAIT_MS)
        g_error ("Ferry's window never answered on %s", window_path);
      g_usleep (20000);
    }
  app_actions = list_actions (f, FERRY_OBJECT_PATH);
  for (guint i = 0; i < G_N_ELEMENTS (window_wanted); i++)
    if (!g_strv_contains ((const char *const *) window_actions, window_wanted[i]))
      g_error ("the window exports no action %s", window_wanted[i]);
  g_assert_true (g_strv_contains ((const char *const *) app_actions, "quit"));

  quit_reply = g_dbus_connection_call_sync (
      f->connection, APPLICATION_ID, FERRY_OBJECT_PATH, "org.gtk.Actions", "Activate",
      g_variant_new_parsed ("('quit', @av [], @a{sv} {})"), NULL, G_DBUS_CALL_FLAGS_NONE,
      WAIT_MS, NULL, &error);
  g_assert_no_error (error);
  for (guint waited = 0; ferry_pid (f) != 0; waited += 20)
    {
      if (waited > WAIT_MS)
        g_error ("Ferry did not quit");
      g_usleep (20000);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  display = g_strdup (g_getenv ("DISPLAY"));
  if (display == NULL)
    {
      g_printerr ("test-app-dbus runs Ferry's window: run it under xvfb-run\n");
      return 1;
    }
  g_test_add ("/app/destination-option", Fixture, NULL, fixture_set_up, test_destination_option,
              fixture_tear_down);
  g_test_add ("/app/dbus-activation", Fixture, NULL, fixture_set_up, test_dbus_activation,
              fixture_tear_down);
  g_test_add ("/app/dbus-open", Fixture, NULL, fixture_set_up, test_dbus_open, fixture_tear_down);
  g_test_add ("/app/destination-without-files", Fixture, NULL, fixture_set_up,
              test_destination_without_files, fixture_tear_down);
  g_test_add ("/app/version", Fixture, NULL, fixture_set_up, test_version, fixture_tear_down);
  g_test_add ("/app/destination-refused", Fixture, NULL, fixture_set_up, test_destination_refused,
              fixture_tear_down);
  g_test_add ("/app/destination-refused-by-running", Fixture, NULL, fixture_set_up,
              test_destination_refused_by_running, fixture_tear_down);
  g_test_add ("/app/actions-over-dbus", Fixture, NULL, fixture_set_up, test_actions_over_dbus,
              fixture_tear_down);
  return g_test_run ();
}
