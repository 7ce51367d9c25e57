/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "ferry-copy-data.h"
#include "ferry-copy-throttled.h"
#include "ferry-flusher.h"
#include "ferry-error.h"
#include "ferry-fs.h"

/* Large enough that the kernel copies efficiently, small enough that
 * pause, cancel and progress answer at once. Measured on the big tree
 * (2 x 1 GiB, two threads a file): 1 MiB chunks were as fast as the
 * fastest peer; 8 and 32 MiB chunks were up to 40 % slower in some runs. */
#define CHUNK_SIZE      (1024 * 1024)
#define RW_BUFFER_SIZE  (1024 * 1024)
#define PREALLOCATE_MIN (1024 * 1024)
#define SPLIT_MIN       (256 * 1024 * 1024)
#define MAX_PIECES      4

gboolean
ferry_copy_fail_errno (FerryFileCopy *fc, int errsv, gboolean on_destination, GError **error)
{
  g_autofree char *path = NULL;

  if (on_destination)
    {
      fc->destination_failed = ferry_errno_is_device_failure (errsv);
      path = ferry_dir_node_dst_path (fc->node, fc->dst_name);
      if (errsv == EFBIG)
        {
          g_autofree char *display = ferry_path_display (path);
          g_set_error (
              error, G_IO_ERROR, G_IO_ERROR_FAILED,
              _ ("Could not write “%s”: the file is too large for the destination’s filesystem"),
              display);
          return FALSE;
        }
      return ferry_set_error_from_errno (error, errsv, _ ("Could not write “%s”"), path);
    }
  path = ferry_dir_node_src_path (fc->node, fc->src_name);
  return ferry_set_error_from_errno (error, errsv, _ ("Could not read “%s”"), path);
}

static gboolean
fail_changed (FerryFileCopy *fc, GError **error)
{
  g_autofree char *path = ferry_dir_node_src_path (fc->node, fc->src_name);

  return ferry_set_ferry_error (
      error, FERRY_ERROR_CHANGED,
      _ ("“%s” changed while it was being copied; the copy was discarded"), path);
}

/* Bytes [offset, offset + n) of the copy were handed to the kernel. On a
 * slow device the throttle may hold the writer until the device caught
 * up; on a fast one, the flusher, while it is still measuring. */
static gboolean
chunk_written (FerryCopyContext *ctx, FerryFileCopy *fc, off_t offset, size_t n, GError **error)
{
  FerryThrottle *throttle = ferry_copy_context_get_throttle (ctx);
  int errsv;

  ferry_copy_context_add_written (ctx, fc, n);
  if (throttle != NULL && !ferry_throttle_wrote (throttle, fc, offset, n, &errsv))
    return ferry_copy_fail_errno (fc, errsv, TRUE, error);
  if (throttle == NULL && ctx->flusher != NULL)
    ferry_flusher_wait_for_room (ctx->flusher, ctx->cancellable);
  return TRUE;
}

/* Copies [start, end) through a buffer: where copy_file_range cannot, and
 * to tell a read failure from a write failure after an I/O error. */
static gboolean
copy_span_rw (FerryCopyContext *ctx, FerryFileCopy *fc, off_t start, off_t end, GError **error)
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
          return ferry_copy_fail_errno (fc, errno, FALSE, error);
        }
      if (n == 0)
        return fail_changed (fc, error);

      for (ssize_t done = 0; done < n;)
        {
          ssize_t w = pwrite (fc->tmp.fd, buf + done, n - done, off + done);
          if (w < 0)
            {
              if (errno == EINTR)
                continue;
              return ferry_copy_fail_errno (fc, errno, TRUE, error);
            }
          done += w;
        }
      if (!chunk_written (ctx, fc, off, n, error))
        return FALSE;
      off += n;
      if (!ferry_copy_context_check (ctx, error))
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
use_sendfile (FerryCopyContext *ctx, FerryFileCopy *fc)
{
  /* sendfile writes at the file position: pieces of one file, copied by
   * several threads through one descriptor, cannot share it. */
  if (fc->whole != NULL)
    return FALSE;
  return ferry_copy_context_get_throttle (ctx) != NULL || atomic_load (&ctx->range_unsupported);
}

static gboolean
copy_span (FerryCopyContext *ctx, FerryFileCopy *fc, off_t start, off_t end, GError **error)
{
  off_t off = start;

  while (off < end)
    {
      size_t len = MIN (CHUNK_SIZE, end - off);
      gboolean sending = use_sendfile (ctx, fc);
      ssize_t n = sending ? send_chunk (fc, off, len) : range_chunk (fc, off, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          if (!sending && range_unsupported (errno) && fc->whole == NULL)
            {
              atomic_store (&ctx->range_unsupported, TRUE);
              continue;
            }
          if (range_unsupported (errno) || errno == EIO)
            return copy_span_rw (ctx, fc, off, end, error);
          return ferry_copy_fail_errno (fc, errno, TRUE, error);
        }
      if (n == 0)
        return fail_changed (fc, error);

      if (!chunk_written (ctx, fc, off, n, error))
        return FALSE;
      off += n;
      if (end - start > CHUNK_SIZE && !ferry_copy_context_check (ctx, error))
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
copy_sparse (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error)
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
        return copy_span (ctx, fc, off, size, error);
      hole = lseek (fc->src_fd, data, SEEK_HOLE);
      hole = hole < 0 ? size : MIN (hole, size);
      if (!copy_span (ctx, fc, data, hole, error))
        return FALSE;
      off = hole;
    }

  if (ftruncate (fc->tmp.fd, size) != 0)
    return ferry_copy_fail_errno (fc, errno, TRUE, error);

  /* Holes are part of the file, handled without writing: count them so
   * the progress of a sparse file still reaches its size. */
  ferry_copy_context_add_written (ctx, fc, size - (off_t) fc->written);
  return TRUE;
}

/* One part of a large file, copied on its own thread. */
typedef struct
{
  FerryCopyContext *ctx;
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

  piece->ok = copy_span (piece->ctx, &piece->fc, piece->start, piece->end, &piece->error);
  return NULL;
}

/* A very large file is copied by several threads at once, each a range
 * of its own (seed 001): one copy_file_range stream keeps one core busy
 * and leaves the device's queue shallow. */
static gboolean
copy_in_pieces (FerryCopyContext *ctx, FerryFileCopy *fc, guint n, GError **error)
{
  g_autofree Piece *pieces = g_new0 (Piece, n);
  g_autofree GThread **threads = g_new0 (GThread *, n);
  off_t share = ((fc->st.st_size / n) + CHUNK_SIZE - 1) / CHUNK_SIZE * CHUNK_SIZE;
  gboolean ok = TRUE;

  for (guint i = 0; i < n; i++)
    {
      pieces[i].ctx = ctx;
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
    return ferry_copy_fail_errno (fc, errno, TRUE, error);
  return TRUE;
}

/**
 * ferry_copy_range:
 * Copies the source's data into the temporary file inside the kernel
 * (copy_file_range, which also shares extents where the filesystem can),
 * keeping holes, falling back to read and write where the kernel cannot.
 */
gboolean
ferry_copy_range (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error)
{
  if (fc->st.st_size == 0)
    return TRUE;
  if (fc->st.st_size >= PREALLOCATE_MIN)
    posix_fadvise (fc->src_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if (is_sparse (&fc->st))
    return copy_sparse (ctx, fc, error);
  if (!preallocate (fc, error))
    return FALSE;
  if (fc->st.st_size >= SPLIT_MIN && ctx->n_pieces > 1
      && ferry_copy_context_get_throttle (ctx) == NULL)
    return copy_in_pieces (ctx, fc, MIN (ctx->n_pieces, MAX_PIECES), error);
  return copy_span (ctx, fc, 0, fc->st.st_size, error);
}

static gboolean
same_time (const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* A file that changed size or content while it was read cannot be
 * trusted as a copy of either version; one that was deleted is gone. */
gboolean
ferry_copy_check_source_unchanged (FerryFileCopy *fc, GError **error)
{
  struct stat now;

  if (fstat (fc->src_fd, &now) != 0)
    return ferry_copy_fail_errno (fc, errno, FALSE, error);

  if (now.st_nlink == 0)
    {
      g_autofree char *path = ferry_dir_node_src_path (fc->node, fc->src_name);
      return ferry_set_ferry_error (error, FERRY_ERROR_VANISHED,
                                    _ ("“%s” was deleted while it was being copied"), path);
    }
  /* The change time too: a program can rewrite a file and put its
   * modification time back, but it cannot put the change time back. */
  if (now.st_size != fc->st.st_size || !same_time (&now.st_mtim, &fc->st.st_mtim)
      || !same_time (&now.st_ctim, &fc->st.st_ctim))
    return fail_changed (fc, error);
  return TRUE;
}
