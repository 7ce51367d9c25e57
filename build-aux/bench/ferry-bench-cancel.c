/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How fast a copy to a slow stick answers Pause and Cancel (issue 15,
 * item 8: within 0.5 s). Run it inside an emulated stick, as root:
 *
 *   _build/tests/helpers/ferry-stick-run --rate 6 --size 600 -- \
 *       _build/build-aux/bench/ferry-bench-cancel [--runs N] [--mb MB] \
 *       [--mode slow|auto]
 *
 * Each run copies a file of --mb MB (default 200) onto $FERRY_STICK, with
 * the slow strategy from the start (--mode slow, the default) or as the
 * job chooses (--mode auto: the emulated stick is a loop device, a fast
 * class, so the job measures it first and then hands over). After 3 s
 * it pauses the job and reports how long the bytes handed to the kernel
 * kept moving; 1 s after resuming it cancels and reports how long until
 * the job said it was cancelled. */
#include <glib.h>
#include <glib/gstdio.h>

#include "ferry-engine.h"

typedef struct
{
  GMainLoop *loop;
  gint64 ended_at;
  GError *error;
} Run;

static void
on_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;

  ferry_job_run_finish (FERRY_JOB (source), result, &run->error);
  run->ended_at = g_get_monotonic_time ();
  g_main_loop_quit (run->loop);
}

static guint64
bytes_written (FerryJob *job)
{
  g_auto (FerryProgress) p = { 0 };

  ferry_job_get_progress (job, &p);
  return p.bytes_written;
}

static void
iterate_for (guint ms)
{
  gint64 until = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
}

/* Milliseconds from the pause to the last change of the bytes written,
 * watched for 2 s. */
static double
measure_pause (FerryJob *job)
{
  gint64 paused_at = g_get_monotonic_time ();
  gint64 last_change = paused_at;
  guint64 last = bytes_written (job);

  ferry_job_pause (job);
  while (g_get_monotonic_time () - paused_at < 2 * G_USEC_PER_SEC)
    {
      guint64 now = bytes_written (job);

      if (now != last)
        {
          last = now;
          last_change = g_get_monotonic_time ();
        }
      iterate_for (5);
    }
  ferry_job_resume (job);
  return (last_change - paused_at) / 1000.0;
}

static void
write_source (const char *path, guint mb)
{
  g_autofree char *block = g_malloc (1024 * 1024);
  FILE *file = fopen (path, "wb");

  g_assert (file != NULL);
  for (guint i = 0; i < 1024 * 1024; i++)
    block[i] = (char) g_random_int ();
  for (guint i = 0; i < mb; i++)
    g_assert (fwrite (block, 1, 1024 * 1024, file) == 1024 * 1024);
  fclose (file);
}

static void
one_run (const char *source_path, const char *stick, FerryDeviceMode mode, guint index)
{
  g_autoptr (GFile) source = g_file_new_for_path (source_path);
  g_autofree char *folder = g_strdup_printf ("%s/run-%u", stick, index);
  g_autoptr (GFile) destination = g_file_new_for_path (folder);
  g_autoptr (FerryJob) job = NULL;
  Run run = { g_main_loop_new (NULL, FALSE), 0, NULL };
  gint64 cancelled_at;
  double pause_ms;

  g_mkdir (folder, 0755);
  job = ferry_job_new (&source, 1, destination);
  ferry_job_set_device_mode (job, mode);
  ferry_job_run_async (job, NULL, on_done, &run);
  iterate_for (3000);
  pause_ms = measure_pause (job);
  iterate_for (1000);
  cancelled_at = g_get_monotonic_time ();
  ferry_job_cancel (job);
  g_main_loop_run (run.loop);
  g_print ("run %u: pause answered in %.0f ms, cancel in %.0f ms (%s)\n", index, pause_ms,
           (run.ended_at - cancelled_at) / 1000.0, run.error ? run.error->message : "not cancelled");
  g_clear_error (&run.error);
  g_main_loop_unref (run.loop);
}

int
main (int argc, char **argv)
{
  int runs = 3, mb = 200;
  g_autofree char *mode_name = NULL;
  const GOptionEntry entries[] = {
    { "runs", 0, 0, G_OPTION_ARG_INT, &runs, "Runs (default 3)", "N" },
    { "mb", 0, 0, G_OPTION_ARG_INT, &mb, "Size of the file copied (default 200)", "MB" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode_name,
      "slow (the slow strategy from the start, default) or auto (measured first)", "MODE" },
    { NULL },
  };
  FerryDeviceMode mode;
  g_autoptr (GOptionContext) context = g_option_context_new ("");
  g_autoptr (GError) error = NULL;
  const char *stick = g_getenv ("FERRY_STICK");
  g_autofree char *source = g_build_filename (g_get_tmp_dir (), "ferry-bench-cancel.bin", NULL);

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || stick == NULL)
    {
      g_printerr ("%s\n", error ? error->message : "run it inside ferry-stick-run");
      return 2;
    }
  if (g_strcmp0 (mode_name, "auto") == 0)
    mode = FERRY_DEVICE_MODE_AUTO;
  else if (mode_name == NULL || g_strcmp0 (mode_name, "slow") == 0)
    mode = FERRY_DEVICE_MODE_SLOW;
  else
    {
      g_printerr ("--mode is slow or auto, not “%s”\n", mode_name);
      return 2;
    }
  write_source (source, (guint) mb);
  for (int i = 0; i < runs; i++)
    one_run (source, stick, mode, (guint) i);
  g_unlink (source);
  return 0;
}
