/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "ferry-process.h"

G_BEGIN_DECLS

/**
 * FerryTempFile:
 * The file a copy is written into before it gets its final name. Where
 * the filesystem allows it this is an unnamed O_TMPFILE, which the kernel
 * deletes by itself if Ferry is killed; elsewhere a hidden ".ferry-*.part"
 * name that Ferry removes on cancel or failure (but for one a transfer's
 * journal records, which a cancel leaves for the run that continues it,
 * or for Discard to remove). Either way the final name only ever appears
 * with complete data and metadata.
 *
 * A named one carries its maker in its name and is locked while it is
 * written, so what a killed run leaves is known for stale, and removed,
 * by the next run into the folder (ferry_temp_sweep()); nothing
 * still being written is ever taken for stale.
 */
typedef struct
{
  int fd;
  int dir_fd;  /* not owned */
  char *name;  /* NULL for an unnamed file */
  mode_t mode; /* asked for at creation, before the umask */
  gboolean in_place; /* @name is its final name, in a folder still hidden */
} FerryTempFile;

#define FERRY_TEMP_FILE_INIT                                                                       \
  {                                                                                                \
    -1, -1, NULL, 0, FALSE                                                                         \
  }

gboolean ferry_temp_file_open (FerryTempFile *tmp,
                               int dir_fd,
                               mode_t mode,
                               atomic_bool *unnamed_unsupported,
                               int *errsv);
gboolean ferry_temp_file_commit (FerryTempFile *tmp,
                                 const char *final_name,
                                 gboolean replace,
                                 atomic_bool *links_refused,
                                 int *errsv);
void ferry_temp_file_discard (FerryTempFile *tmp);
void ferry_temp_file_leave (FerryTempFile *tmp);
void ferry_temp_file_drop_write (FerryTempFile *tmp);
gboolean ferry_temp_file_open_in_place (FerryTempFile *tmp,
                                        int dir_fd,
                                        const char *name,
                                        mode_t mode,
                                        int *errsv);

gboolean ferry_temp_file_open_resumable (FerryTempFile *tmp,
                                         int dir_fd,
                                         mode_t mode,
                                         const char *journal_id,
                                         int *errsv);
gboolean ferry_temp_file_name_for_journal (FerryTempFile *tmp, const char *journal_id, int *errsv);
gboolean ferry_temp_file_reopen (FerryTempFile *tmp, int dir_fd, const char *name, int *errsv);

char *ferry_temp_name_new (void);
char *ferry_temp_name_new_for (const char *journal_id);
gboolean ferry_temp_name_is_claimed (const char *name);
gboolean ferry_temp_name_parse (const char *name, FerryProcessId *owner);
gboolean ferry_temp_name_is_for (const char *name, const char *journal_id);
char *ferry_temp_name_new_folder (void);
gboolean ferry_temp_name_parse_folder (const char *name, FerryProcessId *owner);
int ferry_temp_file_claim_stale (int dir_fd, const char *name, struct stat *st);
gboolean ferry_temp_file_remove_stale (int dir_fd, const char *name);
gboolean ferry_temp_file_remove_discarded (int dir_fd, const char *name);
gboolean ferry_rename_noreplace (int dir_fd,
                                 const char *from,
                                 const char *to,
                                 atomic_bool *links_refused,
                                 int *errsv);

G_END_DECLS
