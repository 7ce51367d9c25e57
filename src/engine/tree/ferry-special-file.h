/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

gboolean ferry_special_file_copy (FerryTreeContext *ctx, FerryEntry *entry, GError **error);

G_END_DECLS
