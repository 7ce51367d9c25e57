/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-target.h"

G_BEGIN_DECLS

gboolean ferry_copy_range (FerryCopyTarget *target,
                           FerryFileCopy *fc,
                           guint n_pieces,
                           GError **error);

G_END_DECLS
