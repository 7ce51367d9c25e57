/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-context.h"

G_BEGIN_DECLS

typedef struct _FerryThrottle FerryThrottle;

FerryThrottle *ferry_throttle_new (FerryCopyContext *ctx, FerrySlowMethod method);
void ferry_throttle_free (FerryThrottle *self);

void ferry_throttle_begin_file (FerryThrottle *self, FerryFileCopy *fc);
gboolean ferry_throttle_wrote (FerryThrottle *self,
                               FerryFileCopy *fc,
                               off_t offset,
                               size_t len,
                               int *errsv);
gboolean ferry_throttle_make_durable (FerryThrottle *self, FerryFileCopy *fc, int *errsv);
void ferry_throttle_forget (FerryThrottle *self, FerryFileCopy *fc);
void ferry_throttle_named (FerryThrottle *self, int dir_fd);
gboolean ferry_throttle_drain (FerryThrottle *self, int *errsv);
guint64 ferry_throttle_get_window (FerryThrottle *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryThrottle, ferry_throttle_free)

G_END_DECLS
