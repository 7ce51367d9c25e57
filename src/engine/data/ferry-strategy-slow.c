/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-copy-range.h"
#include "ferry-strategy-slow.h"
#include "ferry-throttle.h"

/**
 * The slow strategy, for pendrives, SD cards and anything measured
 * slow: sendfile in throttled windows that span files (or, for
 * comparison, chunks with an fdatasync after each), so that dirty memory
 * stays small and bytes count as durable only once the device has them.
 * A file gets its final name only once its data is on the device, and
 * files are spread over all workers so the device never idles while one
 * of them waits.
 */
typedef struct
{
  FerryStrategy parent;
  FerrySlowMethod method;
  FerryThrottle *throttle;
} FerryStrategySlow;

static FerryCopyMethod
slow_get_method (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  return self->method == FERRY_SLOW_METHOD_CHUNK_SYNC ? FERRY_COPY_METHOD_CHUNK_SYNC
                                                      : FERRY_COPY_METHOD_WINDOW;
}

/* One stream a file: pieces written side by side would scatter writes
 * over a device that is slow anyway. */
static gboolean
slow_copy_data (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  return ferry_copy_range (strategy->target, fc, 1, error);
}

/* The throttle holds the writer while the device is a window behind. */
static gboolean
slow_chunk_written (FerryStrategy *strategy,
                    FerryFileCopy *fc,
                    off_t offset,
                    size_t len,
                    GError **error)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv;

  if (ferry_throttle_wrote (self->throttle, fc, offset, len, &errsv))
    return TRUE;
  return ferry_file_copy_fail_errno (fc, errsv, TRUE, error);
}

static gboolean
slow_commit_file (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv;

  if (ferry_throttle_make_durable (self->throttle, fc, &errsv))
    return TRUE;
  return ferry_file_copy_fail_errno (fc, errsv, TRUE, error);
}

static void
slow_abandon_file (FerryStrategy *strategy, FerryFileCopy *fc)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  ferry_throttle_forget (self->throttle, fc);
}

static void
slow_file_named (FerryStrategy *strategy, FerryFileCopy *fc)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  ferry_throttle_named (self->throttle, fc->dst_dir_fd);
}

static int
slow_finish (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv = 0;

  ferry_throttle_drain (self->throttle, &errsv);
  return errsv;
}

static void
slow_free (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  g_clear_pointer (&self->throttle, ferry_throttle_free);
  g_free (self);
}

static const FerryStrategyClass slow_class = {
  .get_method = slow_get_method,
  .copy_data = slow_copy_data,
  .chunk_written = slow_chunk_written,
  .commit_file = slow_commit_file,
  .abandon_file = slow_abandon_file,
  .file_named = slow_file_named,
  .finish = slow_finish,
  .free = slow_free,
  .sends_at_position = TRUE,
  .spreads_files = TRUE,
};

FerryStrategy *
ferry_strategy_slow_new (FerryCopyTarget *target, FerrySlowMethod method)
{
  FerryStrategySlow *self = g_new0 (FerryStrategySlow, 1);

  self->parent.klass = &slow_class;
  self->parent.target = target;
  self->method = method;
  self->throttle = ferry_throttle_new (target->counters, method);
  return &self->parent;
}
