/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>
#include <xxhash.h>

#include "ferry-error.h"
#include "ferry-fs.h"
#include "ferry-verify.h"

#define VERIFY_BUFFER_SIZE (1024 * 1024)

static gboolean
hash_fd (FerryControl *control, FerryFileCopy *fc, gboolean is_copy, XXH128_hash_t *out, GError **error)
{
  int fd = is_copy ? fc->tmp.fd : fc->src_fd;
  g_autofree char *buf = g_malloc (VERIFY_BUFFER_SIZE);
  XXH3_state_t *state = XXH3_createState ();
  off_t off = 0;

  XXH3_128bits_reset (state);
  for (;;)
    {
      ssize_t n = pread (fd, buf, VERIFY_BUFFER_SIZE, off);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          XXH3_freeState (state);
          return ferry_file_copy_fail_errno (fc, errno, is_copy, error);
        }
      if (n == 0)
        break;
      XXH3_128bits_update (state, buf, n);
      off += n;
      if (!ferry_control_check (control, error))
        {
          XXH3_freeState (state);
          return FALSE;
        }
    }
  *out = XXH3_128bits_digest (state);
  XXH3_freeState (state);
  return TRUE;
}

/**
 * ferry_verify_copy:
 * Reads the copy back from the device, not from the page cache (its
 * pages are written out and dropped first; through a FUSE daemon also
 * those of the block device it writes, @device_fd, or -1), and compares
 * its hash with the source's. A copy that differs never gets its final
 * name.
 */
gboolean
ferry_verify_copy (FerryControl *control, FerryFileCopy *fc, int device_fd, GError **error)
{
  XXH128_hash_t source_hash, copy_hash;

  if (fdatasync (fc->tmp.fd) != 0)
    return ferry_file_copy_fail_errno (fc, errno, TRUE, error);
  posix_fadvise (fc->tmp.fd, 0, 0, POSIX_FADV_DONTNEED);
  /* Clean once the daemon synced the copy; the whole device's cache goes,
   * as only the daemon knows where the copy lies on it. */
  if (device_fd >= 0)
    posix_fadvise (device_fd, 0, 0, POSIX_FADV_DONTNEED);

  /* A pseudo file would read differently a second time: the copy is
   * compared with what was read for it. */
  if (fc->read_once)
    source_hash = (XXH128_hash_t){ .low64 = fc->read_hash[0], .high64 = fc->read_hash[1] };
  else if (!hash_fd (control, fc, FALSE, &source_hash, error))
    return FALSE;
  if (!hash_fd (control, fc, TRUE, &copy_hash, error))
    return FALSE;

  if (!XXH128_isEqual (source_hash, copy_hash))
    {
      g_autofree char *path = ferry_file_copy_path (fc, FALSE);
      return ferry_set_ferry_error (
          error, FERRY_ERROR_VERIFY_FAILED,
          _ ("The copy of “%s” differs from the original (verification failed)"), path);
    }
  return TRUE;
}
