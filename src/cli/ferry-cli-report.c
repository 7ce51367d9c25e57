/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdio.h>

#include "ferry-cli-output.h"
#include "ferry-cli-report.h"

void
ferry_cli_outcome_clear (FerryCliOutcome *self)
{
  g_clear_error (&self->error);
  g_clear_pointer (&self->last_failure, g_free);
}

/* A file that failed, listed when it happens. */
void
ferry_cli_report_failure (FerryCliOutcome *outcome, const GError *error)
{
  ferry_cli_print_error (error->message);
  g_free (outcome->last_failure);
  outcome->last_failure = g_strdup (error->message);
}

static void
print_summary (FerryJob *job, const FerryCliOptions *options)
{
  g_auto (FerryProgress) progress = { 0 };
  g_autofree char *summary = NULL;

  ferry_job_get_progress (job, &progress);
  summary = ferry_cli_format_summary (&progress, options->dry_run);
  /* A dry run's answer is its output; after a copy the summary closes
   * the bar for the person watching, while a script has the exit status
   * (and JSON its last line). */
  if (options->dry_run)
    printf ("%s\n", summary);
  else if (options->progress_style == FERRY_CLI_PROGRESS_STYLE_BAR)
    fprintf (stderr, "%s\n", summary);
}

static gboolean
should_print_error (const FerryCliOptions *options, const FerryCliOutcome *outcome)
{
  /* The failure that stopped the job was listed when it happened. */
  if (g_strcmp0 (outcome->error->message, outcome->last_failure) == 0)
    return FALSE;
  /* "3 items could not be copied" closes the bar for the person
   * watching; elsewhere standard error keeps to one line a failed file. */
  return !g_error_matches (outcome->error, FERRY_ERROR, FERRY_ERROR_PARTIAL)
         || options->progress_style == FERRY_CLI_PROGRESS_STYLE_BAR;
}

static FerryCliExit
exit_status (const FerryCliOutcome *outcome)
{
  if (outcome->error == NULL)
    return FERRY_CLI_EXIT_OK;
  if (outcome->interrupted)
    return FERRY_CLI_EXIT_INTERRUPTED;
  /* The engine's own usage errors, such as several sources into a file. */
  if (g_error_matches (outcome->error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT))
    return FERRY_CLI_EXIT_USAGE;
  return FERRY_CLI_EXIT_FAILED;
}

/**
 * ferry_cli_report:
 * Says how the job ended: the summary, or the error that ended it when
 * it was not listed already. Returns the exit status.
 */
FerryCliExit
ferry_cli_report (FerryJob *job, const FerryCliOptions *options, const FerryCliOutcome *outcome)
{
  if (outcome->error == NULL)
    print_summary (job, options);
  else if (should_print_error (options, outcome))
    ferry_cli_print_error (outcome->error->message);
  return exit_status (outcome);
}
