/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "ferry-flusher.h"
#include "ferry-named-file.h"
#include "ferry-syncfs.h"

#define MIB       (1024 * 1024)
#define POLL_USEC (G_USEC_PER_SEC / 20)
/* Measured on the src tree: a syncfs every ~100 ms of copying made the
 * durable time 15 % shorter than a single syncfs at the end. */
#define FAST_WINDOW (32 * MIB)
#define FAST_AHEAD  (256 * MIB)
/* Until the device has shown its speed, little is let ahead of it. */
#define PROBE_WINDOW    (4 * MIB)
#define PROBE_AHEAD     (8 * MIB)
#define PROBE_MIN_BYTES (4 * MIB)
#define PROBES_TO_TRUST 3
/* One slow sync may be a busy moment of a fast disk; two in a row are not. */
#define PROBES_TO_DISTRUST 2
/* Below this a device is slow: USB sticks, SD cards, network shares;
 * internal SSDs and hard disks write well above it. */
#define SLOW_RATE (64.0 * MIB)
/* Copies named since the last syncfs are kept open (their descriptors
 * would be closed anyway) up to this many; past it each is closed at
 * once, known by its inode (a stat more for a window of tiny files). */
#define NAMED_OPEN_MAX 256

typedef enum
{
  STATE_PROBING,
  STATE_FAST,
  STATE_HANDED_OVER, /* the device is slow: the slow strategy took over */
  STATE_STOPPED,
} State;

/**
 * FerryFlusher:
 * Makes what a fast-disk copy wrote durable while the copy goes on: each
 * time another window of bytes was handed to the kernel, a syncfs() of the
 * destination, on a thread of its own. The device writes while the
 * workers copy instead of after them (the kernel alone starts only at its
 * background threshold, 10 % of memory), and bytes_durable moves as data
 * really reaches the disk: what a syncfs waited for was written before it
 * began, so that much is durable when it returns.
 *
 * It also measures. A device whose class says fast may not be (a loop
 * device on slow storage, an SD card in an internal reader, a dying
 * disk): until a few syncs have shown it fast, writers may run only a
 * little ahead of it, and a slow one is handed over to the slow strategy.
 *
 * Files named before their data is durable are kept until a syncfs that
 * began after they were named returns: fine, they are forgotten; failed,
 * each is checked at the end (ferry_named_files_settle()).
 */
struct _FerryFlusher
{
  int fd;
  FerrySyncfs *syncfs;       /* a cancel does not wait for the sync under way */
  GCancellable *cancellable; /* the job's */
  FerryCounters *counters;
  FerryFlusherSlowFunc on_slow;
  gpointer user_data;
  GThread *thread;
  GMutex lock;
  GCond cond;
  State state;
  guint good_probes;
  guint slow_probes;
  int errsv; /* the first syncfs failure */
  GPtrArray *named; /* FerryNamedFile: named since the last syncfs that returned fine */
};

static State
get_state (FerryFlusher *self)
{
  State state;

  g_mutex_lock (&self->lock);
  state = self->state;
  g_mutex_unlock (&self->lock);
  return state;
}

static void
set_state (FerryFlusher *self, State state)
{
  g_mutex_lock (&self->lock);
  if (self->state != STATE_STOPPED)
    self->state = state;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

static void
wake_writers (FerryFlusher *self)
{
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

static guint64
ahead (FerryFlusher *self)
{
  guint64 written = ferry_counters_get (&self->counters->bytes_written);
  guint64 durable = ferry_counters_get (&self->counters->bytes_durable);

  return written > durable ? written - durable : 0;
}

/* Sleeps until there is a window to flush (or a writer is held back
 * waiting for room); FALSE when it is time to end. */
static gboolean
wait_for_work (FerryFlusher *self)
{
  gboolean go_on;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      guint64 window = self->state == STATE_PROBING ? PROBE_WINDOW : FAST_WINDOW;
      guint64 limit = self->state == STATE_PROBING ? PROBE_AHEAD : FAST_AHEAD;
      guint64 pending = ahead (self);

      go_on = self->state == STATE_PROBING || self->state == STATE_FAST;
      if (!go_on || pending >= window || pending >= limit)
        break;
      g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + POLL_USEC);
    }
  g_mutex_unlock (&self->lock);
  return go_on;
}

/* A syncfs of the destination, which vouches for the files named
 * before it began; FALSE when it failed (the first failure is kept) or
 * was given up for a cancel (the files it covered wait on, unconfirmed). */
static gboolean
sync_named (FerryFlusher *self)
{
  g_autoptr (GPtrArray) covered = NULL;
  int errsv;

  g_mutex_lock (&self->lock);
  covered = g_steal_pointer (&self->named);
  self->named = g_ptr_array_new ();
  g_mutex_unlock (&self->lock);

  errsv = ferry_syncfs_run (self->syncfs, self->cancellable);
  if (errsv == 0)
    {
      ferry_named_files_settle (covered, self->fd, 0);
      return TRUE;
    }
  g_mutex_lock (&self->lock);
  if (self->errsv == 0 && errsv != ECANCELED)
    self->errsv = errsv;
  g_ptr_array_extend_and_steal (covered, g_steal_pointer (&self->named));
  self->named = g_steal_pointer (&covered);
  g_mutex_unlock (&self->lock);
  return FALSE;
}

static void
judge_speed (FerryFlusher *self, guint64 bytes, double seconds)
{
  if (get_state (self) != STATE_PROBING || bytes < PROBE_MIN_BYTES)
    return;
  if (bytes / MAX (seconds, 1e-6) >= SLOW_RATE)
    self->slow_probes = 0;
  else if (++self->slow_probes >= PROBES_TO_DISTRUST)
    {
      set_state (self, STATE_HANDED_OVER);
      self->on_slow (self->user_data);
      /* What was written while measuring is in no window: out with it. */
      sync_named (self);
    }
  if (self->slow_probes == 0 && ++self->good_probes >= PROBES_TO_TRUST)
    set_state (self, STATE_FAST);
}

static gpointer
flusher_main (gpointer data)
{
  FerryFlusher *self = data;

  while (wait_for_work (self))
    {
      guint64 written = ferry_counters_get (&self->counters->bytes_written);
      guint64 durable = ferry_counters_get (&self->counters->bytes_durable);
      gint64 started = g_get_monotonic_time ();

      if (!sync_named (self))
        {
          set_state (self, STATE_STOPPED);
          break;
        }
      /* Never past what is written now: a cancelled file takes its
       * bytes back. */
      ferry_counters_set_durable (self->counters, written);
      wake_writers (self);
      judge_speed (self, written > durable ? written - durable : 0,
                   (double) (g_get_monotonic_time () - started) / G_USEC_PER_SEC);
    }
  return NULL;
}

/* Syncs @target's destination, counting in its counters; a cancel of
 * its job gives up a sync under way. */
FerryFlusher *
ferry_flusher_new (FerryCopyTarget *target,
                   gboolean probe,
                   FerryFlusherSlowFunc on_slow,
                   gpointer user_data)
{
  FerryFlusher *self = g_new0 (FerryFlusher, 1);

  self->fd = target->dir_fd;
  self->syncfs = ferry_syncfs_new (target->dir_fd);
  self->cancellable = g_object_ref (ferry_control_get_cancellable (target->control));
  self->counters = target->counters;
  self->on_slow = on_slow;
  self->user_data = user_data;
  self->state = probe ? STATE_PROBING : STATE_FAST;
  self->named = g_ptr_array_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  atomic_store (&target->counters->durable_live, TRUE);
  self->thread = g_thread_new ("ferry-flush", flusher_main, self);
  return self;
}

/**
 * ferry_flusher_wait_for_room:
 * Holds a writer while it is too far ahead of the device: a few MB while
 * the device is being measured, a few hundred once it proved fast.
 */
void
ferry_flusher_wait_for_room (FerryFlusher *self, GCancellable *cancellable)
{
  g_mutex_lock (&self->lock);
  while ((self->state == STATE_PROBING && ahead (self) > PROBE_AHEAD)
         || (self->state == STATE_FAST && ahead (self) > FAST_AHEAD))
    {
      if (g_cancellable_is_cancelled (cancellable))
        break;
      g_cond_broadcast (&self->cond);
      g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + POLL_USEC);
    }
  g_mutex_unlock (&self->lock);
}

/* Stops the thread; returns the errno of a syncfs that failed, or 0. */
int
ferry_flusher_stop (FerryFlusher *self)
{
  if (self->thread != NULL)
    {
      set_state (self, STATE_STOPPED);
      g_thread_join (g_steal_pointer (&self->thread));
    }
  return self->errsv;
}

/* @named got its name; it is kept until a sync vouches for it. */
void
ferry_flusher_note_named (FerryFlusher *self, FerryNamedFile *named)
{
  gboolean many;

  g_mutex_lock (&self->lock);
  many = self->named->len >= NAMED_OPEN_MAX;
  g_mutex_unlock (&self->lock);
  if (many)
    ferry_named_file_let_go (named);
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->named, named);
  g_mutex_unlock (&self->lock);
}

/* After ferry_flusher_stop(): the destination's final sync returned
 * @errsv (or did not run, the device having failed); the files named
 * since the last good syncfs keep their names only if durable. */
void
ferry_flusher_settle_names (FerryFlusher *self, int errsv)
{
  g_autoptr (GPtrArray) names = NULL;

  g_mutex_lock (&self->lock);
  names = g_steal_pointer (&self->named);
  self->named = g_ptr_array_new ();
  g_mutex_unlock (&self->lock);
  ferry_named_files_settle (names, self->fd, errsv);
}

/* A job that ended without its final sync (cancelled) leaves its names. */
void
ferry_flusher_free (FerryFlusher *self)
{
  ferry_flusher_stop (self);
  g_clear_pointer (&self->syncfs, ferry_syncfs_free);
  g_clear_object (&self->cancellable);
  ferry_named_files_settle (self->named, self->fd, ECANCELED);
  g_ptr_array_unref (self->named);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}
