/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-control.h"
#include "ferry-strategy.h"

/* The hooks a strategy has no use for are left NULL; these calls make
 * that mean "nothing to do". */

FerryCopyMethod
ferry_strategy_get_method (FerryStrategy *self)
{
  return self->klass->get_method (self);
}

gboolean
ferry_strategy_copy_data (FerryStrategy *self, FerryFileCopy *fc, GError **error)
{
  return self->klass->copy_data (self, fc, error);
}

gboolean
ferry_strategy_chunk_written (FerryStrategy *self,
                              FerryFileCopy *fc,
                              off_t offset,
                              size_t len,
                              GError **error)
{
  return self->klass->chunk_written == NULL
         || self->klass->chunk_written (self, fc, offset, len, error);
}

FerryCommit
ferry_strategy_commit_file (FerryStrategy *self, FerryFileCopy *fc, GError **error)
{
  return self->klass->commit_file == NULL ? FERRY_COMMIT_NOW
                                          : self->klass->commit_file (self, fc, error);
}

int
ferry_strategy_settle (FerryStrategy *self)
{
  return self->klass->settle == NULL ? 0 : self->klass->settle (self);
}

/* Stops the strategy's helpers and hands what it holds to the device;
 * returns the first errno it met, or 0. */
int
ferry_strategy_finish (FerryStrategy *self)
{
  return self->klass->finish == NULL ? 0 : self->klass->finish (self);
}

/**
 * ferry_strategy_name_after_point:
 * For a file named at once once a point covered its data (one with
 * several names, whose others link to it), when the wait for that point
 * ended: it fails with the device's failure @errsv, or when the job
 * (@control) was cancelled; else it gets its name now.
 */
FerryCommit
ferry_strategy_name_after_point (FerryControl *control,
                                 FerryFileCopy *fc,
                                 int errsv,
                                 GError **error)
{
  if (errsv != 0)
    {
      ferry_file_copy_fail_durable (fc, errsv, error);
      return FERRY_COMMIT_FAILED;
    }
  return ferry_control_check (control, error) ? FERRY_COMMIT_NOW : FERRY_COMMIT_FAILED;
}

gboolean
ferry_strategy_vouch (FerryStrategy *self)
{
  return self->klass->vouch != NULL && self->klass->vouch (self);
}

gboolean
ferry_strategy_holds (FerryStrategy *self)
{
  return self->klass->hold != NULL;
}

guint64
ferry_strategy_hold (FerryStrategy *self)
{
  g_return_val_if_fail (self->klass->hold != NULL, 0);
  return self->klass->hold (self);
}

gboolean
ferry_strategy_passed (FerryStrategy *self, guint64 ticket)
{
  return self->klass->passed != NULL && self->klass->passed (self, ticket);
}

int
ferry_strategy_failure (FerryStrategy *self)
{
  return self->klass->failure == NULL ? 0 : self->klass->failure (self);
}

gboolean
ferry_strategy_knows_fast (FerryStrategy *self)
{
  return self->klass->knows_fast != NULL && self->klass->knows_fast (self);
}

void
ferry_strategy_settle_names (FerryStrategy *self, int errsv)
{
  if (self->klass->settle_names != NULL)
    self->klass->settle_names (self, errsv);
}

gboolean
ferry_strategy_notes_names (FerryStrategy *self)
{
  return self->klass->note_named != NULL;
}

void
ferry_strategy_note_named (FerryStrategy *self, FerryNamedFile *named)
{
  if (self->klass->note_named != NULL)
    self->klass->note_named (self, named);
  else
    ferry_named_file_free (named);
}

/* FALSE when @self takes no named files from another strategy. */
gboolean
ferry_strategy_adopt_named (FerryStrategy *self, GPtrArray *named)
{
  if (self->klass->adopt_named == NULL)
    return FALSE;
  self->klass->adopt_named (self, named);
  return TRUE;
}

void
ferry_strategy_free (FerryStrategy *self)
{
  if (self != NULL)
    self->klass->free (self);
}

#define MIB (1024 * 1024)
#define WINDOW_MIN (4 * MIB)
#define WINDOW_MAX (16 * MIB)
/* Enough of the device's time that it never idles between windows,
 * little enough that dirty memory stays small and cancelling answers. */
#define WINDOW_SECONDS 0.4

/**
 * ferry_device_window_follow_from:
 * The window after @bytes reached the device since @started_at (a
 * monotonic time): it follows the measured rate, smoothed, growing by
 * half at most, never under @floor; a measure of under a MiB says too
 * little to change it.
 */
guint64
ferry_device_window_follow_from (guint64 window, guint64 bytes, gint64 started_at, guint64 floor)
{
  double seconds = (double) (g_get_monotonic_time () - started_at) / G_USEC_PER_SEC;
  guint64 target;

  if (bytes < MIB || seconds <= 0)
    return window;
  target = CLAMP ((guint64) (bytes / seconds * WINDOW_SECONDS), floor, WINDOW_MAX);
  return MIN ((window + target) / 2, window * 3 / 2);
}

/* ferry_device_window_follow_from() from 4 MiB. */
guint64
ferry_device_window_follow (guint64 window, guint64 bytes, gint64 started_at)
{
  return ferry_device_window_follow_from (window, bytes, started_at, WINDOW_MIN);
}
