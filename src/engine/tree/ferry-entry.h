/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/stat.h>

#include "ferry-dir-node.h"
#include "ferry-error.h"

G_BEGIN_DECLS

/**
 * FerryEntry:
 * One entry of a source folder on its way: the folder node that holds it
 * and its copy, its name there, the name its copy gets (a conflict
 * answered "keep both" changes it), what it is, and what happens to
 * whatever already has the copy's name.
 */
typedef struct
{
  FerryDirNode *node;
  const char *src_name;
  char *dst_name;
  struct stat st; /* of the source, once known */
  gboolean replace; /* what is at dst_name goes */
  gboolean skip;    /* the entry is not copied, by the person's choice */
  gboolean destination_failed; /* its failure came from the destination: the job ends */
} FerryEntry;

void ferry_entry_init (FerryEntry *entry,
                       FerryDirNode *node,
                       const char *src_name,
                       const char *dst_name);
void ferry_entry_clear (FerryEntry *entry);

char *ferry_entry_path (const FerryEntry *entry, gboolean source);
gboolean ferry_entry_fail_errno (const FerryEntry *entry,
                                 gboolean source,
                                 int errsv,
                                 const char *format_with_path,
                                 GError **error);
gboolean ferry_entry_fail (const FerryEntry *entry,
                           gboolean source,
                           FerryError code,
                           const char *format_with_path,
                           GError **error);
gboolean ferry_entry_fail_vanished (const FerryEntry *entry, GError **error);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryEntry, ferry_entry_clear)

G_END_DECLS
