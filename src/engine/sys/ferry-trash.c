/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-trash.h"
#include "ferry-tree-size.h"

/* The space what @name in @parent_fd holds takes, when it is a folder on
 * the filesystem @dev. */
static guint64
folder_space (int parent_fd, const char *name, dev_t dev)
{
  FerryTreeTotals totals = { 0 };
  struct stat st;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR (st.st_mode)
      || st.st_dev != dev)
    return 0;
  ferry_tree_measure_at (parent_fd, name, &totals, NULL);
  return totals.needed;
}

/* The Trash folders a drive keeps in its top folder for this person
 * (.Trash/$uid, made by an administrator, and .Trash-$uid): where GNOME
 * Files puts what is deleted on a stick. */
static guint64
top_trash_space (dev_t dev)
{
  g_autofree char *top = NULL;
  g_autofree char *uid = g_strdup_printf ("%u", (guint) getuid ());
  g_autofree char *own = g_strdup_printf (".Trash-%s", uid);
  ferry_autofd top_fd = -1;
  ferry_autofd shared_fd = -1;
  guint64 space;

  if (!ferry_fs_find_mount_point (dev, NULL, NULL, &top)
      || (top_fd = open (top, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return 0;
  space = folder_space (top_fd, own, dev);
  shared_fd = openat (top_fd, ".Trash", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (shared_fd >= 0)
    space += folder_space (shared_fd, uid, dev);
  return space;
}

/* The home Trash ($XDG_DATA_HOME/Trash), where it is on the filesystem
 * @dev: where what is deleted on the home disk goes. */
static guint64
home_trash_space (dev_t dev)
{
  ferry_autofd data_fd = open (g_get_user_data_dir (), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  return data_fd >= 0 ? folder_space (data_fd, "Trash", dev) : 0;
}

/**
 * ferry_trash_space_on:
 * @dir_fd: a folder
 *
 * Returns: the space the person's Trash takes on the filesystem of
 * @dir_fd, which emptying the Trash gives back (the folders of the
 * freedesktop.org Trash specification). Files deleted on a stick stay on
 * it, in its Trash, until the Trash is emptied: a stick that looks empty
 * may be full. 0 when there is none, or it cannot be read.
 */
guint64
ferry_trash_space_on (int dir_fd)
{
  struct stat st;

  if (fstat (dir_fd, &st) != 0)
    return 0;
  return top_trash_space (st.st_dev) + home_trash_space (st.st_dev);
}
