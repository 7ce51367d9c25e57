/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <langinfo.h>
#include <string.h>

#include "ferry-format.h"

/**
 * ferry_format_count_grouped:
 * @count: a number of files, folders or items
 * @separator: what goes between groups of three digits ("," or "."), or
 *   "" for none
 *
 * Returns: @count in digits, grouped: "60,000".
 */
char *
ferry_format_count_grouped (guint64 count, const char *separator)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, count);
  size_t n = strlen (digits);
  GString *out = g_string_sized_new (n + n / 3 * strlen (separator));

  for (size_t i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
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
  return ferry_format_count_grouped (count, nl_langinfo (THOUSEP));
}
