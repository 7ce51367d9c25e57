/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-context.h"

G_BEGIN_DECLS

/* The building blocks strategies put together to move one file's data. */
gboolean ferry_copy_reflink (FerryCopyContext *ctx,
                             FerryFileCopy *fc,
                             gboolean *done,
                             GError **error);
gboolean ferry_copy_range (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error);
gboolean ferry_copy_fail_errno (FerryFileCopy *fc,
                                int errsv,
                                gboolean on_destination,
                                GError **error);
gboolean ferry_copy_check_source_unchanged (FerryFileCopy *fc, GError **error);

extern const FerryStrategy ferry_strategy_local;

G_END_DECLS
