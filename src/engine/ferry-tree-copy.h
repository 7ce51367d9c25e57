/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-context.h"

G_BEGIN_DECLS

FerryTreeCopy *ferry_tree_copy_new (FerryCopyContext *ctx);
void ferry_tree_copy_free (FerryTreeCopy *self);
void ferry_tree_copy_add_root (FerryTreeCopy *self,
                               int src_parent_fd,
                               const char *src_parent_path,
                               const char *src_name,
                               int dst_dir_fd,
                               const char *dst_dir_path,
                               const char *dst_name);
void ferry_tree_copy_run (FerryTreeCopy *self, guint n_workers);
void ferry_tree_copy_grow (FerryTreeCopy *self, guint n_workers);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryTreeCopy, ferry_tree_copy_free)

G_END_DECLS
