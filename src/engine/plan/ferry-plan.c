/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ferry-block-facts.h"
#include "ferry-error.h"
#include "ferry-format.h"
#include "ferry-fs-rules.h"
#include "ferry-fs.h"
#include "ferry-plan.h"
#include "ferry-trash.h"

static void
source_root_free (FerrySourceRoot *root)
{
  if (!root->shares_parent_fd)
    ferry_fd_closep (&root->parent_fd);
  g_free (root->parent_path);
  g_free (root->name);
  g_free (root->dst_name);
  g_free (root);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerrySourceRoot, source_root_free)

void
ferry_plan_free (FerryPlan *plan)
{
  g_clear_pointer (&plan->roots, g_ptr_array_unref);
  ferry_fd_closep (&plan->dst_fd);
  g_free (plan->dst_path);
  g_free (plan);
}

/* What a source as typed copies, and the name its copy gets in the
 * destination folder DEST, as coreutils cp 9.1 does (cp -r and cp -a,
 * tried on this machine; lnk is a link to a folder):
 *   file, dir, lnk        the entry itself, a link as a link: DEST/file, DEST/dir, DEST/lnk
 *   dir/, lnk/            the folder it names, through the link: DEST/dir, DEST/lnk
 *   dir/., lnk/., ., ..   the folder's entries, into DEST itself (merged into it)
 *   a/lnk/../file         ".." is the parent of the folder lnk leads to (the kernel's answer)
 * With one source and a DEST that does not exist, DEST is made as the
 * copy, in every case. Unlike cp -a, a folder merged into keeps its own
 * mode and times, as any folder Ferry merges into does.
 *
 * A source that names a folder (ferry_path_names_folder()) is opened
 * itself, by the kernel, and stands as the entry "." of itself; a copy
 * named "." is DEST itself (see ferry_folder_make()). This and
 * open_root_entry() return 0, or the errno of the open that failed. */
static int
open_root_folder (FerrySourceRoot *root, const char *given)
{
  g_autofree char *trimmed = ferry_path_trim_slashes (given);
  g_autofree char *base = g_path_get_basename (trimmed);

  /* Messages name "dir" for "dir/." and "dir/", and "a/lnk/.." as it is. */
  root->parent_path = strcmp (base, ".") == 0 ? g_path_get_dirname (trimmed) : g_strdup (trimmed);
  root->name = g_strdup (".");
  root->dst_name = g_strdup (ferry_is_dot_or_dotdot (base) ? "." : base);
  root->parent_fd = open (given, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return root->parent_fd >= 0 ? 0 : errno;
}

/* Sources in one folder (`ferry-copy ~/Pictures/IMG_*.jpg`, a selection
 * in a file manager) share its descriptor with the one before them: one
 * each ran out of descriptors at a few hundred sources where the limit
 * is 1,024, and the walks and the copy hold more for each. The path
 * names the folder whose descriptor a source holds, either way. */
static int
open_root_entry (FerrySourceRoot *root, const char *given, const FerrySourceRoot *before)
{
  root->parent_path = g_path_get_dirname (given);
  root->name = g_path_get_basename (given);
  root->dst_name = g_strdup (root->name);
  if (before != NULL && strcmp (before->parent_path, root->parent_path) == 0)
    {
      root->parent_fd = before->parent_fd;
      root->shares_parent_fd = TRUE;
      return 0;
    }
  root->parent_fd = open (root->parent_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return root->parent_fd >= 0 ? 0 : errno;
}

static gboolean
fail_source (const char *given, int errsv, GError **error)
{
  g_autofree char *trimmed = ferry_path_trim_slashes (given);
  struct stat st;

  if (errsv == ENOTDIR && stat (trimmed, &st) == 0 && !S_ISDIR (st.st_mode))
    return ferry_set_ferry_error (error, FERRY_ERROR_SOURCE_MISSING, _ ("“%s” is not a folder"),
                                  given);
  if (errsv == ENOENT || errsv == ENOTDIR)
    return ferry_set_ferry_error (error, FERRY_ERROR_SOURCE_MISSING, _ ("“%s” does not exist"),
                                  given);
  return ferry_set_error_from_errno (error, errsv, _ ("Could not read “%s”"), given);
}

static gboolean
is_filesystem_root (const struct stat *st)
{
  struct stat root_st;

  return S_ISDIR (st->st_mode) && stat ("/", &root_st) == 0 && ferry_stat_same_file (st, &root_st);
}

static FerrySourceRoot *
open_source_root (const char *given, const FerrySourceRoot *before, GError **error)
{
  g_autoptr (FerrySourceRoot) root = g_new0 (FerrySourceRoot, 1);
  int errsv = ferry_path_names_folder (given) ? open_root_folder (root, given)
                                              : open_root_entry (root, given, before);

  if (errsv == 0 && fstatat (root->parent_fd, root->name, &root->st, AT_SYMLINK_NOFOLLOW) != 0)
    errsv = errno;
  if (errsv != 0)
    {
      fail_source (given, errsv, error);
      return NULL;
    }
  if (is_filesystem_root (&root->st))
    {
      g_set_error (error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT,
                   _ ("The whole filesystem “/” cannot be copied; choose a folder inside it"));
      return NULL;
    }
  return g_steal_pointer (&root);
}

/* Stats the destination as typed into @st (*@exists) and refuses one
 * that names nothing a copy can go into or become. */
static gboolean
look_at_destination (const char *dest,
                     FerryDestinationMeaning meaning,
                     struct stat *st,
                     gboolean *exists,
                     GError **error)
{
  /* An empty argument (a variable that was not set) would be taken for
   * the current folder, and a folder's contents merged into it. */
  if (*dest == '\0')
    {
      g_set_error_literal (error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT,
                           _ ("The destination is empty: name the folder to copy into"));
      return FALSE;
    }
  *exists = stat (dest, st) == 0;
  /* "file/" or "file/sub": a file where a folder is named (it is no
   * more something Ferry "could not read"). */
  if (!*exists && errno == ENOTDIR)
    return ferry_set_ferry_error (error, FERRY_ERROR_SOURCE_MISSING, _ ("“%s” is not a folder"),
                                  dest);
  if (!*exists && errno != ENOENT)
    return ferry_set_error_from_errno (error, errno, _ ("Could not read “%s”"), dest);
  if (meaning == FERRY_DESTINATION_INTO_FOLDER && !(*exists && S_ISDIR (st->st_mode)))
    return ferry_set_ferry_error (error, FERRY_ERROR_SOURCE_MISSING,
                                  _ ("The destination folder “%s” does not exist"), dest);
  return TRUE;
}

/* Where the copies go: into DESTINATION when it is a folder; as
 * DESTINATION itself when there is one source and that name is free (or a
 * file to be settled as a conflict), or when @meaning says the folder
 * there is that source's copy, made by a run of the same command. A run
 * that continues one which copied into a folder deleted since is
 * refused: as a new name, the folder's contents would have become the
 * copy (KB/f1.bin where KB/set/f1.bin was going). */
static gboolean
resolve_destination (FerryPlan *plan,
                     const char *dest,
                     FerryDestinationMeaning meaning,
                     GError **error)
{
  g_autofree char *dir = NULL;
  struct stat st;
  gboolean exists = FALSE;
  FerrySourceRoot *only = plan->roots->len == 1 ? g_ptr_array_index (plan->roots, 0) : NULL;
  gboolean names_copy = meaning == FERRY_DESTINATION_NAMES_COPY && only != NULL
                        && S_ISDIR (only->st.st_mode);

  if (!look_at_destination (dest, meaning, &st, &exists, error))
    return FALSE;
  if (exists && S_ISDIR (st.st_mode) && !names_copy)
    dir = g_strdup (dest);
  else if (only == NULL)
    return ferry_set_ferry_error (
        error, FERRY_ERROR_INVALID_ARGUMENT,
        _ ("“%s” is not a folder; to copy several items, the destination must "
           "be an existing folder"),
        dest);
  else if (exists && !S_ISDIR (st.st_mode) && S_ISDIR (only->st.st_mode))
    return ferry_set_ferry_error (error, FERRY_ERROR_EXISTS,
                                  _ ("“%s” is a file; a folder cannot be copied onto it"), dest);
  else if (!exists && ferry_path_names_folder (dest) && !S_ISDIR (only->st.st_mode))
    /* "new/" can only be a folder: cp says the same of a file. */
    return ferry_set_ferry_error (error, FERRY_ERROR_SOURCE_MISSING,
                                  _ ("The destination folder “%s” does not exist"), dest);
  else
    {
      g_autofree char *trimmed = ferry_path_trim_slashes (dest);
      dir = g_path_get_dirname (trimmed);
      g_free (only->dst_name);
      only->dst_name = g_path_get_basename (trimmed);
      plan->meaning = FERRY_DESTINATION_NAMES_COPY;
    }

  plan->dst_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (plan->dst_fd < 0)
    {
      if (errno == ENOENT || errno == ENOTDIR)
        return ferry_set_ferry_error (error, FERRY_ERROR_SOURCE_MISSING,
                                      _ ("The destination folder “%s” does not exist"), dir);
      return ferry_set_error_from_errno (error, errno,
                                         _ ("Could not open the destination folder “%s”"), dir);
    }
  fstat (plan->dst_fd, &plan->dst_st);
  plan->dst_path = g_steal_pointer (&dir);
  return TRUE;
}

/* True when @folder is @st or lies anywhere below it. Walks up with ".."
 * and compares device and inode, so bind mounts and symlinks do not hide
 * the relation. */
static gboolean
is_inside (int folder_fd, const struct stat *st)
{
  ferry_autofd fd = fcntl (folder_fd, F_DUPFD_CLOEXEC, 3);
  struct stat here;

  while (fd >= 0 && fstat (fd, &here) == 0)
    {
      struct stat up;
      int parent;

      if (ferry_stat_same_file (&here, st))
        return TRUE;
      parent = openat (fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (parent < 0 || fstat (parent, &up) != 0 || ferry_stat_same_file (&up, &here))
        {
          if (parent >= 0)
            close (parent);
          return FALSE;
        }
      close (fd);
      fd = parent;
    }
  return FALSE;
}

/* True when @a is @b or a folder below it, comparing whole names. */
static gboolean
path_is_within (const char *a, const char *b)
{
  size_t len = strlen (b);

  if (strcmp (b, "/") == 0)
    return TRUE;
  return strncmp (a, b, len) == 0 && (a[len] == '\0' || a[len] == '/');
}

/* is_inside() for a destination reached through a bind mount of a folder
 * of the source: from the mount's root, ".." leads to where it is
 * mounted, not into the source. The two, reached through different
 * mounts of one filesystem, are compared by where each lies in it (the
 * mount table is read only then, not for every copy within one disk). */
static gboolean
is_inside_through_mount (int folder_fd, const FerrySourceRoot *root)
{
  ferry_autofd src_fd = -1;
  struct stat folder_st, src_st;
  g_autofree char *folder_path = NULL;
  g_autofree char *src_path = NULL;

  if (fstat (folder_fd, &folder_st) != 0 || folder_st.st_dev != root->st.st_dev)
    return FALSE;
  src_fd = openat (root->parent_fd, root->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (src_fd < 0 || fstat (src_fd, &src_st) != 0 || !ferry_stat_same_file (&src_st, &root->st)
      || ferry_fs_same_mount (folder_fd, src_fd))
    return FALSE;
  folder_path = ferry_fs_path_in_filesystem (folder_fd);
  src_path = ferry_fs_path_in_filesystem (src_fd);
  return folder_path != NULL && src_path != NULL && path_is_within (folder_path, src_path);
}

/* Where @dir_fd's entry @name ("." for the folder itself) lies in its
 * filesystem (see ferry_fs_path_in_filesystem()), its names folded as
 * @rules compare them; NULL where the kernel cannot say. */
static char *
folded_path_in_filesystem (int dir_fd, const char *name, const FerryFsRules *rules)
{
  g_autofree char *folder = ferry_fs_path_in_filesystem (dir_fd);
  g_autofree char *path = NULL;

  if (folder == NULL)
    return NULL;
  path = strcmp (name, ".") == 0 ? g_steal_pointer (&folder)
                                 : g_build_filename (folder, name, NULL);
  return ferry_fs_rules_fold_name (rules, path);
}

/* Whether the destination's entry @dst_name ("." for the destination
 * folder itself) is the source spelled in other capitals on a drive that
 * ignores them, or, with @or_below, lies below it. exfat-fuse and fusefat
 * give each spelling an inode number of its own ("A" 2, "a" 6), so
 * neither stat nor a walk up with ".." finds it: "A" copied into "a/sub"
 * copied itself into itself until it ran out of descriptors, and "A/f"
 * was copied onto "A/F". There the two are compared by where each lies
 * in the filesystem, whichever mount or link reached it, as the drive
 * compares names. */
static gboolean
is_spelled_otherwise (FerryPlan *plan,
                      const FerrySourceRoot *root,
                      const char *dst_name,
                      gboolean or_below)
{
  FerryFsRules rules;
  g_autofree char *src = NULL;
  g_autofree char *dst = NULL;

  if (plan->dst_st.st_dev != root->st.st_dev)
    return FALSE;
  ferry_fs_rules_for_kind (FERRY_FS_KIND_EXFAT, 0, &rules);
  src = folded_path_in_filesystem (root->parent_fd, root->name, &rules);
  dst = folded_path_in_filesystem (plan->dst_fd, dst_name, &rules);
  if (src == NULL || dst == NULL
      || !(or_below ? path_is_within (dst, src) : strcmp (dst, src) == 0))
    return FALSE;
  /* Asked only now: of a FUSE mount, it reads the device. */
  ferry_fs_rules_for_fd (plan->dst_fd, &rules);
  return rules.folds_case;
}

/* A folder opened as itself (its entry ".") is named by its own path. */
static char *
root_source_path (const FerrySourceRoot *root)
{
  if (strcmp (root->name, ".") == 0)
    return g_strdup (root->parent_path);
  return g_build_filename (root->parent_path, root->name, NULL);
}

static gboolean
check_not_onto_itself (FerryPlan *plan, FerrySourceRoot *root, GError **error)
{
  g_autofree char *src_path = root_source_path (root);
  struct stat dst_st;

  if (S_ISDIR (root->st.st_mode)
      && (is_inside (plan->dst_fd, &root->st) || is_inside_through_mount (plan->dst_fd, root)
          || is_spelled_otherwise (plan, root, ".", TRUE)))
    {
      g_autofree char *src = ferry_path_display (src_path);
      g_autofree char *dst = ferry_path_display (plan->dst_path);
      struct stat dst_folder;

      /* Named as its own destination, the folder is not "inside" itself. */
      if ((fstat (plan->dst_fd, &dst_folder) == 0 && ferry_stat_same_file (&dst_folder, &root->st))
          || is_spelled_otherwise (plan, root, ".", FALSE))
        g_set_error (error, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                     _ ("The folder “%s” cannot be copied into itself"), src);
      else
        g_set_error (error, FERRY_ERROR, FERRY_ERROR_INTO_ITSELF,
                     _ ("The folder “%s” cannot be copied into itself (“%s” is inside it)"),
                     src, dst);
      return FALSE;
    }
  if (fstatat (plan->dst_fd, root->dst_name, &dst_st, AT_SYMLINK_NOFOLLOW) == 0
      && (ferry_stat_same_file (&dst_st, &root->st)
          || is_spelled_otherwise (plan, root, root->dst_name, FALSE)))
    {
      g_autofree char *src = ferry_path_display (src_path);
      g_autofree char *dst = ferry_path_display_join (plan->dst_path, root->dst_name);
      g_set_error (error, FERRY_ERROR, FERRY_ERROR_SAME_FILE,
                   S_ISDIR (root->st.st_mode)
                       ? _ ("“%s” and “%s” are the same folder; it cannot be copied onto itself")
                       : _ ("“%s” and “%s” are the same file; it cannot be copied onto itself"),
                   src, dst);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_writable (FerryPlan *plan, GError **error)
{
  if (faccessat (plan->dst_fd, ".", W_OK | X_OK, AT_EACCESS) == 0)
    return TRUE;
  if (errno == EROFS && ferry_block_is_write_protected (plan->dst_st.st_dev, NULL))
    {
      g_autofree char *display = ferry_path_display (plan->dst_path);
      /* A person who never read a manual looks for a fault, not a switch. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY,
                   _ ("Cannot write to “%s”: its drive is write-protected. If it is an SD card "
                      "or has a lock switch, slide the switch to unlock it and plug it in again"),
                   display);
      return FALSE;
    }
  if (errno == EROFS)
    return ferry_set_error_from_errno (error, errno, _ ("Cannot write to “%s”"), plan->dst_path);
  if (errno == EACCES || errno == EPERM)
    {
      g_autofree char *display = ferry_path_display (plan->dst_path);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _ ("You do not have permission to write to “%s”"), display);
      return FALSE;
    }
  return ferry_set_error_from_errno (error, errno, _ ("Cannot write to “%s”"), plan->dst_path);
}

/* Two sources with the same name would land on one destination, the
 * second over the copy of the first. */
static gboolean
check_distinct_names (FerryPlan *plan, GError **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);

      /* Folders whose entries go into the destination folder itself merge
       * there, as their subfolders would. */
      if (strcmp (root->dst_name, ".") == 0)
        continue;
      if (!g_hash_table_add (names, root->dst_name))
        {
          g_autofree char *path = g_build_filename (plan->dst_path, root->dst_name, NULL);
          return ferry_set_ferry_error (
              error, FERRY_ERROR_INVALID_ARGUMENT,
              _ ("Two of the sources are named alike: both would be copied to “%s”"), path);
        }
    }
  return TRUE;
}

/**
 * ferry_plan_resolve:
 * Opens the sources and the destination folder and refuses, before any
 * byte is written, what cannot work: a missing source, a folder into
 * itself, a file onto itself, a destination that cannot be written.
 * The plan's meaning says what @destination turned out to stand for.
 */
FerryPlan *
ferry_plan_resolve (const char *const *sources,
                    const char *destination,
                    FerryDestinationMeaning meaning,
                    GError **error)
{
  g_autoptr (FerryPlan) plan = g_new0 (FerryPlan, 1);

  plan->dst_fd = -1;
  plan->roots = g_ptr_array_new_with_free_func ((GDestroyNotify) source_root_free);

  if (sources[0] == NULL)
    {
      g_set_error (error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT, _ ("Nothing to copy"));
      return NULL;
    }
  for (guint i = 0; sources[i] != NULL; i++)
    {
      FerrySourceRoot *before = i > 0 ? g_ptr_array_index (plan->roots, i - 1) : NULL;
      FerrySourceRoot *root = open_source_root (sources[i], before, error);

      if (root == NULL)
        return NULL;
      g_ptr_array_add (plan->roots, root);
    }

  if (!resolve_destination (plan, destination, meaning, error)
      || !check_distinct_names (plan, error))
    return NULL;
  for (guint i = 0; i < plan->roots->len; i++)
    if (!check_not_onto_itself (plan, g_ptr_array_index (plan->roots, i), error))
      return NULL;
  if (!check_writable (plan, error))
    return NULL;
  return g_steal_pointer (&plan);
}

/* The blocks this process may fill. Root may take what ext4 keeps for
 * root (mkfs -m), but not the clusters it keeps for its own metadata,
 * which f_bfree counts too: on a 60 MB stick a file of 50.0 MB was
 * accepted and ran out of space halfway. Elsewhere f_bavail, which is
 * f_bfree where there is no reserve (btrfs counts in f_bfree room no one
 * can fill). */
static guint64
writable_blocks (FerryPlan *plan, const struct statvfs *vfs)
{
  struct statfs fs;
  guint64 kept;

  if (geteuid () != 0 || fstatfs (plan->dst_fd, &fs) != 0 || fs.f_type != EXT4_SUPER_MAGIC
      || !ferry_block_ext4_kept_clusters (plan->dst_st.st_dev, &kept) || kept > vfs->f_bfree)
    return vfs->f_bavail;
  return MAX (vfs->f_bavail, vfs->f_bfree - kept);
}

/* G_MAXUINT64 where the destination does not say: fusefat reports no
 * size at all (0 blocks, 0 free) for FAT32 with clusters under 1 KiB,
 * as mkfs.vfat makes them below 260 MB; every copy there was refused
 * for want of room ("only 0 bytes are available"). */
static guint64
available_bytes (FerryPlan *plan)
{
  struct statvfs vfs;

  if (fstatvfs (plan->dst_fd, &vfs) != 0 || vfs.f_blocks == 0)
    return G_MAXUINT64;
  return writable_blocks (plan, &vfs) * vfs.f_frsize + plan->reclaimable;
}

/* When the destination has more room than all the source filesystems
 * hold, the plan fits whatever it turns out to be, and the copy need not
 * wait for the planner's totals. A source on the destination's own
 * filesystem is no exception: what it holds is part of what is used
 * there (and a folder is never copied into itself). */
gboolean
ferry_plan_surely_fits (FerryPlan *plan)
{
  guint64 available = available_bytes (plan);
  guint64 used = 0;
  guint64 used_files = 0;
  gboolean files_bounded = TRUE;
  struct statvfs dst_vfs;

  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);
      struct statvfs vfs;

      if (fstatvfs (root->parent_fd, &vfs) != 0)
        return FALSE;
      used += (guint64) (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize;
      /* A filesystem that does not count inodes (btrfs) gives no bound
       * on how many files a source holds. */
      files_bounded = files_bounded && vfs.f_files > 0;
      used_files += vfs.f_files - vfs.f_ffree;
    }
  /* The number of files must surely fit too, or a destination with bytes
   * to spare but few inodes left would be filled until ENOSPC instead of
   * being refused by ferry_plan_check_space() before the copy. */
  if (fstatvfs (plan->dst_fd, &dst_vfs) == 0 && dst_vfs.f_files > 0
      && (!files_bounded || used_files >= dst_vfs.f_favail))
    return FALSE;
  /* Leave room for the copies' own metadata. */
  return used + used / 8 < available;
}

static gboolean
shares_extents (FerryPlan *plan)
{
  struct statfs fs;

  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);
      if (root->st.st_dev != plan->dst_st.st_dev)
        return FALSE;
    }
  return fstatfs (plan->dst_fd, &fs) == 0
         && (fs.f_type == XFS_SUPER_MAGIC || fs.f_type == BTRFS_SUPER_MAGIC);
}

/* How much is needed and how much there is, and what to do: as files
 * deleted on a stick stay on it in its Trash (a stick that looks empty
 * may be full), how much emptying the Trash would give back. */
static void
set_no_space_error (FerryPlan *plan, guint64 needed, guint64 available, GError **error)
{
  g_autofree char *display = NULL;
  g_autofree char *needed_str = NULL;
  g_autofree char *available_str = NULL;
  g_autofree char *trash_str = NULL;
  guint64 trash;

  if (error == NULL)
    return; /* the Trash is not walked for nothing */
  display = ferry_path_display (plan->dst_path);
  needed_str = g_format_size (needed);
  available_str = g_format_size (available);
  trash = ferry_trash_space_on (plan->dst_fd);
  trash_str = g_format_size (trash);
  if (trash == 0)
    g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE,
                 _ ("There is not enough space in “%s”: %s are needed, only %s are available. "
                    "Make room there, or choose another destination."),
                 display, needed_str, available_str);
  else
    g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE,
                 /* TRANSLATORS: the last size is what the Trash holds on that drive */
                 _ ("There is not enough space in “%s”: %s are needed, only %s are available; "
                    "emptying the Trash would free %s more."),
                 display, needed_str, available_str, trash_str);
}

/**
 * ferry_plan_check_space:
 * Refuses a plan that cannot fit, saying how much is needed and how much
 * there is. Within one filesystem that shares extents (XFS, btrfs) the
 * copies take no room for their data.
 */
gboolean
ferry_plan_check_space (FerryPlan *plan, const FerryTreeTotals *totals, GError **error)
{
  guint64 needed = totals->needed + totals->metadata;
  guint64 available = available_bytes (plan);
  struct statvfs vfs;

  if (shares_extents (plan))
    needed = totals->files * 4096;

  if (needed > available)
    {
      set_no_space_error (plan, needed, available, error);
      return FALSE;
    }

  if (fstatvfs (plan->dst_fd, &vfs) == 0 && vfs.f_files > 0 && totals->files > vfs.f_favail)
    {
      g_autofree char *display = ferry_path_display (plan->dst_path);
      g_autofree char *wanted = ferry_format_count (totals->files);
      g_autofree char *room = ferry_format_count (vfs.f_favail);
      g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_ENOUGH_SPACE,
                   /* Translators: the number of files and folders to copy, the
                    * destination folder, and how many more its filesystem can
                    * hold, like "There is no room for 70 more items in “/media/
                    * stick”: its filesystem can hold only 63 more" */
                   g_dngettext (GETTEXT_PACKAGE,
                                "There is no room for %s more item in “%s”: its filesystem can "
                                "hold only %s more",
                                "There is no room for %s more items in “%s”: its filesystem can "
                                "hold only %s more",
                                totals->files),
                   wanted, display, room);
      return FALSE;
    }
  return TRUE;
}
