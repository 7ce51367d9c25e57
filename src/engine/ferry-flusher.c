/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "ferry-flusher.h"

#define POLL_USEC (G_USEC_PER_SEC / 20)

/**
 * FerryFlusher:
 * Makes what a fast-disk copy wrote durable while the copy goes on: each
 * time another window of bytes was handed to the kernel, a syncfs() of the
 * destination, on a thread of its own. The device writes while the
 * workers copy instead of after them (the kernel alone would start only
 * at its background threshold, 10 % of memory), and bytes_durable moves
 * as data really reaches the disk. What every syncfs waited for was
 * written before it began, so that much is counted durable when it
 * returns.
 */
struct _FerryFlusher
{
  int fd;
  FerryCounters *counters;
  guint64 window;
  GThread *thread;
  GMutex lock;
  GCond cond;
  gboolean stopping;
  int errsv; /* the first syncfs failure */
};

static gboolean
wait_a_moment (FerryFlusher *self)
{
  gboolean stopping;

  g_mutex_lock (&self->lock);
  if (!self->stopping)
    g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + POLL_USEC);
  stopping = self->stopping;
  g_mutex_unlock (&self->lock);
  return !stopping;
}

static gpointer
flusher_main (gpointer data)
{
  FerryFlusher *self = data;
  guint64 flushed = 0;

  while (wait_a_moment (self))
    {
      guint64 written = ferry_counters_get (&self->counters->bytes_written);

      if (written < flushed + self->window)
        continue;
      if (syncfs (self->fd) != 0)
        {
          self->errsv = errno;
          break;
        }
      flushed = written;
      /* Never past what was written: a cancelled file takes its bytes back. */
      atomic_store (&self->counters->bytes_durable,
                    MIN (written, ferry_counters_get (&self->counters->bytes_written)));
    }
  return NULL;
}

FerryFlusher *
ferry_flusher_new (int fd, FerryCounters *counters, guint64 window)
{
  FerryFlusher *self = g_new0 (FerryFlusher, 1);

  self->fd = fd;
  self->counters = counters;
  self->window = window;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  atomic_store (&counters->durable_live, TRUE);
  self->thread = g_thread_new ("ferry-flush", flusher_main, self);
  return self;
}

/* Stops the thread; returns the errno of a syncfs that failed, or 0. */
int
ferry_flusher_stop (FerryFlusher *self)
{
  if (self->thread != NULL)
    {
      g_mutex_lock (&self->lock);
      self->stopping = TRUE;
      g_cond_signal (&self->cond);
      g_mutex_unlock (&self->lock);
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
