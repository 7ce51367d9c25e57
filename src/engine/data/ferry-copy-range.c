/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>
#include <xxhash.h>

#include "ferry-copy-range.h"
#include "ferry-error.h"
#include "ferry-fs.h"

/* Large enough that the kernel copies efficiently, small enough that
 * pause, cancel and progress answer at once. Measured on the big tree
 * (2 x 1 GiB, two threads a file): 1 MiB chunks were as fast as the
 * fastest peer; 8 and 32 MiB chunks were up to 40 % slower in some runs. */
#define CHUNK_SIZE      (1024 * 1024)
/* Through a FUSE daemon a chunk is several requests, and while a sync
 * runs the daemon may wait for the device at each (ntfs-3g rewrites a
 * record the sync is writing out): smaller chunks, for pause and cancel
 * to be seen between them. */
#define FUSE_CHUNK_SIZE (256 * 1024)
#define RW_BUFFER_SIZE  (1024 * 1024)
#define PREALLOCATE_MIN (1024 * 1024)
#define SPLIT_MIN       (256 * 1024 * 1024)
#define MAX_PIECES      4
/* A pseudo file comes a page or so per read. */
#define PSEUDO_BUFFER_SIZE (64 * 1024)

/* Bytes [offset, offset + n) of the copy were handed to the kernel. The
 * strategy in use may hold the writer until the device caught up. The
 * journal hears of them before the job's count does: a point reads that
 * count before the files' (ferry_journal_point_started()), so what it
 * says is on the device is never more than a run continuing it carries. */
static gboolean
chunk_written (FerryCopyTarget *target, FerryFileCopy *fc, off_t offset, size_t n, GError **error)
{
  if (fc->resumable && !fc->journaled)
    ferry_copy_target_journal_file (target, fc);
  if (fc->journaled)
    ferry_journal_wrote (target->journal, fc->journal_path, offset + n);
  ferry_copy_target_add_written (target, fc, n);
  return ferry_strategy_chunk_written (ferry_copy_target_get_strategy (target), fc, offset, n,
                                       error);
}

/* All of @buf into the copy at @off. */
static gboolean
write_at (FerryFileCopy *fc, const char *buf, size_t n, off_t off, GError **error)
{
  for (size_t done = 0; done < n;)
    {
      ssize_t w = pwrite (fc->tmp.fd, buf + done, n - done, off + done);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          return ferry_file_copy_fail_errno (fc, errno, TRUE, error);
        }
      done += w;
    }
  return TRUE;
}

/* Copies [start, end) through a buffer: where copy_file_range cannot, and
 * to tell a read failure from a write failure after an I/O error. */
static gboolean
copy_span_rw (FerryCopyTarget *target, FerryFileCopy *fc, off_t start, off_t end, GError **error)
{
  g_autofree char *buf = g_malloc (MIN (RW_BUFFER_SIZE, end - start));
  off_t off = start;

  while (off < end)
    {
      ssize_t n = pread (fc->src_fd, buf, MIN (RW_BUFFER_SIZE, end - off), off);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return ferry_file_copy_fail_errno (fc, errno, FALSE, error);
        }
      if (n == 0)
        return ferry_file_copy_fail_changed (fc, error);
      if (!write_at (fc, buf, n, off, error))
        return FALSE;
      if (!chunk_written (target, fc, off, n, error))
        return FALSE;
      off += n;
      if (!ferry_control_check (target->control, error))
        return FALSE;
    }
  return TRUE;
}

/* copy_file_range has no opinion on which side failed; these say the
 * call itself cannot be used here (old kernel, special files, a
 * filesystem pair that does not support it). */
static gboolean
range_unsupported (int errsv)
{
  return errsv == EXDEV || errsv == EINVAL || errsv == ENOSYS || errsv == EOPNOTSUPP
         || errsv == EBADF || errsv == ETXTBSY;
}

/* One chunk the slow-device way: sendfile, the kernel-side copy that
 * writes at the copy's file position. */
static ssize_t
send_chunk (FerryFileCopy *fc, off_t off, size_t len)
{
  off_t in_off = off;

  if (lseek (fc->tmp.fd, off, SEEK_SET) != off)
    return -1;
  return sendfile (fc->tmp.fd, fc->src_fd, &in_off, len);
}

static ssize_t
range_chunk (FerryFileCopy *fc, off_t off, size_t len)
{
  loff_t in_off = off, out_off = off;

  return copy_file_range (fc->src_fd, &in_off, fc->tmp.fd, &out_off, len, 0);
}

/* Which kernel-side copy a chunk takes. copy_file_range is the fast
 * disks' way (and shares extents where it can); it refuses some pairs of
 * filesystems (EXDEV), where sendfile still copies inside the kernel, as
 * it does for slow devices. The device may turn out slow in the middle
 * of a file, so this is decided chunk by chunk. */
static gboolean
use_sendfile (FerryCopyTarget *target, FerryFileCopy *fc)
{
  /* sendfile writes at the file position: pieces of one file, copied by
   * several threads through one descriptor, cannot share it. */
  if (fc->whole != NULL)
    return FALSE;
  return ferry_copy_target_get_strategy (target)->klass->sends_at_position
         || atomic_load (&target->range_unsupported);
}

static gboolean
copy_span (FerryCopyTarget *target, FerryFileCopy *fc, off_t start, off_t end, GError **error)
{
  size_t chunk = target->through_fuse ? FUSE_CHUNK_SIZE : CHUNK_SIZE;
  off_t off = start;

  while (off < end)
    {
      size_t len = MIN (chunk, (size_t) (end - off));
      gboolean sending = use_sendfile (target, fc);
      ssize_t n = sending ? send_chunk (fc, off, len) : range_chunk (fc, off, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          if (!sending && range_unsupported (errno) && fc->whole == NULL)
            {
              atomic_store (&target->range_unsupported, TRUE);
              continue;
            }
          if (range_unsupported (errno) || errno == EIO)
            return copy_span_rw (target, fc, off, end, error);
          return ferry_file_copy_fail_errno (fc, errno, TRUE, error);
        }
      if (n == 0)
        return ferry_file_copy_fail_changed (fc, error);

      if (!chunk_written (target, fc, off, n, error))
        return FALSE;
      off += n;
      if (end - start > (off_t) chunk && !ferry_control_check (target->control, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
is_sparse (const struct stat *st)
{
  return (guint64) st->st_blocks * 512 < (guint64) st->st_size;
}

/* Copies only the data regions, leaving the holes as holes. */
static gboolean
copy_sparse (FerryCopyTarget *target, FerryFileCopy *fc, GError **error)
{
  off_t size = fc->st.st_size;
  off_t off = 0;

  while (off < size)
    {
      off_t data = lseek (fc->src_fd, off, SEEK_DATA);
      off_t hole;

      if (data < 0 && errno == ENXIO)
        break;
      if (data < 0)
        return copy_span (target, fc, off, size, error);
      hole = lseek (fc->src_fd, data, SEEK_HOLE);
      hole = hole < 0 ? size : MIN (hole, size);
      if (!copy_span (target, fc, data, hole, error))
        return FALSE;
      off = hole;
    }

  if (ftruncate (fc->tmp.fd, size) != 0)
    return ferry_file_copy_fail_errno (fc, errno, TRUE, error);

  /* Holes are part of the file, handled without writing: count them so
   * the progress of a sparse file still reaches its size. */
  ferry_copy_target_add_written (target, fc, size - (off_t) fc->written);
  return TRUE;
}

/* One part of a large file, copied on its own thread. */
typedef struct
{
  FerryCopyTarget *target;
  FerryFileCopy fc; /* a copy of the file's, counting its own bytes */
  off_t start;
  off_t end;
  GError *error;
  gboolean ok;
} Piece;

static gpointer
copy_piece (gpointer data)
{
  Piece *piece = data;

  piece->ok = copy_span (piece->target, &piece->fc, piece->start, piece->end, &piece->error);
  return NULL;
}

/* A very large file is copied by several threads at once, each a range
 * of its own (seed 001): one copy_file_range stream keeps one core busy
 * and leaves the device's queue shallow. */
static gboolean
copy_in_pieces (FerryCopyTarget *target, FerryFileCopy *fc, guint n, GError **error)
{
  g_autofree Piece *pieces = g_new0 (Piece, n);
  g_autofree GThread **threads = g_new0 (GThread *, n);
  off_t share = ((fc->st.st_size / n) + CHUNK_SIZE - 1) / CHUNK_SIZE * CHUNK_SIZE;
  gboolean ok = TRUE;

  for (guint i = 0; i < n; i++)
    {
      pieces[i].target = target;
      pieces[i].fc = *fc;
      pieces[i].fc.written = 0;
      pieces[i].fc.whole = fc;
      pieces[i].start = MIN ((off_t) i * share, fc->st.st_size);
      pieces[i].end = MIN ((off_t) (i + 1) * share, fc->st.st_size);
      if (i > 0)
        threads[i] = g_thread_new ("ferry-piece", copy_piece, &pieces[i]);
    }
  copy_piece (&pieces[0]);

  for (guint i = 0; i < n; i++)
    {
      if (threads[i] != NULL)
        g_thread_join (threads[i]);
      fc->written += pieces[i].fc.written;
      fc->destination_failed |= pieces[i].fc.destination_failed;
      if (!pieces[i].ok && ok)
        {
          ok = FALSE;
          g_propagate_error (error, g_steal_pointer (&pieces[i].error));
        }
      g_clear_error (&pieces[i].error);
    }
  return ok;
}

/* The job's total counted @fc at its old size: it counts @size now. */
static void
count_size (FerryCopyTarget *target, FerryFileCopy *fc, off_t size)
{
  ferry_counters_add_total (target->counters, (gint64) size - fc->st.st_size);
  fc->st.st_size = size;
}

/* Reads as cat does, from the start to the end, whatever the size said:
 * the total grows with what comes, so the progress never passes it. */
static gboolean
read_to_end (FerryCopyTarget *target, FerryFileCopy *fc, XXH3_state_t *hash, GError **error)
{
  g_autofree char *buf = g_malloc (PSEUDO_BUFFER_SIZE);
  off_t off = 0;

  for (;;)
    {
      ssize_t n = read (fc->src_fd, buf, PSEUDO_BUFFER_SIZE);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return ferry_file_copy_fail_errno (fc, errno, FALSE, error);
      if (n == 0)
        return TRUE;
      XXH3_128bits_update (hash, buf, n);
      if (!write_at (fc, buf, n, off, error))
        return FALSE;
      if (off + n > fc->st.st_size)
        count_size (target, fc, off + n);
      if (!chunk_written (target, fc, off, n, error))
        return FALSE;
      off += n;
      if (!ferry_control_check (target->control, error))
        return FALSE;
    }
}

/* A file on a pseudo filesystem (ferry_fs_is_pseudo(): /proc/cpuinfo,
 * /sys/...) says a size that is not its content, and the kernel-side
 * copies give nothing of it. It is read to its end once (a second read
 * may differ), its size is what was read, in the job's total too (as
 * planned again when the copy fails, for the failure to take back), and
 * the hash of what was read is what verification compares the copy with. */
static gboolean
copy_to_end (FerryCopyTarget *target, FerryFileCopy *fc, GError **error)
{
  off_t planned = fc->st.st_size;
  XXH3_state_t *hash = XXH3_createState ();
  XXH128_hash_t digest;
  gboolean ok;

  XXH3_128bits_reset (hash);
  fc->read_once = TRUE;
  ok = read_to_end (target, fc, hash, error);
  count_size (target, fc, ok ? (off_t) fc->written : planned);
  digest = XXH3_128bits_digest (hash);
  fc->read_hash[0] = digest.low64;
  fc->read_hash[1] = digest.high64;
  XXH3_freeState (hash);
  return ok;
}

/* Reserving the whole size up front finds a full disk before any data
 * moves and lets the filesystem lay the file out in one piece. Small
 * files gain nothing from the extra call. */
static gboolean
preallocate (FerryFileCopy *fc, GError **error)
{
  if (fc->st.st_size < PREALLOCATE_MIN)
    return TRUE;
  if (fallocate (fc->tmp.fd, 0, 0, fc->st.st_size) == 0)
    return TRUE;
  if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG || errno == EIO)
    return ferry_file_copy_fail_errno (fc, errno, TRUE, error);
  return TRUE;
}

/**
 * ferry_copy_range:
 * Copies the source's data into the temporary file inside the kernel
 * (copy_file_range, which also shares extents where the filesystem can,
 * or sendfile), keeping holes, falling back to read and write where the
 * kernel cannot. A very large file goes in up to @n_pieces ranges at
 * once; a pseudo file is read to its end.
 */
gboolean
ferry_copy_range (FerryCopyTarget *target, FerryFileCopy *fc, guint n_pieces, GError **error)
{
  if (ferry_copy_target_source_is_pseudo (target, fc))
    return copy_to_end (target, fc, error);
  if (fc->st.st_size == 0)
    return TRUE;
  /* A file continued is neither sparse nor split (see ferry-continue.c). */
  if (fc->resume_from > 0)
    return copy_span (target, fc, fc->resume_from, fc->st.st_size, error);
  if (fc->st.st_size >= PREALLOCATE_MIN)
    posix_fadvise (fc->src_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if (is_sparse (&fc->st))
    return copy_sparse (target, fc, error);
  if (!preallocate (fc, error))
    return FALSE;
  if (fc->st.st_size >= SPLIT_MIN && n_pieces > 1)
    return copy_in_pieces (target, fc, MIN (n_pieces, MAX_PIECES), error);
  return copy_span (target, fc, 0, fc->st.st_size, error);
}
