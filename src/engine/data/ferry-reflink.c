/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "ferry-reflink.h"

/* Errors that say "this filesystem (pair) cannot share extents", as
 * opposed to a failure of this one file. */
static gboolean
means_unsupported (int errsv)
{
  return errsv == EOPNOTSUPP || errsv == ENOTTY || errsv == EXDEV || errsv == ENOSYS;
}

/**
 * ferry_reflink_copy:
 * Shares the source's extents with the copy (FICLONE) when both are on
 * one filesystem that can: no data moves at all. *done tells whether it
 * happened; when it cannot, the caller copies the data another way.
 */
gboolean
ferry_reflink_copy (FerryReflink *self,
                    FerryCopyTarget *target,
                    FerryFileCopy *fc,
                    gboolean *done,
                    GError **error)
{
  *done = FALSE;
  if (fc->st.st_dev != target->dev || fc->st.st_size == 0 || atomic_load (&self->unsupported))
    return TRUE;

  if (ioctl (fc->tmp.fd, FICLONE, fc->src_fd) == 0)
    {
      atomic_store (&self->used, TRUE);
      ferry_copy_target_add_written (target, fc, fc->st.st_size);
      *done = TRUE;
      return TRUE;
    }

  if (means_unsupported (errno))
    {
      atomic_store (&self->unsupported, TRUE);
      return TRUE;
    }
  /* EINVAL: this file cannot be cloned (a swap file, a nodatacow file on
   * btrfs), but others may. */
  if (errno == EINVAL || errno == ETXTBSY)
    return TRUE;
  return ferry_file_copy_fail_errno (fc, errno, TRUE, error);
}
