/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>

#include "ferry-cli-options.h"
#include "ferry-cli-report.h"
#include "ferry-cli-resume.h"
#include "ferry-cli-run.h"
#include "ferry-engine.h"

/* ferry-copy in three stages: parse the command line, run the job on the
 * main loop, report how it ended in the exit status and on the terminal. */
int
main (int argc, char **argv)
{
  g_auto (FerryCliOptions) options = { 0 };
  g_auto (FerryCliOutcome) outcome = { 0 };
  g_autoptr (FerryJob) job = NULL;

  /* Output nobody reads any more must not stop a copy half-way: writes
   * to a closed pipe fail with EPIPE instead of killing the process. */
  signal (SIGPIPE, SIG_IGN);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, ferry_engine_get_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  ferry_engine_init ();

  if (!ferry_cli_options_parse (&options, argc, argv))
    return FERRY_CLI_EXIT_USAGE;
  if (options.show_version)
    {
      printf ("ferry-copy %s\n", PACKAGE_VERSION);
      return FERRY_CLI_EXIT_OK;
    }
  if (options.resume)
    return ferry_cli_resume (&options);
  if (options.discard)
    return ferry_cli_discard (&options);

  job = ferry_cli_job_new (&options);
  ferry_unfinished_keep_choices (job, options.chosen);
  ferry_cli_run (job, options.progress_style, &outcome);
  return ferry_cli_report (job, &options, &outcome);
}
