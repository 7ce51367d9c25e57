/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-named-file.h"

/* How many copies may be held open waiting for a sync: a quarter of the
 * descriptors this process may open (the rest are for the tree's folders
 * and the files being copied), at least 64 and at most @ceiling. */
guint
ferry_named_files_open_max (guint ceiling)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return ceiling;
  return CLAMP (limit.rlim_cur / 4, 64, ceiling);
}

void
ferry_named_file_free (FerryNamedFile *named)
{
  ferry_fd_closep (&named->fd);
  g_free (named->relpath);
  named->free (named);
}

/* Closes the copy, which is known by its inode from now on (a copy
 * that cannot be told is never taken for the file at its name). */
void
ferry_named_file_let_go (FerryNamedFile *named)
{
  struct stat st;

  if (named->fd < 0)
    return;
  if (fstat (named->fd, &st) == 0)
    {
      named->dev = st.st_dev;
      named->ino = st.st_ino;
    }
  ferry_fd_closep (&named->fd);
}

/* Takes the copy's name away, only if the name is still the copy's:
 * reached without following a link, never another file put there. */
static void
unname (FerryNamedFile *named, int root_fd)
{
  const char *base;
  ferry_autofd dir_fd = ferry_open_parent_beneath (root_fd, named->relpath, &base);
  struct stat at_name;

  ferry_named_file_let_go (named);
  if (dir_fd >= 0 && named->ino != 0
      && fstatat (dir_fd, base, &at_name, AT_SYMLINK_NOFOLLOW) == 0
      && at_name.st_dev == named->dev && at_name.st_ino == named->ino)
    unlinkat (dir_fd, base, 0);
}

/**
 * ferry_named_files_settle:
 * A sync that covered @names returned @errsv. 0 (or ECANCELED: the job
 * ended without its sync): they keep their names, and are forgotten.
 * Else none is known to be on the device, and none keeps its name. No
 * file can vouch for itself: through a FUSE daemon an fsync reports the
 * device's error to whichever file asks first, and on ext4 whose journal
 * failed a file's fsync returned 0 although its name never reached the
 * device (seen by test-slow-device's writeback-fails/auto/ext4, the
 * filesystem still not read-only). Then all are freed.
 */
void
ferry_named_files_settle (GPtrArray *names, int root_fd, int errsv)
{
  for (guint i = 0; i < names->len; i++)
    {
      FerryNamedFile *named = g_ptr_array_index (names, i);

      if (errsv != 0 && errsv != ECANCELED)
        {
          unname (named, root_fd);
          named->lost (named, errsv);
        }
      else if (errsv == 0 && named->kept != NULL)
        named->kept (named);
      ferry_named_file_free (named);
    }
  g_ptr_array_set_size (names, 0);
}
