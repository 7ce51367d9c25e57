/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "ferry-copy-data.h"
#include "ferry-fs.h"

/* Fast local disks: share extents where possible, else copy inside the
 * kernel; the data is made durable once, at the end, with syncfs. */
static gboolean
fast_copy_data (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error)
{
  gboolean cloned = FALSE;

  if (!ferry_copy_reflink (ctx, fc, &cloned, error))
    return FALSE;
  return cloned || ferry_copy_range (ctx, fc, error);
}

static gboolean
fast_finish (FerryCopyContext *ctx, const char *dst_path, GError **error)
{
  if (syncfs (ctx->dst_dir_fd) != 0)
    return ferry_set_error_from_errno (error, errno,
                                       _ ("Could not make the copies in “%s” durable"), dst_path);
  atomic_store (&ctx->counters->bytes_durable, ferry_counters_get (&ctx->counters->bytes_written));
  return TRUE;
}

const FerryStrategy ferry_strategy_fast = {
  .name = "fast",
  .copy_data = fast_copy_data,
  .commit_file = NULL,
  .finish = fast_finish,
};
