/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct _FerryNamedFile FerryNamedFile;

/**
 * FerryNamedFile:
 * A copy that got its final name before a sync vouched for its data (the
 * fast strategy names files as soon as they are written): where it is,
 * and the copy itself, kept open until a sync covers it. The tree embeds
 * it in a record of its own and says through @lost how it failed.
 */
struct _FerryNamedFile
{
  char *relpath; /* below the destination folder of the job */
  int fd;        /* the copy, owned; or -1, the copy being known by: */
  dev_t dev;
  ino_t ino;
  /* Called once, when the copy lost its name (or was replaced by
   * someone): @errsv says why its data may not be on the device. */
  void (*lost) (FerryNamedFile *named, int errsv);
  /* Called once, when a sync vouched for the copy and its name; may be
   * NULL. */
  void (*kept) (FerryNamedFile *named);
  void (*free) (FerryNamedFile *named);
};

guint ferry_named_files_open_max (guint ceiling);
void ferry_named_file_let_go (FerryNamedFile *named);
void ferry_named_file_free (FerryNamedFile *named);
void ferry_named_files_settle (GPtrArray *names, int root_fd, int errsv);

G_END_DECLS
