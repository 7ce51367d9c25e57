/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ferry-cli-output.h"
#include "ferry-cli-prompt.h"
#include "ferry-engine.h"

#define EXIT_FAILED      1
#define EXIT_USAGE       2
#define EXIT_INTERRUPTED 130
#define TICK_MS          100

typedef enum
{
  PROGRESS_NONE,
  PROGRESS_BAR,
  PROGRESS_JSON,
} ProgressStyle;

typedef struct
{
  FerryJob *job;
  GMainLoop *loop;
  FerryCliPrompt *prompt;
  ProgressStyle style;
  gboolean dry_run;
  gboolean bar_shown;
  gboolean interrupted;
  gboolean device_shown;
  const char *strategy_shown;
  char *last_failure;
  GError *error;
} Cli;

static gboolean
parse_conflict (const char *value, FerryConflictPolicy *policy)
{
  static const struct
  {
    const char *name;
    FerryConflictPolicy policy;
  } names[] = {
    { "ask", FERRY_CONFLICT_POLICY_ASK },
    { "skip", FERRY_CONFLICT_POLICY_SKIP },
    { "overwrite", FERRY_CONFLICT_POLICY_OVERWRITE },
    { "newer", FERRY_CONFLICT_POLICY_NEWER },
    { "keep-both", FERRY_CONFLICT_POLICY_KEEP_BOTH },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (value, names[i].name) == 0)
      {
        *policy = names[i].policy;
        return TRUE;
      }
  return FALSE;
}

static gboolean
parse_device (const char *value, FerryDeviceMode *mode)
{
  if (g_strcmp0 (value, "auto") == 0)
    *mode = FERRY_DEVICE_MODE_AUTO;
  else if (g_strcmp0 (value, "fast") == 0)
    *mode = FERRY_DEVICE_MODE_FAST;
  else if (g_strcmp0 (value, "slow") == 0)
    *mode = FERRY_DEVICE_MODE_SLOW;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_slow_method (const char *value, FerrySlowMethod *method)
{
  if (g_strcmp0 (value, "window") == 0)
    *method = FERRY_SLOW_METHOD_WINDOW;
  else if (g_strcmp0 (value, "chunk-sync") == 0)
    *method = FERRY_SLOW_METHOD_CHUNK_SYNC;
  else
    return FALSE;
  return TRUE;
}

static gboolean
parse_progress (const char *value, ProgressStyle *style)
{
  if (g_strcmp0 (value, "bar") == 0)
    *style = PROGRESS_BAR;
  else if (g_strcmp0 (value, "json") == 0)
    *style = PROGRESS_JSON;
  else if (g_strcmp0 (value, "none") == 0)
    *style = PROGRESS_NONE;
  else
    return FALSE;
  return TRUE;
}

static guint
terminal_width (void)
{
  struct winsize ws;

  if (ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  return 80;
}

static void
clear_bar (Cli *cli)
{
  if (cli->bar_shown)
    fputs ("\r\033[K", stderr);
  cli->bar_shown = FALSE;
}

static void
show_progress (Cli *cli)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (cli->job, &progress);
  if (cli->style == PROGRESS_JSON)
    {
      g_autoptr (FerryDevice) device = cli->device_shown ? NULL : ferry_job_dup_device (cli->job);
      const char *strategy = ferry_job_get_strategy (cli->job);
      g_autofree char *line = NULL;

      /* The device once, when it is known; the strategy then and
       * whenever it changes (a device measured slow). */
      if (strategy == cli->strategy_shown && device == NULL)
        strategy = NULL;
      else
        cli->strategy_shown = strategy;
      cli->device_shown |= device != NULL;
      line = ferry_cli_format_json (&progress, device, strategy);
      fprintf (stdout, "%s\n", line);
      fflush (stdout);
    }
  else if (cli->style == PROGRESS_BAR && !(cli->prompt && ferry_cli_prompt_is_asking (cli->prompt)))
    {
      g_autofree char *line = ferry_cli_format_bar (&progress, terminal_width () - 1);
      fprintf (stderr, "\r\033[K%s", line);
      fflush (stderr);
      cli->bar_shown = TRUE;
    }
}

static gboolean
on_tick (gpointer user_data)
{
  show_progress (user_data);
  return G_SOURCE_CONTINUE;
}

static void
on_file_failed (FerryJob *job, FerryFailure *failure, Cli *cli)
{
  clear_bar (cli);
  fprintf (stderr, "ferry-copy: %s\n", failure->error->message);
  g_free (cli->last_failure);
  cli->last_failure = g_strdup (failure->error->message);
}

static gboolean
on_conflict (FerryJob *job, FerryConflictRequest *request, Cli *cli)
{
  clear_bar (cli);
  ferry_cli_prompt_ask (cli->prompt, request);
  return TRUE;
}

static gboolean
on_interrupt (gpointer user_data)
{
  Cli *cli = user_data;

  cli->interrupted = TRUE;
  ferry_job_cancel (cli->job);
  return G_SOURCE_CONTINUE;
}

static void
on_run_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Cli *cli = user_data;

  ferry_job_run_finish (FERRY_JOB (source), result, &cli->error);
  g_main_loop_quit (cli->loop);
}

static void
print_summary (Cli *cli)
{
  g_auto (FerryProgress) progress = { 0 };
  g_autofree char *summary = NULL;

  ferry_job_get_progress (cli->job, &progress);
  summary = ferry_cli_format_summary (&progress, cli->dry_run);
  if (cli->dry_run)
    printf ("%s\n", summary);
  else if (cli->style == PROGRESS_BAR)
    fprintf (stderr, "%s\n", summary);
}

static int
exit_status (Cli *cli)
{
  if (cli->error == NULL)
    return EXIT_SUCCESS;
  if (cli->interrupted)
    return EXIT_INTERRUPTED;
  if (g_error_matches (cli->error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT))
    return EXIT_USAGE;
  return EXIT_FAILED;
}

static int
run_job (Cli *cli)
{
  guint tick = 0;

  cli->loop = g_main_loop_new (NULL, FALSE);
  g_signal_connect (cli->job, "file-failed", G_CALLBACK (on_file_failed), cli);
  if (ferry_job_get_conflict_policy (cli->job) == FERRY_CONFLICT_POLICY_ASK)
    {
      cli->prompt = ferry_cli_prompt_new ();
      g_signal_connect (cli->job, "conflict", G_CALLBACK (on_conflict), cli);
    }
  g_unix_signal_add (SIGINT, on_interrupt, cli);
  g_unix_signal_add (SIGTERM, on_interrupt, cli);

  if (cli->style != PROGRESS_NONE)
    tick = g_timeout_add (TICK_MS, on_tick, cli);
  ferry_job_run_async (cli->job, NULL, on_run_done, cli);
  g_main_loop_run (cli->loop);
  if (tick != 0)
    g_source_remove (tick);

  if (cli->style == PROGRESS_JSON)
    show_progress (cli);
  clear_bar (cli);

  /* The failure that stopped the job was listed when it happened. */
  if (cli->error == NULL)
    print_summary (cli);
  else if (g_strcmp0 (cli->error->message, cli->last_failure) != 0
           && (!g_error_matches (cli->error, FERRY_ERROR, FERRY_ERROR_PARTIAL)
               || cli->style == PROGRESS_BAR))
    fprintf (stderr, "ferry-copy: %s\n", cli->error->message);

  g_clear_pointer (&cli->prompt, ferry_cli_prompt_free);
  g_clear_pointer (&cli->loop, g_main_loop_unref);
  g_clear_pointer (&cli->last_failure, g_free);
  return exit_status (cli);
}

static int
usage_error (GOptionContext *context, const char *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  fprintf (stderr, "ferry-copy: %s\n\n%s", message, help);
  return EXIT_USAGE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) sources = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GFile) destination = NULL;
  g_autoptr (FerryJob) job = NULL;
  g_auto (GStrv) paths = NULL;
  g_autofree char *conflict = NULL;
  g_autofree char *progress = NULL;
  g_autofree char *on_error = NULL;
  g_autofree char *device = NULL;
  g_autofree char *slow_method = NULL;
  FerryDeviceMode device_mode = FERRY_DEVICE_MODE_AUTO;
  FerrySlowMethod method = FERRY_SLOW_METHOD_WINDOW;
  gboolean no_preserve = FALSE, verify = FALSE, dry_run = FALSE, version = FALSE;
  gint workers = 0;
  FerryConflictPolicy policy;
  Cli cli = { 0 };
  guint n_paths;
  int status;

  const GOptionEntry entries[]
      = { { "conflict", 0, 0, G_OPTION_ARG_STRING, &conflict,
            N_ ("What to do when a file exists: ask, skip, overwrite, newer, keep-both (default: "
                "ask on a terminal, else stop at the first one)"),
            N_ ("POLICY") },
          { "on-error", 0, 0, G_OPTION_ARG_STRING, &on_error,
            N_ ("After a file fails: skip it and go on, or stop (default: skip)"),
            N_ ("skip|stop") },
          { "no-preserve", 0, 0, G_OPTION_ARG_NONE, &no_preserve,
            N_ ("Do not keep owner, permissions, times and extended attributes"), NULL },
          { "verify", 0, 0, G_OPTION_ARG_NONE, &verify,
            N_ ("Read every copy back from the disk and compare it"), NULL },
          { "progress", 0, 0, G_OPTION_ARG_STRING, &progress,
            N_ ("How to show progress: bar, json (one object per line on standard output) or none"),
            N_ ("STYLE") },
          { "device", 0, 0, G_OPTION_ARG_STRING, &device,
            N_ ("Treat the destination's device as auto (its class, then measured), fast or slow"),
            N_ ("auto|fast|slow") },
          { "slow-method", 0, 0, G_OPTION_ARG_STRING, &slow_method,
            N_ ("How to write to a slow device: window (default) or chunk-sync"), N_ ("METHOD") },
          { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run,
            N_ ("Only plan: report what would be copied"), NULL },
          { "jobs", 'j', 0, G_OPTION_ARG_INT, &workers,
            N_ ("Copy with N threads (default: one per core)"), N_ ("N") },
          { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_ ("Show the version"), NULL },
          { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL,
            N_ ("SOURCE… DESTINATION") },
          { NULL } };

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, ferry_engine_get_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  ferry_engine_init ();

  context = g_option_context_new (NULL);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context, _ ("Copy files and folders, keeping everything, and "
                                            "return only when the copies are safely on the disk."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);

  if (version)
    {
      printf ("ferry-copy %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }

  n_paths = paths ? g_strv_length (paths) : 0;
  if (n_paths < 2)
    return usage_error (context, n_paths == 0 ? _ ("missing SOURCE and DESTINATION")
                                              : _ ("missing DESTINATION"));

  if (conflict == NULL)
    policy = isatty (STDIN_FILENO) && isatty (STDERR_FILENO) ? FERRY_CONFLICT_POLICY_ASK
                                                             : FERRY_CONFLICT_POLICY_FAIL;
  else if (!parse_conflict (conflict, &policy))
    return usage_error (context, _ ("--conflict takes ask, skip, overwrite, newer or keep-both"));

  cli.style = isatty (STDERR_FILENO) ? PROGRESS_BAR : PROGRESS_NONE;
  if (progress != NULL && !parse_progress (progress, &cli.style))
    return usage_error (context, _ ("--progress takes bar, json or none"));
  if (on_error != NULL && g_strcmp0 (on_error, "skip") != 0 && g_strcmp0 (on_error, "stop") != 0)
    return usage_error (context, _ ("--on-error takes skip or stop"));
  if (device != NULL && !parse_device (device, &device_mode))
    return usage_error (context, _ ("--device takes auto, fast or slow"));
  if (slow_method != NULL && !parse_slow_method (slow_method, &method))
    return usage_error (context, _ ("--slow-method takes window or chunk-sync"));
  if (workers < 0 || workers > 256)
    return usage_error (context, _ ("--jobs takes a number from 1 to 256"));

  for (guint i = 0; i + 1 < n_paths; i++)
    g_ptr_array_add (sources, g_file_new_for_path (paths[i]));
  destination = g_file_new_for_path (paths[n_paths - 1]);

  job = ferry_job_new ((GFile *const *) sources->pdata, sources->len, destination);
  ferry_job_set_conflict_policy (job, policy);
  ferry_job_set_error_policy (job, g_strcmp0 (on_error, "stop") == 0 ? FERRY_ERROR_POLICY_STOP
                                                                     : FERRY_ERROR_POLICY_SKIP);
  ferry_job_set_preserve (job, !no_preserve);
  ferry_job_set_verify (job, verify);
  ferry_job_set_dry_run (job, dry_run);
  ferry_job_set_device_mode (job, device_mode);
  ferry_job_set_slow_method (job, method);
  ferry_job_set_n_workers (job, workers > 0 ? (guint) workers : g_get_num_processors ());

  cli.job = job;
  cli.dry_run = dry_run;
  status = run_job (&cli);
  g_clear_error (&cli.error);
  return status;
}
