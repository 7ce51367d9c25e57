/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

void ferry_copy_file (FerryTreeContext *ctx, FerryEntry *entry, int opened_fd);

G_END_DECLS
