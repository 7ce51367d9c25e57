/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-time-left.h"

/* Past this, minutes are noise in an estimate: a slow stick's rate
 * drifts more than that over hours. */
#define HOURS_ONLY_FROM 5

/* "1 hour 47 minutes left", or "2 hours left" on the hour. */
static char *
hours_and_minutes_left (guint hours, guint minutes)
{
  g_autofree char *hours_text = NULL;
  g_autofree char *minutes_text = NULL;

  if (minutes == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u hour left", "%u hours left", hours),
                            hours);
  hours_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u hour", "%u hours", hours), hours);
  minutes_text
      = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u minute", "%u minutes", minutes), minutes);
  /* TRANSLATORS: hours and minutes, like "1 hour 47 minutes left" */
  return g_strdup_printf (_ ("%s %s left"), hours_text, minutes_text);
}

/**
 * ferry_time_left_text:
 * @seconds: the estimate, at least 0
 *
 * Returns: the time left in words, rounded up to the second under a
 * minute and to the minute under five hours, then to the nearest hour.
 */
char *
ferry_time_left_text (double seconds)
{
  /* rounded up, without libm's ceil() */
  guint whole_seconds = MAX ((guint) seconds + ((guint) seconds < seconds), 1);
  guint whole_minutes = (whole_seconds + 59) / 60;
  guint hours = (guint) (seconds / 3600 + 0.5);

  if (whole_seconds < 60)
    return g_strdup_printf (
        g_dngettext (GETTEXT_PACKAGE, "%u second left", "%u seconds left", whole_seconds),
        whole_seconds);
  if (whole_minutes < 60)
    return g_strdup_printf (
        g_dngettext (GETTEXT_PACKAGE, "%u minute left", "%u minutes left", whole_minutes),
        whole_minutes);
  if (whole_minutes < HOURS_ONLY_FROM * 60)
    return hours_and_minutes_left (whole_minutes / 60, whole_minutes % 60);
  /* TRANSLATORS: a long estimate, rounded to the hour: "about 6 hours left" */
  return g_strdup_printf (
      g_dngettext (GETTEXT_PACKAGE, "about %u hour left", "about %u hours left", hours), hours);
}
