/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-progress.h"

void
ferry_progress_clear (FerryProgress *progress)
{
  g_clear_pointer (&progress->current, g_free);
}

/**
 * ferry_progress_get_fraction:
 * How much of the job is done, from 0 to 1: durable bytes where the
 * strategy confirms them as it goes, else written bytes, which reach 1
 * only with the final sync's "done".
 */
double
ferry_progress_get_fraction (const FerryProgress *progress)
{
  guint64 done = progress->durable_live ? progress->bytes_durable : progress->bytes_written;

  if (progress->phase == FERRY_PHASE_DONE)
    return 1.0;
  if (progress->bytes_total == 0)
    return progress->files_total > 0 ? (double) progress->files_done / progress->files_total : 0.0;
  /* Hold back the last bit until the data is durable. */
  if (!progress->durable_live && done >= progress->bytes_total)
    return 0.99;
  return MIN (1.0, (double) done / progress->bytes_total);
}
