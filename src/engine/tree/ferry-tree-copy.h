/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

typedef struct _FerryTreeCopy FerryTreeCopy;

/* One source to copy: an entry of an open folder, and the open folder
 * its copy goes into, under @dst_name. */
typedef struct
{
  int src_parent_fd;
  const char *src_parent_path;
  const char *src_name;
  int dst_dir_fd;
  const char *dst_dir_path;
  const char *dst_name;
} FerryTreeRoot;

FerryTreeCopy *ferry_tree_copy_new (FerryTreeContext *ctx);
void ferry_tree_copy_free (FerryTreeCopy *self);
void ferry_tree_copy_add_root (FerryTreeCopy *self, const FerryTreeRoot *root);
void ferry_tree_copy_run (FerryTreeCopy *self, guint n_workers);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryTreeCopy, ferry_tree_copy_free)

G_END_DECLS
