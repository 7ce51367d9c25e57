/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-control.h"
#include "ferry-strategy.h"
#include "ferry-write-behind.h"

/* Each range keeps a descriptor open: a folder of tiny files must not
 * use them up. */
#define RANGES_MAX 256
/* What a cancelled copy waits for: the writer cannot leave a range's
 * writeback, nor the kernel free a file's pages, before the device has
 * written what is on its way. At 6 MB/s the device window's 4 MB floor
 * (ferry_device_window_follow) is 0.7 s of the device; this floor is
 * 0.17 s of it, and the limit still follows the device's 0.4 s. */
#define LIMIT_START (2 * 1024 * 1024)
#define LIMIT_MIN   (1024 * 1024)

typedef struct
{
  gconstpointer owner; /* the file the range belongs to, to merge its chunks */
  int fd;              /* a duplicate: the file may be closed before its range is waited for */
  off_t offset;
  off_t end;
  gboolean started; /* its writeback was asked for */
} Range;

/**
 * FerryWriteBehind:
 * Data on its way to the device between durability points, on a kernel
 * filesystem: writeback starts as soon as half the limit has been
 * written (sync_file_range, which issues no cache flush), and the writer waits
 * for the oldest ranges to be written back while more than the limit is
 * under way. The device works steadily while points, which cost flushes,
 * come seldom; the points alone make anything durable, because a range
 * written back is not yet reachable after an unplug (the file's size and
 * extents are in the journal, not on the device).
 *
 * A writeback error is reported once per open file, and waiting for a
 * range takes it (the duplicate shares the file's open description): a
 * later fdatasync() of that file would say nothing. So the files whose
 * ranges failed are remembered, by inode, for ferry_write_behind_get_error().
 *
 * Used by one writer at a time.
 */
struct _FerryWriteBehind
{
  GQueue ranges; /* Range, oldest first */
  guint64 pending;
  guint64 unstarted; /* of pending, at the tail of ranges */
  guint64 limit; /* about 0.4 s of the device, as measured, from 1 MiB */
  GHashTable *failed; /* inode number -> errno, of files whose writeback failed */
  int cpu;            /* where writeback is started from, once known; else -1 */
};

FerryWriteBehind *
ferry_write_behind_new (void)
{
  FerryWriteBehind *self = g_new0 (FerryWriteBehind, 1);

  g_queue_init (&self->ranges);
  self->limit = LIMIT_START;
  self->cpu = -1;
  self->failed = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return self;
}

/* The range's file failed with @errsv, which the caller returns. Inodes
 * are numbers of one filesystem, and a file waiting for its name keeps
 * its own open. */
static int
note_failure (FerryWriteBehind *self, const Range *range, int errsv)
{
  struct stat st;

  if (fstat (range->fd, &st) == 0)
    {
      gint64 *ino = g_new (gint64, 1);

      *ino = (gint64) st.st_ino;
      g_hash_table_insert (self->failed, ino, GINT_TO_POINTER (errsv));
    }
  return errsv;
}

/**
 * ferry_write_behind_get_error:
 * The errno of a writeback of @fd's file that failed while the writer
 * waited for it, or 0.
 */
int
ferry_write_behind_get_error (FerryWriteBehind *self, int fd)
{
  struct stat st;
  gint64 ino;

  if (fstat (fd, &st) != 0)
    return errno;
  ino = (gint64) st.st_ino;
  return GPOINTER_TO_INT (g_hash_table_lookup (self->failed, &ino));
}

static void
range_free (gpointer data)
{
  Range *range = data;

  close (range->fd);
  g_free (range);
}

/* ext4 places a small file (under 64 KiB) in a pool of blocks of the CPU
 * its writeback starts from (its per-CPU locality groups): writers on two
 * CPUs put consecutive small files in two places, and the device saw
 * every other write scattered (the flash emulator counted 342 to 396
 * scattered writes for the everyday folder, 150 to 211 with Ferry kept on
 * one CPU). So writeback always starts from one CPU, where the first
 * batch started; the calling thread moves there for it, and back
 * (@saved: its CPUs before). FALSE when it stays where it is. */
static gboolean
move_to_writeback_cpu (FerryWriteBehind *self, cpu_set_t *saved)
{
  cpu_set_t one;

  if (sched_getaffinity (0, sizeof *saved, saved) != 0)
    return FALSE;
  if (self->cpu < 0)
    self->cpu = sched_getcpu ();
  if (self->cpu < 0 || !CPU_ISSET (self->cpu, saved))
    return FALSE;
  CPU_ZERO (&one);
  CPU_SET (self->cpu, &one);
  return sched_setaffinity (0, sizeof one, &one) == 0;
}

/* Asks for the writeback of every range not yet started, oldest first:
 * in batches, not chunk by chunk, so the filesystem allocates and the
 * device writes files back to back. */
static int
start_writeback (FerryWriteBehind *self)
{
  GList *first = self->ranges.tail;
  cpu_set_t saved;
  gboolean moved;
  int errsv = 0;

  while (first != NULL && first->prev != NULL && !((Range *) first->prev->data)->started)
    first = first->prev;
  self->unstarted = 0;
  moved = move_to_writeback_cpu (self, &saved);
  for (GList *l = first; l != NULL && errsv == 0; l = l->next)
    {
      Range *range = l->data;

      if (range->started)
        continue;
      range->started = TRUE;
      if (sync_file_range (range->fd, range->offset, range->end - range->offset,
                           SYNC_FILE_RANGE_WRITE)
          != 0)
        errsv = note_failure (self, range, errno);
    }
  if (moved)
    sched_setaffinity (0, sizeof saved, &saved);
  return errsv;
}

/* Starts the writeback of every range written and not yet started (from
 * the same CPU as the others). A range that fails is its file's, for
 * ferry_write_behind_get_error() to tell. */
void
ferry_write_behind_start (FerryWriteBehind *self)
{
  if (self->unstarted > 0)
    start_writeback (self);
}

/* [offset, offset + len) of @fd was written: its writeback starts with
 * the batch it belongs to. Returns 0 or an errno (a device that failed
 * or went away). */
int
ferry_write_behind_add (FerryWriteBehind *self, gconstpointer owner, int fd, off_t offset,
                        size_t len)
{
  Range *last = g_queue_peek_tail (&self->ranges);

  self->pending += len;
  self->unstarted += len;
  if (last != NULL && !last->started && last->owner == owner && last->end == offset)
    last->end += len;
  else
    {
      int dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);

      if (dup_fd < 0)
        return errno;
      last = g_new0 (Range, 1);
      last->owner = owner;
      last->fd = dup_fd;
      last->offset = offset;
      last->end = offset + len;
      g_queue_push_tail (&self->ranges, last);
    }
  return self->unstarted >= self->limit / 2 ? start_writeback (self) : 0;
}

/* Waits while more than the limit is on its way to the device, or until
 * @control says the job ends: a cancel is not held for the device.
 * Returns 0 or the errno of a writeback that failed. */
int
ferry_write_behind_wait_for_room (FerryWriteBehind *self, FerryControl *control)
{
  gint64 started_at = g_get_monotonic_time ();
  guint64 retired = 0;
  int errsv = 0;

  while ((self->pending > self->limit || self->ranges.length > RANGES_MAX) && errsv == 0)
    {
      if (!((Range *) g_queue_peek_head (&self->ranges))->started
          && (errsv = start_writeback (self)) != 0)
        break;
      /* A job that ends waits for no more of the device. */
      if (ferry_control_is_ending (control))
        return 0;
      Range *oldest = g_queue_pop_head (&self->ranges);
      guint64 len = oldest->end - oldest->offset;

      if (sync_file_range (oldest->fd, oldest->offset, len, SYNC_FILE_RANGE_WAIT_BEFORE) != 0)
        errsv = note_failure (self, oldest, errno);
      self->pending -= len;
      retired += len;
      range_free (oldest);
    }
  /* The limit follows the rate the device wrote back at while the
   * writer waited for it. */
  if (errsv == 0)
    self->limit = ferry_device_window_follow_from (self->limit, retired, started_at, LIMIT_MIN);
  return errsv;
}

void
ferry_write_behind_free (FerryWriteBehind *self)
{
  g_queue_clear_full (&self->ranges, range_free);
  g_hash_table_unref (self->failed);
  g_free (self);
}
