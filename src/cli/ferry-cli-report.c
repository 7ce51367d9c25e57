/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "ferry-cli-output.h"
#include "ferry-cli-report.h"
#include "ferry-cli-unsupported.h"

void
ferry_cli_outcome_clear (FerryCliOutcome *self)
{
  g_clear_error (&self->error);
  g_clear_pointer (&self->listed, g_hash_table_unref);
}

/* A file that failed, listed when it happens. Its message is kept: the
 * failure that stopped the job may be listed before another worker's
 * (two conflicts at once), and is not listed again at the end; nor is
 * one that two workers met alike (a source's drive pulled out). */
void
ferry_cli_report_failure (FerryCliOutcome *outcome, const GError *error)
{
  if (outcome->listed == NULL)
    outcome->listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (!g_hash_table_add (outcome->listed, g_strdup (error->message)))
    return;
  ferry_cli_print_error (error->message);
}

static void
print_summary (FerryJob *job, const FerryCliOptions *options)
{
  g_auto (FerryProgress) progress = { 0 };
  g_autofree char *summary = NULL;

  ferry_job_get_progress (job, &progress);
  if (progress.bytes_carried > 0)
    {
      g_autofree char *carried = g_format_size (progress.bytes_carried);
      /* TRANSLATORS: how much an earlier run cut short had put on the drive, like "12.3 MB" */
      fprintf (stderr, _ ("Carried over %s already on the drive\n"), carried);
    }
  summary = ferry_cli_format_summary (&progress, options->dry_run);
  /* A dry run's answer is its output; after a copy the summary closes
   * the bar for the person watching, while a script has the exit status
   * (and JSON its last line). */
  if (options->dry_run && options->progress_style == FERRY_CLI_PROGRESS_STYLE_JSON)
    return; /* the last JSON object has the totals; standard output stays JSON */
  if (options->dry_run)
    {
      g_autofree char *existing = ferry_cli_format_existing (&progress, options->conflict_policy);

      printf ("%s\n", summary);
      if (existing != NULL)
        printf ("%s\n", existing);
    }
  else if (options->progress_style == FERRY_CLI_PROGRESS_STYLE_BAR)
    fprintf (stderr, "%s\n", summary);
}

static gboolean
should_print_error (const FerryCliOptions *options, const FerryCliOutcome *outcome)
{
  /* The failure that stopped the job was listed when it happened. */
  if (outcome->listed != NULL && g_hash_table_contains (outcome->listed, outcome->error->message))
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

static FerryUnfinished *find_unfinished_of (FerryJob *job);

/* The job goes on with a transfer an earlier run left part of on the
 * drive: "Nothing was written" would say that part is not there. */
static gboolean
has_earlier_copy (FerryJob *job)
{
  g_autoptr (FerryUnfinished) unfinished = find_unfinished_of (job);

  return unfinished != NULL && ferry_unfinished_get_bytes_durable (unfinished) > 0;
}

/* What the drive could not store as it was: every entry when the job
 * stopped for them, what was renamed or skipped when it went on. (A
 * script reading JSON has had it as one event before the last line.) */
static void
report_unsupported (FerryJob *job)
{
  g_autoptr (FerryUnsupportedReport) report = ferry_job_dup_unsupported_report (job);
  FerryUnsupportedAction action;

  if (report == NULL)
    return;
  action = ferry_unsupported_report_get_action (report);
  if (action == FERRY_UNSUPPORTED_ACTION_ADAPT || action == FERRY_UNSUPPORTED_ACTION_SKIP)
    ferry_cli_list_adapted (report, stderr);
  else if (action == FERRY_UNSUPPORTED_ACTION_NONE)
    {
      ferry_cli_list_unsupported (report, stderr);
      fprintf (stderr, "%s\n",
               has_earlier_copy (job)
                   ? _ ("Nothing more was written. Run again with --unsupported=adapt or "
                        "--unsupported=skip to copy the rest.")
                   : _ ("Nothing was written. Run again with --unsupported=adapt or "
                        "--unsupported=skip to copy the rest."));
    }
}

/* --verify through exfat-fuse or ntfs-3g as a person who may not open
 * the drive: what was read back may have come from memory, and saying
 * nothing would claim more than was checked. */
static void
report_verify_from_cache (FerryJob *job)
{
  if (!ferry_job_get_verify_reads_cache (job))
    return;
  fprintf (stderr, "%s\n",
           _ ("Note: the copies were read back through the drive’s FUSE driver, which may "
              "give them back from memory rather than from the drive; reading them from the "
              "drive itself takes root or the “disk” group."));
}

/* The transfer whose journal @job keeps, when one was saved. */
static FerryUnfinished *
find_unfinished_of (FerryJob *job)
{
  g_autoptr (GPtrArray) list = ferry_unfinished_list ();

  for (guint i = 0; i < list->len; i++)
    {
      FerryUnfinished *unfinished = g_ptr_array_index (list, i);

      if (ferry_unfinished_is_of_job (unfinished, job))
        return g_object_ref (unfinished);
    }
  return NULL;
}

/* Whole sentences for translators, with the drive's name or without;
 * NULL when nothing is kept ("0 bytes of 50.0 MB is on STICK" said
 * nothing a person could use). */
static char *
describe_kept (FerryUnfinished *unfinished)
{
  g_autofree char *durable = g_format_size (ferry_unfinished_get_bytes_durable (unfinished));
  g_autofree char *total = g_format_size (ferry_unfinished_get_bytes_total (unfinished));
  const char *label = ferry_unfinished_get_label (unfinished);

  if (ferry_unfinished_get_bytes_durable (unfinished) == 0)
    return NULL;
  if (label != NULL)
    /* TRANSLATORS: what a copy cut short left on its drive, like "1.2 GB of 3.0 GB is on STICK." */
    return g_strdup_printf (_ ("%s of %s is on %s."), durable, total, label);
  /* TRANSLATORS: what a copy cut short left on a drive with no name, like
   * "1.2 GB of 3.0 GB is on the drive." */
  return g_strdup_printf (_ ("%s of %s is on the drive."), durable, total);
}

/* "1.2 GB of 3.0 GB is on STICK. Plug it in again …", or the advice
 * alone. */
static void
print_kept_and (const char *kept, const char *advice)
{
  if (kept != NULL)
    fprintf (stderr, "%s %s\n", kept, advice);
  else
    fprintf (stderr, "%s\n", advice);
}

/* A copy cut short whose journal could not be saved kept nothing to go
 * on from: saying nothing would leave the person to run --resume for a
 * transfer it does not know. */
static void
print_journal_unsaved (FerryJob *job)
{
  g_autoptr (GError) unsaved = ferry_job_dup_journal_error (job);

  if (unsaved != NULL)
    fprintf (stderr, _ ("This copy cannot be continued later: Ferry could not save its notes on it. "
                        "%s\n"),
             unsaved->message);
}

/* Nothing kept to go on from, what to do still holds, the drive named
 * ("it" had nothing to stand for). */
static void
print_advice_alone (FerryUnfinished *unfinished, gboolean present)
{
  const char *label = ferry_unfinished_get_label (unfinished);
  g_autofree char *advice = NULL;

  if (!present)
    /* TRANSLATORS: a copy stopped as its drive was pulled out, like
     * "Plug STICK in again and run the same command." */
    advice = label != NULL
                 ? g_strdup_printf (_ ("Plug %s in again and run the same command."), label)
                 : g_strdup (_ ("Plug the drive in again and run the same command."));
  else
    /* TRANSLATORS: a copy stopped as its drive filled up, like "Make
     * room on STICK and run the same command again." */
    advice = label != NULL
                 ? g_strdup_printf (_ ("Make room on %s and run the same command again."), label)
                 : g_strdup (_ ("Make room on the drive and run the same command again."));
  fprintf (stderr, "%s\n", advice);
}

/* A copy stopped by Ctrl+C, by its drive going away or filling up
 * keeps its journal where it has one (a stick, a drive Ferry measures),
 * and the same command goes on from what the drive has: nothing else
 * would tell the person so. Not after other failures: the same command
 * would meet them again. */
static void
print_how_to_go_on (FerryJob *job, const FerryCliOutcome *outcome)
{
  g_autoptr (FerryUnfinished) unfinished = find_unfinished_of (job);
  gboolean full = g_error_matches (outcome->error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  gboolean source_gone = g_error_matches (outcome->error, FERRY_ERROR, FERRY_ERROR_SOURCE_GONE);
  g_autofree char *kept = NULL;
  gboolean present;

  if (unfinished == NULL)
    {
      print_journal_unsaved (job);
      return;
    }
  present = ferry_unfinished_is_present (unfinished);
  if (present && !outcome->interrupted && !full && !source_gone)
    return;
  kept = describe_kept (unfinished);
  /* Stopped before anything was kept, there is nothing to go on from;
   * otherwise what to do matters more than how much is there. */
  if (kept == NULL && outcome->interrupted && present)
    return;
  if (kept == NULL && (!present || full) && !source_gone)
    {
      print_advice_alone (unfinished, present);
      return;
    }
  if (!present)
    print_kept_and (kept, _ ("Plug it in again and run the same command to go on from there."));
  else if (source_gone)
    print_kept_and (kept, _ ("Plug in the drive it copies from again and run the same command "
                             "to go on from there."));
  else if (outcome->interrupted)
    print_kept_and (kept, _ ("Run the same command again to go on from there, or add --restart "
                             "to copy everything anew."));
  else
    print_kept_and (kept, _ ("Make room on it and run the same command again to go on from "
                             "there."));
}

/* Without a terminal to ask on, the copy stops at the first file already
 * there (or a dry run says it would): how to say what to do with them. */
static void
print_conflict_hint (const FerryCliOptions *options, const FerryCliOutcome *outcome)
{
  if (options->conflict_policy != FERRY_CONFLICT_POLICY_FAIL
      || !g_error_matches (outcome->error, FERRY_ERROR, FERRY_ERROR_EXISTS))
    return;
  fprintf (stderr, "%s\n",
           _ ("Add --conflict=skip, overwrite, newer or keep-both to say what to do with files "
              "already there."));
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
    {
      report_unsupported (job);
      report_verify_from_cache (job);
      print_summary (job, options);
      return exit_status (outcome);
    }
  if (should_print_error (options, outcome))
    ferry_cli_print_error (outcome->error->message);
  print_how_to_go_on (job, outcome);
  print_conflict_hint (options, outcome);
  report_unsupported (job);
  return exit_status (outcome);
}
