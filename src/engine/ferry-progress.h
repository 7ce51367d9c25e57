/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ferry-enums.h"

G_BEGIN_DECLS

/**
 * FerryProgress:
 * A consistent snapshot of a job's progress, filled by
 * ferry_job_get_progress() from any thread. Clear it with
 * ferry_progress_clear() (or declare it g_auto (FerryProgress)).
 *
 * @bytes_written counts bytes handed to the kernel; @bytes_durable only
 * bytes the kernel confirmed are on the device. When @durable_live is
 * FALSE the strategy confirms durability only in the final sync, so
 * @rate and @eta follow written bytes until then. @stalled says that
 * count has stood still while copying for longer than its pace
 * explains (a drive that stopped taking data): @rate is then 0 and
 * @eta -1.
 */
typedef struct
{
  FerryPhase phase;
  gboolean paused;
  gboolean planning_done; /* the totals are final */
  gboolean durable_live;  /* bytes_durable advances during the copy */
  gboolean stalled;       /* nothing moves: no rate or time left holds */

  guint64 files_total;
  guint64 files_done; /* copied or skipped; never failed ones */
  guint64 files_failed;
  guint64 files_skipped;
  /* a dry run's: files already under their copies' names, which the
   * conflict policy settles (those it skips are in files_skipped too) */
  guint64 files_existing;

  /* what the job set out to write: skipped files leave it, failed ones
   * stay (in bytes_failed too); never below bytes_written */
  guint64 bytes_total;
  guint64 bytes_failed; /* of files that failed, and of those in folders that failed */
  guint64 bytes_written; /* never below bytes_durable */
  guint64 bytes_durable;
  guint64 bytes_carried; /* an earlier run of a resumed transfer put there; in the two above too */

  double elapsed; /* seconds since the job started */
  double rate;    /* bytes per second, durable when durable_live */
  double eta;     /* seconds left, or -1 when unknown */

  char *current; /* display path of a file in flight, or NULL */
} FerryProgress;

void ferry_progress_clear (FerryProgress *progress);
double ferry_progress_get_fraction (const FerryProgress *progress);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryProgress, ferry_progress_clear)

G_END_DECLS
