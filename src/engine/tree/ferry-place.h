/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

gboolean ferry_place_settle (FerryTreeContext *ctx, FerryEntry *entry, GError **error);
gboolean ferry_place_settle_taken (FerryTreeContext *ctx,
                                   FerryEntry *entry,
                                   const struct stat *dst_st,
                                   GError **error);
gboolean ferry_place_settle_late (FerryTreeContext *ctx, FerryEntry *entry, GError **error);

G_END_DECLS
