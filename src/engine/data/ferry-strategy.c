/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

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

void
ferry_strategy_free (FerryStrategy *self)
{
  if (self != NULL)
    self->klass->free (self);
}
