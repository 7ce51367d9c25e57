/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ferry-copy-range.h"
#include "ferry-strategy-chunk-sync.h"

#define MIB (1024 * 1024)
/* As the method was first described: start at 30 MB, then twice the
 * measured speed. */
#define CHUNK_START (30 * MIB)
#define CHUNK_MIN   (4 * MIB)
#define CHUNK_MAX   (256 * MIB)

/**
 * The chunk-sync strategy, kept to compare the slow strategy with: one
 * stream of sendfile chunks, an fdatasync after each chunk (and at the
 * end of each file, before its name), the chunk twice the measured speed.
 */
typedef struct
{
  FerryStrategy parent;
  GMutex stream_lock; /* one file's data at a time */
  GMutex lock;        /* guards the measurement */
  guint64 chunk_size;
  gint64 measured_at;
  guint64 moved;
  guint64 measured_bytes;
} FerryStrategyChunkSync;

static FerryCopyMethod
chunk_sync_get_method (FerryStrategy *strategy)
{
  return FERRY_COPY_METHOD_CHUNK_SYNC;
}

static gboolean
chunk_sync_copy_data (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategyChunkSync *self = (FerryStrategyChunkSync *) strategy;
  gboolean ok;

  g_mutex_lock (&self->stream_lock);
  ok = ferry_copy_range (strategy->target, fc, 1, error);
  g_mutex_unlock (&self->stream_lock);
  return ok;
}

/* The device took @bytes more: durable, and a measure of its speed. */
static void
count_synced (FerryStrategyChunkSync *self, guint64 bytes)
{
  FerryCounters *counters = self->parent.target->counters;
  gint64 now = g_get_monotonic_time ();
  double elapsed;

  ferry_counters_set_durable (counters, ferry_counters_get (&counters->bytes_durable) + bytes);
  g_mutex_lock (&self->lock);
  self->moved += bytes;
  elapsed = (double) (now - self->measured_at) / G_USEC_PER_SEC;
  if (elapsed >= 0.05)
    {
      double rate = (self->moved - self->measured_bytes) / elapsed;
      self->chunk_size = CLAMP ((guint64) (2 * rate), CHUNK_MIN, CHUNK_MAX);
      self->measured_at = now;
      self->measured_bytes = self->moved;
    }
  g_mutex_unlock (&self->lock);
}

static gboolean
sync_chunk (FerryStrategyChunkSync *self, FerryFileCopy *fc, off_t end, GError **error)
{
  if (fdatasync (fc->tmp.fd) != 0)
    return ferry_file_copy_fail_errno (fc, errno, TRUE, error);
  posix_fadvise (fc->tmp.fd, 0, end, POSIX_FADV_DONTNEED);
  count_synced (self, fc->unsynced);
  fc->unsynced = 0;
  return TRUE;
}

static gboolean
chunk_sync_chunk_written (FerryStrategy *strategy,
                          FerryFileCopy *fc,
                          off_t offset,
                          size_t len,
                          GError **error)
{
  FerryStrategyChunkSync *self = (FerryStrategyChunkSync *) strategy;
  guint64 chunk;

  fc->unsynced += len;
  g_mutex_lock (&self->lock);
  chunk = self->chunk_size;
  g_mutex_unlock (&self->lock);
  return fc->unsynced < chunk || sync_chunk (self, fc, offset + len, error);
}

/* Bytes written before the job turned slow were never counted: the
 * fdatasync happens whatever the count says. */
static FerryCommit
chunk_sync_commit_file (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategyChunkSync *self = (FerryStrategyChunkSync *) strategy;

  return sync_chunk (self, fc, fc->st.st_size, error) ? FERRY_COMMIT_NOW : FERRY_COMMIT_FAILED;
}

static void
chunk_sync_free (FerryStrategy *strategy)
{
  FerryStrategyChunkSync *self = (FerryStrategyChunkSync *) strategy;

  g_mutex_clear (&self->stream_lock);
  g_mutex_clear (&self->lock);
  g_free (self);
}

static const FerryStrategyClass chunk_sync_class = {
  .get_method = chunk_sync_get_method,
  .copy_data = chunk_sync_copy_data,
  .chunk_written = chunk_sync_chunk_written,
  .commit_file = chunk_sync_commit_file,
  .free = chunk_sync_free,
  .sends_at_position = TRUE,
};

FerryStrategy *
ferry_strategy_chunk_sync_new (FerryCopyTarget *target)
{
  FerryStrategyChunkSync *self = g_new0 (FerryStrategyChunkSync, 1);

  self->parent.klass = &chunk_sync_class;
  self->parent.target = target;
  g_mutex_init (&self->stream_lock);
  g_mutex_init (&self->lock);
  self->chunk_size = CHUNK_START;
  self->measured_at = g_get_monotonic_time ();
  atomic_store (&target->counters->durable_live, TRUE);
  return &self->parent;
}
