/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-counters.h"
#include "ferry-enums.h"
#include "ferry-file-copy.h"

G_BEGIN_DECLS

typedef struct _FerryThrottle FerryThrottle;

FerryThrottle *ferry_throttle_new (FerryCounters *counters, FerrySlowMethod method);
void ferry_throttle_free (FerryThrottle *self);

gboolean ferry_throttle_wrote (FerryThrottle *self,
                               FerryFileCopy *fc,
                               off_t offset,
                               size_t len,
                               int *errsv);
gboolean ferry_throttle_make_durable (FerryThrottle *self, FerryFileCopy *fc, int *errsv);
void ferry_throttle_forget (FerryThrottle *self, FerryFileCopy *fc);
void ferry_throttle_named (FerryThrottle *self, int dir_fd);
gboolean ferry_throttle_drain (FerryThrottle *self, int *errsv);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryThrottle, ferry_throttle_free)

G_END_DECLS
