/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <stdatomic.h>

#include "ferry-adaptations.h"
#include "ferry-conflict-request.h"
#include "ferry-conflicts.h"
#include "ferry-control.h"
#include "ferry-copy-target.h"
#include "ferry-counters.h"
#include "ferry-entry.h"
#include "ferry-failure.h"
#include "ferry-hardlinks.h"
#include "ferry-metadata.h"

G_BEGIN_DECLS

/* How the tree tells whoever runs it what a person must hear of: called
 * from worker threads, each taking what it is given. */
typedef struct
{
  void (*file_failed) (gpointer user_data, FerryFailure *failure);
  void (*conflict) (gpointer user_data, FerryConflictRequest *request);
  gpointer user_data;
} FerryTreeListener;

/**
 * FerryTreeContext:
 * What the workers copying one job's tree share: the job's control and
 * counters, where the data goes, how conflicts and failures are settled,
 * the hard links seen, and how metadata is kept.
 */
typedef struct
{
  FerryControl *control;
  FerryCounters *counters;
  FerryCopyTarget *target;
  FerryConflicts *conflicts;
  FerryHardlinks *hardlinks;
  FerryFsRules rules; /* of the destination */
  FerryMetaPolicy meta;
  FerryErrorPolicy error_policy;
  gboolean verify;
  FerryAdaptations *adaptations; /* not owned; NULL when nothing is adapted */
  atomic_bool tmpfile_unsupported;
  atomic_bool links_refused; /* the destination has no hard links (exFAT, FAT) */
  gboolean resuming; /* the target's journal is an earlier run's, which this one continues */
  FerryTreeListener listener;
  GMutex waiting_lock;
  GPtrArray *waiting_folders; /* hidden folders whose files are in, waiting for a sync */
  atomic_uint n_waiting_folders;
  GArray *sources; /* FerrySourceAt: where each source is, set before the workers start */
} FerryTreeContext;

void ferry_tree_context_init (FerryTreeContext *ctx,
                              FerryCopyTarget *target,
                              FerryConflictPolicy conflict_policy,
                              const FerryTreeListener *listener);
void ferry_tree_context_clear (FerryTreeContext *ctx);
void ferry_tree_context_add_source (FerryTreeContext *ctx,
                                    int parent_fd,
                                    const char *parent_path,
                                    const char *name);

gboolean ferry_tree_context_check (FerryTreeContext *ctx);
void ferry_tree_context_show_current (FerryTreeContext *ctx, const FerryEntry *entry);
void ferry_tree_context_file_done (FerryTreeContext *ctx);
void ferry_tree_context_done_in (FerryTreeContext *ctx, FerryDirNode *folder);
void ferry_tree_context_file_skipped (FerryTreeContext *ctx, guint64 files, guint64 bytes);
GError *ferry_tree_context_new_error_if_deleted (const FerryDirNode *node, const GError *error);
GError *ferry_tree_context_new_deleted_error (const char *path);
void ferry_tree_context_report_failure (FerryTreeContext *ctx,
                                        FerryFailure *failure,
                                        gboolean fatal);
void ferry_tree_context_file_failed (FerryTreeContext *ctx,
                                     const FerryEntry *entry,
                                     guint64 bytes,
                                     const GError *error,
                                     gboolean fatal);
void ferry_tree_context_count_outcome (FerryTreeContext *ctx,
                                       const FerryEntry *entry,
                                       gboolean copied,
                                       gboolean first_name,
                                       const GError *error);
void ferry_tree_context_subtree_dropped (FerryTreeContext *ctx,
                                         const FerryEntry *entry,
                                         gboolean skipped);

G_END_DECLS
