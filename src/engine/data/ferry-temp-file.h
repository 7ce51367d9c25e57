/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <stdatomic.h>
#include <sys/types.h>

G_BEGIN_DECLS

/**
 * FerryTempFile:
 * The file a copy is written into before it gets its final name. Where
 * the filesystem allows it this is an unnamed O_TMPFILE, which the kernel
 * deletes by itself if Ferry is killed; elsewhere a hidden ".ferry-*.part"
 * name that Ferry removes on cancel or failure. Either way the final name
 * only ever appears with complete data and metadata.
 */
typedef struct
{
  int fd;
  int dir_fd;  /* not owned */
  char *name;  /* NULL for an unnamed file */
  mode_t mode; /* asked for at creation, before the umask */
} FerryTempFile;

#define FERRY_TEMP_FILE_INIT                                                                       \
  {                                                                                                \
    -1, -1, NULL, 0                                                                                \
  }

gboolean ferry_temp_file_open (FerryTempFile *tmp,
                               int dir_fd,
                               mode_t mode,
                               atomic_bool *unnamed_unsupported,
                               int *errsv);
gboolean ferry_temp_file_commit (FerryTempFile *tmp,
                                 const char *final_name,
                                 gboolean replace,
                                 int *errsv);
void ferry_temp_file_discard (FerryTempFile *tmp);

char *ferry_temp_name_new (void);
gboolean ferry_temp_name_is_ours (const char *name);
gboolean ferry_rename_noreplace (int dir_fd, const char *from, const char *to, int *errsv);

G_END_DECLS
