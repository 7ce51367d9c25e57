/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "ferry-counters.h"
#include "ferry-device.h"
#include "ferry-dir-node.h"
#include "ferry-enums.h"
#include "ferry-temp-file.h"
#include "ferry-types.h"

G_BEGIN_DECLS

typedef struct _FerryCopyContext FerryCopyContext;
typedef struct _FerryFileCopy FerryFileCopy;
typedef struct _FerryHardlinks FerryHardlinks;
typedef struct _FerryFlusher FerryFlusher;
typedef struct _FerryThrottle FerryThrottle;
typedef struct _FerryTreeCopy FerryTreeCopy;

/**
 * FerryStrategy:
 * How file data reaches the destination. A strategy copies one file's
 * data, may wait for that data before the file is given its final name,
 * and makes everything durable at the end.
 */
typedef struct
{
  const char *name;
  void (*start) (FerryCopyContext *ctx);
  gboolean (*copy_data) (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error);
  gboolean (*commit_file) (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error);
  void (*abandon_file) (FerryCopyContext *ctx, FerryFileCopy *fc);
  void (*file_named) (FerryCopyContext *ctx, FerryFileCopy *fc);
  gboolean (*finish) (FerryCopyContext *ctx, const char *dst_path, GError **error);
  void (*stop) (FerryCopyContext *ctx);
} FerryStrategy;

/* One regular file on its way: from an open source to a temporary file. */
struct _FerryFileCopy
{
  FerryDirNode *node;
  const char *src_name;
  const char *dst_name;
  struct stat st; /* of the open source */
  int src_fd;
  FerryTempFile tmp;
  guint64 written;             /* bytes of this file handed to the kernel */
  gboolean destination_failed; /* the error came from the destination */

  /* slow devices */
  FerryFileCopy *whole; /* for a piece of a large file: the file it is part of */
  gboolean throttled;   /* in flight in the throttle's windows */
  guint64 window;       /* the last window holding its data */
  guint64 unsynced;     /* chunk-sync: written since the last fdatasync */
};

struct _FerryCopyContext
{
  FerryJob *job; /* not owned */
  FerryCounters *counters;
  GCancellable *cancellable;

  FerryConflictPolicy conflict_policy;
  FerryErrorPolicy error_policy;
  gboolean preserve;
  gboolean verify;
  gboolean is_root;
  uid_t euid;
  gid_t egid;
  mode_t umask;

  guint n_pieces; /* threads for one very large file */
  const FerryStrategy *strategy;
  FerryDevice *device;
  FerryDeviceMode device_mode;
  FerrySlowMethod slow_method;
  FerryFlusher *flusher;              /* fast mode: durability behind the copy */
  _Atomic (FerryThrottle *) throttle; /* slow mode, from the start or once measured */
  char *dst_path;
  guint slow_workers;
  GMutex tree_lock;
  FerryTreeCopy *tree; /* while the copy runs: more workers if it turns slow */
  int dst_dir_fd;      /* the destination folder: not owned */
  dev_t dst_dev;
  atomic_bool reflink_unsupported;
  atomic_bool reflinked;         /* at least one file shared its extents */
  atomic_bool range_unsupported; /* copy_file_range refused this pair of filesystems */
  atomic_bool tmpfile_unsupported;
  FerryHardlinks *hardlinks;

  GMutex conflict_lock; /* one question at a time */
  FerryConflictAction file_answer_for_all;
  FerryConflictAction dir_answer_for_all;

  atomic_bool stopping;
  GMutex stop_lock;
  GError *stop_error;
  atomic_int_fast64_t current_updated_at;
};

FerryCopyContext *ferry_copy_context_new (FerryJob *job,
                                          FerryCounters *counters,
                                          GCancellable *cancellable);
void ferry_copy_context_free (FerryCopyContext *ctx);

gboolean ferry_copy_context_check (FerryCopyContext *ctx, GError **error);
gboolean ferry_copy_context_is_ending (FerryCopyContext *ctx);
void ferry_copy_context_stop (FerryCopyContext *ctx, const GError *error);
GError *ferry_copy_context_dup_stop_error (FerryCopyContext *ctx);

FerryThrottle *ferry_copy_context_get_throttle (FerryCopyContext *ctx);
void ferry_copy_context_go_slow (FerryCopyContext *ctx);
void ferry_copy_context_set_tree (FerryCopyContext *ctx, FerryTreeCopy *tree);
const char *ferry_copy_context_get_strategy_name (FerryCopyContext *ctx);

void ferry_copy_context_set_current (FerryCopyContext *ctx, FerryDirNode *node, const char *name);
void ferry_copy_context_add_written (FerryCopyContext *ctx, FerryFileCopy *fc, guint64 bytes);
void ferry_copy_context_file_done (FerryCopyContext *ctx);
void ferry_copy_context_file_skipped (FerryCopyContext *ctx, guint64 files, guint64 bytes);
void ferry_copy_context_file_failed (FerryCopyContext *ctx,
                                     FerryDirNode *node,
                                     const char *src_name,
                                     const char *dst_name,
                                     guint64 bytes,
                                     const GError *error,
                                     gboolean fatal);

FerryConflictAction ferry_copy_context_resolve_conflict (FerryCopyContext *ctx,
                                                         FerryDirNode *node,
                                                         const char *src_name,
                                                         const char *dst_name,
                                                         const struct stat *src_st,
                                                         const struct stat *dst_st);
char *ferry_conflict_free_name (int dir_fd, const char *name, gboolean is_dir);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryCopyContext, ferry_copy_context_free)

G_END_DECLS
