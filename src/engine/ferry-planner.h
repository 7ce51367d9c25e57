/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-counters.h"

G_BEGIN_DECLS

/* What a tree holds: every entry counts as a file (folders, links and
 * special files too), bytes are the data of regular files (each hard
 * linked file once), and @needed is the space the copy will take. */
typedef struct
{
  guint64 files;
  guint64 bytes;
  guint64 needed;
} FerryTreeTotals;

gboolean ferry_tree_measure_at (int dir_fd,
                                const char *name,
                                FerryTreeTotals *totals,
                                GCancellable *cancellable);

typedef struct _FerryPlanner FerryPlanner;

FerryPlanner *ferry_planner_new (FerryCounters *counters, GCancellable *cancellable);
void ferry_planner_free (FerryPlanner *self);
void ferry_planner_add (FerryPlanner *self, int parent_fd, const char *name);
void ferry_planner_start (FerryPlanner *self);
void ferry_planner_wait (FerryPlanner *self, FerryTreeTotals *totals);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryPlanner, ferry_planner_free)

G_END_DECLS
