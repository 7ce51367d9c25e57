/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

gboolean ferry_regular_file_copy (FerryTreeContext *ctx,
                                  FerryEntry *entry,
                                  int *src_fd,
                                  GError **error);

G_END_DECLS
