/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

FerryDirNode *ferry_folder_make (FerryTreeContext *ctx, FerryEntry *entry, GError **error);
gboolean ferry_folder_open (FerryDirNode *node, GError **error);
void ferry_folder_fail (FerryTreeContext *ctx,
                        FerryDirNode *node,
                        const GError *error,
                        gboolean fatal);
gboolean ferry_folder_finish (FerryTreeContext *ctx, FerryDirNode *node);
gboolean ferry_folder_name_now (FerryTreeContext *ctx, FerryDirNode *node, gboolean empty);
void ferry_folder_name_waiting (FerryTreeContext *ctx, gboolean all);
void ferry_folder_release (FerryTreeContext *ctx, FerryDirNode *node);

G_END_DECLS
