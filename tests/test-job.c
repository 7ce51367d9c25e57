/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A job speaks on the thread that made it: every notify and signal reaches
 * the caller's main context, never a worker thread. A window updates its
 * widgets from these handlers, so one call from a worker corrupts GTK's
 * state (seen as heap corruption in the window tests). */
#include <glib/gstdio.h>

#include "ferry-rate-meter.h"
#include "ferry-test-util.h"

typedef struct
{
  GThread *caller;
  guint heard;
  guint heard_elsewhere;
  GString *elsewhere; /* which handlers ran on another thread */
} Listener;

static void
listener_hear (Listener *listener, const char *what)
{
  listener->heard++;
  if (g_thread_self () == listener->caller)
    return;
  listener->heard_elsewhere++;
  g_string_append_printf (listener->elsewhere, " %s", what);
}

static void
on_notify (GObject *job, GParamSpec *pspec, gpointer user_data)
{
  listener_hear (user_data, pspec->name);
}

static void
on_file_failed (FerryJob *job, FerryFailure *failure, gpointer user_data)
{
  listener_hear (user_data, "file-failed");
}

/* Runs @job to its end while listening, then checks that every handler ran
 * here. The main context is iterated only in bursts with pauses, as a busy
 * front end does: between bursts no thread owns it. */
static void
run_listening (FerryJob *job, Listener *listener)
{
  g_auto (FerryTestJobRun) run = { 0 };

  listener->caller = g_thread_self ();
  listener->elsewhere = g_string_new (NULL);
  g_signal_connect (job, "notify", G_CALLBACK (on_notify), listener);
  g_signal_connect (job, "file-failed", G_CALLBACK (on_file_failed), listener);
  ferry_test_job_start (job, &run);
  while (!run.done)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
  ferry_test_spin (50);
  /* A notification still on its way (the job outlives the test while
   * one holds it) must not reach this listener, gone with its test. */
  g_signal_handlers_disconnect_by_data (job, listener);

  if (listener->heard_elsewhere > 0)
    g_error ("%u of %u handlers ran on a worker thread:%s", listener->heard_elsewhere,
             listener->heard, listener->elsewhere->str);
  g_string_free (listener->elsewhere, TRUE);
}

/* Many files, so the workers change phase and strategy while the caller's
 * context is not being iterated. */
static void
test_copy_speaks_on_callers_thread (FerryTestFixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  g_autoptr (FerryJob) job = NULL;
  Listener listener = { 0 };

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("file-%03u", i);

      ferry_test_write_random (ferry_test_path (f->src, name, NULL), 4096 + i, i);
    }
  job = ferry_test_job_new (sources, f->dst);
  run_listening (job, &listener);
  g_assert_cmpuint (listener.heard, >, 0);
  g_assert_cmpuint (ferry_test_count_entries (ferry_test_path (f->dst, "src", NULL)), ==, 200);
}

/* A file that fails while being read (the kernel answers EIO for the
 * unmapped start of a process's memory) reports its failure here too. */
static void
test_failure_speaks_on_callers_thread (FerryTestFixture *f, gconstpointer data)
{
  const char *sources[] = { "/proc/self/mem", NULL };
  g_autoptr (FerryJob) job = NULL;
  Listener listener = { 0 };

  job = ferry_test_job_new (sources, f->dst);
  ferry_job_set_error_policy (job, FERRY_ERROR_POLICY_SKIP);
  run_listening (job, &listener);
  g_assert_cmpuint (ferry_job_get_n_failures (job), ==, 1);
  g_assert_cmpuint (listener.heard, >, 0);
}

/* ------------------------------------------------------------------ */
/* The rate a row and the bar show                                     */

#define SECOND G_USEC_PER_SEC
#define MB     1000000

/* Samples of a count, every 0.2 s from 0 to @seconds, as the window and
 * the bar take them; @bytes_at gives the count at a time. */
static void
sample_for (FerryRateMeter *meter, double seconds, guint64 (*bytes_at) (gint64 usec))
{
  ferry_rate_meter_reset (meter);
  for (gint64 t = 0; t <= (gint64) (seconds * SECOND); t += SECOND / 5)
    ferry_rate_meter_sample (meter, t, bytes_at (t));
}

static guint64
steady_40_mb_s (gint64 usec)
{
  return (guint64) usec * 40;
}

/* A 4 MB/s stick whose data is confirmed 32 MB at a time, by a sync
 * every 8 seconds. */
static guint64
steps_of_32_mb (gint64 usec)
{
  return (guint64) (usec / (8 * SECOND)) * 32 * MB;
}

/* 40 MB/s for 10 s, then nothing. */
static guint64
stalled_after_10_s (gint64 usec)
{
  return steady_40_mb_s (MIN (usec, 10 * SECOND));
}

static void
assert_rate_near (double rate, double expected)
{
  if (rate < expected * 0.95 || rate > expected * 1.05)
    g_error ("a rate of %.0f B/s, expected %.0f", rate, expected);
}

/* A steady copy shows its rate; one confirmed in steps shows the steps'
 * rate at every moment between them (it showed 1.3 MB/s, then 6.9, on a
 * 4 MB/s stick), and a copy that stopped shows it slowing down. */
static void
test_rate_steady_steps_stalled (void)
{
  FerryRateMeter meter;

  sample_for (&meter, 30, steady_40_mb_s);
  assert_rate_near (ferry_rate_meter_get_rate (&meter), 40 * MB);
  for (double at = 24.2; at < 40; at += 1.3)
    {
      sample_for (&meter, at, steps_of_32_mb);
      /* Late past a step's usual time, the rate slows as it waits. */
      if (at - 8 * (int) (at / 8) < 1.0)
        assert_rate_near (ferry_rate_meter_get_rate (&meter), 4 * MB);
      else
        g_assert_cmpfloat (ferry_rate_meter_get_rate (&meter), <=, 4.0 * MB * 1.05);
      g_assert_cmpfloat (ferry_rate_meter_get_rate (&meter), >=, 4.0 * MB * 0.5);
    }
  sample_for (&meter, 12, stalled_after_10_s);
  g_assert_cmpfloat (ferry_rate_meter_get_rate (&meter), <, 30.0 * MB);
  sample_for (&meter, 25, stalled_after_10_s);
  g_assert_cmpfloat (ferry_rate_meter_get_rate (&meter), <, 1.0 * MB);
}

/* 11.4 MB/s confirmed a step every 1.5 s, until 20 s in. */
static guint64
steps_stalled_at_20_s (gint64 usec)
{
  gint64 steps = MIN (usec, 20 * SECOND) / (3 * SECOND / 2);

  return (guint64) steps * 17100000;
}

static guint64
nothing_yet (gint64 usec)
{
  return 0;
}

/* A drive that stops taking data: between steps the rate holds, past a
 * step's usual time it falls, and once nothing came for twice as long
 * as a step takes (3 s at least) the count is stalled; a stick that took
 * nothing for 5 s had shown "11.4 MB/s · 4 seconds left" all along. A
 * count confirmed every 8 s is not stalled for waiting 8, nor one that
 * has not grown yet. */
static void
test_rate_stalled (void)
{
  FerryRateMeter meter;
  double steady;

  sample_for (&meter, 19.6, steps_stalled_at_20_s);
  steady = ferry_rate_meter_get_rate (&meter);
  assert_rate_near (steady, 11.4 * MB);
  g_assert_false (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 21.2, steps_stalled_at_20_s);
  assert_rate_near (ferry_rate_meter_get_rate (&meter), steady);
  g_assert_false (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 22.8, steps_stalled_at_20_s);
  g_assert_cmpfloat (ferry_rate_meter_get_rate (&meter), <, steady * 0.8);
  g_assert_false (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 23.6, steps_stalled_at_20_s);
  g_assert_true (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 60, steps_stalled_at_20_s);
  g_assert_true (ferry_rate_meter_is_stalled (&meter));

  sample_for (&meter, 13.2, stalled_after_10_s);
  g_assert_true (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 12.8, stalled_after_10_s);
  g_assert_false (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 39.9, steps_of_32_mb);
  g_assert_false (ferry_rate_meter_is_stalled (&meter));
  sample_for (&meter, 30, nothing_yet);
  g_assert_false (ferry_rate_meter_is_stalled (&meter));
}

static double
rate_now (FerryJob *job)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (job, &progress);
  return progress.rate;
}

static guint64
files_done (FerryJob *job)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (job, &progress);
  return progress.files_done;
}

/* Paused, a job shows no rate, and once resumed it measures anew: the
 * time it was held had counted in the window, and a 5 MB/s stick showed
 * 300 kB/s and "2 minutes left" for seconds after Resume. */
static void
test_rate_held_and_resumed (FerryTestFixture *f, gconstpointer data)
{
  const char *sources[] = { f->src, NULL };
  g_autoptr (FerryJob) job = NULL;
  g_auto (FerryTestJobRun) run = { 0 };

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *name = g_strdup_printf ("file-%04u", i);

      ferry_test_write_random (ferry_test_path (f->src, name, NULL), 64 * 1024, i);
    }
  job = ferry_test_job_new (sources, f->dst);
  ferry_job_set_n_workers (job, 1);
  ferry_test_job_start (job, &run);
  while (files_done (job) < 100)
    {
      g_assert_false (run.done);
      ferry_test_spin (10);
    }
  ferry_job_pause (job);
  for (guint i = 0; i < 10; i++)
    {
      ferry_test_spin (100);
      g_assert_cmpfloat (rate_now (job), ==, 0);
    }
  ferry_job_resume (job);
  g_assert_cmpfloat (rate_now (job), ==, 0); /* one sample since: none yet */
  ferry_test_job_wait (&run, 60 * 1000);
  g_assert_true (run.ok);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/job/rate/steady-steps-stalled", test_rate_steady_steps_stalled);
  g_test_add_func ("/job/rate/stalled", test_rate_stalled);
  g_test_add ("/job/rate/held-and-resumed", FerryTestFixture, NULL, ferry_test_fixture_set_up,
              test_rate_held_and_resumed, ferry_test_fixture_tear_down);
  g_test_add ("/job/copy-speaks-on-callers-thread", FerryTestFixture, NULL,
              ferry_test_fixture_set_up, test_copy_speaks_on_callers_thread,
              ferry_test_fixture_tear_down);
  g_test_add ("/job/failure-speaks-on-callers-thread", FerryTestFixture, NULL,
              ferry_test_fixture_set_up, test_failure_speaks_on_callers_thread,
              ferry_test_fixture_tear_down);
  return g_test_run ();
}
