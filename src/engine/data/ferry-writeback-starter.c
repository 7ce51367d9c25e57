/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "ferry-writeback-starter.h"

/**
 * FerryWritebackStarter:
 * Starts the writeback of ranges of files (sync_file_range() with
 * SYNC_FILE_RANGE_WRITE) from a thread of its own, so that no writer
 * waits in the kernel for it. On ext4 starting a writeback may wait for
 * the journal's commit, and for the block layer's writeback throttle,
 * both of which wait for the device: on a device that stalls, a writer
 * held there could not answer a cancel.
 *
 * The thread is never waited for: freeing the starter leaves it to
 * finish the call it is in, if any, and to close what it still holds.
 * Until then the files it holds keep the filesystem busy, as any call
 * the kernel makes wait for the device does.
 */
struct _FerryWritebackStarter
{
  GAsyncQueue *queue; /* Range; shared with the thread */
};

typedef struct
{
  int fd; /* a duplicate, owned; -1: the thread is to end */
  off_t offset;
  off_t len;
} Range;

static void
range_free (Range *range)
{
  if (range->fd >= 0)
    close (range->fd);
  g_free (range);
}

static gpointer
starter_main (gpointer data)
{
  g_autoptr (GAsyncQueue) queue = data;
  Range *range;

  while ((range = g_async_queue_pop (queue))->fd >= 0)
    {
      (void) sync_file_range (range->fd, range->offset, range->len, SYNC_FILE_RANGE_WRITE);
      range_free (range);
    }
  range_free (range);
  /* Nothing more is started: what was asked after the end is let go. */
  while ((range = g_async_queue_try_pop (queue)) != NULL)
    range_free (range);
  return NULL;
}

FerryWritebackStarter *
ferry_writeback_starter_new (void)
{
  FerryWritebackStarter *self = g_new0 (FerryWritebackStarter, 1);
  GThread *thread;

  self->queue = g_async_queue_new_full ((GDestroyNotify) range_free);
  thread = g_thread_new ("ferry-writeback", starter_main, g_async_queue_ref (self->queue));
  g_thread_unref (thread);
  return self;
}

/* Asks for the writeback of [@offset, @offset + @len) of @fd (@len 0: to
 * the end of the file). A failure to start is not reported: the sync
 * that makes the range durable reports the device's error. */
void
ferry_writeback_starter_add (FerryWritebackStarter *self, int fd, off_t offset, off_t len)
{
  Range *range = g_new0 (Range, 1);

  range->fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  range->offset = offset;
  range->len = len;
  if (range->fd < 0)
    g_free (range);
  else
    g_async_queue_push (self->queue, range);
}

void
ferry_writeback_starter_free (FerryWritebackStarter *self)
{
  Range *end = g_new0 (Range, 1);

  end->fd = -1;
  g_async_queue_push (self->queue, end);
  g_async_queue_unref (self->queue);
  g_free (self);
}
