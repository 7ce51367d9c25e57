/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-context.h"

G_BEGIN_DECLS

gboolean ferry_verify_copy (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error);

G_END_DECLS
