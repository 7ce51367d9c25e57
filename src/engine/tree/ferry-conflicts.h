/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/stat.h>

#include "ferry-conflict-request.h"
#include "ferry-control.h"
#include "ferry-fs-rules.h"
#include "ferry-enums.h"

G_BEGIN_DECLS

typedef struct _FerryConflicts FerryConflicts;

/* One taken name, as a question a person may be asked; @post hands the
 * request to whoever answers (and takes it). @suggested_name is offered
 * as a new name; the one answered with FERRY_CONFLICT_ACTION_RENAME is
 * put in *@new_name. */
typedef struct
{
  const char *src_path;
  const char *dst_path;
  const struct stat *src_st;
  const struct stat *dst_st;
  void (*post) (gpointer post_data, FerryConflictRequest *request);
  gpointer post_data;
  const char *suggested_name;
  char **new_name;
} FerryConflictQuestion;

FerryConflicts *ferry_conflicts_new (FerryConflictPolicy policy, FerryControl *control);
void ferry_conflicts_set_rules (FerryConflicts *self, const FerryFsRules *rules);
void ferry_conflicts_free (FerryConflicts *self);
FerryConflictPolicy ferry_conflicts_get_policy (FerryConflicts *self);
gboolean ferry_conflicts_policy_skips (const FerryFsRules *rules,
                                      FerryConflictPolicy policy,
                                      const struct stat *src_st,
                                      const struct stat *dst_st);
FerryConflictAction ferry_conflicts_resolve (FerryConflicts *self,
                                             const FerryConflictQuestion *question);

G_END_DECLS
