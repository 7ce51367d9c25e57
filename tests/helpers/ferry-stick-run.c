/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs a command with an emulated slow USB stick mounted, for benchmarks
 * and for trying Ferry by hand:
 *
 *   ferry-stick-run [--rate=MB/s] [--size=MB] [--mount=DIR] [--label=NAME] [--workdir=DIR]
 *                   [--fs=ext4|exfat|ntfs] [--flash] [--scatter-ms=MS] [--flush-ms=MS]
 *                   -- COMMAND…
 *
 * --flash charges like a real flash stick: 2 ms for a write that does not
 * continue the previous one, 20 ms for a flush; --scatter-ms and
 * --flush-ms set either cost (default 0, bytes only).
 *
 * COMMAND runs with FERRY_STICK (the mount point), FERRY_STICK_BLOCK (the
 * loop device's name in /sys/block), FERRY_STICK_CONTROL (the emulator's
 * control file, whose counts say how many writes, scattered writes and
 * flushes reached the device), FERRY_STICK_RATE (bytes per second),
 * FERRY_STICK_FS (ext4, exfat or ntfs), FERRY_STICK_SCATTER_MS and
 * FERRY_STICK_FLUSH_MS in its environment. The stick is torn down when
 * COMMAND ends, whatever way; the emulator's counts go to standard error
 * first. */
#include <glib.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "ferry-test-stick.h"

#define PROGRAM_NAME "ferry-stick-run"
#define UNSET_COST   (-1.0)

typedef struct
{
  double rate_mb;
  double size_mb;
  char *mount;
  char *label;
  char *workdir;
  char *fs_name;
  gboolean flash;
  double scatter_ms;
  double flush_ms;
  FerryTestStickFs fs;
} RunOptions;

static void
run_options_clear (RunOptions *options)
{
  g_clear_pointer (&options->mount, g_free);
  g_clear_pointer (&options->label, g_free);
  g_clear_pointer (&options->workdir, g_free);
  g_clear_pointer (&options->fs_name, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RunOptions, run_options_clear)

static GOptionContext *
new_option_context (RunOptions *o)
{
  const GOptionEntry entries[] = {
    { "rate", 0, 0, G_OPTION_ARG_DOUBLE, &o->rate_mb,
      "Write rate in MB/s (10^6 bytes; default 40)", "MB/S" },
    { "size", 0, 0, G_OPTION_ARG_DOUBLE, &o->size_mb, "Size in MB (default 1024)", "MB" },
    { "mount", 0, 0, G_OPTION_ARG_FILENAME, &o->mount,
      "Where to mount it (default: inside the work folder)", "DIR" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &o->label,
      "Filesystem label (default FERRYSTICK; at most 11 characters for exFAT)", "NAME" },
    { "workdir", 0, 0, G_OPTION_ARG_FILENAME, &o->workdir,
      "Work folder (default /var/tmp/ferry-stick)", "DIR" },
    { "fs", 0, 0, G_OPTION_ARG_STRING, &o->fs_name,
      "Filesystem: ext4 (default), exfat (exfat-fuse), ntfs (ntfs-3g), fat32 or fat16 (fusefat)", "FS" },
    { "flash", 0, 0, G_OPTION_ARG_NONE, &o->flash,
      "Charge like flash: 2 ms per scattered write, 20 ms per flush", NULL },
    { "scatter-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->scatter_ms,
      "Milliseconds per write that does not continue the previous one (default 0)", "MS" },
    { "flush-ms", 0, 0, G_OPTION_ARG_DOUBLE, &o->flush_ms,
      "Milliseconds per flush (default 0)", "MS" },
    { NULL }
  };
  GOptionContext *context = g_option_context_new ("-- COMMAND…");

  g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

/* An explicit cost wins over --flash, which wins over free. */
static double
choose_cost (double given_ms, gboolean flash, guint64 flash_us)
{
  if (given_ms >= 0)
    return given_ms;
  return flash ? flash_us / 1000.0 : 0;
}

static gboolean
check_options (RunOptions *o, GError **error)
{
  if (o->fs_name != NULL && !ferry_test_stick_fs_from_string (o->fs_name, &o->fs))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--fs must be ext4, exfat or ntfs, not “%s”", o->fs_name);
      return FALSE;
    }
  o->scatter_ms = choose_cost (o->scatter_ms, o->flash, FERRY_TEST_STICK_FLASH_SCATTER_COST_US);
  o->flush_ms = choose_cost (o->flush_ms, o->flash, FERRY_TEST_STICK_FLASH_FLUSH_COST_US);
  return TRUE;
}

/* Leaves COMMAND… in @argv from index 1. */
static gboolean
parse_options (RunOptions *o, int *argc, char ***argv, GError **error)
{
  g_autoptr (GOptionContext) context = new_option_context (o);

  if (!g_option_context_parse (context, argc, argv, error))
    return FALSE;
  /* GOption leaves the "--" in place. */
  if (*argc > 1 && g_strcmp0 ((*argv)[1], "--") == 0)
    {
      (*argv)++;
      (*argc)--;
    }
  if (*argc < 2)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "no command given");
      return FALSE;
    }
  return check_options (o, error);
}

static FerryTestStick *
make_stick (const RunOptions *o, GError **error)
{
  const FerryTestStickOptions options = {
    .workdir = o->workdir ? o->workdir : "/var/tmp/ferry-stick",
    .mountpoint = o->mount,
    .label = o->label ? o->label : "FERRYSTICK",
    .size_bytes = (guint64) (o->size_mb * 1e6),
    .rate_bytes_per_sec = (guint64) (o->rate_mb * 1e6),
    .fs = o->fs,
    .scatter_cost_us = (guint64) (o->scatter_ms * 1000),
    .flush_cost_us = (guint64) (o->flush_ms * 1000),
  };

  return ferry_test_stick_new_full (&options, error);
}

static GStrv
stick_environment (FerryTestStick *stick, const RunOptions *o)
{
  GStrv envp = g_get_environ ();
  g_autofree char *rate = g_strdup_printf ("%.0f", o->rate_mb * 1e6);
  g_autofree char *scatter = g_strdup_printf ("%g", o->scatter_ms);
  g_autofree char *flush = g_strdup_printf ("%g", o->flush_ms);

  envp = g_environ_setenv (envp, "FERRY_STICK", ferry_test_stick_get_mountpoint (stick), TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_BLOCK", ferry_test_stick_get_block_name (stick),
                           TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_CONTROL", ferry_test_stick_get_control_file (stick),
                           TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_RATE", rate, TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_FS", ferry_test_stick_fs_to_string (o->fs), TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_SCATTER_MS", scatter, TRUE);
  envp = g_environ_setenv (envp, "FERRY_STICK_FLUSH_MS", flush, TRUE);
  return envp;
}

static void
print_counts (FerryTestStick *stick)
{
  g_printerr ("%s: the device saw %" G_GUINT64_FORMAT " writes, %" G_GUINT64_FORMAT
              " of them scattered, and %" G_GUINT64_FORMAT " flushes\n",
              PROGRAM_NAME, ferry_test_stick_get_writes (stick),
              ferry_test_stick_get_scattered_writes (stick), ferry_test_stick_get_flushes (stick));
}

int
main (int argc, char **argv)
{
  g_auto (RunOptions) o = { .rate_mb = 40, .size_mb = 1024, .scatter_ms = UNSET_COST,
                            .flush_ms = UNSET_COST };
  g_autoptr (GError) error = NULL;
  g_autoptr (FerryTestStick) stick = NULL;
  g_autofree char *reason = NULL;
  g_auto (GStrv) envp = NULL;
  int status = 0;

  if (!parse_options (&o, &argc, &argv, &error))
    {
      g_printerr ("%s: %s\n", PROGRAM_NAME, error->message);
      return 2;
    }
  if (!ferry_test_stick_is_supported_fs (o.fs, &reason))
    {
      g_printerr ("%s: the emulated stick cannot run here: %s\n", PROGRAM_NAME, reason);
      return 77;
    }

  stick = make_stick (&o, &error);
  if (stick == NULL)
    {
      g_printerr ("%s: %s\n", PROGRAM_NAME, error->message);
      return 1;
    }

  envp = stick_environment (stick, &o);
  if (!g_spawn_sync (NULL, argv + 1, envp, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL,
                     NULL, NULL, NULL, &status, &error))
    {
      g_printerr ("%s: %s\n", PROGRAM_NAME, error->message);
      return 1;
    }
  print_counts (stick);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}
