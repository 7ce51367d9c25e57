/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "ferry-entry.h"
#include "ferry-fs.h"

void
ferry_entry_init (FerryEntry *entry, FerryDirNode *node, const char *src_name, const char *dst_name)
{
  *entry = (FerryEntry){ .node = node, .src_name = src_name, .dst_name = g_strdup (dst_name) };
}

void
ferry_entry_clear (FerryEntry *entry)
{
  g_clear_pointer (&entry->dst_name, g_free);
}

/* The source's path, or its copy's under the name it gets. */
char *
ferry_entry_path (const FerryEntry *entry, gboolean source)
{
  return ferry_dir_node_path (entry->node, source ? entry->src_name : entry->dst_name, source);
}

/* Every message names the path it is about. */
gboolean
ferry_entry_fail_errno (const FerryEntry *entry,
                        gboolean source,
                        int errsv,
                        const char *format_with_path,
                        GError **error)
{
  g_autofree char *path = ferry_entry_path (entry, source);

  return ferry_set_error_from_errno (error, errsv, format_with_path, path);
}

gboolean
ferry_entry_fail (const FerryEntry *entry,
                  gboolean source,
                  FerryError code,
                  const char *format_with_path,
                  GError **error)
{
  g_autofree char *path = ferry_entry_path (entry, source);

  return ferry_set_ferry_error (error, code, format_with_path, path);
}

gboolean
ferry_entry_fail_vanished (const FerryEntry *entry, GError **error)
{
  return ferry_entry_fail (entry, TRUE, FERRY_ERROR_VANISHED,
                           _ ("“%s” disappeared before it could be copied"), error);
}
