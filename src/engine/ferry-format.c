/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <langinfo.h>
#include <limits.h>
#include <string.h>

#include "ferry-format.h"
#include "ferry-fs.h"

/**
 * ferry_format_count_grouped:
 * @count: a number of files, folders or items
 * @separator: what goes between groups of digits ("," or "."), or ""
 * @grouping: the sizes of the groups from the right, as the C library
 *   gives them: "\3" for thousands ("60,000"), "\3\2" for Indian
 *   grouping ("1,23,456"); the last size repeats, and "" or CHAR_MAX
 *   groups no further
 *
 * Returns: @count in digits, grouped.
 */
char *
ferry_format_count_grouped (guint64 count, const char *separator, const char *grouping)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, count);
  size_t n = strlen (digits);
  g_autofree gboolean *cut_before = g_new0 (gboolean, n + 1);
  size_t end = n;
  GString *out = g_string_new (NULL);

  /* Where the separators go, counted from the units up. */
  for (const char *g = grouping; *g > 0 && *g != CHAR_MAX && (size_t) *g < end;)
    {
      end -= (size_t) *g;
      cut_before[end] = TRUE;
      if (g[1] != '\0')
        g++;
    }
  for (size_t i = 0; i < n; i++)
    {
      if (cut_before[i])
        g_string_append (out, separator);
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/**
 * ferry_format_count:
 * @count: a number of files, folders or items
 *
 * Returns: @count as the person's locale writes it: "60,000" in English,
 * "60.000" in Spanish, "60000" in the C locale, which groups nothing.
 * (printf's ' flag does the same, but is not ISO C.)
 */
char *
ferry_format_count (guint64 count)
{
  return ferry_format_count_grouped (count, nl_langinfo (THOUSEP), nl_langinfo (GROUPING));
}

/**
 * ferry_format_path:
 * @path: a path or a name, as the filesystem keeps it
 *
 * Returns: @path as a terminal can show it, as Ferry's messages name
 * files: control characters and bytes that are not UTF-8 written as
 * escapes ("\\x1B", "\\n"), so that a name can neither colour the terminal
 * nor split a line of a list in two.
 */
char *
ferry_format_path (const char *path)
{
  return ferry_path_display (path);
}
