/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

#include "ferry-cli-output.h"
#include "ferry-format.h"

/* The one way ferry-copy writes an error of its own or a failed file: on
 * standard error, after its name, so that a script's log says whose
 * message it is. */
void
ferry_cli_print_error (const char *message)
{
  fprintf (stderr, "ferry-copy: %s\n", message);
}

void
ferry_cli_append_json_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      guchar c = *p;
      if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, c);
    }
  g_string_append_c (out, '"');
}

/* The items and bytes of a JSON line (README says what each means). */
static void
append_counts (GString *out, const FerryProgress *p)
{
  g_string_append_printf (out,
                          ",\"files_total\":%" G_GUINT64_FORMAT ",\"files_done\":%" G_GUINT64_FORMAT
                          ",\"files_failed\":%" G_GUINT64_FORMAT
                          ",\"files_skipped\":%" G_GUINT64_FORMAT
                          ",\"files_existing\":%" G_GUINT64_FORMAT,
                          p->files_total, p->files_done, p->files_failed, p->files_skipped,
                          p->files_existing);
  g_string_append_printf (out,
                          ",\"bytes_total\":%" G_GUINT64_FORMAT
                          ",\"bytes_written\":%" G_GUINT64_FORMAT
                          ",\"bytes_durable\":%" G_GUINT64_FORMAT
                          ",\"bytes_carried\":%" G_GUINT64_FORMAT
                          ",\"bytes_failed\":%" G_GUINT64_FORMAT,
                          p->bytes_total, p->bytes_written, p->bytes_durable, p->bytes_carried,
                          p->bytes_failed);
}

/* One JSON object on one line. Paths in "current" are already display
 * strings (valid UTF-8, odd bytes escaped), so the line is valid JSON. */
char *
ferry_cli_format_json (const FerryProgress *p,
                       FerryDevice *device,
                       FerryCopyMethod method,
                       const char *strategy)
{
  GString *out = g_string_new ("{");
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "\"time\":%s",
                          g_ascii_formatd (number, sizeof number, "%.3f", p->elapsed));
  g_string_append (out, ",\"phase\":");
  ferry_cli_append_json_string (out, ferry_phase_to_string (p->phase));
  g_string_append_printf (out, ",\"paused\":%s", p->paused ? "true" : "false");
  g_string_append_printf (out, ",\"planning_done\":%s", p->planning_done ? "true" : "false");
  g_string_append_printf (out, ",\"stalled\":%s", p->stalled ? "true" : "false");
  append_counts (out, p);
  g_string_append_printf (out, ",\"rate\":%s",
                          g_ascii_formatd (number, sizeof number, "%.0f", p->rate));
  g_string_append_printf (out, ",\"eta\":%s",
                          g_ascii_formatd (number, sizeof number, "%.1f", p->eta));
  g_string_append (out, ",\"current\":");
  if (p->current != NULL)
    ferry_cli_append_json_string (out, p->current);
  else
    g_string_append (out, "null");
  if (device != NULL)
    {
      /* How Ferry treats the device now: measured slow, or told, it is
       * written the slow way whatever its class says. */
      gboolean slow = method != FERRY_COPY_METHOD_NONE
                          ? ferry_copy_method_is_slow (method)
                          : ferry_device_get_speed (device) == FERRY_DEVICE_SPEED_SLOW;

      g_string_append (out, ",\"device\":{\"class\":");
      ferry_cli_append_json_string (out, ferry_device_get_class_name (device));
      g_string_append (out, ",\"name\":");
      ferry_cli_append_json_string (out, ferry_device_get_display_name (device));
      g_string_append_printf (out, ",\"speed\":\"%s\",\"removable\":%s}", slow ? "slow" : "fast",
                              ferry_device_get_removable (device) ? "true" : "false");
    }
  if (strategy != NULL)
    {
      g_string_append (out, ",\"strategy\":");
      ferry_cli_append_json_string (out, strategy);
    }
  g_string_append_c (out, '}');
  return g_string_free (out, FALSE);
}

char *
ferry_cli_format_duration (double seconds)
{
  guint64 s = seconds < 0 ? 0 : (guint64) (seconds + 0.5);

  if (s >= 3600)
    return g_strdup_printf ("%" G_GUINT64_FORMAT ":%02u:%02u", s / 3600, (guint) (s / 60 % 60),
                            (guint) (s % 60));
  return g_strdup_printf ("%u:%02u", (guint) (s / 60), (guint) (s % 60));
}

/* Cuts @text from the left so it fits @width columns, keeping the end of
 * a path, which says most. */
static char *
fit_left (const char *text, guint width)
{
  glong len = g_utf8_strlen (text, -1);

  if (width < 2)
    return g_strdup ("");
  if (len <= (glong) width)
    return g_strdup (text);
  return g_strconcat ("…", g_utf8_offset_to_pointer (text, len - width + 1), NULL);
}

static char *
format_counts (const FerryProgress *p, guint64 done)
{
  g_autofree char *done_str = g_format_size (done);
  g_autofree char *total_str = g_format_size (p->bytes_total);

  if (p->phase == FERRY_PHASE_SYNCING && !p->durable_live)
    {
      g_autofree char *left
          = g_format_size (p->bytes_written - MIN (p->bytes_written, p->bytes_durable));
      /* TRANSLATORS: %s is a size, like "1.2 GB" */
      return g_strdup_printf (_ ("syncing, %s still to reach the disk"), left);
    }
  /* TRANSLATORS: "1.2 GB of 2.9 GB"; the plus marks a total still growing */
  return g_strdup_printf (_ ("%s of %s%s"), done_str, total_str, p->planning_done ? "" : "+");
}

/* One line: percent, a bar (durable part solid, written part lighter),
 * bytes, rate, time left, and the current file in what room is left. */
char *
ferry_cli_format_bar (const FerryProgress *p, guint width)
{
  const guint bar_width = 20;
  double fraction = ferry_progress_get_fraction (p);
  guint64 done = p->durable_live ? p->bytes_durable : p->bytes_written;
  guint solid = (guint) (fraction * bar_width);
  guint written = p->bytes_total > 0
                      ? (guint) (MIN (1.0, (double) p->bytes_written / p->bytes_total) * bar_width)
                      : 0;
  g_autofree char *counts = format_counts (p, done);
  g_autofree char *rate = p->rate > 0 ? g_format_size ((guint64) p->rate) : NULL;
  g_autofree char *eta = p->eta >= 0 ? ferry_cli_format_duration (p->eta) : NULL;
  GString *line = g_string_new (NULL);
  glong used;

  g_string_append_printf (line, "%3u%% [", (guint) (fraction * 100));
  for (guint i = 0; i < bar_width; i++)
    g_string_append (line, i < solid ? "█" : i < MAX (written, solid) ? "▒" : " ");
  g_string_append_printf (line, "] %s", counts);
  if (rate != NULL)
    {
      g_string_append (line, "  ");
      /* TRANSLATORS: a transfer rate, like "38.2 MB/s" */
      g_string_append_printf (line, _ ("%s/s"), rate);
    }
  if (eta != NULL)
    /* TRANSLATORS: estimated time left, like "ETA 1:05" */
    g_string_append_printf (line, _ ("  ETA %s"), eta);
  if (p->paused)
    g_string_append_printf (line, "  %s", _ ("paused"));
  else if (p->stalled)
    /* TRANSLATORS: in the progress line, while the drive takes nothing */
    g_string_append_printf (line, "  %s", _ ("waiting for the drive"));

  used = g_utf8_strlen (line->str, -1);
  if (p->current != NULL && width > used + 4)
    {
      g_autofree char *current = fit_left (p->current, width - used - 2);
      g_string_append_printf (line, "  %s", current);
    }
  return g_string_free (line, FALSE);
}

/* How long a copy took: "0.04 s", "0.4 s" or "12 s" under a minute,
 * where "0:00" would say it took no time at all; "1:05" from a minute on. */
static char *
format_elapsed (double seconds)
{
  g_autofree char *number = NULL;

  if (seconds >= 59.5)
    return ferry_cli_format_duration (seconds);
  if (seconds < 0.095)
    number = g_strdup_printf ("%.2f", MAX (seconds, 0.01));
  else
    number = g_strdup_printf (seconds < 9.95 ? "%.1f" : "%.0f", seconds);
  /* TRANSLATORS: a time in seconds, like "0.4 s" or "12 s" */
  return g_strdup_printf (_ ("%s s"), number);
}

/**
 * ferry_cli_format_existing:
 * What a dry run found already under its copies' names, and what the
 * copy would do with them under @policy; NULL for nothing found. (Under
 * FERRY_CONFLICT_POLICY_FAIL the dry run is refused, as the copy would
 * stop at the first.)
 */
char *
ferry_cli_format_existing (const FerryProgress *p, FerryConflictPolicy policy)
{
  guint64 others = p->files_existing - MIN (p->files_existing, p->files_skipped);
  g_autofree char *skipped = ferry_format_count (p->files_skipped);
  g_autofree char *count = ferry_format_count (others);
  g_autofree char *all = ferry_format_count (p->files_existing);

  if (p->files_existing == 0)
    return NULL;
  if (policy == FERRY_CONFLICT_POLICY_ASK)
    return g_strdup_printf (
        /* TRANSLATORS: a dry run's finding: "You would be asked about 4 files already there" */
        g_dngettext (GETTEXT_PACKAGE, "You would be asked about %s file already there",
                     "You would be asked about %s files already there", p->files_existing),
        all);
  if (policy == FERRY_CONFLICT_POLICY_KEEP_BOTH)
    return g_strdup_printf (
        /* TRANSLATORS: a dry run's finding, with --conflict=keep-both */
        g_dngettext (GETTEXT_PACKAGE,
                     "%s file already there would be kept, its copy named “name (2)”",
                     "%s files already there would be kept, their copies named “name (2)”",
                     p->files_existing),
        all);
  if (others == 0)
    /* TRANSLATORS: a dry run's finding: "4 files already there would be skipped" */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s file already there would be skipped",
                                         "%s files already there would be skipped",
                                         p->files_skipped),
                            skipped);
  if (p->files_skipped == 0)
    /* TRANSLATORS: a dry run's finding: "4 files already there would be replaced" */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s file already there would be replaced",
                                         "%s files already there would be replaced", others),
                            count);
  /* TRANSLATORS: a dry run's finding with --conflict=newer: files already
   * there, replaced (older) and skipped: "3 files already there would be
   * replaced, and 1 skipped" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%s file already there would be replaced, and %s skipped",
                                       "%s files already there would be replaced, and %s skipped",
                                       others),
                          count, skipped);
}

char *
ferry_cli_format_summary (const FerryProgress *p, gboolean dry_run)
{
  g_autofree char *size = g_format_size (p->bytes_total);
  g_autofree char *elapsed = format_elapsed (p->elapsed);
  guint64 copied = p->files_done - MIN (p->files_done, p->files_skipped);
  g_autofree char *count = NULL;

  /* Numbers go in as text, grouped as the locale writes them ("1,928");
   * xgettext cannot see through G_GUINT64_FORMAT either. */
  if (dry_run)
    {
      guint64 to_copy = p->files_total - MIN (p->files_total, p->files_skipped);

      count = ferry_format_count (to_copy);
      /* TRANSLATORS: a number of files and folders, and their size, like
       * "12 items (3.4 MB) would be copied" */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s item (%s) would be copied",
                                           "%s items (%s) would be copied", to_copy),
                              count, size);
    }
  count = ferry_format_count (copied);
  /* TRANSLATORS: a number of files and folders, their size, and the time
   * it took, like "Copied 12 items (3.4 MB) in 4.2 s; all of it is on the disk" */
  return g_strdup_printf (
      g_dngettext (GETTEXT_PACKAGE, "Copied %s item (%s) in %s; all of it is on the disk",
                   "Copied %s items (%s) in %s; all of it is on the disk", copied),
      count, size, elapsed);
}
