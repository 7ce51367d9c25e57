/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-enums.h"
#include "ferry-file-copy.h"

G_BEGIN_DECLS

typedef struct _FerryStrategy FerryStrategy;
typedef struct _FerryCopyTarget FerryCopyTarget;

/**
 * FerryStrategyClass:
 * How file data reaches the destination; one implementation per
 * strategy (ferry-strategy-fast.c, ferry-strategy-slow.c). A strategy
 * copies one file's data, is told of every chunk handed to the kernel,
 * may hold a file back until its data is durable before it gets its
 * final name, and makes everything durable at the end.
 *
 * @sends_at_position: chunks go with sendfile, which writes at the
 *   copy's file position (so the pieces of one file cannot share it)
 * @spreads_files: every worker should get files of its own, even from
 *   one folder: each waits for its file to be durable before naming it
 */
typedef struct
{
  FerryCopyMethod (*get_method) (FerryStrategy *self);
  gboolean (*copy_data) (FerryStrategy *self, FerryFileCopy *fc, GError **error);
  gboolean (*chunk_written) (FerryStrategy *self,
                             FerryFileCopy *fc,
                             off_t offset,
                             size_t len,
                             GError **error);
  gboolean (*commit_file) (FerryStrategy *self, FerryFileCopy *fc, GError **error);
  void (*abandon_file) (FerryStrategy *self, FerryFileCopy *fc);
  void (*file_named) (FerryStrategy *self, FerryFileCopy *fc);
  int (*finish) (FerryStrategy *self);
  void (*free) (FerryStrategy *self);
  gboolean sends_at_position;
  gboolean spreads_files;
} FerryStrategyClass;

struct _FerryStrategy
{
  const FerryStrategyClass *klass;
  FerryCopyTarget *target; /* not owned: the target owns its strategies */
};

FerryCopyMethod ferry_strategy_get_method (FerryStrategy *self);
gboolean ferry_strategy_copy_data (FerryStrategy *self, FerryFileCopy *fc, GError **error);
gboolean ferry_strategy_chunk_written (FerryStrategy *self,
                                       FerryFileCopy *fc,
                                       off_t offset,
                                       size_t len,
                                       GError **error);
gboolean ferry_strategy_commit_file (FerryStrategy *self, FerryFileCopy *fc, GError **error);
void ferry_strategy_abandon_file (FerryStrategy *self, FerryFileCopy *fc);
void ferry_strategy_file_named (FerryStrategy *self, FerryFileCopy *fc);
int ferry_strategy_finish (FerryStrategy *self);
void ferry_strategy_free (FerryStrategy *self);

G_END_DECLS
