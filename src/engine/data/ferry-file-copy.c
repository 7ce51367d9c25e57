/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>

#include "ferry-error.h"
#include "ferry-file-copy.h"
#include "ferry-fs.h"

char *
ferry_file_copy_path (const FerryFileCopy *fc, gboolean source)
{
  return fc->path_of (fc, source);
}

/* A failure of one call on the file: a read of the source, or a write
 * of the copy, which may mean the destination itself is failing. */
gboolean
ferry_file_copy_fail_errno (FerryFileCopy *fc, int errsv, gboolean on_destination, GError **error)
{
  g_autofree char *path = ferry_file_copy_path (fc, !on_destination);

  if (!on_destination)
    return ferry_set_error_from_errno (error, errsv, _ ("Could not read “%s”"), path);

  fc->destination_failed = ferry_errno_is_device_failure (errsv);
  if (errsv == EFBIG)
    {
      g_autofree char *display = ferry_path_display (path);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _ ("Could not write “%s”: the file is too large for the destination’s filesystem"),
                   display);
      return FALSE;
    }
  return ferry_set_error_from_errno (error, errsv, _ ("Could not write “%s”"), path);
}

/* The kernel took the file's data (or its name), the device did not: a
 * device failing. */
gboolean
ferry_file_copy_fail_durable (FerryFileCopy *fc, int errsv, GError **error)
{
  g_autofree char *path = ferry_file_copy_path (fc, FALSE);

  fc->destination_failed = TRUE;
  return ferry_file_copy_set_not_on_device (path, errsv, error);
}

/* The message of a copy at @path whose data may not be on the device. */
gboolean
ferry_file_copy_set_not_on_device (const char *path, int errsv, GError **error)
{
  return ferry_set_error_from_errno (error, errsv, _ ("Could not write “%s” to the device"), path);
}

gboolean
ferry_file_copy_fail_changed (FerryFileCopy *fc, GError **error)
{
  g_autofree char *path = ferry_file_copy_path (fc, TRUE);

  return ferry_set_ferry_error (
      error, FERRY_ERROR_CHANGED,
      _ ("“%s” changed while it was being copied; the copy was discarded"), path);
}

static gboolean
fail_replaced (const char *path, GError **error)
{
  return ferry_set_ferry_error (
      error, FERRY_ERROR_CHANGED,
      _ ("“%s” was replaced by another file while it was being copied; the copy was discarded"),
      path);
}

static gboolean
same_time (const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* A file that changed size or content while it was read cannot be
 * trusted as a copy of either version; one that was deleted is gone. */
gboolean
ferry_file_copy_check_source_unchanged (FerryFileCopy *fc, GError **error)
{
  struct stat now;

  if (fstat (fc->src_fd, &now) != 0)
    return ferry_file_copy_fail_errno (fc, errno, FALSE, error);

  if (now.st_nlink == 0)
    {
      g_autofree char *path = ferry_file_copy_path (fc, TRUE);
      struct stat there;

      /* Saved the way editors and downloads save, a new file renamed
       * over the old: a file is there again, and "deleted" misled. */
      if (lstat (path, &there) == 0)
        return fail_replaced (path, error);
      return ferry_set_ferry_error (error, FERRY_ERROR_VANISHED,
                                    _ ("“%s” was deleted while it was being copied"), path);
    }
  /* A pseudo file's stat says nothing of its content, which is new at
   * each read: what was read once is the copy. */
  if (fc->read_once)
    return TRUE;
  /* The change time too: a program can rewrite a file and put its
   * modification time back, but it cannot put the change time back. */
  if (now.st_size != fc->st.st_size || !same_time (&now.st_mtim, &fc->st.st_mtim)
      || !same_time (&now.st_ctim, &fc->st.st_ctim))
    return ferry_file_copy_fail_changed (fc, error);
  return TRUE;
}
