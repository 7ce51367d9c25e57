/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "ferry-flusher.h"

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
 */
struct _FerryFlusher
{
  int fd;
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
      syncfs (self->fd);
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

      if (syncfs (self->fd) != 0)
        {
          self->errsv = errno;
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

FerryFlusher *
ferry_flusher_new (int fd,
                   FerryCounters *counters,
                   gboolean probe,
                   FerryFlusherSlowFunc on_slow,
                   gpointer user_data)
{
  FerryFlusher *self = g_new0 (FerryFlusher, 1);

  self->fd = fd;
  self->counters = counters;
  self->on_slow = on_slow;
  self->user_data = user_data;
  self->state = probe ? STATE_PROBING : STATE_FAST;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  atomic_store (&counters->durable_live, TRUE);
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

void
ferry_flusher_free (FerryFlusher *self)
{
  ferry_flusher_stop (self);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}
