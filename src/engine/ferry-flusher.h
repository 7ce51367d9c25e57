/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ferry-counters.h"

G_BEGIN_DECLS

typedef struct _FerryFlusher FerryFlusher;

FerryFlusher *ferry_flusher_new (int fd, FerryCounters *counters, guint64 window);
int ferry_flusher_stop (FerryFlusher *self);
void ferry_flusher_free (FerryFlusher *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryFlusher, ferry_flusher_free)

G_END_DECLS
