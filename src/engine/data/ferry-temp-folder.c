/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-fs.h"
#include "ferry-temp-file.h"
#include "ferry-temp-folder.h"

/* A folder that did not exist before the copy is built under a hidden
 * name of Ferry's (as temporary files get, with a tag of its own:
 * ".ferry-*-d.part", ferry_temp_name_new_folder()) and
 * renamed into place once everything inside is durable. A kill leaves
 * it hidden; the next run into its parent folder removes it, with all
 * it holds, once its maker is gone and its lock free. */

#define LISTING_BUFFER_SIZE (16 * 1024)

/* Locked while its maker builds it; the kernel lets go when the process
 * ends, however it ends. Where locks are refused the name alone speaks
 * for the folder. */
gboolean
ferry_temp_folder_hold (int fd)
{
  return flock (fd, LOCK_EX | LOCK_NB) == 0;
}

/* Removes everything inside the folder @fd, which is Ferry's own copy:
 * names only, never what a link leads to. A read-only folder copied
 * inside is opened up first, or its entries could not go. */
static void
empty_folder (int fd)
{
  g_autoptr (GPtrArray) names = ferry_dir_list_names (fd, LISTING_BUFFER_SIZE);

  (void) fchmod (fd, S_IRWXU);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      ferry_autofd sub = -1;

      if (unlinkat (fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
        continue;
      sub = openat (fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        continue;
      empty_folder (sub);
      unlinkat (fd, name, AT_REMOVEDIR);
    }
}

/* Removes the folder @fd, found at @name in @parent_fd, when the name
 * still leads to it. */
static gboolean
remove_opened (int parent_fd, const char *name, int fd)
{
  struct stat opened, now;

  if (fstat (fd, &opened) != 0)
    return FALSE;
  empty_folder (fd);
  return fstatat (parent_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0
         && ferry_stat_same_file (&opened, &now) && unlinkat (parent_fd, name, AT_REMOVEDIR) == 0;
}

/**
 * ferry_temp_folder_remove:
 * Removes the hidden folder @name this run made in @parent_fd, and all
 * it holds (a job cancelled or failed before the folder was placed).
 */
gboolean
ferry_temp_folder_remove (int parent_fd, const char *name)
{
  ferry_autofd fd = openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  return fd >= 0 && remove_opened (parent_fd, name, fd);
}

/**
 * ferry_temp_folder_claim_stale:
 * Opens @name in @parent_fd when it is a hidden folder another run
 * left: named exactly as Ferry names them (never as its temporary
 * files), a folder (never reached through a link), its maker gone and
 * its lock free. Returns the descriptor, holding the lock; -1 for
 * anything else.
 */
int
ferry_temp_folder_claim_stale (int parent_fd, const char *name)
{
  FerryProcessId owner;
  ferry_autofd fd = -1;

  if (!ferry_temp_name_parse_folder (name, &owner) || !ferry_process_is_gone (&owner))
    return -1;
  fd = openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || !ferry_temp_folder_hold (fd))
    return -1;
  return ferry_fd_steal (&fd);
}

/**
 * ferry_temp_folder_remove_stale:
 * Removes @name from @parent_fd, and all it holds, when it is a hidden
 * folder another run left (see ferry_temp_folder_claim_stale()).
 */
gboolean
ferry_temp_folder_remove_stale (int parent_fd, const char *name)
{
  ferry_autofd fd = ferry_temp_folder_claim_stale (parent_fd, name);

  return fd >= 0 && remove_opened (parent_fd, name, fd);
}

/**
 * ferry_temp_remove_stale_below:
 * Removes @relpath, a path below the folder @root_fd, when it is a stale
 * temporary file (ferry_temp_file_remove_stale()) or hidden folder
 * (ferry_temp_folder_remove_stale()).
 */
gboolean
ferry_temp_remove_stale_below (int root_fd, const char *relpath)
{
  g_autofree char *folder = g_path_get_dirname (relpath);
  g_autofree char *name = g_path_get_basename (relpath);
  ferry_autofd dir_fd = ferry_open_folder_beneath (root_fd, folder);

  return dir_fd >= 0
         && (ferry_temp_file_remove_stale (dir_fd, name)
             || ferry_temp_folder_remove_stale (dir_fd, name));
}

/* The names in the folder @dir_fd that are named as Ferry's temporary
 * @files and hidden @folders are. */
static void
list_temps (int dir_fd, GPtrArray *files, GPtrArray *folders)
{
  ferry_autofd fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  FerryDirReader reader;
  const char *name;
  unsigned char d_type;
  int errsv;

  if (fd < 0)
    return;
  ferry_dir_reader_init (&reader, fd, LISTING_BUFFER_SIZE);
  while (ferry_dir_reader_next (&reader, &name, &d_type, &errsv))
    {
      if ((d_type == DT_REG || d_type == DT_UNKNOWN) && ferry_temp_name_parse (name, NULL))
        g_ptr_array_add (files, g_strdup (name));
      if ((d_type == DT_DIR || d_type == DT_UNKNOWN) && ferry_temp_name_parse_folder (name, NULL))
        g_ptr_array_add (folders, g_strdup (name));
    }
  ferry_dir_reader_clear (&reader);
}

/**
 * ferry_temp_sweep:
 * Removes every stale temporary file and hidden folder in the folder
 * @dir_fd; returns how many went.
 */
guint
ferry_temp_sweep (int dir_fd)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  guint removed = 0;

  list_temps (dir_fd, files, folders);
  for (guint i = 0; i < files->len; i++)
    removed += ferry_temp_file_remove_stale (dir_fd, g_ptr_array_index (files, i));
  for (guint i = 0; i < folders->len; i++)
    removed += ferry_temp_folder_remove_stale (dir_fd, g_ptr_array_index (folders, i));
  return removed;
}

/* A hidden folder of another user's is theirs, as their temporary files
 * are (see ferry_temp_file_claim_stale()). */
static gboolean
is_own_folder (int parent_fd, const char *name)
{
  struct stat st;

  return fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
         && (st.st_uid == geteuid () || !ferry_fs_keeps_file_owners (parent_fd));
}

/**
 * ferry_temp_sweep_discarded:
 * Removes from the folder @dir_fd what the transfer @journal_id, just
 * discarded, left there, as far as its name tells: its temporary files
 * that no job writes (ferry_temp_file_remove_discarded()), recorded by
 * its journal or made after its last save, and the hidden folders of
 * runs that are gone, which carry no transfer's name (no run continues
 * one: the next copy into the folder would remove them). Temporary files
 * of other transfers stay for them. Returns how many went.
 */
guint
ferry_temp_sweep_discarded (int dir_fd, const char *journal_id)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  guint removed = 0;

  list_temps (dir_fd, files, folders);
  for (guint i = 0; i < files->len; i++)
    {
      const char *name = g_ptr_array_index (files, i);

      if (ferry_temp_name_is_for (name, journal_id))
        removed += ferry_temp_file_remove_discarded (dir_fd, name);
    }
  for (guint i = 0; i < folders->len; i++)
    {
      const char *name = g_ptr_array_index (folders, i);

      if (is_own_folder (dir_fd, name))
        removed += ferry_temp_folder_remove_stale (dir_fd, name);
    }
  return removed;
}
