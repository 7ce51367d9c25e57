/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/stat.h>

#include "ferry-tree-size.h"

G_BEGIN_DECLS

/* One source, opened through the folder that holds it; a source that
 * names a folder ("dir/", "dir/.", "..") is that folder's entry "." and
 * @parent_fd the folder itself. */
typedef struct
{
  int parent_fd;
  gboolean shares_parent_fd; /* the one of the source before it, in the same folder */
  char *parent_path;
  char *name;     /* in the parent folder */
  char *dst_name; /* in the destination folder; "." is the destination folder itself */
  struct stat st;
} FerrySourceRoot;

/* What the destination as typed stands for. */
typedef enum
{
  /* A folder there takes the copies; otherwise the one source's copy is
   * made under that name, as cp does. */
  FERRY_DESTINATION_AS_FOUND,
  /* The one source's copy has that name even where a folder has it: the
   * copy an earlier run of the same command made there, cut short. */
  FERRY_DESTINATION_NAMES_COPY,
  /* A folder that took the copies of an earlier run of the same command,
   * cut short: gone since, it is not made again as the copy's name. */
  FERRY_DESTINATION_INTO_FOLDER,
} FerryDestinationMeaning;

/**
 * FerryPlan:
 * The sources and the destination folder of a job, resolved and checked
 * before anything is written.
 */
typedef struct
{
  GPtrArray *roots; /* FerrySourceRoot */
  int dst_fd;
  char *dst_path;
  struct stat dst_st;
  FerryDestinationMeaning meaning; /* NAMES_COPY: the one source's copy is named as the destination */
  /* Held by Ferry's temporary files that killed runs left where the copy
   * writes: they go before the copy starts, so this counts as free. */
  guint64 reclaimable;
} FerryPlan;

FerryPlan *ferry_plan_resolve (const char *const *sources,
                               const char *destination,
                               FerryDestinationMeaning meaning,
                               GError **error);
void ferry_plan_free (FerryPlan *plan);
gboolean ferry_plan_surely_fits (FerryPlan *plan);
gboolean ferry_plan_check_space (FerryPlan *plan, const FerryTreeTotals *totals, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryPlan, ferry_plan_free)

G_END_DECLS
