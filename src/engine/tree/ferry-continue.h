/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-file-copy.h"
#include "ferry-tree-context.h"

G_BEGIN_DECLS

gboolean ferry_continue_copy_matches (const FerryFsRules *rules,
                                      const struct stat *copy,
                                      const struct stat *source);
gboolean ferry_continue_carry (FerryTreeContext *ctx, FerryEntry *entry);
gboolean ferry_continue_open_temp (FerryTreeContext *ctx, FerryFileCopy *fc);
void ferry_continue_note_complete (FerryTreeContext *ctx,
                                   const char *relpath,
                                   const struct stat *src_st);
gboolean ferry_continue_keep_in_flight (FerryTreeContext *ctx, FerryFileCopy *fc);
void ferry_continue_note_dropped (FerryTreeContext *ctx, const FerryFileCopy *fc);
void ferry_continue_note_in_hidden (FerryTreeContext *ctx,
                                    const FerryEntry *entry,
                                    const struct stat *src_st);
void ferry_continue_note_folder_named (FerryTreeContext *ctx,
                                       const FerryDirNode *node,
                                       gboolean named);

G_END_DECLS
