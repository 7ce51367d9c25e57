/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "ferry-copy-data.h"

/* Errors that say "this filesystem (pair) cannot share extents", as
 * opposed to a failure of this one file. */
static gboolean
means_unsupported (int errsv)
{
  return errsv == EOPNOTSUPP || errsv == ENOTTY || errsv == EXDEV || errsv == ENOSYS;
}

/**
 * ferry_copy_reflink:
 * Shares the source's extents with the copy (FICLONE) when both are on
 * one filesystem that can: no data moves at all. *done tells whether it
 * happened; when it cannot, the caller copies the data another way.
 */
gboolean
ferry_copy_reflink (FerryCopyContext *ctx, FerryFileCopy *fc, gboolean *done, GError **error)
{
  *done = FALSE;
  if (fc->st.st_dev != ctx->dst_dev || fc->st.st_size == 0
      || atomic_load (&ctx->reflink_unsupported))
    return TRUE;

  if (ioctl (fc->tmp.fd, FICLONE, fc->src_fd) == 0)
    {
      atomic_store (&ctx->reflinked, TRUE);
      ferry_copy_context_add_written (ctx, fc, fc->st.st_size);
      *done = TRUE;
      return TRUE;
    }

  if (means_unsupported (errno))
    {
      atomic_store (&ctx->reflink_unsupported, TRUE);
      return TRUE;
    }
  /* EINVAL: this file cannot be cloned (a swap file, a nodatacow file on
   * btrfs), but others may. */
  if (errno == EINVAL || errno == ETXTBSY)
    return TRUE;
  return ferry_copy_fail_errno (fc, errno, TRUE, error);
}
