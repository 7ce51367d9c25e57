/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-throttle.h"

#define MIB          (1024 * 1024)
#define WINDOW_START (8 * MIB)
#define WINDOW_MIN   (4 * MIB)
#define WINDOW_MAX   (64 * MIB)
/* A window is about this much of the device's time: long enough that the
 * device always has the next window queued, short enough that the two
 * windows in memory at once (one being written out, one filling) stay
 * small. At 40 MB/s, 0.3 s keeps the device's dirty and writeback
 * memory under 32 MB; half a second would not. */
#define WINDOW_SECONDS 0.3
/* The chunk-sync method as first described: start at 30 MB, then twice
 * the measured speed. */
#define CHUNK_START  (30 * MIB)
#define CHUNK_MIN    (4 * MIB)
#define CHUNK_MAX    (256 * MIB)
#define RECHECK_USEC (G_USEC_PER_SEC / 10)

/**
 * FerryThrottle:
 * Writes to a slow device in windows (the default method): data goes into
 * the page cache only as fast as the device takes it. When a window of
 * bytes (spanning files) has been handed to the kernel, the window before
 * it is waited for (WAIT_BEFORE|WRITE|WAIT_AFTER) and dropped from the
 * cache (POSIX_FADV_DONTNEED), and its own writeback is started with
 * sync_file_range(WRITE). Dirty memory stays near two windows, the device
 * never idles, and a window's bytes are counted durable only once the
 * wait for them returned.
 *
 * A file gets its final name only when every window holding its data is
 * durable (and an fdatasync wrote its metadata): workers wait for that,
 * and when every worker in flight is waiting, the waiting ones push the
 * windows out themselves.
 */
typedef struct
{
  FerryFileCopy *owner;
  int fd;
  off_t offset;
  off_t len;
} Range;

typedef struct
{
  guint64 seq;
  GArray *ranges;
  guint64 bytes;
} Window;

struct _FerryThrottle
{
  FerryCounters *counters;
  FerrySlowMethod method;

  GMutex lock;
  GCond changed;
  Window *filling;
  Window *writing;     /* submitted, not yet waited for */
  guint64 durable_seq; /* every window up to this one is on the device */
  gboolean closing;    /* a thread is moving windows without the lock */
  guint in_flight;     /* files being written */
  guint waiting;       /* of them, waiting for their data to be durable */
  guint64 window_size;
  guint64 chunk_size;
  gint64 measured_at;
  guint64 measured_bytes;
  guint64 moved; /* bytes of retired windows and synced chunks */
  double rate;
  int errsv;     /* the first failure writing a window out */
  GArray *named; /* folders (duplicated descriptors) with new names to make durable */
};

/* Called with the lock. */
static GArray *
take_names (FerryThrottle *self)
{
  GArray *named = self->named;

  self->named = g_array_new (FALSE, FALSE, sizeof (int));
  return named;
}

/* Files named since the last window: their data was on the device before
 * they got their names; now their names go there too (one journal commit
 * for all of them), so a stick pulled out later still has them. */
static void
sync_names (GArray *named)
{
  for (guint i = 0; i < named->len; i++)
    {
      int fd = g_array_index (named, int, i);
      fsync (fd);
      close (fd);
    }
  g_array_unref (named);
}

/**
 * ferry_throttle_named:
 * A file in the folder @dir_fd got its final name: make that durable with
 * the next window.
 */
void
ferry_throttle_named (FerryThrottle *self, int dir_fd)
{
  struct stat st;
  int fd;

  if (fstat (dir_fd, &st) != 0)
    return;
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->named->len; i++)
    {
      struct stat other;
      if (fstat (g_array_index (self->named, int, i), &other) == 0 && other.st_ino == st.st_ino
          && other.st_dev == st.st_dev)
        {
          g_mutex_unlock (&self->lock);
          return;
        }
    }
  fd = fcntl (dir_fd, F_DUPFD_CLOEXEC, 3);
  if (fd >= 0)
    g_array_append_val (self->named, fd);
  g_mutex_unlock (&self->lock);
}

static Window *
window_new (guint64 seq)
{
  Window *w = g_new0 (Window, 1);

  w->seq = seq;
  w->ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  return w;
}

static void
window_free (Window *w)
{
  if (w == NULL)
    return;
  g_array_unref (w->ranges);
  g_free (w);
}

FerryThrottle *
ferry_throttle_new (FerryCounters *counters, FerrySlowMethod method)
{
  FerryThrottle *self = g_new0 (FerryThrottle, 1);

  self->counters = counters;
  self->method = method;
  g_mutex_init (&self->lock);
  g_cond_init (&self->changed);
  self->filling = window_new (1);
  self->named = g_array_new (FALSE, FALSE, sizeof (int));
  self->window_size = WINDOW_START;
  self->chunk_size = CHUNK_START;
  self->measured_at = g_get_monotonic_time ();
  atomic_store (&counters->durable_live, TRUE);
  return self;
}

void
ferry_throttle_free (FerryThrottle *self)
{
  window_free (self->filling);
  window_free (self->writing);
  sync_names (take_names (self));
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->changed);
  g_free (self);
}

/* Called with the lock: the device took @bytes more. The window follows
 * the rate measured over what the throttle itself moved (not what a
 * flusher synced before it took over), smoothed, and grows at most by
 * half at a time. */
static void
count_durable (FerryThrottle *self, guint64 bytes)
{
  gint64 now = g_get_monotonic_time ();
  guint64 durable = ferry_counters_get (&self->counters->bytes_durable) + bytes;
  double elapsed = (double) (now - self->measured_at) / G_USEC_PER_SEC;
  guint64 target;

  ferry_counters_set_durable (self->counters, durable);
  self->moved += bytes;
  if (elapsed < 0.05)
    return;
  self->rate = (self->moved - self->measured_bytes) / elapsed;
  self->measured_at = now;
  self->measured_bytes = self->moved;
  target = CLAMP ((guint64) (self->rate * WINDOW_SECONDS), WINDOW_MIN, WINDOW_MAX);
  self->window_size = MIN ((self->window_size + target) / 2, self->window_size * 3 / 2);
  self->chunk_size = CLAMP ((guint64) (2 * self->rate), CHUNK_MIN, CHUNK_MAX);
}

static void
start_writeback (Window *w)
{
  for (guint i = 0; i < w->ranges->len; i++)
    {
      Range *r = &g_array_index (w->ranges, Range, i);
      sync_file_range (r->fd, r->offset, r->len, SYNC_FILE_RANGE_WRITE);
    }
}

/* Waits until the device has the window, then drops it from the cache.
 * Returns the first error (an unplugged stick reports EIO here). */
static int
wait_for_window (Window *w)
{
  int errsv = 0;

  for (guint i = 0; i < w->ranges->len; i++)
    {
      Range *r = &g_array_index (w->ranges, Range, i);
      const unsigned int flags
          = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;

      if (sync_file_range (r->fd, r->offset, r->len, flags) != 0 && errsv == 0)
        errsv = errno;
      posix_fadvise (r->fd, r->offset, r->len, POSIX_FADV_DONTNEED);
    }
  return errsv;
}

/* Called with the lock: the window waited for is durable. */
static void
retire (FerryThrottle *self, Window *w, int errsv)
{
  if (errsv != 0 && self->errsv == 0)
    self->errsv = errsv;
  if (errsv == 0)
    count_durable (self, w->bytes);
  self->durable_seq = w->seq;
  window_free (w);
}

/* Called with the lock, not closing: the window before is waited for,
 * then the filling one starts on its way to the device. In that order,
 * only two windows are ever in memory (one being written out, one
 * filling); writers wait meanwhile, since the filling window is full.
 * The device idles only for the moment between the two calls. */
static void
close_filling (FerryThrottle *self)
{
  Window *current = self->filling;
  Window *previous = self->writing;
  GArray *named = take_names (self);
  int errsv = 0;

  self->closing = TRUE;
  self->writing = NULL;
  g_mutex_unlock (&self->lock);

  if (previous != NULL)
    errsv = wait_for_window (previous);
  start_writeback (current);
  sync_names (named);

  g_mutex_lock (&self->lock);
  if (previous != NULL)
    retire (self, previous, errsv);
  self->writing = current;
  self->filling = window_new (current->seq + 1);
  self->closing = FALSE;
  g_cond_broadcast (&self->changed);
}

/* Called with the lock, not closing: waits for the window on its way. */
static void
flush_writing (FerryThrottle *self)
{
  Window *w = self->writing;
  GArray *named = take_names (self);
  int errsv;

  self->closing = TRUE;
  self->writing = NULL;
  g_mutex_unlock (&self->lock);
  errsv = wait_for_window (w);
  sync_names (named);
  g_mutex_lock (&self->lock);
  retire (self, w, errsv);
  self->closing = FALSE;
  g_cond_broadcast (&self->changed);
}

static void
add_range (Window *w, FerryFileCopy *fc, off_t offset, size_t len)
{
  if (w->ranges->len > 0)
    {
      Range *last = &g_array_index (w->ranges, Range, w->ranges->len - 1);
      if (last->owner == fc && last->offset + last->len == offset)
        {
          last->len += len;
          w->bytes += len;
          return;
        }
    }
  g_array_append_vals (w->ranges, &(Range){ fc, fc->tmp.fd, offset, len }, 1);
  w->bytes += len;
}

/* Called with the lock: the file counts as in flight from its first
 * bytes written in slow mode (a job may turn slow in the middle of one). */
static void
enter_flight (FerryThrottle *self, FerryFileCopy *fc)
{
  if (!fc->throttled)
    {
      fc->throttled = TRUE;
      self->in_flight++;
    }
}

static void
leave_flight (FerryThrottle *self, FerryFileCopy *fc)
{
  if (fc->throttled)
    {
      fc->throttled = FALSE;
      self->in_flight--;
      g_cond_broadcast (&self->changed);
    }
}

static gboolean
sync_chunk (FerryThrottle *self, FerryFileCopy *fc, off_t end, gboolean always, int *errsv)
{
  if (fc->unsynced == 0 && !always)
    return TRUE;
  if (fdatasync (fc->tmp.fd) != 0)
    {
      *errsv = errno;
      return FALSE;
    }
  posix_fadvise (fc->tmp.fd, 0, end, POSIX_FADV_DONTNEED);
  g_mutex_lock (&self->lock);
  count_durable (self, fc->unsynced);
  g_mutex_unlock (&self->lock);
  fc->unsynced = 0;
  return TRUE;
}

/**
 * ferry_throttle_wrote:
 * Accounts @len bytes just handed to the kernel at @offset of the copy;
 * blocks while the device is a window behind.
 */
gboolean
ferry_throttle_wrote (FerryThrottle *self, FerryFileCopy *fc, off_t offset, size_t len, int *errsv)
{
  *errsv = 0;
  if (self->method == FERRY_SLOW_METHOD_CHUNK_SYNC)
    {
      guint64 chunk;

      fc->unsynced += len;
      g_mutex_lock (&self->lock);
      chunk = self->chunk_size;
      g_mutex_unlock (&self->lock);
      return fc->unsynced < chunk || sync_chunk (self, fc, offset + len, FALSE, errsv);
    }

  /* The pieces of a large file, copied by several threads, count as the
   * one file the worker will make durable. */
  if (fc->whole != NULL)
    fc = fc->whole;
  g_mutex_lock (&self->lock);
  enter_flight (self, fc);
  add_range (self->filling, fc, offset, len);
  fc->window = self->filling->seq;
  while (self->filling->bytes >= self->window_size && self->errsv == 0)
    {
      if (!self->closing)
        {
          close_filling (self);
          break;
        }
      g_cond_wait (&self->changed, &self->lock);
    }
  *errsv = self->errsv;
  g_mutex_unlock (&self->lock);
  return *errsv == 0;
}

/* Called with the lock: moves windows until the file's are durable. The
 * windows fill by themselves while another worker writes; when all the
 * files in flight are waiting, nobody would, so the waiters move them. */
static void
wait_for_file_windows (FerryThrottle *self, FerryFileCopy *fc)
{
  self->waiting++;
  while (self->durable_seq < fc->window && self->errsv == 0)
    {
      gboolean nobody_writing = self->waiting >= self->in_flight;

      if (!self->closing && nobody_writing && fc->window == self->filling->seq)
        close_filling (self);
      else if (!self->closing && nobody_writing && self->writing != NULL)
        flush_writing (self);
      else
        g_cond_wait_until (&self->changed, &self->lock, g_get_monotonic_time () + RECHECK_USEC);
    }
  self->waiting--;
}

/**
 * ferry_throttle_make_durable:
 * Returns once all of the file's data is on the device, before it gets
 * its final name: its windows waited for, then an fdatasync for what the
 * filesystem keeps about it (size, extents).
 */
gboolean
ferry_throttle_make_durable (FerryThrottle *self, FerryFileCopy *fc, int *errsv)
{
  *errsv = 0;
  /* Bytes written before the job turned slow were never counted: the
   * fdatasync happens whatever the count says. */
  if (self->method == FERRY_SLOW_METHOD_CHUNK_SYNC)
    return sync_chunk (self, fc, fc->st.st_size, TRUE, errsv);

  g_mutex_lock (&self->lock);
  if (fc->throttled)
    wait_for_file_windows (self, fc);
  leave_flight (self, fc);
  *errsv = self->errsv;
  g_mutex_unlock (&self->lock);

  if (*errsv == 0 && fdatasync (fc->tmp.fd) != 0)
    *errsv = errno;
  return *errsv == 0;
}

/**
 * ferry_throttle_forget:
 * The file failed or was cancelled: its ranges leave the windows before
 * its descriptor is closed.
 */
void
ferry_throttle_forget (FerryThrottle *self, FerryFileCopy *fc)
{
  Window *windows[2];

  g_mutex_lock (&self->lock);
  while (self->closing)
    g_cond_wait (&self->changed, &self->lock);
  windows[0] = self->filling;
  windows[1] = self->writing;
  for (guint w = 0; w < G_N_ELEMENTS (windows); w++)
    for (guint i = 0; windows[w] != NULL && i < windows[w]->ranges->len;)
      {
        Range *r = &g_array_index (windows[w]->ranges, Range, i);
        if (r->owner != fc)
          {
            i++;
            continue;
          }
        windows[w]->bytes -= r->len;
        g_array_remove_index (windows[w]->ranges, i);
      }
  leave_flight (self, fc);
  g_mutex_unlock (&self->lock);
}

/* Everything still in windows goes to the device; the first error any
 * window met is returned. */
gboolean
ferry_throttle_drain (FerryThrottle *self, int *errsv)
{
  GArray *named;

  g_mutex_lock (&self->lock);
  while (self->filling->bytes > 0 || self->writing != NULL || self->closing)
    {
      if (self->closing)
        g_cond_wait (&self->changed, &self->lock);
      else if (self->filling->bytes > 0)
        close_filling (self);
      else
        flush_writing (self);
    }
  *errsv = self->errsv;
  named = take_names (self);
  g_mutex_unlock (&self->lock);
  sync_names (named);
  return *errsv == 0;
}
