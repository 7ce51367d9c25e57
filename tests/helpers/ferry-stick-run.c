/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs a command with an emulated slow USB stick mounted, for benchmarks
 * and for trying Ferry by hand:
 *
 *   ferry-stick-run [--rate=MB/s] [--size=MB] [--mount=DIR] [--label=NAME] [--workdir=DIR] -- COMMAND…
 *
 * COMMAND runs with FERRY_STICK (the mount point), FERRY_STICK_BLOCK (the
 * loop device's name in /sys/block), FERRY_STICK_CONTROL (the emulator's
 * control file) and FERRY_STICK_RATE (bytes per second) in its
 * environment. The stick is torn down when COMMAND ends, whatever way. */
#include <glib.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "ferry-test-stick.h"

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new ("-- COMMAND…");
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryTestStick) stick = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *workdir = NULL;
  g_autofree char *mount = NULL;
  g_autofree char *label = NULL;
  g_autofree char *control = NULL;
  g_auto (GStrv) envp = NULL;
  double rate_mb = 40;
  double size_mb = 1024;
  int status = 0;
  const GOptionEntry entries[]
      = { { "rate", 0, 0, G_OPTION_ARG_DOUBLE, &rate_mb,
            "Write rate in MB/s (10^6 bytes; default 40)", "MB/S" },
          { "size", 0, 0, G_OPTION_ARG_DOUBLE, &size_mb, "Size in MB (default 1024)", "MB" },
          { "mount", 0, 0, G_OPTION_ARG_FILENAME, &mount,
            "Where to mount it (default: inside the work folder)", "DIR" },
          { "label", 0, 0, G_OPTION_ARG_STRING, &label, "Filesystem label (default FERRYSTICK)",
            "NAME" },
          { "workdir", 0, 0, G_OPTION_ARG_FILENAME, &workdir,
            "Work folder (default /var/tmp/ferry-stick)", "DIR" },
          { NULL } };

  g_option_context_add_main_entries (context, entries, NULL);
  /* GOption leaves the "--" in place. */
  if (g_option_context_parse (context, &argc, &argv, &error) && argc > 1
      && g_strcmp0 (argv[1], "--") == 0)
    {
      argv++;
      argc--;
    }
  if (error != NULL || argc < 2)
    {
      g_printerr ("ferry-stick-run: %s\n", error ? error->message : "no command given");
      return 2;
    }
  if (!ferry_test_stick_is_supported (&reason))
    {
      g_printerr ("ferry-stick-run: the emulated stick cannot run here: %s\n", reason);
      return 77;
    }

  stick = ferry_test_stick_new (workdir ? workdir : "/var/tmp/ferry-stick", mount,
                                label ? label : "FERRYSTICK", (guint64) (size_mb * 1e6),
                                (guint64) (rate_mb * 1e6), &error);
  if (stick == NULL)
    {
      g_printerr ("ferry-stick-run: %s\n", error->message);
      return 1;
    }

  control = g_build_filename (ferry_test_stick_get_fuse_mountpoint (stick), "control", NULL);
  envp = g_get_environ ();
  envp = g_environ_setenv (envp, "FERRY_STICK", ferry_test_stick_get_mountpoint (stick), TRUE);
  envp
      = g_environ_setenv (envp, "FERRY_STICK_BLOCK", ferry_test_stick_get_block_name (stick), TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_CONTROL", control, TRUE);
  {
    g_autofree char *rate = g_strdup_printf ("%.0f", rate_mb * 1e6);
    envp = g_environ_setenv (envp, "FERRY_STICK_RATE", rate, TRUE);
  }
  if (!g_spawn_sync (NULL, argv + 1, envp, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL,
                     NULL, NULL, NULL, &status, &error))
    {
      g_printerr ("ferry-stick-run: %s\n", error->message);
      return 1;
    }
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
