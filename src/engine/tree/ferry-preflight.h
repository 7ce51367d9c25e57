/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-adaptations.h"
#include "ferry-fs-rules.h"
#include "ferry-tree-copy.h"
#include "ferry-unsupported.h"

G_BEGIN_DECLS

typedef struct _FerryPreflight FerryPreflight;

FerryPreflight *ferry_preflight_new (const FerryFsRules *rules, GCancellable *cancellable);
void ferry_preflight_free (FerryPreflight *self);
void ferry_preflight_set_resuming (FerryPreflight *self, gboolean resuming);
void ferry_preflight_set_conflict_policy (FerryPreflight *self, FerryConflictPolicy policy);

/* Files the walk found already under their copies' names. */
typedef struct
{
  guint64 files;
  guint64 skipped; /* of them, those the conflict policy skips */
  guint64 skipped_bytes;
  char *first; /* of the others, the first met, below the destination */
} FerryPreflightExisting;

const FerryPreflightExisting *ferry_preflight_get_existing (FerryPreflight *self);
void ferry_preflight_set_names_only (FerryPreflight *self, gboolean names_only);
void ferry_preflight_add_root (FerryPreflight *self, const FerryTreeRoot *root, gboolean walked);
void ferry_preflight_walk (FerryPreflight *self);
GPtrArray *ferry_preflight_get_items (FerryPreflight *self);
guint64 ferry_preflight_get_needed (FerryPreflight *self);
GPtrArray *ferry_preflight_get_stale_temps (FerryPreflight *self);
guint64 ferry_preflight_get_reclaimable (FerryPreflight *self);
FerryAdaptations *ferry_preflight_adapt (FerryPreflight *self, FerryUnsupportedAction action);
gboolean ferry_preflight_check_folders (FerryPreflight *self, const char *dst_path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryPreflight, ferry_preflight_free)

G_END_DECLS
