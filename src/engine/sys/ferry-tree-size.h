/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What a tree holds: every entry counts as a file (folders, links and
 * special files too), bytes are the data of regular files (each hard
 * linked file once), and @needed is the space the copy will take, its
 * data in whole blocks and a block for each folder; @metadata what its
 * copy takes beyond that where it is written (the maps of large files,
 * the entries of folders that outgrow their first block). */
typedef struct
{
  guint64 files;
  guint64 bytes;
  guint64 needed;
  guint64 metadata;
} FerryTreeTotals;

typedef struct _FerryTreeSize FerryTreeSize;
typedef void (*FerryTreeSizeFunc) (const FerryTreeTotals *more, gpointer user_data);

FerryTreeSize *ferry_tree_size_new (FerryTreeSizeFunc on_more, gpointer user_data);
void ferry_tree_size_add (FerryTreeSize *walk,
                          int parent_fd,
                          const char *name,
                          GCancellable *cancellable);
void ferry_tree_size_free (FerryTreeSize *walk, FerryTreeTotals *totals);

gboolean ferry_tree_measure_at (int dir_fd,
                                const char *name,
                                FerryTreeTotals *totals,
                                GCancellable *cancellable);

G_END_DECLS
