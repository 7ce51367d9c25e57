/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "ferry-block-stat.h"
#include "ferry-flusher.h"
#include "ferry-named-file.h"
#include "ferry-syncfs.h"

#define MIB       (1024 * 1024)
#define POLL_USEC (G_USEC_PER_SEC / 20)
/* A device watched by its writeback is looked at this often: writers
 * held for it go on as soon as it wrote, not at the next poll. */
#define LOOK_USEC (G_USEC_PER_SEC / 100)
/* Measured on the src tree: a syncfs every ~100 ms of copying made the
 * durable time 15 % shorter than a single syncfs at the end. */
#define FAST_WINDOW (32 * MIB)
#define FAST_AHEAD  (256 * MIB)
/* Until the device has shown its speed, little is let ahead of it: a
 * window of 4 MiB, then 8, then 16, each judged by what the device itself
 * wrote in it (a window of small files is mostly journal and metadata,
 * too little to tell a speed by). */
#define PROBE_FIRST_WINDOW (4 * MIB)
#define PROBE_LAST_WINDOW  (16 * MIB)
#define PROBE_MIN_BYTES    (4 * MIB)
#define PROBES_TO_TRUST    3
/* One slow window may be a busy moment of a fast disk; two in a row are not. */
#define PROBES_TO_DISTRUST 2
/* Measured by writeback, a device that sat idle for this long while a
 * window waits for it gets a sync after all: data was written where no
 * writeback was started (it would wait for the kernel's own). A device
 * that is busy, however slowly, gets none: it would wait for the device
 * as well, and its journal commit would hold every writeback started
 * meanwhile. */
#define STALL_USEC (G_USEC_PER_SEC / 4)
/* Below this a device is slow: USB sticks, SD cards, network shares;
 * internal SSDs and hard disks write well above it. */
#define SLOW_RATE (64.0 * MIB)
/* Copies named since the last syncfs are kept open (their descriptors
 * would be closed anyway) up to a quarter of the process's descriptors,
 * at most this many; past it each is closed at once, known by its inode
 * (an fstat more per file). */
#define NAMED_OPEN_MAX 8192
/* A syncfs is due once this many copies wait for one, whatever their
 * bytes: empty and tiny files fill no window, and each waiting copy
 * holds a record (about 300 bytes; 100,000 empty files held 57 MB). */
#define NAMED_WAITING_MAX 8192
/* On a device Ferry measures, complete files wait for a sync before
 * they get their names, each keeping its descriptor open (an unnamed
 * file goes with its last descriptor): a sync is due once this many
 * wait (at most the named copies' share of the descriptors, which there
 * are only files with several names), or once the first of them has
 * waited this long; and once names wait for the sync that carries them,
 * this long after the last one began (the journal says a file complete
 * only then). Writers wait while that many wait: on the src tree behind
 * the slower disk's emulator each sync then covered 3,400-5,000 files,
 * and writers waited for it. */
#define TAKEN_WAITING_MAX NAMED_OPEN_MAX
#define NAME_WAIT_USEC    (G_USEC_PER_SEC / 2)
/* A device whose cache flushes took this long each while it was
 * measured charges for them as flash does; each sync costs it three or
 * four (the journal's commit, the loop device's), in which it writes
 * nothing. Proved fast, it stays watched by its writeback, and syncs
 * come this far apart: on the slower disk's emulator charging 20 ms a
 * flush and 2 ms a scattered write, fat took 6.4 s instead of 7.5 s
 * (flushes 42 -> 19). Where flushes cost nothing the same spacing cost
 * 0.1-0.2 s (each file's writeback a request of its own), so a device
 * with cheap flushes keeps a sync per window. */
#define DEAR_FLUSH_MS     5.0
#define SPACED_SYNC_USEC  (2 * G_USEC_PER_SEC)

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
 * It also measures a device whose class does not tell its speed (a loop
 * device on slow storage, a network block device): until a few windows
 * have shown it fast, writers may run only a little ahead of it, and one
 * that the counters of its block device show slow is handed over to the
 * slow strategy. Its speed is what the device wrote over the time it was
 * busy writing, not how long a syncfs took: a syncfs of small files
 * waits for journal commits and cache flushes, which make a fast disk
 * look slow. On a filesystem the kernel writes itself, only the first
 * window is measured by a sync (the first bytes a person sees safe);
 * after it the writeback of what writers wrote is started as they go,
 * and the device is measured by what it writes, without a sync: on a
 * slow ext4 stick each sync while measuring was a journal commit, three
 * or four cache flushes, and none vouched for more than the slow
 * strategy's first point does anyway. Writers are then held by what the
 * device wrote (data on its way, not yet durable). Small files are the
 * exception: started one by one, each reaches the device as a request of
 * its own, so a window of them waits for a sync instead, whose writeback
 * writes them together (ferry_flusher_note_unstarted()). A device that
 * proved fast goes on so if its cache flushes proved dear while it was
 * measured (DEAR_FLUSH_MS): its syncs then come spaced, as names and
 * durable progress need them, not one per window.
 *
 * Files named before their data is durable are kept until a syncfs that
 * began after they were named returns: fine, they are forgotten; failed,
 * each is checked at the end (ferry_named_files_settle()).
 *
 * On a device it measures, files are not named before their data is
 * durable: the flusher takes each complete file, names it once a syncfs
 * that began after it was taken returned fine, and its next syncfs (or
 * the job's final one) carries the name. A name given at once could
 * reach the device before the data: ext4 records a file's size and
 * extents as its writeback starts, marked unwritten until the device
 * has the data, and any journal commit in between carries them; a
 * device that failed then left the file under its final name, full
 * size, its missing part reading as zeros (an 80 MB/s ext4 stick failed
 * mid-copy, /slow-device/writeback-fails/auto-later/ext4).
 */
struct _FerryFlusher
{
  int fd;
  FerrySyncfs *syncfs;       /* a cancel does not wait for the sync under way */
  GCancellable *cancellable; /* the job's */
  FerryCounters *counters;
  FerryFlusherSlowFunc on_slow;
  FerryCopyTarget *target;
  gpointer user_data;
  GThread *thread;
  GMutex lock;
  GCond work; /* the flusher waits here for a window to flush */
  GCond room; /* writers wait here for the device to catch up */
  State state;
  char *block_name; /* the device measured, or NULL */
  FerryBlockStat last_stat;
  guint good_probes;
  guint slow_probes;
  gboolean writers_waited; /* for room, since the last window was judged */
  gboolean by_writeback;   /* measured without syncs (see above) */
  gboolean flushes_dear;   /* proved fast, its flushes dear: still watched (DEAR_FLUSH_MS) */
  FerryBlockStat at_start; /* by writeback: the device's counters at the start */
  guint64 device_wrote;    /* by writeback: bytes the device wrote since */
  guint64 unstarted;       /* by writeback: small files' bytes left for a sync (see
                              ferry_flusher_note_unstarted()) */
  FerryBlockStat at_last_look;
  gint64 device_busy_at; /* by writeback: when the device was last seen at work */
  guint named_open_max;
  int errsv; /* the first syncfs failure */
  GPtrArray *named; /* FerryNamedFile: named since the last syncfs that returned fine */
  guint64 syncs_begun;
  guint64 syncs_done; /* the last syncfs that returned fine, as counted by syncs_begun */
  gboolean vouch_wanted; /* someone waits for a syncfs, whatever was written */
  GPtrArray *taken;      /* FerryFileCopy: complete, unnamed, taken since the last syncfs began */
  gint64 taken_since;    /* when the first of them was taken */
  gint64 sync_began_at;  /* when the last syncfs began */
  guint taken_max;
  GPtrArray *names_sent; /* FerryFileCopy: named by durable() since the last syncfs began */
  gint64 held_since;     /* when something first waited for a syncfs to begin (ferry_flusher_hold()), or 0 */
  gboolean forwarding;   /* handed over: files taken go to the slow strategy */
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
  g_cond_signal (&self->work);
  g_cond_broadcast (&self->room);
  g_mutex_unlock (&self->lock);
}

static void
wake_writers (FerryFlusher *self)
{
  g_mutex_lock (&self->lock);
  g_cond_broadcast (&self->room);
  g_mutex_unlock (&self->lock);
}

/* Called with the lock held. */
static guint64
window_size (FerryFlusher *self)
{
  if (self->state != STATE_PROBING)
    return FAST_WINDOW;
  return MIN ((guint64) PROBE_FIRST_WINDOW << self->good_probes, PROBE_LAST_WINDOW);
}

/* How far writers may run ahead of the device; called with the lock held. */
static guint64
ahead_limit (FerryFlusher *self)
{
  return self->state == STATE_PROBING ? 2 * window_size (self) : FAST_AHEAD;
}

/* Whether the device is measured by its writeback, not by syncs: once
 * the first window's sync returned, so that a person sees the first
 * bytes safe within a window of the device's time; and still watched so
 * once it proved fast, where its flushes proved dear. Called with the
 * lock held. */
static gboolean
watching_writeback (FerryFlusher *self)
{
  return (self->state == STATE_PROBING || (self->state == STATE_FAST && self->flushes_dear))
         && self->by_writeback && self->syncs_done > 0;
}

/* Called with the lock held. */
static gboolean
many_named (FerryFlusher *self)
{
  return self->named->len >= NAMED_WAITING_MAX;
}

/* Whether files or names have waited long enough for a syncfs; called
 * with the lock held. Never while the device is measured by its
 * writeback: there each sync is a journal commit the device may hold
 * up, and a stalled stick then held every call that touches the
 * journal (naming a file, setting its times), so a cancel waited for
 * the device; files wait for the sync that ends the measuring, or the
 * one a window of small files gets (sync_wanted()). A device proved
 * fast with dear flushes gets spaced syncs, which also move what a
 * person sees durable: no window does there. */
static gboolean
names_due (FerryFlusher *self)
{
  gint64 now = g_get_monotonic_time ();
  gint64 wait = self->flushes_dear ? SPACED_SYNC_USEC : NAME_WAIT_USEC;

  if (watching_writeback (self) && self->state == STATE_PROBING)
    return FALSE;
  if (self->flushes_dear && now - self->sync_began_at >= wait
      && ferry_counters_get (&self->counters->bytes_written)
             > ferry_counters_get (&self->counters->bytes_durable))
    return TRUE;
  return (self->taken->len > 0 && now - self->taken_since >= wait)
         || (self->names_sent->len > 0 && now - self->sync_began_at >= wait)
         || (self->held_since != 0 && now - self->held_since >= wait);
}

/* Whether a syncfs is wanted whatever was written: someone waits for
 * one, many copies do, or a window of small files whose writeback no
 * one started; called with the lock held. */
static gboolean
sync_wanted (FerryFlusher *self)
{
  return self->vouch_wanted || many_named (self) || self->taken->len >= self->taken_max
         || names_due (self) || self->unstarted >= window_size (self);
}

/* Called with the lock held. */
static guint64
ahead (FerryFlusher *self)
{
  guint64 written = ferry_counters_get (&self->counters->bytes_written);
  guint64 behind = ferry_counters_get (&self->counters->bytes_durable);

  if (watching_writeback (self))
    behind = MAX (behind, self->device_wrote);
  return written > behind ? written - behind : 0;
}

/* Sleeps until there is a window to flush (or a writer is held back
 * waiting for room), or, while the device is watched by its writeback,
 * for one look at its counters; FALSE when it is time to end. */
static gboolean
wait_for_work (FerryFlusher *self)
{
  gboolean go_on;
  gboolean looked = FALSE;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      gboolean watching = watching_writeback (self);

      go_on = self->state == STATE_PROBING || self->state == STATE_FAST;
      if (!go_on || sync_wanted (self) || (watching && looked)
          || (!watching && ahead (self) >= window_size (self)))
        break;
      g_cond_wait_until (&self->work, &self->lock,
                         g_get_monotonic_time () + (watching ? LOOK_USEC : POLL_USEC));
      looked = TRUE;
    }
  g_mutex_unlock (&self->lock);
  return go_on;
}

/* Everything in *@array, which is left empty; called with the lock held. */
static GPtrArray *
steal_all (GPtrArray **array)
{
  GPtrArray *all = g_steal_pointer (array);

  *array = g_ptr_array_new ();
  return all;
}

/* *@taken goes back into *@array, ahead of what came since; called with
 * the lock held. */
static void
put_back (GPtrArray **array, GPtrArray **taken)
{
  g_ptr_array_extend_and_steal (*taken, g_steal_pointer (array));
  *array = g_steal_pointer (taken);
}

/* The names a syncfs carried reached the device (@errsv 0), or may not
 * have: each file learns which. */
static void
settle_names_sent (GPtrArray *sent, int errsv)
{
  for (guint i = 0; i < sent->len; i++)
    {
      FerryFileCopy *fc = g_ptr_array_index (sent, i);

      fc->name_durable (fc, errsv);
    }
  g_ptr_array_set_size (sent, 0);
}

/* The files a syncfs covered get their names once it returned fine
 * (@errsv 0), for the next one to carry; after a failure none gets one.
 * After a cancel each gets its name, whole in the page cache, as where
 * files are named at once: dropping a copy whose writeback is under way
 * waits for the device (ext4 lets go of its pages only once written),
 * and a cancel on a stalled stick took 30 s. */
static void
name_taken (FerryFlusher *self, GPtrArray *taken, int errsv)
{
  g_autoptr (GPtrArray) named = g_ptr_array_new ();

  for (guint i = 0; i < taken->len; i++)
    {
      FerryFileCopy *fc = g_ptr_array_index (taken, i);

      if (fc->durable (fc, errsv == ECANCELED ? 0 : errsv))
        g_ptr_array_add (named, fc);
    }
  g_ptr_array_set_size (taken, 0);
  g_mutex_lock (&self->lock);
  g_ptr_array_extend_and_steal (self->names_sent, g_steal_pointer (&named));
  g_cond_broadcast (&self->room);
  g_mutex_unlock (&self->lock);
}

/* What a syncfs covers: the files named and taken before it began. */
typedef struct
{
  GPtrArray *named; /* FerryNamedFile */
  GPtrArray *taken; /* FerryFileCopy, to be named */
  GPtrArray *sent;  /* FerryFileCopy, whose names it carries */
} Covered;

static void
covered_clear (Covered *covered)
{
  g_clear_pointer (&covered->named, g_ptr_array_unref);
  g_clear_pointer (&covered->taken, g_ptr_array_unref);
  g_clear_pointer (&covered->sent, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Covered, covered_clear)

/* Called with the lock held. */
static void
steal_covered (FerryFlusher *self, Covered *covered)
{
  covered->named = steal_all (&self->named);
  covered->taken = steal_all (&self->taken);
  covered->sent = steal_all (&self->names_sent);
}

/* A syncfs of the destination, which vouches for the files named
 * before it began, and after which the files taken before it get their
 * names; FALSE when it failed (the first failure is kept: the files
 * taken get no names) or was given up for a cancel (see name_taken());
 * the names it covered then wait on, unconfirmed. */
static gboolean
sync_named (FerryFlusher *self)
{
  g_auto (Covered) covered = { 0 };
  guint64 this_sync;
  int errsv;

  g_mutex_lock (&self->lock);
  steal_covered (self, &covered);
  self->unstarted = 0;
  self->held_since = 0;
  self->sync_began_at = g_get_monotonic_time ();
  this_sync = ++self->syncs_begun;
  self->vouch_wanted = FALSE;
  g_mutex_unlock (&self->lock);

  errsv = ferry_syncfs_run (self->syncfs, self->cancellable);
  if (errsv == 0)
    {
      ferry_named_files_settle (covered.named, self->fd, 0);
      settle_names_sent (covered.sent, 0);
      name_taken (self, covered.taken, 0);
      g_mutex_lock (&self->lock);
      self->syncs_done = this_sync;
      g_mutex_unlock (&self->lock);
      return TRUE;
    }
  g_mutex_lock (&self->lock);
  if (self->errsv == 0 && errsv != ECANCELED)
    self->errsv = errsv;
  put_back (&self->named, &covered.named);
  put_back (&self->names_sent, &covered.sent);
  g_mutex_unlock (&self->lock);
  name_taken (self, covered.taken, errsv);
  return FALSE;
}

/* After a hand-over, the files taken and not yet named go to the slow
 * strategy, which names each once its data is on the device. */
static void
forward_taken (FerryFlusher *self, GPtrArray *taken)
{
  FerryStrategy *successor = ferry_copy_target_get_strategy (self->target);

  for (guint i = 0; i < taken->len; i++)
    {
      FerryFileCopy *fc = g_ptr_array_index (taken, i);
      g_autoptr (GError) error = NULL;

      /* A strategy that names later always takes a file that can wait. */
      if (ferry_strategy_commit_file (successor, fc, &error) != FERRY_COMMIT_LATER)
        fc->durable (fc, EIO);
    }
  g_ptr_array_set_size (taken, 0);
}

/* The files named while measuring wait for the slow strategy's first
 * point, which covers everything written so far: a sync of their own
 * would cost a slow ext4 stick another journal commit, three or four
 * flushes. */
static void
hand_over (FerryFlusher *self)
{
  g_autoptr (GPtrArray) named = NULL;
  g_autoptr (GPtrArray) taken = NULL;
  gboolean names_sent;

  set_state (self, STATE_HANDED_OVER);
  self->on_slow (self->user_data);
  g_mutex_lock (&self->lock);
  named = steal_all (&self->named);
  taken = steal_all (&self->taken);
  self->forwarding = TRUE;
  names_sent = self->names_sent->len > 0;
  g_mutex_unlock (&self->lock);
  forward_taken (self, taken);
  /* Names given after the last sync have no point of the slow
   * strategy's to wait for: they get a sync of their own. */
  if (ferry_copy_target_adopt_named (self->target, named) && !names_sent)
    return;
  g_mutex_lock (&self->lock);
  put_back (&self->named, &named);
  g_mutex_unlock (&self->lock);
  sync_named (self);
}

/**
 * ferry_flusher_judge_window:
 * @rate: what the device wrote in a window over the time it was busy
 * @held_up: whether anyone waited for the device in that window (a
 *   sync, or writers held for room)
 *
 * What a window says of the device. Busy time counts every moment a
 * request is in flight, so a device given small files one at a time
 * looks slow while it keeps up: copying 10,000 small files to an ext4
 * image behind the emulator at 150 MB/s, windows read as low as 44 MB/s
 * with no writer held (2 copies in 25 were handed over while such
 * windows counted as slow); at 20 MB/s writers were held in every
 * window. Only a device that held someone up is slow.
 */
FerryWindowVerdict
ferry_flusher_judge_window (double rate, gboolean held_up)
{
  if (rate >= SLOW_RATE)
    return FERRY_WINDOW_FAST;
  return held_up ? FERRY_WINDOW_SLOW : FERRY_WINDOW_UNTOLD;
}

/* Whether a writer waited for room since the last call. */
static gboolean
take_writers_waited (FerryFlusher *self)
{
  gboolean waited;

  g_mutex_lock (&self->lock);
  waited = self->writers_waited;
  self->writers_waited = FALSE;
  g_mutex_unlock (&self->lock);
  return waited;
}

/* The device proved fast (@now: its counters): from now on a window
 * costs it a sync, unless its flushes proved dear while it was
 * measured (DEAR_FLUSH_MS). Judged once, as it stops being measured;
 * one still watched keeps being judged, and may yet prove slow. */
static void
trust (FerryFlusher *self, const FerryBlockStat *now)
{
  if (get_state (self) != STATE_PROBING)
    return;
  g_mutex_lock (&self->lock);
  self->flushes_dear = self->by_writeback
                       && ferry_block_stat_flush_ms_each (&self->at_start, now) >= DEAR_FLUSH_MS;
  g_mutex_unlock (&self->lock);
  set_state (self, STATE_FAST);
}

/* What the device wrote since the last judgement (@now: its counters),
 * over the time it spent writing it (@after_sync: a sync waited for it
 * all that time). Only a stretch in which it wrote enough counts, one
 * way or the other: a device is handed over on evidence, never on a
 * guess. */
static void
judge_rate (FerryFlusher *self, const FerryBlockStat *now, gboolean after_sync)
{
  FerryWindowVerdict verdict;

  if (ferry_block_stat_bytes_written (&self->last_stat, now) < PROBE_MIN_BYTES)
    return;
  verdict = ferry_flusher_judge_window (ferry_block_stat_write_rate (&self->last_stat, now),
                                        take_writers_waited (self) || after_sync);
  self->last_stat = *now;
  if (verdict == FERRY_WINDOW_UNTOLD)
    return;
  if (verdict == FERRY_WINDOW_FAST)
    self->slow_probes = 0;
  else if (++self->slow_probes >= PROBES_TO_DISTRUST)
    {
      hand_over (self);
      return;
    }
  g_mutex_lock (&self->lock);
  if (self->slow_probes == 0)
    self->good_probes++;
  g_mutex_unlock (&self->lock);
  if (self->good_probes >= PROBES_TO_TRUST)
    trust (self, now);
}

/* The device's counters into @now; FALSE where it has none, and then
 * its class has the word: the device is trusted as fast. */
static gboolean
read_counters (FerryFlusher *self, FerryBlockStat *now)
{
  if (ferry_block_stat_read (self->block_name, now))
    return TRUE;
  set_state (self, STATE_FAST);
  return FALSE;
}

/* After a window's sync, while measuring. */
static void
judge_speed (FerryFlusher *self)
{
  FerryBlockStat now;

  if (get_state (self) == STATE_PROBING && read_counters (self, &now))
    judge_rate (self, &now, TRUE);
}

/* One look at a device measured by its writeback: what it wrote lets
 * writers on, and is judged once there is enough of it. FALSE when a
 * sync is wanted instead: someone waits for one, many named copies do,
 * or a window waits for a device that is idle. */
static gboolean
watch_writeback (FerryFlusher *self)
{
  FerryBlockStat now;
  gint64 looked_at = g_get_monotonic_time ();
  guint64 wrote;
  gboolean stalled;

  g_mutex_lock (&self->lock);
  stalled = !watching_writeback (self) || sync_wanted (self);
  g_mutex_unlock (&self->lock);
  if (stalled)
    return FALSE;
  if (!read_counters (self, &now))
    return TRUE;
  wrote = ferry_block_stat_bytes_written (&self->at_start, &now);
  g_mutex_lock (&self->lock);
  self->device_wrote = MAX (self->device_wrote, wrote);
  if (now.busy_ms != self->at_last_look.busy_ms)
    self->device_busy_at = looked_at;
  self->at_last_look = now;
  stalled = ahead (self) >= window_size (self) && looked_at - self->device_busy_at > STALL_USEC;
  g_cond_broadcast (&self->room);
  g_mutex_unlock (&self->lock);
  if (!stalled)
    judge_rate (self, &now, FALSE);
  return !stalled;
}

/* On a device Ferry measures, a copy cut short is continued from its
 * journal, as on a slow one: after each syncfs that vouched for what was
 * written, the journal says so (its files, complete and in flight, then
 * say what a next run finds), as after the slow strategy's points. On
 * a device fast by its class new folders are built hidden (a kill leaves
 * them for the next run to remove), so the journal claims only what
 * @placed says is under final names in folders that were there before;
 * it is saved once there is some, and the next run carries those files
 * (ferry_continue_carry()) instead of meeting them as conflicts. */
static void
note_point (FerryFlusher *self, guint64 placed)
{
  FerryJournal *journal = self->target->journal;

  if (journal == NULL || (self->block_name == NULL && placed == 0))
    return;
  ferry_journal_point_done (journal, self->block_name != NULL ? 0 : placed,
                            ferry_counters_get_transfer_total (self->counters));
}

static gpointer
flusher_main (gpointer data)
{
  FerryFlusher *self = data;

  while (wait_for_work (self))
    {
      guint64 written, placed;

      if (watch_writeback (self))
        continue;
      written = ferry_counters_get (&self->counters->bytes_written);
      placed = ferry_counters_get (&self->counters->bytes_placed);

      if (!sync_named (self))
        {
          set_state (self, STATE_STOPPED);
          break;
        }
      /* Never past what is written now: a cancelled file takes its
       * bytes back. */
      ferry_counters_set_durable (self->counters, written);
      note_point (self, placed);
      judge_speed (self);
      wake_writers (self);
    }
  return NULL;
}

/**
 * ferry_flusher_new:
 * @target: its destination is synced, counting in its counters; a cancel
 *   of its job gives up a sync under way
 * @probe_block: (nullable): the block device (as named in /sys/class/block)
 *   whose speed its class does not tell: it is measured, and @on_slow is
 *   called (once, from the flusher's thread) if it proves slow. NULL: the
 *   device is fast by its class.
 */
FerryFlusher *
ferry_flusher_new (FerryCopyTarget *target,
                   const char *probe_block,
                   FerryFlusherSlowFunc on_slow,
                   gpointer user_data)
{
  FerryFlusher *self = g_new0 (FerryFlusher, 1);

  self->fd = target->dir_fd;
  self->syncfs = ferry_syncfs_new (target->dir_fd);
  self->cancellable = g_object_ref (ferry_control_get_cancellable (target->control));
  self->counters = target->counters;
  self->on_slow = on_slow;
  self->target = target;
  self->user_data = user_data;
  self->block_name = g_strdup (probe_block);
  self->state = probe_block != NULL && ferry_block_stat_read (probe_block, &self->last_stat)
                    ? STATE_PROBING
                    : STATE_FAST;
  /* sync_file_range() does not reach a FUSE daemon's device. */
  self->by_writeback = self->state == STATE_PROBING && !target->through_fuse;
  self->at_start = self->last_stat;
  self->at_last_look = self->last_stat;
  self->device_busy_at = g_get_monotonic_time ();
  self->named = g_ptr_array_new ();
  self->named_open_max = ferry_named_files_open_max (NAMED_OPEN_MAX);
  self->taken = g_ptr_array_new ();
  self->taken_max = ferry_named_files_open_max (TAKEN_WAITING_MAX);
  self->names_sent = g_ptr_array_new ();
  g_mutex_init (&self->lock);
  g_cond_init (&self->work);
  g_cond_init (&self->room);
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
  while ((self->state == STATE_PROBING || self->state == STATE_FAST)
         && ahead (self) > ahead_limit (self))
    {
      if (g_cancellable_is_cancelled (cancellable))
        break;
      self->writers_waited = TRUE;
      g_cond_signal (&self->work);
      g_cond_wait_until (&self->room, &self->lock, g_get_monotonic_time () + POLL_USEC);
    }
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_flusher_note_unstarted:
 * While the device is measured by its writeback, a writer wrote a small
 * file whole, @bytes, and did not start its writeback: the device would
 * get it as one small write, and the next file's as another, where the
 * writeback of a sync writes many such files in large requests (flat,
 * 10,000 files of 4 KiB: 6,244 requests of the slower disk's emulator
 * started one by one, 303 left to syncs). A window of them gets a sync.
 */
void
ferry_flusher_note_unstarted (FerryFlusher *self, guint64 bytes)
{
  g_mutex_lock (&self->lock);
  self->unstarted += bytes;
  if (self->unstarted >= window_size (self))
    g_cond_signal (&self->work);
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_flusher_wants_writeback:
 * Whether the writeback of what writers wrote should be started as they
 * go (sync_file_range(SYNC_FILE_RANGE_WRITE)): the device is measured by
 * what it writes, and writers are let on as it does.
 */
gboolean
ferry_flusher_wants_writeback (FerryFlusher *self)
{
  gboolean wanted;

  /* Never wanted on a device not measured, or not measured so: no lock
   * then for each chunk a writer writes (by_writeback is set once, before
   * the flusher's thread starts). */
  if (!self->by_writeback)
    return FALSE;
  g_mutex_lock (&self->lock);
  wanted = watching_writeback (self);
  g_mutex_unlock (&self->lock);
  return wanted;
}

/**
 * ferry_flusher_vouch:
 * Waits for a syncfs that begins after this call to return, asking for
 * one at once: then everything written before the call is durable
 * (TRUE). FALSE when the flusher syncs no more (stopped, failed, handed
 * over to the slow strategy) or the job was cancelled meanwhile.
 */
gboolean
ferry_flusher_vouch (FerryFlusher *self)
{
  guint64 wanted;
  gboolean vouched;

  g_mutex_lock (&self->lock);
  wanted = self->syncs_begun + 1;
  self->vouch_wanted = TRUE;
  g_cond_signal (&self->work);
  while (self->syncs_done < wanted
         && (self->state == STATE_PROBING || self->state == STATE_FAST)
         && !g_cancellable_is_cancelled (self->cancellable))
    g_cond_wait_until (&self->room, &self->lock, g_get_monotonic_time () + POLL_USEC);
  vouched = self->syncs_done >= wanted;
  g_mutex_unlock (&self->lock);
  return vouched;
}

/**
 * ferry_flusher_hold:
 * Something (a hidden folder whose files are all written) waits for a
 * syncfs that begins after this call: one comes within the time a file
 * waits for its name. Returns the ticket to ask ferry_flusher_passed()
 * with; the caller does not wait.
 */
guint64
ferry_flusher_hold (FerryFlusher *self)
{
  guint64 ticket;

  g_mutex_lock (&self->lock);
  if (self->held_since == 0)
    self->held_since = g_get_monotonic_time ();
  ticket = self->syncs_begun;
  g_mutex_unlock (&self->lock);
  return ticket;
}

/* Whether a syncfs that began after ferry_flusher_hold() gave @ticket
 * returned fine. */
gboolean
ferry_flusher_passed (FerryFlusher *self, guint64 ticket)
{
  gboolean passed;

  g_mutex_lock (&self->lock);
  passed = self->syncs_done > ticket;
  g_mutex_unlock (&self->lock);
  return passed;
}

/**
 * ferry_flusher_take_file:
 * On a device being measured: @fc, complete, gets its name once a
 * syncfs that began after this call returned fine (fc->durable()), and
 * the next one carries the name (fc->name_durable()). The writer waits
 * while many files wait so. FALSE when the flusher takes no more files:
 * it handed over to the slow strategy, or stopped (@errsv: the device's
 * failure, or 0).
 */
gboolean
ferry_flusher_take_file (FerryFlusher *self, FerryFileCopy *fc, int *errsv)
{
  gboolean taken;

  g_mutex_lock (&self->lock);
  *errsv = self->errsv;
  taken = !self->forwarding && self->state != STATE_STOPPED;
  if (taken)
    {
      if (self->taken->len == 0)
        self->taken_since = g_get_monotonic_time ();
      g_ptr_array_add (self->taken, fc);
      g_cond_signal (&self->work);
      while (self->taken->len >= self->taken_max
             && (self->state == STATE_PROBING || self->state == STATE_FAST)
             && !g_cancellable_is_cancelled (self->cancellable))
        g_cond_wait_until (&self->room, &self->lock, g_get_monotonic_time () + POLL_USEC);
    }
  g_mutex_unlock (&self->lock);
  return taken;
}

/**
 * ferry_flusher_name_taken:
 * Every file taken gets its name (or fails), after a syncfs of its own
 * where the flusher still syncs; their names reach the device with the
 * job's final sync. Returns the first failure of the device, or 0.
 */
int
ferry_flusher_name_taken (FerryFlusher *self)
{
  g_autoptr (GPtrArray) left = NULL;
  gboolean waiting, forwarding;
  int errsv;

  /* Each vouch returns once the files taken before its sync have their
   * names. */
  do
    {
      g_mutex_lock (&self->lock);
      waiting = self->taken->len > 0;
      g_mutex_unlock (&self->lock);
    }
  while (waiting && ferry_flusher_vouch (self));
  g_mutex_lock (&self->lock);
  left = steal_all (&self->taken);
  errsv = self->errsv;
  forwarding = self->forwarding;
  g_mutex_unlock (&self->lock);
  if (forwarding)
    forward_taken (self, left);
  else if (left->len > 0)
    name_taken (self, left, errsv != 0 ? errsv : ECANCELED);
  return errsv;
}

/**
 * ferry_flusher_note_name_given:
 * @fc, taken no more (the flusher had stopped), was named by its
 * strategy: the job's final syncfs carries its name, or a cancel leaves
 * it unconfirmed (ferry_flusher_settle_names(), ferry_flusher_free()).
 */
void
ferry_flusher_note_name_given (FerryFlusher *self, FerryFileCopy *fc)
{
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->names_sent, fc);
  g_mutex_unlock (&self->lock);
}

/* The first failure of the device the flusher met, or 0. */
int
ferry_flusher_get_errno (FerryFlusher *self)
{
  int errsv;

  g_mutex_lock (&self->lock);
  errsv = self->errsv;
  g_mutex_unlock (&self->lock);
  return errsv;
}

/* Whether the device is fast by its class (never measured), and the
 * flusher still syncs. */
gboolean
ferry_flusher_is_fast_by_class (FerryFlusher *self)
{
  return self->block_name == NULL && get_state (self) == STATE_FAST;
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
  many = self->named->len >= self->named_open_max;
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
  g_autoptr (GPtrArray) sent = NULL;

  g_mutex_lock (&self->lock);
  names = steal_all (&self->named);
  sent = steal_all (&self->names_sent);
  g_mutex_unlock (&self->lock);
  ferry_named_files_settle (names, self->fd, errsv);
  settle_names_sent (sent, errsv);
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
  /* ferry_flusher_name_taken() left none taken. */
  g_warn_if_fail (self->taken->len == 0);
  g_ptr_array_unref (self->taken);
  settle_names_sent (self->names_sent, ECANCELED);
  g_ptr_array_unref (self->names_sent);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->work);
  g_cond_clear (&self->room);
  g_free (self->block_name);
  g_free (self);
}
