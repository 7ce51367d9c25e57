/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/stat.h>

#include "ferry-temp-file.h"

G_BEGIN_DECLS

typedef struct _FerryFileCopy FerryFileCopy;

/* Names the file in messages: the tree knows the folders above it, the
 * data room only the open descriptors. */
typedef char *(*FerryFileCopyPathFunc) (const FerryFileCopy *fc, gboolean source);

/**
 * FerryFileCopy:
 * One regular file on its way, from an open source into a temporary
 * file in its destination folder.
 */
struct _FerryFileCopy
{
  gconstpointer entry; /* the tree's entry for this file, for @path_of */
  FerryFileCopyPathFunc path_of;
  int src_fd;
  struct stat st; /* of the open source */
  int dst_dir_fd; /* not owned */
  FerryTempFile tmp;
  guint64 written;             /* bytes of this file handed to the kernel */
  gboolean destination_failed; /* the error came from the destination */
  FerryFileCopy *whole;        /* for a piece of a large file: the file it is part of */
  guint64 unsynced;            /* chunk-sync: written since the last fdatasync */
  gboolean read_once;          /* a pseudo file, read to its end once: @st's size is what was read */
  guint64 read_hash[2];        /* then the XXH128 of what was read (low, high), to verify against */
  const char *journal_path;    /* below the destination folder, when its job keeps a journal */
  gboolean resumable;          /* large, not sparse: its journal may follow its temporary file */
  gboolean journaled;          /* it does: the temporary file has a name the journal records */
  guint64 resume_from;         /* a file continued: its first bytes were on the device already */

  /* Set by a caller that lets the strategy name the file later (see
   * FERRY_COMMIT_LATER): called once, from any thread, with 0 when its
   * data is durable, else the errno (ECANCELED: the job was cancelled);
   * it takes the file over. TRUE: it gave the file its name, which
   * reaches the device with the strategy's next point, and the strategy
   * keeps the file until then. */
  gboolean (*durable) (FerryFileCopy *fc, int errsv);
  /* For a file durable() named: called once, with 0 when its name is on
   * the device too, else the errno; it lets go of the file. */
  void (*name_durable) (FerryFileCopy *fc, int errsv);
};

char *ferry_file_copy_path (const FerryFileCopy *fc, gboolean source);
gboolean ferry_file_copy_fail_errno (FerryFileCopy *fc,
                                     int errsv,
                                     gboolean on_destination,
                                     GError **error);
gboolean ferry_file_copy_fail_durable (FerryFileCopy *fc, int errsv, GError **error);
gboolean ferry_file_copy_set_not_on_device (const char *path, int errsv, GError **error);
gboolean ferry_file_copy_fail_changed (FerryFileCopy *fc, GError **error);
gboolean ferry_file_copy_check_source_unchanged (FerryFileCopy *fc, GError **error);

G_END_DECLS
