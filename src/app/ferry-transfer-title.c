/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "ferry-format.h"
#include "ferry-transfer-title.h"

char *
ferry_transfer_title (guint n_sources, GFile *first, const char *where)
{
  g_autofree char *count = NULL;

  if (n_sources == 1)
    {
      g_autofree char *name = g_file_get_basename (first);
      g_autofree char *display = g_filename_display_name (name);
      /* TRANSLATORS: "“Holidays” to SanDisk Cruzer" */
      return g_strdup_printf (_ ("“%s” to %s"), display, where);
    }
  count = ferry_format_count (n_sources);
  return g_strdup_printf (
      /* TRANSLATORS: "3 items to SanDisk Cruzer" */
      g_dngettext (GETTEXT_PACKAGE, "%s item to %s", "%s items to %s", n_sources), count, where);
}
