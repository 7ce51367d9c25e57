/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "ferry-control.h"
#include "ferry-counters.h"
#include "ferry-journal.h"
#include "ferry-strategy.h"

G_BEGIN_DECLS

/**
 * FerryCopyTarget:
 * Where a job's data goes, and what every strategy writing there shares:
 * the destination folder, the progress counters, the job's control, and
 * the strategy in use. A job starts with one strategy and may hand over
 * once, to a slow one, when the device is measured slow; from then on
 * every chunk, of a file begun before as well, goes the new way.
 */
struct _FerryCopyTarget
{
  int dir_fd; /* not owned */
  dev_t dev;
  char *path;
  FerryCounters *counters;
  FerryControl *control;
  guint n_pieces;                /* threads for one very large file */
  gboolean through_fuse;         /* a FUSE daemon (exfat-fuse, ntfs-3g) writes the device */
  /* The block device such a daemon writes, open to drop what the kernel
   * caches of it before a copy is read back (--verify); -1 where there
   * is none, or it cannot be opened (it takes root or the disk group). */
  int device_fd;
  gboolean device_cache_kept; /* there is such a device, and it could not be opened */
  /* FALSE where a rename is not faithful (FAT through fusefat): a folder
   * renamed loses what it holds (its listing comes back empty, its files'
   * clusters are free once unmounted), so none is built under a hidden
   * name; a file renamed takes the time of the rename, so its times are
   * set again once it has its name */
  gboolean renames_faithfully;
  atomic_bool range_unsupported; /* copy_file_range refused this pair of filesystems */
  _Atomic (FerryStrategy *) strategy;
  FerryStrategy *first;
  FerryStrategy *successor;
  GMutex pseudo_lock;
  GHashTable *pseudo_devs; /* source devices asked whether they are pseudo filesystems */
  FerryJournal *journal;   /* owned; NULL when the job keeps none */
};

FerryCopyTarget *ferry_copy_target_new (int dir_fd,
                                        const char *path,
                                        FerryCounters *counters,
                                        FerryControl *control);
void ferry_copy_target_free (FerryCopyTarget *self);

void ferry_copy_target_start (FerryCopyTarget *self, FerryStrategy *strategy);
gboolean ferry_copy_target_hand_over (FerryCopyTarget *self, FerryStrategy *successor);
FerryStrategy *ferry_copy_target_get_strategy (FerryCopyTarget *self);
FerryCopyMethod ferry_copy_target_get_method (FerryCopyTarget *self);
void ferry_copy_target_settle (FerryCopyTarget *self);
gboolean ferry_copy_target_finish (FerryCopyTarget *self, GError **error);
gboolean ferry_copy_target_notes_names (FerryCopyTarget *self);
void ferry_copy_target_note_named (FerryCopyTarget *self, FerryNamedFile *named);
gboolean ferry_copy_target_adopt_named (FerryCopyTarget *self, GPtrArray *named);
gboolean ferry_copy_target_places_folders (FerryCopyTarget *self);
gboolean ferry_copy_target_places_file_folders (FerryCopyTarget *self);
guint64 ferry_copy_target_hold (FerryCopyTarget *self);
gboolean ferry_copy_target_passed (FerryCopyTarget *self, guint64 ticket);
int ferry_copy_target_make_durable (FerryCopyTarget *self);

void ferry_copy_target_journal_file (FerryCopyTarget *self, FerryFileCopy *fc);
void ferry_copy_target_add_written (FerryCopyTarget *self, FerryFileCopy *fc, guint64 bytes);
gboolean ferry_copy_target_source_is_pseudo (FerryCopyTarget *self, const FerryFileCopy *fc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryCopyTarget, ferry_copy_target_free)

G_END_DECLS
