/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "ferry-copy-range.h"
#include "ferry-fs.h"
#include "ferry-strategy-slow.h"
#include "ferry-syncfs.h"
#include "ferry-write-behind.h"

/* A window is about 0.4 s of the device's time (ferry_device_window_follow()):
 * the writer may be a window and a half ahead of the device (one being
 * synced, half of the next filling: a point starts as soon as a whole
 * window is written, and the writer refills half a window in no time),
 * so dirty memory stays near 1.5 x 0.4 s of device time (24 MB at
 * 40 MB/s) while each durability point covers as much as it can. */
/* A complete file waits at most this long for its name, even when few
 * bytes follow it (a folder of small files on a fast-filling window
 * gets there sooner). */
#define POINT_AFTER_USEC (G_USEC_PER_SEC / 2)
/* On a kernel filesystem, where data goes to the device between points
 * (see FerryWriteBehind), points come this far apart: each costs a
 * journal commit, three or four flushes of the device (measured on ext4
 * over a loop device), where a FUSE stick's costs none. */
#define SPACED_POINT_USEC (3 * G_USEC_PER_SEC / 2)
/* Files waiting for their names each keep a descriptor open: at most a
 * quarter of what the process may open, and a point when that many
 * wait. */
#define WAITING_MAX  4000
#define RECHECK_USEC (G_USEC_PER_SEC / 20)
/* Through a FUSE daemon, files complete and not yet in a point that
 * returned: the writer waits at this many. A small file costs the device
 * more than its bytes (its directory entry, and its first cluster where
 * the last file's ended short: on the flash emulator a scattered write,
 * 2 ms), and each point costs the device its metadata again (NTFS: a
 * dozen scattered writes). So a folder of small files gets a point every
 * few hundred files, about a second of the device, and their names
 * follow while the device writes the next ones, instead of thousands of
 * names at the end with the device idle. */
#define FILES_AHEAD_MAX 1024
/* ... and a point is due at half as many: as one returns, the next has
 * this many files for the device to write while the daemon renames the
 * last one's (the daemon does one thing at a time, and a device whose
 * next point held only the few files written since would idle while it
 * renames). */
#define FILES_PER_POINT (FILES_AHEAD_MAX / 2)

/**
 * The slow strategy, for pendrives, SD cards and anything measured slow.
 *
 * One stream: one file's data at a time, front to back (the device sees
 * files back to back, not interleaved, and a filesystem that cannot
 * leave holes, like exFAT, never fills a gap). Durability comes by time,
 * not by file: a syncer thread makes a durability point, one syncfs() of
 * the destination, each time a window of bytes (about 0.4 s of the
 * device's measured time) has been written, or when complete files have
 * waited half a second. On a kernel filesystem (ext4 and the like) each
 * point costs the device a journal commit and its flushes, so there the
 * data goes to the device between points (FerryWriteBehind) and points
 * come only every 1.5 s. syncfs() reaches the device on every filesystem
 * Ferry writes to, FUSE block filesystems (ntfs-3g, exfat-fuse) too,
 * where sync_file_range() and fdatasync() do not do what they do on a
 * kernel filesystem. Through a FUSE daemon a complete file (data and
 * metadata written into its temporary file) gets its final name only
 * after the point that follows it has returned, and that name reaches
 * the device with a later point (or the job's final sync). On a kernel
 * filesystem it gets its name as the point starts, once its data is on
 * the device, and the point's journal commit carries the name with the
 * file's size and extents (name_before_point()). Never a name before
 * its data, and a file counts as copied once its name is there too.
 * Bytes count as durable when the point that covered them returned.
 * Through a FUSE daemon a namer thread gives the names while the next
 * points run (see hand_to_namer()). The writer is held while it is a
 * window and a half (or, through a FUSE daemon, FILES_AHEAD_MAX files)
 * ahead, so the device never idles and dirty memory stays small.
 *
 * A device that fails while data the kernel accepted is on its way to it
 * (the page cache goes on showing the data right) is told by a point
 * (syncfs() reports a writeback error of the filesystem, once, but not
 * whose it was) or by the write-behind. From then on no point vouches
 * for a file's data: on a kernel filesystem each file answers for itself
 * (fdatasync() reports its own writeback errors, once a descriptor, and
 * the write-behind keeps those it took), and only a file that answers
 * durable gets its name; through a FUSE daemon no file can answer (the
 * daemon's fsync of the device reports the device's error to whichever
 * file asks first), so none gets its name. A name whose point failed may
 * not be on the device: that file fails too, although its data is there.
 */
typedef struct
{
  FerryStrategy parent;
  GMutex stream_lock; /* one file's data at a time */
  GMutex behind_lock; /* a file begun before the hand-over writes outside the stream */
  FerryWriteBehind *behind; /* on a kernel filesystem, else NULL */
  FerrySyncfs *syncfs;      /* a point's sync, which a cancel does not wait for */

  GMutex lock; /* guards everything below */
  GCond cond;
  GThread *syncer;
  gboolean stopping;
  gboolean wanted;     /* a point is asked for now */
  gboolean writer_held; /* the writer waited for room since the last point started */
  guint64 unsynced;    /* written since the last point started */
  guint64 in_flight;   /* written before the point under way started */
  guint files_in_flight; /* complete before the point under way started */
  GPtrArray *waiting;  /* FerryFileCopy: complete, for the next point */
  GPtrArray *named;    /* FerryFileCopy: named since the last point, which carries the names */
  GPtrArray *adopted;  /* FerryNamedFile: named by the strategy before, for the next point */
  GThread *namer;        /* through a FUSE daemon, else NULL */
  GQueue to_name;         /* FerryNameBatch: covered by points that returned, for the namer */
  guint files_to_name;    /* in to_name and the batch the namer names */
  gint64 waiting_since;
  gint64 last_point_at;
  guint64 started; /* points started */
  guint64 done;    /* points returned, their files dealt with */
  gboolean namer_stopping;
  gboolean settling; /* on a kernel filesystem: no more points, the target's final sync comes */
  guint64 window;
  guint waiting_max;
  int errsv; /* the first failure of the device: no point vouches for a file after it */
} FerryStrategySlow;

static FerryCopyMethod
slow_get_method (FerryStrategy *strategy)
{
  return FERRY_COPY_METHOD_WINDOW;
}

static gboolean
slow_copy_data (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  gboolean ok;

  g_mutex_lock (&self->stream_lock);
  ok = ferry_copy_range (strategy->target, fc, 1, error);
  g_mutex_unlock (&self->stream_lock);
  return ok;
}

static gboolean
is_ending (FerryStrategySlow *self)
{
  return ferry_control_is_ending (self->parent.target->control);
}

/* Called with the lock: through a FUSE daemon the writer waits while
 * it is a window and a half of bytes, or FILES_AHEAD_MAX files, ahead of
 * the device. */
static void
wait_for_room (FerryStrategySlow *self)
{
  while (self->behind == NULL && self->errsv == 0 && !is_ending (self))
    {
      if (self->waiting->len + self->files_in_flight + self->files_to_name >= FILES_AHEAD_MAX)
        {
          /* ... the next point starts as soon as it can */
          self->wanted = TRUE;
          g_cond_broadcast (&self->cond);
        }
      else if (self->unsynced + self->in_flight < self->window + self->window / 2)
        return;
      else
        self->writer_held = TRUE;
      g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + RECHECK_USEC);
    }
}

/* On a kernel filesystem: the chunk's writeback starts now, and the
 * writer waits while too much is on its way to the device. */
static int
write_behind (FerryStrategySlow *self, FerryFileCopy *fc, off_t offset, size_t len)
{
  int errsv;

  g_mutex_lock (&self->behind_lock);
  errsv = ferry_write_behind_add (self->behind, fc, fc->tmp.fd, offset, len);
  if (errsv == 0)
    errsv = ferry_write_behind_wait_for_room (self->behind, self->parent.target->control);
  g_mutex_unlock (&self->behind_lock);
  return errsv;
}

/* Elsewhere the writer waits while it is a window and a half ahead of the
 * device. */
static gboolean
slow_chunk_written (FerryStrategy *strategy,
                    FerryFileCopy *fc,
                    off_t offset,
                    size_t len,
                    GError **error)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv = self->behind != NULL ? write_behind (self, fc, offset, len) : 0;

  g_mutex_lock (&self->lock);
  if (self->errsv == 0 && ferry_errno_is_device_failure (errsv))
    self->errsv = errsv;
  self->unsynced += len;
  if (self->behind == NULL && self->unsynced >= self->window)
    g_cond_broadcast (&self->cond);
  wait_for_room (self);
  if (errsv == 0)
    errsv = self->errsv;
  g_mutex_unlock (&self->lock);
  return errsv == 0 || ferry_file_copy_fail_errno (fc, errsv, TRUE, error);
}

/* For a file that must be named at once (one with several names, whose
 * others link to it): waits for a point that starts after its data was
 * written. */
static FerryCommit
wait_for_next_point (FerryStrategySlow *self, FerryFileCopy *fc, GError **error)
{
  guint64 point;
  int errsv;

  g_mutex_lock (&self->lock);
  point = self->started + 1;
  self->wanted = TRUE;
  g_cond_broadcast (&self->cond);
  while (self->done < point && self->errsv == 0 && !is_ending (self))
    g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + RECHECK_USEC);
  errsv = self->errsv;
  g_mutex_unlock (&self->lock);
  return ferry_strategy_name_after_point (self->parent.target->control, fc, errsv, error);
}

static FerryCommit
slow_commit_file (FerryStrategy *strategy, FerryFileCopy *fc, GError **error)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  if (fc->durable == NULL)
    return wait_for_next_point (self, fc, error);
  g_mutex_lock (&self->lock);
  if (self->waiting->len == 0)
    self->waiting_since = g_get_monotonic_time ();
  g_ptr_array_add (self->waiting, fc);
  if (self->waiting->len >= self->waiting_max
      || (self->behind == NULL && self->waiting->len >= FILES_PER_POINT))
    {
      self->wanted = TRUE;
      g_cond_broadcast (&self->cond);
    }
  wait_for_room (self);
  g_mutex_unlock (&self->lock);
  return FERRY_COMMIT_LATER;
}

/* Called with the lock. */
static gboolean
point_is_due (FerryStrategySlow *self, gint64 now)
{
  if (self->settling)
    return FALSE;
  if (self->wanted)
    return TRUE;
  if (self->behind != NULL)
    return (self->unsynced > 0 || self->waiting->len > 0)
           && now - self->last_point_at >= SPACED_POINT_USEC;
  /* The first point comes after a quarter window: through a FUSE daemon
   * nothing reaches the device before it, which would idle meanwhile. */
  if (self->started == 0)
    return self->unsynced >= self->window / 4;
  /* A writer held while the last point ran has half a window ready: the
   * next starts as soon as the last returns (that point wrote all the
   * device had; one that waited for the writer to fill a whole window
   * left the device idle meanwhile). */
  return self->unsynced >= (self->writer_held ? self->window / 2 : self->window)
         || (self->waiting->len > 0 && now - self->waiting_since >= POINT_AFTER_USEC);
}

/* Called with the lock: waits until a point is due. FALSE once the
 * strategy stops. */
static gboolean
wait_until_due (FerryStrategySlow *self)
{
  for (;;)
    {
      gint64 now = g_get_monotonic_time ();

      if (point_is_due (self, now))
        return TRUE;
      if (self->stopping)
        return FALSE;
      g_cond_wait_until (&self->cond, &self->lock, now + RECHECK_USEC);
    }
}

/* A cancelled job wants no more waiting for the device: a point under
 * way when it is cancelled is given up (ECANCELED), none of the files it
 * covered gets its name and none of its bytes counts durable. */
static int
wait_for_sync (FerryStrategySlow *self, guint64 ticket)
{
  FerryControl *control = self->parent.target->control;

  return ferry_syncfs_wait (self->syncfs, ticket, ferry_control_get_cancellable (control));
}

/* On a kernel filesystem: the errno the write-behind took from @fc's
 * writeback, or 0. */
static int
write_behind_errno (FerryStrategySlow *self, FerryFileCopy *fc)
{
  int own;

  g_mutex_lock (&self->behind_lock);
  own = ferry_write_behind_get_error (self->behind, fc->tmp.fd);
  g_mutex_unlock (&self->behind_lock);
  return own;
}

/* What a file's data is known to be once the device failed (with
 * @errsv): 0 only when the file itself answers durable. */
static int
file_errno (FerryStrategySlow *self, FerryFileCopy *fc, int errsv)
{
  int own;

  if (self->behind == NULL) /* a FUSE daemon's answer is not the file's */
    return errsv;
  own = write_behind_errno (self, fc);
  if (own != 0)
    return own;
  return fdatasync (fc->tmp.fd) == 0 ? 0 : errno;
}

/* The files the point covered get their names (@errsv: what it returned;
 * @failed: the device's first failure, if any); those named wait for the
 * next point, which carries their names. */
static void
name_batch (FerryStrategySlow *self, GPtrArray *batch, int errsv, int failed)
{
  for (guint i = 0; i < batch->len; i++)
    {
      FerryFileCopy *fc = g_ptr_array_index (batch, i);
      int result = errsv;

      if (errsv != ECANCELED && (errsv != 0 || failed != 0))
        result = file_errno (self, fc, errsv != 0 ? errsv : failed);
      if (fc->durable (fc, result))
        {
          g_mutex_lock (&self->lock);
          g_ptr_array_add (self->named, fc);
          g_mutex_unlock (&self->lock);
        }
    }
}

/* What a sync that returned @errsv says of the names it carried, the
 * device having failed with @failed, or not (0). After a failure a sync
 * through a FUSE daemon may return 0 having written nothing, and a
 * kernel filesystem's does once it is read-only (ext4 after its journal
 * failed, in this very sync too: the device may fail while it commits
 * names given before it); while it is writable, its sync committed what
 * it says. */
static int
names_errno (FerryStrategySlow *self, int errsv, int failed)
{
  if (errsv != 0)
    return errsv;
  if (self->behind == NULL)
    return failed;
  return ferry_fs_check_writable (self->parent.target->dir_fd);
}

/* @errsv: 0 when the names are on the device. */
static void
settle_names (GPtrArray *names, int errsv)
{
  for (guint i = 0; i < names->len; i++)
    {
      FerryFileCopy *fc = g_ptr_array_index (names, i);
      fc->name_durable (fc, errsv);
    }
}

/* What a point that returned leaves the namer. */
typedef struct
{
  GPtrArray *batch; /* FerryFileCopy */
  int errsv;        /* what the point returned */
  int failed;       /* the device's first failure then */
} FerryNameBatch;

static void
name_batch_done (FerryStrategySlow *self, guint files)
{
  self->done++;
  self->files_to_name -= MIN (files, self->files_to_name);
  g_cond_broadcast (&self->cond);
}

/* Through a FUSE daemon: gives the names of the files each returned
 * point covered, in the order the points returned, while the syncer goes
 * on with the next points. */
static gpointer
namer_main (gpointer data)
{
  FerryStrategySlow *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      FerryNameBatch *job = g_queue_pop_head (&self->to_name);

      if (job == NULL)
        {
          if (self->namer_stopping)
            break;
          g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + RECHECK_USEC);
          continue;
        }
      g_mutex_unlock (&self->lock);
      name_batch (self, job->batch, job->errsv, job->failed);
      g_mutex_lock (&self->lock);
      name_batch_done (self, job->batch->len);
      g_ptr_array_unref (job->batch);
      g_free (job);
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* Called with the lock, through a FUSE daemon, once the point returned
 * (@errsv) and its names are settled: its files get their names from
 * the namer thread while the next points run. The daemon does one thing
 * at a time, a rename there takes a fraction of a millisecond, and a
 * syncer that renamed a few hundred files itself left the device idle
 * meanwhile (a sync writes all the mount's dirty data, what was written
 * during it too, so the next point had little left). */
static void
hand_to_namer (FerryStrategySlow *self, GPtrArray *batch, int errsv, int failed)
{
  FerryNameBatch *job = g_new0 (FerryNameBatch, 1);

  job->batch = g_ptr_array_ref (batch);
  job->errsv = errsv;
  job->failed = failed;
  self->files_to_name += batch->len;
  g_queue_push_tail (&self->to_name, job);
  g_cond_broadcast (&self->cond);
}

/* Called with the lock: a point starts now, covering what was written
 * and @files complete files. */
static void
begin_point (FerryStrategySlow *self, guint files, gint64 now)
{
  self->waiting = g_ptr_array_new ();
  self->named = g_ptr_array_new ();
  self->adopted = g_ptr_array_new ();
  self->in_flight = self->unsynced;
  self->files_in_flight = files;
  self->unsynced = 0;
  self->wanted = FALSE;
  self->writer_held = FALSE;
  self->last_point_at = now;
  self->started++;
  if (self->parent.target->journal != NULL)
    ferry_journal_point_started (self->parent.target->journal);
}

/* On a kernel filesystem: waits until the file's data is on the device
 * (its writeback is under way: FerryWriteBehind). 0, or the errno its
 * writeback failed with. */
static int
file_data_errno (FerryStrategySlow *self, FerryFileCopy *fc)
{
  if (sync_file_range (fc->tmp.fd, 0, 0,
                       SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE
                           | SYNC_FILE_RANGE_WAIT_AFTER)
      != 0)
    return errno;
  return write_behind_errno (self, fc);
}

/* On a kernel filesystem the files complete when a point starts get
 * their names before its sync, each once its data is on the device; the
 * sync's journal commit then carries their sizes, extents and names at
 * once (ext4 commits a transaction with every one before it, so a name
 * never reaches the device without what it points to, and the data is
 * there already). One commit, three or four flushes of the device, where
 * naming them after the point took a second for their names. @failed:
 * the device's first failure, if any (each file then answers for itself).
 * Returns the files named. */
static GPtrArray *
name_before_point (FerryStrategySlow *self, GPtrArray *batch, int failed)
{
  GPtrArray *named = g_ptr_array_new ();

  g_mutex_lock (&self->behind_lock);
  ferry_write_behind_start (self->behind);
  g_mutex_unlock (&self->behind_lock);
  for (guint i = 0; i < batch->len; i++)
    {
      FerryFileCopy *fc = g_ptr_array_index (batch, i);
      int result;

      if (ferry_control_is_cancelled (self->parent.target->control))
        result = ECANCELED;
      else if (failed != 0)
        result = file_errno (self, fc, failed);
      else
        result = file_data_errno (self, fc);
      if (fc->durable (fc, result))
        g_ptr_array_add (named, fc);
    }
  return named;
}

/* Called with the lock, which it lets go of while the device works. */
static void
make_point (FerryStrategySlow *self)
{
  FerryCounters *counters = self->parent.target->counters;
  g_autoptr (GPtrArray) batch = g_steal_pointer (&self->waiting);
  g_autoptr (GPtrArray) names = g_steal_pointer (&self->named);
  g_autoptr (GPtrArray) adopted = g_steal_pointer (&self->adopted);
  g_autoptr (GPtrArray) named_first = NULL;
  guint64 written = ferry_counters_get (&counters->bytes_written);
  gint64 started_at = g_get_monotonic_time ();
  guint64 ticket;
  int errsv, failed, names_result, failed_before = self->errsv;

  begin_point (self, batch->len, started_at);
  g_mutex_unlock (&self->lock);

  if (self->behind != NULL)
    named_first = name_before_point (self, batch, failed_before);
  ticket = ferry_syncfs_start (self->syncfs);
  errsv = wait_for_sync (self, ticket);

  g_mutex_lock (&self->lock);
  self->window = ferry_device_window_follow (self->window, self->in_flight, started_at);
  self->in_flight = 0;
  self->files_in_flight = 0;
  if (errsv != 0 && errsv != ECANCELED && self->errsv == 0)
    self->errsv = errsv;
  failed = self->errsv;
  if (errsv == 0 && failed == 0)
    ferry_counters_set_durable (counters, written);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  names_result = names_errno (self, errsv, failed);
  settle_names (names, names_result);
  if (named_first != NULL)
    settle_names (named_first, names_result);
  ferry_named_files_settle (adopted, self->parent.target->dir_fd, names_result);
  /* Only now: the names this point carried are in it too. */
  if (errsv == 0 && failed == 0 && self->parent.target->journal != NULL)
    ferry_journal_point_done (self->parent.target->journal, 0,
                              ferry_counters_get_transfer_total (counters));

  g_mutex_lock (&self->lock);
  if (named_first != NULL)
    name_batch_done (self, 0); /* named before the sync */
  else
    hand_to_namer (self, batch, errsv, failed);
}

static gpointer
syncer_main (gpointer data)
{
  FerryStrategySlow *self = data;

  g_mutex_lock (&self->lock);
  while (wait_until_due (self))
    make_point (self);
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* Called with the lock, on a kernel filesystem, once no point runs and
 * none will: the files still waiting get their names, each once its
 * data is on the device, and the target's final sync commits them with
 * their data's metadata, where a point of their own would cost one more
 * journal commit just before it. */
static void
name_for_final_sync (FerryStrategySlow *self)
{
  g_autoptr (GPtrArray) batch = g_steal_pointer (&self->waiting);
  g_autoptr (GPtrArray) named = NULL;
  int failed = self->errsv;

  self->waiting = g_ptr_array_new ();
  g_mutex_unlock (&self->lock);
  named = name_before_point (self, batch, failed);
  g_mutex_lock (&self->lock);
  g_ptr_array_extend_and_steal (self->named, g_steal_pointer (&named));
}

/* Every file waiting gets its name; the last names reach the device
 * with the target's final sync. Through a FUSE daemon each waiting file
 * gets its point first. */
static int
slow_settle (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv;

  g_mutex_lock (&self->lock);
  self->settling = self->behind != NULL;
  while (self->done < self->started
         || (!self->settling && (self->waiting->len > 0 || self->unsynced > 0)))
    {
      self->wanted = !self->settling && (self->waiting->len > 0 || self->unsynced > 0);
      g_cond_broadcast (&self->cond);
      g_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + RECHECK_USEC);
    }
  if (self->settling && self->waiting->len > 0)
    name_for_final_sync (self);
  errsv = self->errsv;
  g_mutex_unlock (&self->lock);
  return errsv;
}

/* Once the syncer stopped: the namer names what is left and stops. */
static void
stop_namer (FerryStrategySlow *self)
{
  if (self->namer == NULL)
    return;
  g_mutex_lock (&self->lock);
  self->namer_stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_thread_join (g_steal_pointer (&self->namer));
}

static int
slow_finish (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv = slow_settle (strategy);

  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  if (self->syncer != NULL)
    g_thread_join (g_steal_pointer (&self->syncer));
  stop_namer (self);
  return errsv;
}

/* The names given since the last point reached the device with the
 * destination's final sync, or (@errsv) may not have. */
static void
slow_settle_names (FerryStrategy *strategy, int errsv)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GPtrArray) adopted = NULL;
  int failed, names_result;

  g_mutex_lock (&self->lock);
  names = g_steal_pointer (&self->named);
  self->named = g_ptr_array_new ();
  adopted = g_steal_pointer (&self->adopted);
  self->adopted = g_ptr_array_new ();
  failed = self->errsv;
  g_mutex_unlock (&self->lock);
  names_result = names_errno (self, errsv, failed);
  settle_names (names, names_result);
  ferry_named_files_settle (adopted, self->parent.target->dir_fd, names_result);
}

static void
slow_adopt_named (FerryStrategy *strategy, GPtrArray *named)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  g_mutex_lock (&self->lock);
  g_ptr_array_extend_and_steal (self->adopted, g_ptr_array_ref (named));
  g_mutex_unlock (&self->lock);
}

/* A job that ended without its final sync (cancelled) leaves its last
 * names unconfirmed. */
static void
slow_free (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;

  slow_finish (strategy);
  g_clear_pointer (&self->syncfs, ferry_syncfs_free);
  settle_names (self->named, ECANCELED);
  g_ptr_array_unref (self->named);
  ferry_named_files_settle (self->adopted, self->parent.target->dir_fd, ECANCELED);
  g_ptr_array_unref (self->adopted);
  g_ptr_array_unref (self->waiting);
  g_clear_pointer (&self->behind, ferry_write_behind_free);
  g_mutex_clear (&self->stream_lock);
  g_mutex_clear (&self->behind_lock);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

static int
slow_failure (FerryStrategy *strategy)
{
  FerryStrategySlow *self = (FerryStrategySlow *) strategy;
  int errsv;

  g_mutex_lock (&self->lock);
  errsv = self->errsv;
  g_mutex_unlock (&self->lock);
  return errsv;
}

static const FerryStrategyClass slow_class = {
  .get_method = slow_get_method,
  .copy_data = slow_copy_data,
  .chunk_written = slow_chunk_written,
  .commit_file = slow_commit_file,
  .settle = slow_settle,
  .finish = slow_finish,
  .adopt_named = slow_adopt_named,
  .settle_names = slow_settle_names,
  .failure = slow_failure,
  .free = slow_free,
  .sends_at_position = TRUE,
  .names_later = TRUE,
};

FerryStrategy *
ferry_strategy_slow_new (FerryCopyTarget *target)
{
  FerryStrategySlow *self = g_new0 (FerryStrategySlow, 1);

  self->parent.klass = &slow_class;
  self->parent.target = target;
  g_mutex_init (&self->stream_lock);
  g_mutex_init (&self->behind_lock);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->waiting = g_ptr_array_new ();
  self->named = g_ptr_array_new ();
  self->adopted = g_ptr_array_new ();
  self->window = FERRY_DEVICE_WINDOW_START;
  self->last_point_at = g_get_monotonic_time ();
  self->waiting_max = ferry_named_files_open_max (WAITING_MAX);
  /* sync_file_range() does not reach a FUSE daemon's device. */
  if (!ferry_fs_is_fuse (target->dir_fd))
    self->behind = ferry_write_behind_new ();
  self->syncfs = ferry_syncfs_new (target->dir_fd);
  atomic_store (&target->counters->durable_live, TRUE);
  self->syncer = g_thread_new ("ferry-sync", syncer_main, self);
  if (self->behind == NULL)
    self->namer = g_thread_new ("ferry-name", namer_main, self);
  return &self->parent;
}
