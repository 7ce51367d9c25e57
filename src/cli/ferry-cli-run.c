/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>

#include "ferry-cli-progress.h"
#include "ferry-cli-prompt.h"
#include "ferry-cli-run.h"

/* What the callbacks of one run share. */
typedef struct
{
  FerryJob *job;
  GMainLoop *loop;
  FerryCliPrompt *prompt; /* only when a policy asks */
  FerryCliProgress *progress;
  FerryCliOutcome *outcome;
} Run;

FerryJob *
ferry_cli_job_new (const FerryCliOptions *options)
{
  FerryJob *job = ferry_job_new_for_paths ((const char *const *) options->sources,
                                           g_strv_length (options->sources), options->destination);

  ferry_cli_job_apply_options (job, options);
  return job;
}

/* A run cut short is continued by the same command, unless --restart. */
void
ferry_cli_job_apply_options (FerryJob *job, const FerryCliOptions *options)
{
  ferry_job_set_keeps_journal (job, !options->dry_run);
  ferry_job_set_restart (job, options->restart);
  ferry_job_set_conflict_policy (job, options->conflict_policy);
  ferry_job_set_error_policy (job, options->error_policy);
  ferry_job_set_preserve (job, options->preserve);
  ferry_job_set_verify (job, options->verify);
  ferry_job_set_dry_run (job, options->dry_run);
  ferry_job_set_device_mode (job, options->device_mode);
  ferry_job_set_slow_method (job, options->slow_method);
  ferry_job_set_unsupported_policy (job, options->unsupported_policy);
  ferry_job_set_n_workers (job, options->n_workers);
}

static void
on_file_failed (FerryJob *job, FerryFailure *failure, Run *run)
{
  ferry_cli_progress_clear_bar (run->progress);
  ferry_cli_report_failure (run->outcome, failure->error);
}

static gboolean
on_conflict (FerryJob *job, FerryConflictRequest *request, Run *run)
{
  ferry_cli_progress_clear_bar (run->progress);
  ferry_cli_prompt_ask (run->prompt, request);
  return TRUE;
}

static gboolean
on_unsupported (FerryJob *job, FerryUnsupportedReport *report, Run *run)
{
  ferry_cli_progress_clear_bar (run->progress);
  ferry_cli_prompt_ask_unsupported (run->prompt, report);
  return TRUE;
}

/* Ctrl+C (or SIGTERM, or SIGHUP) cancels the job rather than killing the
 * process, so that no temporary file is left and the progress ends with
 * a last line. */
static gboolean
on_interrupt (gpointer user_data)
{
  Run *run = user_data;

  run->outcome->interrupted = TRUE;
  ferry_job_cancel (run->job);
  return G_SOURCE_CONTINUE;
}

static void
on_run_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Run *run = user_data;

  ferry_job_run_finish (FERRY_JOB (source), result, &run->outcome->error);
  g_main_loop_quit (run->loop);
}

/* A closed terminal (SIGHUP) ends the copy as Ctrl+C does, cleanly,
 * unless whoever started ferry-copy asked it to outlive its terminal
 * (nohup ignores SIGHUP): then it is still ignored. */
static guint
watch_hangup (Run *run)
{
  struct sigaction action;

  if (sigaction (SIGHUP, NULL, &action) == 0 && action.sa_handler == SIG_IGN)
    return 0;
  return g_unix_signal_add (SIGHUP, on_interrupt, run);
}

/**
 * ferry_cli_run:
 * Runs @job on the main loop until it ends, showing its progress in
 * @style, listing each failed file and asking about conflicts when its
 * policy says so. @outcome says how it ended.
 */
void
ferry_cli_run (FerryJob *job, FerryCliProgressStyle style, FerryCliOutcome *outcome)
{
  Run run = { .job = job, .outcome = outcome };
  guint on_sigint, on_sigterm, on_sighup;

  run.loop = g_main_loop_new (NULL, FALSE);
  if (ferry_job_get_conflict_policy (job) == FERRY_CONFLICT_POLICY_ASK
      || ferry_job_get_unsupported_policy (job) == FERRY_UNSUPPORTED_POLICY_ASK)
    run.prompt = ferry_cli_prompt_new ();
  if (ferry_job_get_conflict_policy (job) == FERRY_CONFLICT_POLICY_ASK)
    g_signal_connect (job, "conflict", G_CALLBACK (on_conflict), &run);
  if (ferry_job_get_unsupported_policy (job) == FERRY_UNSUPPORTED_POLICY_ASK)
    g_signal_connect (job, "unsupported", G_CALLBACK (on_unsupported), &run);
  run.progress = ferry_cli_progress_new (job, style, run.prompt);
  g_signal_connect (job, "file-failed", G_CALLBACK (on_file_failed), &run);
  on_sigint = g_unix_signal_add (SIGINT, on_interrupt, &run);
  on_sigterm = g_unix_signal_add (SIGTERM, on_interrupt, &run);
  on_sighup = watch_hangup (&run);

  ferry_cli_progress_start (run.progress);
  ferry_job_run_async (job, NULL, on_run_done, &run);
  g_main_loop_run (run.loop);
  ferry_cli_progress_stop (run.progress);

  /* Nothing may call back into this stack frame once it is gone. */
  g_signal_handlers_disconnect_by_data (job, &run);
  g_source_remove (on_sigint);
  g_source_remove (on_sigterm);
  g_clear_handle_id (&on_sighup, g_source_remove);
  g_clear_pointer (&run.progress, ferry_cli_progress_free);
  g_clear_pointer (&run.prompt, ferry_cli_prompt_free);
  g_clear_pointer (&run.loop, g_main_loop_unref);
}
