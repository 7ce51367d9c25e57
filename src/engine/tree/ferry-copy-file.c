/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "ferry-continue.h"
#include "ferry-copy-file.h"
#include "ferry-fs.h"
#include "ferry-place.h"
#include "ferry-regular-file.h"
#include "ferry-special-file.h"
#include "ferry-temp-file.h"

/* Opens the folder of the copy, where it is (the first of @relpaths
 * below @root_fd that leads to a folder: a hidden folder it was in may
 * have its own name by now). */
static int
open_copy_folder (int root_fd, const char *const *relpaths, const char **base)
{
  int dir_fd = -1;

  for (guint i = 0; dir_fd < 0 && relpaths[i] != NULL; i++)
    dir_fd = ferry_open_parent_beneath (root_fd, relpaths[i], base);
  return dir_fd;
}

/* Gives @name in @dst_fd to the copy @copy at @relpaths below @root_fd.
 * The path is walked without following symlinks and the new name checked
 * to be that copy, so a folder or file someone swapped in since Ferry
 * made it never gets linked into the destination. FALSE with errno. */
static gboolean
link_copy_at (int root_fd,
              const char *const *relpaths,
              const FerryInodeKey *copy,
              int dst_fd,
              const char *name)
{
  const char *base;
  ferry_autofd dir_fd = open_copy_folder (root_fd, relpaths, &base);
  struct stat st;

  if (dir_fd < 0 || linkat (dir_fd, base, dst_fd, name, 0) != 0)
    return FALSE;
  if (fstatat (dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == copy->dev
      && st.st_ino == copy->ino)
    return TRUE;
  unlinkat (dst_fd, name, 0);
  errno = ENOENT; /* not the copy: as if it were gone */
  return FALSE;
}

/* Makes the copy's name another name of a file this job already copied.
 * FALSE without an error means "copy it instead" (the filesystem has no
 * hard links, or the first copy is gone or was replaced). */
static gboolean
link_to_copy (const FerryEntry *entry,
              const char *const *relpaths,
              const FerryInodeKey *copy,
              GError **error)
{
  FerryDirNode *node = entry->node;
  int root_fd = ferry_dir_node_get_root (node)->dst_fd;

  if (entry->replace)
    {
      g_autofree char *temp_name = ferry_temp_name_new ();
      if (link_copy_at (root_fd, relpaths, copy, node->dst_fd, temp_name))
        {
          if (renameat (node->dst_fd, temp_name, node->dst_fd, entry->dst_name) == 0)
            return TRUE;
          unlinkat (node->dst_fd, temp_name, 0);
        }
    }
  else if (link_copy_at (root_fd, relpaths, copy, node->dst_fd, entry->dst_name))
    return TRUE;

  if (errno == EPERM || errno == EMLINK || errno == ENOENT || errno == EXDEV
      || errno == ENAMETOOLONG || errno == ELOOP || errno == ENOTDIR)
    return FALSE;
  return ferry_entry_fail_errno (entry, FALSE, errno, _ ("Could not create the hard link “%s”"),
                                 error);
}

/* The first copied name of a file with several is where the others link
 * to; a failed one lets the next name be copied instead. */
static void
remember_copy (FerryTreeContext *ctx, const FerryEntry *entry, gboolean copied)
{
  g_autofree char *relpath = NULL;
  g_autofree char *final_relpath = NULL;
  struct stat st;
  FerryInodeKey copy;

  if (!copied || fstatat (entry->node->dst_fd, entry->dst_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      ferry_hardlinks_release (ctx->hardlinks, &entry->st);
      return;
    }
  copy = (FerryInodeKey) { st.st_dev, st.st_ino };
  relpath = ferry_dir_node_dst_relpath (entry->node, entry->dst_name);
  final_relpath = ferry_dir_node_dst_final_relpath (entry->node, entry->dst_name);
  ferry_hardlinks_copied (ctx->hardlinks, &entry->st,
                          (const char *const[]){ relpath, final_relpath, NULL }, &copy);
}

/* Copies the entry, or links it to the copy of another of its names.
 * *@first_name tells whether its bytes were counted in the plan (the
 * planner counts each file with several names once). */
static FerryFileOutcome
copy_or_link (FerryTreeContext *ctx,
              FerryEntry *entry,
              int *src_fd,
              gboolean *first_name,
              GError **error)
{
  gboolean hardlinked = entry->st.st_nlink > 1 && ctx->rules.keeps_hardlinks;
  g_auto (GStrv) link_relpaths = NULL;
  FerryInodeKey copy;
  FerryFileOutcome outcome;

  if (hardlinked
      && (link_relpaths = ferry_hardlinks_claim (ctx->hardlinks, &entry->st, &copy)) != NULL)
    {
      GError *link_error = NULL;

      *first_name = FALSE;
      if (link_to_copy (entry, (const char *const *) link_relpaths, &copy, &link_error))
        return FERRY_FILE_COPIED;
      if (link_error != NULL)
        {
          g_propagate_error (error, link_error);
          return FERRY_FILE_FAILED;
        }
      hardlinked = FALSE;
    }

  if (S_ISREG (entry->st.st_mode))
    outcome = ferry_regular_file_copy (ctx, entry, src_fd, error);
  else
    outcome = ferry_special_file_copy (ctx, entry, error) ? FERRY_FILE_COPIED : FERRY_FILE_FAILED;
  if (hardlinked)
    remember_copy (ctx, entry, outcome == FERRY_FILE_COPIED && !entry->skip);
  return outcome;
}

/**
 * ferry_copy_file:
 * Copies an entry that is not a folder (a regular file, a symlink, a
 * FIFO, a socket, a device node) and counts how it ended, now or, for a
 * file the strategy names later, then. @opened_fd is the source when the
 * walk opened it already (taken over), or -1.
 */
void
ferry_copy_file (FerryTreeContext *ctx, FerryEntry *entry, int opened_fd)
{
  ferry_autofd src_fd = opened_fd;
  g_autoptr (GError) error = NULL;
  gboolean first_name = TRUE;
  FerryFileOutcome outcome = FERRY_FILE_FAILED;

  /* A resumed run keeps what its earlier run finished, as it was. */
  if (ferry_continue_carry (ctx, entry))
    return;
  if (entry->replace || ferry_place_settle (ctx, entry, &error))
    outcome = entry->skip ? FERRY_FILE_COPIED
                          : copy_or_link (ctx, entry, &src_fd, &first_name, &error);
  if (outcome != FERRY_FILE_LATER)
    ferry_tree_context_count_outcome (ctx, entry, outcome == FERRY_FILE_COPIED, first_name, error);
}
