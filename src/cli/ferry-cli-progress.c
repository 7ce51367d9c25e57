/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ferry-cli-output.h"
#include "ferry-cli-progress.h"
#include "ferry-cli-unsupported.h"

#define TICK_MS 100

/**
 * FerryCliProgress:
 * Shows a running job's progress every tick: as a bar redrawn on standard
 * error, or as JSON lines on standard output, or not at all.
 */
struct _FerryCliProgress
{
  FerryJob *job;
  FerryCliPrompt *prompt; /* not owned, or NULL: the bar waits while it asks */
  FerryCliProgressStyle style;
  guint tick;
  gboolean bar_shown;
  gboolean device_shown;
  const char *strategy_shown;
};

FerryCliProgress *
ferry_cli_progress_new (FerryJob *job, FerryCliProgressStyle style, FerryCliPrompt *prompt)
{
  FerryCliProgress *self = g_new0 (FerryCliProgress, 1);

  self->job = g_object_ref (job);
  self->prompt = prompt;
  self->style = style;
  return self;
}

void
ferry_cli_progress_free (FerryCliProgress *self)
{
  g_clear_handle_id (&self->tick, g_source_remove);
  g_clear_object (&self->job);
  g_free (self);
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
show_json (FerryCliProgress *self, const FerryProgress *progress)
{
  g_autoptr (FerryDevice) device = self->device_shown ? NULL : ferry_job_dup_device (self->job);
  const char *strategy = ferry_job_get_strategy (self->job);
  g_autofree char *line = NULL;

  /* The device once, when it is known; the strategy then and
   * whenever it changes (a device measured slow). */
  if (strategy == self->strategy_shown && device == NULL)
    strategy = NULL;
  else
    self->strategy_shown = strategy;
  self->device_shown |= device != NULL;
  line = ferry_cli_format_json (progress, device, ferry_job_get_copy_method (self->job), strategy);
  /* Once nobody reads (`| head -n 1`), progress stops; the copy goes on. */
  if (ferror (stdout))
    return;
  fprintf (stdout, "%s\n", line);
  fflush (stdout);
}

static void
show_bar (FerryCliProgress *self, const FerryProgress *progress)
{
  g_autofree char *line = ferry_cli_format_bar (progress, terminal_width () - 1);

  fprintf (stderr, "\r\033[K%s", line);
  fflush (stderr);
  self->bar_shown = TRUE;
}

static void
show_progress (FerryCliProgress *self)
{
  g_auto (FerryProgress) progress = { 0 };

  ferry_job_get_progress (self->job, &progress);
  if (self->style == FERRY_CLI_PROGRESS_STYLE_JSON)
    show_json (self, &progress);
  else if (self->style == FERRY_CLI_PROGRESS_STYLE_BAR
           && !(self->prompt && ferry_cli_prompt_is_asking (self->prompt)))
    show_bar (self, &progress);
}

static gboolean
on_tick (gpointer user_data)
{
  show_progress (user_data);
  return G_SOURCE_CONTINUE;
}

void
ferry_cli_progress_start (FerryCliProgress *self)
{
  if (self->style != FERRY_CLI_PROGRESS_STYLE_NONE && self->tick == 0)
    self->tick = g_timeout_add (TICK_MS, on_tick, self);
}

/* What the drive could not store as it was, as one event with all of
 * it; before the final state, which a script takes for the last line. */
static void
show_unsupported_json (FerryCliProgress *self)
{
  g_autoptr (FerryUnsupportedReport) report = ferry_job_dup_unsupported_report (self->job);
  g_autofree char *line = NULL;

  if (report == NULL || ferror (stdout))
    return;
  line = ferry_cli_format_unsupported_json (report);
  fprintf (stdout, "%s\n", line);
}

/* After the job: JSON ends with a line of the final state, whenever the
 * last tick was; the bar goes, to leave the line to the summary. */
void
ferry_cli_progress_stop (FerryCliProgress *self)
{
  g_clear_handle_id (&self->tick, g_source_remove);
  if (self->style == FERRY_CLI_PROGRESS_STYLE_JSON)
    {
      show_unsupported_json (self);
      show_progress (self);
    }
  ferry_cli_progress_clear_bar (self);
}

/* Before another line on standard error, so that it does not start
 * after the bar. */
void
ferry_cli_progress_clear_bar (FerryCliProgress *self)
{
  if (self->bar_shown)
    fputs ("\r\033[K", stderr);
  self->bar_shown = FALSE;
}
