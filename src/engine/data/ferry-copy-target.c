/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ferry-copy-target.h"
#include "ferry-fs.h"

/* The block device of a "fuseblk" mount (exfat-fuse, ntfs-3g), which its
 * daemon reads and writes through the kernel's cache of the device: a
 * copy read back through the daemon comes from that cache unless it is
 * dropped (a 20 MB file verified on an exFAT stick: 2.4 MB read from
 * the device). */
static int
open_fuse_device (dev_t dev, gboolean *on_device)
{
  g_autofree char *fstype = NULL;
  g_autofree char *source = NULL;
  struct stat st;
  int fd;

  if (!ferry_fs_find_mount (dev, &fstype, &source) || g_strcmp0 (fstype, "fuseblk") != 0
      || !g_str_has_prefix (source, "/dev/"))
    return -1;
  *on_device = TRUE;
  fd = open (source, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0 && (fstat (fd, &st) != 0 || !S_ISBLK (st.st_mode) || st.st_rdev != dev))
    ferry_fd_closep (&fd);
  return fd;
}

FerryCopyTarget *
ferry_copy_target_new (int dir_fd, const char *path, FerryCounters *counters, FerryControl *control)
{
  FerryCopyTarget *self = g_new0 (FerryCopyTarget, 1);
  struct stat st;

  self->dir_fd = dir_fd;
  self->dev = fstat (dir_fd, &st) == 0 ? st.st_dev : 0;
  self->path = g_strdup (path);
  self->counters = counters;
  self->control = control;
  self->n_pieces = 1;
  self->through_fuse = ferry_fs_is_fuse (dir_fd);
  if (self->through_fuse)
    {
      gboolean on_device = FALSE;

      self->device_fd = open_fuse_device (self->dev, &on_device);
      self->device_cache_kept = on_device && self->device_fd < 0;
    }
  else
    self->device_fd = -1;
  self->renames_faithfully = TRUE;
  g_mutex_init (&self->pseudo_lock);
  self->pseudo_devs = g_hash_table_new (NULL, NULL);
  return self;
}

/* A strategy's helpers (a flusher thread) never outlive the copy. */
void
ferry_copy_target_free (FerryCopyTarget *self)
{
  ferry_strategy_free (self->successor);
  ferry_strategy_free (self->first);
  g_clear_object (&self->journal);
  ferry_fd_closep (&self->device_fd);
  g_hash_table_unref (self->pseudo_devs);
  g_mutex_clear (&self->pseudo_lock);
  g_free (self->path);
  g_free (self);
}

/* Before any worker runs. */
void
ferry_copy_target_start (FerryCopyTarget *self, FerryStrategy *strategy)
{
  g_return_if_fail (self->first == NULL);
  self->first = strategy;
  atomic_store (&self->strategy, strategy);
}

/* From any thread, once: later calls free @successor and return FALSE. */
gboolean
ferry_copy_target_hand_over (FerryCopyTarget *self, FerryStrategy *successor)
{
  FerryStrategy *expected = self->first;

  if (!atomic_compare_exchange_strong (&self->strategy, &expected, successor))
    {
      ferry_strategy_free (successor);
      return FALSE;
    }
  self->successor = successor;
  return TRUE;
}

FerryStrategy *
ferry_copy_target_get_strategy (FerryCopyTarget *self)
{
  return atomic_load (&self->strategy);
}

/* How data travels now, as the progress reports it. */
FerryCopyMethod
ferry_copy_target_get_method (FerryCopyTarget *self)
{
  return ferry_strategy_get_method (ferry_copy_target_get_strategy (self));
}

/* Every file a strategy holds back gets its name (or fails) now, while
 * the tree that gave it is still there; a failure shows in _finish(). */
void
ferry_copy_target_settle (FerryCopyTarget *self)
{
  ferry_strategy_settle (self->first);
  if (self->successor != NULL)
    ferry_strategy_settle (self->successor);
}

/* Every strategy used stops, in the order they were used, then the
 * destination is made durable: on a FUSE filesystem an fsync of its
 * folder, for the daemon to write its own metadata (exfat-fuse keeps its
 * cluster bitmap until then) and the device to get its flush; then a
 * syncfs for everything else, names too, and the strategies learn
 * whether the last names they gave got there. (On a kernel filesystem
 * the fsync would only cost another journal commit and its flushes.)
 * After a strategy met a failing device there is no sync: a FUSE daemon
 * whose writes failed would forget what it had to write. */
gboolean
ferry_copy_target_finish (FerryCopyTarget *self, GError **error)
{
  int errsv = ferry_strategy_finish (self->first);

  if (errsv == 0 && self->successor != NULL)
    errsv = ferry_strategy_finish (self->successor);
  if (errsv == 0 && ferry_fs_is_fuse (self->dir_fd) && fsync (self->dir_fd) != 0
      && errno != EINVAL)
    errsv = errno;
  if (errsv == 0 && syncfs (self->dir_fd) != 0)
    errsv = errno;
  ferry_strategy_settle_names (self->first, errsv);
  if (self->successor != NULL)
    ferry_strategy_settle_names (self->successor, errsv);
  if (errsv != 0)
    return ferry_set_error_from_errno (error, errsv,
                                       _ ("Could not make the copies in “%s” durable"), self->path);
  /* Everything written is on the device now. */
  ferry_counters_set_durable (self->counters, ferry_counters_get (&self->counters->bytes_written));
  return TRUE;
}

/* Whether a file named at once is to be handed to ferry_copy_target_note_named():
 * the job started on a strategy that names files before their data is
 * durable (it keeps them even after handing over to a slow one). */
gboolean
ferry_copy_target_notes_names (FerryCopyTarget *self)
{
  return ferry_strategy_notes_names (self->first);
}

void
ferry_copy_target_note_named (FerryCopyTarget *self, FerryNamedFile *named)
{
  ferry_strategy_note_named (self->first, named);
}

/* After a hand-over: the files the first strategy named before their
 * data was durable go to its successor, whose next point vouches for
 * them (FALSE: it takes none, they stay). */
gboolean
ferry_copy_target_adopt_named (FerryCopyTarget *self, GPtrArray *named)
{
  return self->successor != NULL && ferry_strategy_adopt_named (self->successor, named);
}

/**
 * ferry_copy_target_places_folders:
 * Whether a folder new to the destination is built whole under a
 * hidden name and renamed into place once all it holds is durable: on
 * the fast strategy (which names files at once, and whose flusher can
 * vouch for what was written), on a device fast by its class. One
 * that is measured (a loop device, a stick) may prove slow, and even
 * one measured fast is where a copy cut short is continued from its
 * journal: there only a folder of files is built so, a bounded part of
 * it at a time (ferry_copy_target_places_file_folders()).
 */
gboolean
ferry_copy_target_places_folders (FerryCopyTarget *self)
{
  return self->renames_faithfully && ferry_copy_target_get_strategy (self) == self->first
         && ferry_strategy_knows_fast (self->first);
}

/**
 * ferry_copy_target_places_file_folders:
 * Whether a folder new to the destination that holds only files is
 * built under a hidden name while the device is measured: on the
 * strategy it started with, whose syncs a folder can wait for without
 * holding a writer (ferry_copy_target_hold()). A kill leaves the folder
 * hidden and the next run copies its files again, so it gets its name
 * each time it holds a bounded amount (ferry_folder.c).
 */
gboolean
ferry_copy_target_places_file_folders (FerryCopyTarget *self)
{
  return self->renames_faithfully && ferry_copy_target_get_strategy (self) == self->first
         && ferry_strategy_holds (self->first);
}

/* Something waits for a sync of the first strategy's that begins after
 * the call; returns the ticket to ask ferry_copy_target_passed() with. */
guint64
ferry_copy_target_hold (FerryCopyTarget *self)
{
  return ferry_strategy_hold (self->first);
}

gboolean
ferry_copy_target_passed (FerryCopyTarget *self, guint64 ticket)
{
  return ferry_strategy_passed (self->first, ticket);
}

/**
 * ferry_copy_target_make_durable:
 * Returns once everything written so far is on the device: 0, or the
 * errno of the sync that failed. The flusher's next syncfs vouches
 * where it still runs; else a syncfs of its own, unless a strategy met
 * a failure of the device already: a sync through a descriptor reports
 * a failure once, and a later one may return fine with the data lost.
 */
int
ferry_copy_target_make_durable (FerryCopyTarget *self)
{
  int errsv;

  if (ferry_strategy_vouch (self->first))
    return 0;
  if (ferry_control_is_ending (self->control))
    return ECANCELED;
  errsv = ferry_strategy_failure (self->first);
  if (errsv == 0 && self->successor != NULL)
    errsv = ferry_strategy_failure (self->successor);
  if (errsv != 0)
    return errsv;
  return syncfs (self->dir_fd) == 0 ? 0 : errno;
}

/* A file that takes more than one chunk is named on display at its first
 * chunk, whatever the interval: a name skipped by the interval is never
 * shown later. */
void
ferry_copy_target_add_written (FerryCopyTarget *self, FerryFileCopy *fc, guint64 bytes)
{
  if (fc->written == 0 && bytes < (guint64) fc->st.st_size
      && ferry_counters_current_is_due (self->counters, TRUE))
    {
      g_autofree char *path = ferry_file_copy_path (fc, TRUE);
      ferry_counters_take_current (self->counters, ferry_path_display (path));
    }
  fc->written += bytes;
  ferry_counters_add (self->counters, &self->counters->bytes_written, bytes);
}

/**
 * ferry_copy_target_source_is_pseudo:
 * Whether @fc's source lives on a pseudo filesystem (ferry_fs_is_pseudo()),
 * asked once per device. Those all have anonymous devices (major 0), as
 * tmpfs, btrfs and FUSE do; a disk's files cost no question at all.
 */
gboolean
ferry_copy_target_source_is_pseudo (FerryCopyTarget *self, const FerryFileCopy *fc)
{
  /* Under major 0 a device number is its minor, which fits a pointer;
   * the table holds 1 + the answer, so that "not asked" is NULL. */
  gpointer key = GSIZE_TO_POINTER ((gsize) fc->st.st_dev);
  gpointer known;

  if (major (fc->st.st_dev) != 0)
    return FALSE;
  g_mutex_lock (&self->pseudo_lock);
  if ((known = g_hash_table_lookup (self->pseudo_devs, key)) == NULL)
    {
      known = GINT_TO_POINTER (1 + ferry_fs_is_pseudo (fc->src_fd));
      g_hash_table_insert (self->pseudo_devs, key, known);
    }
  g_mutex_unlock (&self->pseudo_lock);
  return GPOINTER_TO_INT (known) == 2;
}

/**
 * ferry_copy_target_journal_file:
 * Once the slow strategy (whose points the journal follows) writes @fc,
 * a large file that may be continued after a kill or an unplug: its
 * temporary file gets the name the journal records. Only a file written
 * front to back in one stream has a durable offset: never the pieces of
 * a split one.
 */
void
ferry_copy_target_journal_file (FerryCopyTarget *self, FerryFileCopy *fc)
{
  FerryJournalStamp stamp
      = { fc->st.st_size, fc->st.st_mtim.tv_sec, fc->st.st_mtim.tv_nsec };
  int errsv;

  /* A file made under its final name in a hidden folder keeps it: a
   * kill removes the whole folder anyway. */
  if (self->journal == NULL || fc->whole != NULL || fc->tmp.in_place
      || ferry_copy_target_get_method (self) != FERRY_COPY_METHOD_WINDOW)
    return;
  if (!ferry_temp_file_name_for_journal (&fc->tmp, ferry_journal_get_id (self->journal), &errsv))
    {
      fc->resumable = FALSE; /* it is copied as it was */
      return;
    }
  ferry_journal_begin_file (self->journal, fc->journal_path, fc->tmp.name, &stamp, 0);
  fc->journaled = TRUE;
}
