/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

gboolean ferry_hidden_folder_in_parts (const FerryDirNode *node);
gboolean ferry_hidden_folder_take_name (FerryTreeContext *ctx,
                                        FerryDirNode *node,
                                        int *errsv,
                                        GError **error);
gboolean ferry_hidden_folder_wants_name (FerryTreeContext *ctx,
                                         FerryDirNode *node,
                                         const struct stat *st);
void ferry_hidden_folder_lose (FerryTreeContext *ctx, FerryDirNode *node);
void ferry_hidden_folder_hold (FerryTreeContext *ctx, FerryDirNode *node);
GPtrArray *ferry_hidden_folder_steal_due (FerryTreeContext *ctx, gboolean all);

G_END_DECLS
