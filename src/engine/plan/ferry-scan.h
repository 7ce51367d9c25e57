/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-counters.h"
#include "ferry-tree-size.h"

G_BEGIN_DECLS

typedef struct _FerryScan FerryScan;

FerryScan *ferry_scan_new (FerryCounters *counters, GCancellable *cancellable);
void ferry_scan_free (FerryScan *self);
void ferry_scan_add (FerryScan *self, int parent_fd, const char *name);
void ferry_scan_start (FerryScan *self);
void ferry_scan_wait (FerryScan *self, FerryTreeTotals *totals);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryScan, ferry_scan_free)

G_END_DECLS
