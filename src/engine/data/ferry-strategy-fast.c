/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>

#include "ferry-copy-range.h"
#include "ferry-reflink.h"
#include "ferry-strategy-fast.h"
#include "ferry-writeback-starter.h"

/**
 * The fast strategy, for internal disks: share extents where the
 * filesystem can (XFS, btrfs), else copy inside the kernel, a very large
 * file in several ranges at once, while a flusher makes the data durable
 * behind the copy. The flusher also measures the device in case its
 * class lied, and says when it is slow (the job then hands over to the
 * slow strategy).
 *
 * On a device fast by its class a file gets its name as soon as it is
 * written: the flusher keeps it until a syncfs vouches for it, and when
 * none can (the device failed), a file whose data may not be on the
 * device loses its name. On a device it measures, which may be unplugged
 * (a loop device on a stick's file, a network block device), a file
 * waits for a syncfs before it gets its name (see FerryFlusher).
 */
/* A file under this size is left to a sync (ferry_flusher_note_unstarted()):
 * started one by one, such files reach the device as requests of a few
 * KiB each. A larger one's writeback starts as it waits for its name: on
 * a device proved fast whose flushes are dear, the files of fat (200 KB
 * each) left to syncs wanted one per window. */
#define SMALL_FILE (64 * 1024)
/* ext4 gives a file over this size (mb_stream_req, 16 blocks of 4 KiB)
 * room of its own to grow while it is open for writing: a file of
 * 300 KB gets 512 KB, and its writeback leaves a gap before the next
 * file's. Written whole, it is held read-only while it waits for its
 * name (ferry_temp_file_drop_write()), and its writeback starts then. */
#define GROWING_FILE (64 * 1024)

typedef struct
{
  FerryStrategy parent;
  FerryFlusher *flusher;
  FerryReflink reflink;
  GMutex starter_lock;
  FerryWritebackStarter *starter; /* once the flusher wanted writeback */
} FerryStrategyFast;

static FerryCopyMethod
fast_get_method (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  if (atomic_load (&self->reflink.used))
    return FERRY_COPY_METHOD_REFLINK;
  return atomic_load (&strategy->target->range_unsupported) ? FERRY_COPY_METHOD_SENDFILE
                                                            : FERRY_COPY_METHOD_COPY_RANGE;
}

static gboolean
fast_copy_data (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;
  FerryCopyTarget *target = strategy->target;
  gboolean cloned = FALSE;

  if (!ferry_reflink_copy (&self->reflink, target, fc, &cloned, error))
    return FALSE;
  return cloned || ferry_copy_range (target, fc, target->n_pieces, error);
}

/* Starts the device on the first @len bytes of @fd (0: all of it). */
static void
start_range (FerryStrategyFast *self, int fd, off_t len)
{
  g_mutex_lock (&self->starter_lock);
  if (self->starter == NULL)
    self->starter = ferry_writeback_starter_new ();
  ferry_writeback_starter_add (self->starter, fd, 0, len);
  g_mutex_unlock (&self->starter_lock);
}

/* While the flusher measures the device by its writeback: starts the
 * device on what @fc wrote before [@offset, @offset + @len). Not on the
 * last chunk of a file being written: a cancel drops that file, and
 * ext4 waits for pages the device is writing before it lets them go.
 * A whole file's writeback starts once it waits for its name
 * (measured_commit_file()); a piece of a large one's at once. */
static void
start_writeback (FerryStrategyFast *self, FerryFileCopy *fc, off_t offset, size_t len)
{
  gboolean ends_file = offset + (off_t) len >= fc->st.st_size;

  if (!ends_file && offset == 0)
    return;
  if (offset == 0 && fc->st.st_size < SMALL_FILE)
    ferry_flusher_note_unstarted (self->flusher, fc->st.st_size);
  else if (!ends_file || fc->whole != NULL)
    start_range (self, fc->tmp.fd, ends_file ? 0 : offset);
}

/* While the flusher still measures, writers stay only a little ahead. */
static gboolean
fast_chunk_written (FerryStrategy *strategy,
                    FerryFileCopy *fc,
                    off_t offset,
                    size_t len,
                    GError **error)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  if (ferry_flusher_wants_writeback (self->flusher))
    start_writeback (self, fc, offset, len);
  ferry_flusher_wait_for_room (self->flusher,
                               ferry_control_get_cancellable (strategy->target->control));
  return TRUE;
}

static int
fast_finish (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_stop (self->flusher);
}

static void
fast_note_named (FerryStrategy *strategy, FerryNamedFile *named)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  ferry_flusher_note_named (self->flusher, named);
}

static gboolean
fast_vouch (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_vouch (self->flusher);
}

static guint64
measured_hold (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_hold (self->flusher);
}

static gboolean
measured_passed (FerryStrategy *strategy, guint64 ticket)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_passed (self->flusher, ticket);
}

static int
fast_failure (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_get_errno (self->flusher);
}

static gboolean
fast_knows_fast (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_is_fast_by_class (self->flusher);
}

static void
fast_settle_names (FerryStrategy *strategy, int errsv)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  ferry_flusher_settle_names (self->flusher, errsv);
}

static void
fast_free (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  g_clear_pointer (&self->flusher, ferry_flusher_free);
  g_clear_pointer (&self->starter, ferry_writeback_starter_free);
  g_mutex_clear (&self->starter_lock);
  g_free (self);
}

/* A file with several names, whose other names link to it, is named at
 * once, once a syncfs that began after it was written returned. */
static FerryCommit
name_once_durable (FerryStrategyFast *self, FerryFileCopy *fc, GError **error)
{
  if (ferry_flusher_vouch (self->flusher))
    return FERRY_COMMIT_NOW;
  /* Handed over to the slow strategy meanwhile: named now, kept until a
   * sync vouches for it, as on a fast disk. */
  return ferry_strategy_name_after_point (self->parent.target->control, fc,
                                          ferry_flusher_get_errno (self->flusher), error);
}

/* A whole file is held read-only from now on, and its writeback, which
 * start_writeback() left to now, starts. */
static void
let_writeback_start (FerryStrategyFast *self, FerryFileCopy *fc)
{
  if (fc->st.st_size > GROWING_FILE)
    ferry_temp_file_drop_write (&fc->tmp);
  if (fc->st.st_size >= SMALL_FILE && ferry_flusher_wants_writeback (self->flusher))
    start_range (self, fc->tmp.fd, 0);
}

/* On a device being measured, the flusher names the file once its data
 * is durable; after a hand-over the slow strategy does. */
static FerryCommit
measured_commit_file (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;
  FerryStrategy *now;
  int errsv;

  if (fc->durable == NULL && !fc->tmp.in_place)
    return name_once_durable (self, fc, error);
  let_writeback_start (self, fc);
  /* In a folder built under a hidden name the file has its own name
   * already: the folder's waits for a sync instead (ferry_folder.c). */
  if (fc->tmp.in_place)
    return FERRY_COMMIT_NOW;
  if (ferry_flusher_take_file (self->flusher, fc, &errsv))
    return FERRY_COMMIT_LATER;
  now = ferry_copy_target_get_strategy (strategy->target);
  if (now != strategy)
    return ferry_strategy_commit_file (now, fc, error);
  /* Stopped by a cancel: named, whole in the page cache, as the files
   * taken before it (see the flusher's name_taken()). */
  if (errsv == 0 && !ferry_control_is_cancelled (strategy->target->control))
    errsv = ferry_copy_target_make_durable (strategy->target);
  if (fc->durable (fc, errsv))
    ferry_flusher_note_name_given (self->flusher, fc);
  return FERRY_COMMIT_LATER;
}

static int
measured_settle (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  return ferry_flusher_name_taken (self->flusher);
}

/* Both return the flusher's first failure. */
static int
measured_finish (FerryStrategy *strategy)
{
  FerryStrategyFast *self = (FerryStrategyFast *) strategy;

  ferry_flusher_name_taken (self->flusher);
  return ferry_flusher_stop (self->flusher);
}

static const FerryStrategyClass fast_class = {
  .get_method = fast_get_method,
  .copy_data = fast_copy_data,
  .chunk_written = fast_chunk_written,
  .finish = fast_finish,
  .note_named = fast_note_named,
  .settle_names = fast_settle_names,
  .vouch = fast_vouch,
  .failure = fast_failure,
  .knows_fast = fast_knows_fast,
  .free = fast_free,
};

/* On a device Ferry measures: files are named once their data is durable. */
static const FerryStrategyClass measured_class = {
  .get_method = fast_get_method,
  .copy_data = fast_copy_data,
  .chunk_written = fast_chunk_written,
  .commit_file = measured_commit_file,
  .settle = measured_settle,
  .finish = measured_finish,
  .note_named = fast_note_named,
  .settle_names = fast_settle_names,
  .vouch = fast_vouch,
  .hold = measured_hold,
  .passed = measured_passed,
  .failure = fast_failure,
  .knows_fast = fast_knows_fast,
  .free = fast_free,
  .names_later = TRUE,
};

/* @probe_block: the block device whose class does not tell its speed
 * (NULL: fast by its class); @on_slow is called (once, from the
 * flusher's thread) if it proves slow. */
FerryStrategy *
ferry_strategy_fast_new (FerryCopyTarget *target,
                         const char *probe_block,
                         FerryFlusherSlowFunc on_slow,
                         gpointer user_data)
{
  FerryStrategyFast *self = g_new0 (FerryStrategyFast, 1);

  self->parent.klass = probe_block != NULL ? &measured_class : &fast_class;
  self->parent.target = target;
  g_mutex_init (&self->starter_lock);
  self->flusher = ferry_flusher_new (target, probe_block, on_slow, user_data);
  return &self->parent;
}
