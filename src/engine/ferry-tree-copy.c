/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ferry-copy-data.h"
#include "ferry-error.h"
#include "ferry-fs.h"
#include "ferry-hardlinks.h"
#include "ferry-metadata.h"
#include "ferry-planner.h"
#include "ferry-tree-copy.h"
#include "ferry-verify.h"

#define LISTING_BUFFER_SIZE (64 * 1024)
#define HANDED_OUT_MAX      64

/**
 * FerryTreeCopy:
 * Copies trees with a pool of workers sharing a stack of folders to list
 * (a folder per task, newest first, so the walk stays depth-first and the
 * number of open folders stays near depth times workers). Files are copied
 * by the worker that lists their folder; subfolders become new tasks.
 */
struct _FerryTreeCopy
{
  FerryCopyContext *ctx;
  GMutex lock;
  GCond cond;
  GPtrArray *tasks; /* Task*, used as a stack */
  guint n_busy;
  GPtrArray *threads; /* besides the one that called run() */
  gboolean running;
};

typedef struct
{
  FerryDirNode *node;
  char *src_name; /* set for an entry to copy; NULL to list the folder */
  char *dst_name;
  unsigned char d_type;
} Task;

/* Where a file goes, once conflicts are settled. */
typedef struct
{
  char *name;
  gboolean replace;
  gboolean skip;
} Placement;

static void copy_entry (FerryTreeCopy *self,
                        FerryDirNode *node,
                        const char *src_name,
                        const char *dst_name,
                        unsigned char d_type);

static void
task_free (Task *task)
{
  g_free (task->src_name);
  g_free (task->dst_name);
  g_free (task);
}

FerryTreeCopy *
ferry_tree_copy_new (FerryCopyContext *ctx)
{
  FerryTreeCopy *self = g_new0 (FerryTreeCopy, 1);

  self->ctx = ctx;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->tasks = g_ptr_array_new ();
  self->threads = g_ptr_array_new ();
  return self;
}

void
ferry_tree_copy_free (FerryTreeCopy *self)
{
  g_assert (self->tasks->len == 0);
  g_ptr_array_unref (self->tasks);
  g_ptr_array_unref (self->threads);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

/* A folder to list, or (with @src_name) one entry of it to copy: a
 * root's top entry, or a file handed out to keep a slow device busy. */
static void
push_task (FerryTreeCopy *self,
           FerryDirNode *node,
           const char *src_name,
           const char *dst_name,
           unsigned char d_type)
{
  Task *task = g_new0 (Task, 1);

  task->node = node;
  task->src_name = g_strdup (src_name);
  task->dst_name = g_strdup (dst_name);
  task->d_type = d_type;
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->tasks, task);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* The root node owns both descriptors; the caller keeps its own. */
void
ferry_tree_copy_add_root (FerryTreeCopy *self,
                          int src_parent_fd,
                          const char *src_parent_path,
                          const char *src_name,
                          int dst_dir_fd,
                          const char *dst_dir_path,
                          const char *dst_name)
{
  FerryDirNode *root
      = ferry_dir_node_new_root (fcntl (src_parent_fd, F_DUPFD_CLOEXEC, 3), src_parent_path,
                                 fcntl (dst_dir_fd, F_DUPFD_CLOEXEC, 3), dst_dir_path);
  root->dst_shapes_new = ferry_folder_shapes_new_entries (root->dst_fd);
  push_task (self, root, src_name, dst_name, DT_UNKNOWN);
}

/* ------------------------------------------------------------------ */
/* Reporting                                                           */

static void
fail_entry (FerryTreeCopy *self,
            FerryDirNode *node,
            const char *src_name,
            const char *dst_name,
            guint64 bytes,
            const GError *error,
            gboolean fatal)
{
  /* With no policy to settle conflicts, the first one ends the job. */
  if (g_error_matches (error, FERRY_ERROR, FERRY_ERROR_EXISTS)
      && self->ctx->conflict_policy == FERRY_CONFLICT_POLICY_FAIL)
    fatal = TRUE;
  ferry_copy_context_file_failed (self->ctx, node, src_name, dst_name, bytes, error, fatal);
}

static gboolean
set_error_at_node (GError **error,
                   int errsv,
                   const char *format,
                   FerryDirNode *node,
                   const char *name,
                   gboolean source)
{
  g_autofree char *path = ferry_dir_node_path (node, name, source);
  return ferry_set_error_from_errno (error, errsv, format, path);
}

static gboolean
set_ferry_error_at_node (GError **error,
                         FerryError code,
                         const char *format,
                         FerryDirNode *node,
                         const char *name,
                         gboolean source)
{
  g_autofree char *path = ferry_dir_node_path (node, name, source);
  return ferry_set_ferry_error (error, code, format, path);
}

/* A subtree that will not be copied still counted in the plan: take it
 * out of the totals so the progress ends where the work ends. */
static void
account_abandoned_tree (FerryTreeCopy *self,
                        FerryDirNode *node,
                        const char *src_name,
                        gboolean skipped)
{
  FerryTreeTotals totals = { 0 };

  ferry_tree_measure_at (node->src_fd, src_name, &totals, self->ctx->cancellable);
  if (skipped)
    ferry_copy_context_file_skipped (self->ctx, totals.files, totals.bytes);
  else
    {
      ferry_counters_add (&self->ctx->counters->files_done,
                          totals.files > 0 ? totals.files - 1 : 0);
      atomic_fetch_sub (&self->ctx->counters->bytes_total, (gint64) totals.bytes);
    }
}

/* ------------------------------------------------------------------ */
/* Conflicts                                                           */

/* Settles what happens when @place->name already exists. Returns FALSE
 * with @error when the file cannot be copied. */
static gboolean
settle_conflict (FerryTreeCopy *self,
                 FerryDirNode *node,
                 const char *src_name,
                 const struct stat *src_st,
                 const struct stat *dst_st,
                 Placement *place,
                 GError **error)
{
  FerryConflictAction action;

  if (ferry_stat_same_file (src_st, dst_st))
    return set_ferry_error_at_node (
        error, FERRY_ERROR_SAME_FILE,
        _ ("“%s” is what is being copied; it cannot be copied onto itself"), node, place->name,
        FALSE);

  action = ferry_copy_context_resolve_conflict (self->ctx, node, src_name, place->name, src_st,
                                                dst_st);
  switch (action)
    {
      case FERRY_CONFLICT_ACTION_SKIP:
        place->skip = TRUE;
        return TRUE;

      case FERRY_CONFLICT_ACTION_REPLACE:
      case FERRY_CONFLICT_ACTION_MERGE:
        if (S_ISDIR (dst_st->st_mode) && !S_ISDIR (src_st->st_mode))
          return set_ferry_error_at_node (error, FERRY_ERROR_EXISTS,
                                          _ ("“%s” is a folder; a file cannot replace it"), node,
                                          place->name, FALSE);
        place->replace = TRUE;
        return TRUE;

      case FERRY_CONFLICT_ACTION_KEEP_BOTH:
        {
          char *free_name
              = ferry_conflict_free_name (node->dst_fd, place->name, S_ISDIR (src_st->st_mode));
          g_free (place->name);
          place->name = free_name;
          return TRUE;
        }

      case FERRY_CONFLICT_ACTION_CANCEL:
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was cancelled"));
        return FALSE;

      case FERRY_CONFLICT_ACTION_NONE:
      default:
        return set_ferry_error_at_node (error, FERRY_ERROR_EXISTS, _ ("“%s” already exists"), node,
                                        place->name, FALSE);
    }
}

/* Looks for something already at the destination name, unless the
 * destination folder was empty when Ferry made it. */
static gboolean
settle_placement (FerryTreeCopy *self,
                  FerryDirNode *node,
                  const char *src_name,
                  const struct stat *src_st,
                  Placement *place,
                  GError **error)
{
  struct stat dst_st;

  if (node->fresh)
    return TRUE;
  if (fstatat (node->dst_fd, place->name, &dst_st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      return set_error_at_node (error, errno, _ ("Could not read “%s”"), node, place->name, FALSE);
    }
  return settle_conflict (self, node, src_name, src_st, &dst_st, place, error);
}

/* The name appeared after it was checked (another program wrote it while
 * Ferry copied): settle it now, as if it had been there all along. */
static gboolean
settle_late_conflict (FerryTreeCopy *self,
                      FerryDirNode *node,
                      const char *src_name,
                      const struct stat *src_st,
                      Placement *place,
                      GError **error)
{
  gboolean fresh = node->fresh;
  gboolean ok;

  node->fresh = FALSE;
  ok = settle_placement (self, node, src_name, src_st, place, error);
  node->fresh = fresh;
  return ok;
}

/* ------------------------------------------------------------------ */
/* Regular files                                                       */

static gboolean
open_source (FerryTreeCopy *self, FerryFileCopy *fc, const struct stat *listed, GError **error)
{
  /* Opened already by copy_entry(), which took its stat from it. */
  if (fc->src_fd >= 0)
    {
      fc->st = *listed;
      return TRUE;
    }
  fc->src_fd = ferry_open_source_at (fc->node->src_fd, fc->src_name,
                                     O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fc->src_fd < 0)
    {
      if (errno == ENOENT)
        return set_ferry_error_at_node (error, FERRY_ERROR_VANISHED,
                                        _ ("“%s” disappeared before it could be copied"), fc->node,
                                        fc->src_name, TRUE);
      return ferry_copy_fail_errno (fc, errno, FALSE, error);
    }
  if (fstat (fc->src_fd, &fc->st) != 0)
    return ferry_copy_fail_errno (fc, errno, FALSE, error);
  if (!ferry_stat_same_file (&fc->st, listed) || !S_ISREG (fc->st.st_mode))
    return set_ferry_error_at_node (error, FERRY_ERROR_CHANGED,
                                    _ ("“%s” was replaced while it was being copied"), fc->node,
                                    fc->src_name, TRUE);
  return TRUE;
}

static gboolean
open_temp (FerryTreeCopy *self, FerryFileCopy *fc, GError **error)
{
  int errsv;

  if (ferry_temp_file_open (&fc->tmp, fc->node->dst_fd, fc->st.st_mode & 0777 & ~self->ctx->umask,
                            &self->ctx->tmpfile_unsupported, &errsv))
    return TRUE;
  return ferry_copy_fail_errno (fc, errsv, TRUE, error);
}

static gboolean
apply_file_metadata (FerryTreeCopy *self, FerryFileCopy *fc, GError **error)
{
  FerryMetaTarget src = { fc->src_fd, -1, NULL, FALSE, 0 };
  FerryMetaTarget dst = { fc->tmp.fd, -1, NULL, !fc->node->dst_shapes_new, fc->tmp.mode };
  int errsv;

  if (ferry_metadata_apply (self->ctx, src, dst, &fc->st, &errsv))
    return TRUE;
  return ferry_copy_fail_errno (fc, errsv, TRUE, error);
}

static gboolean
commit_file (FerryTreeCopy *self, FerryFileCopy *fc, Placement *place, GError **error)
{
  for (guint attempt = 0; attempt < 8; attempt++)
    {
      int errsv;

      fc->dst_name = place->name;
      if (ferry_temp_file_commit (&fc->tmp, place->name, place->replace, &errsv))
        return TRUE;
      if (errsv != EEXIST || place->replace)
        return ferry_copy_fail_errno (fc, errsv, TRUE, error);
      if (!settle_late_conflict (self, fc->node, fc->src_name, &fc->st, place, error))
        return FALSE;
      if (place->skip)
        return TRUE;
    }
  return ferry_copy_fail_errno (fc, EEXIST, TRUE, error);
}

static gboolean
copy_regular (FerryTreeCopy *self,
              FerryDirNode *node,
              const char *src_name,
              int *src_fd,
              const struct stat *listed,
              Placement *place,
              gboolean *fatal,
              GError **error)
{
  FerryCopyContext *ctx = self->ctx;
  FerryFileCopy fc = {
    .node = node,
    .src_name = src_name,
    .dst_name = place->name,
    .src_fd = ferry_fd_steal (src_fd),
    .tmp = FERRY_TEMP_FILE_INIT,
  };
  gboolean ok;

  /* Verification reads the copy back, which moves its access time: it
   * comes before the metadata, so the times set are the ones kept. */
  ok = open_source (self, &fc, listed, error) && open_temp (self, &fc, error)
       && ctx->strategy->copy_data (ctx, &fc, error)
       && ferry_copy_check_source_unchanged (&fc, error)
       && (!ctx->verify || ferry_verify_copy (ctx, &fc, error))
       && apply_file_metadata (self, &fc, error)
       && (ctx->strategy->commit_file == NULL || ctx->strategy->commit_file (ctx, &fc, error))
       && commit_file (self, &fc, place, error);

  if (ok && !place->skip && ctx->strategy->file_named != NULL)
    ctx->strategy->file_named (ctx, &fc);

  if (!ok || place->skip)
    {
      if (ctx->strategy->abandon_file != NULL)
        ctx->strategy->abandon_file (ctx, &fc);
      atomic_fetch_sub (&ctx->counters->bytes_written, fc.written);
      ferry_temp_file_discard (&fc.tmp);
    }
  *fatal = fc.destination_failed;
  ferry_fd_closep (&fc.src_fd);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Symlinks, FIFOs, sockets, device nodes                              */

static char *
read_link (FerryDirNode *node, const char *name, const struct stat *st, int *errsv)
{
  gsize size = st->st_size > 0 ? (gsize) st->st_size + 1 : 256;

  for (;;)
    {
      g_autofree char *target = g_malloc (size);
      ssize_t n = readlinkat (node->src_fd, name, target, size);

      if (n < 0)
        {
          *errsv = errno;
          return NULL;
        }
      if ((gsize) n < size)
        {
          target[n] = '\0';
          return g_steal_pointer (&target);
        }
      size *= 2;
    }
}

static gboolean
make_special (FerryTreeCopy *self,
              FerryDirNode *node,
              const char *src_name,
              const struct stat *st,
              const char *name,
              GError **error)
{
  int errsv = 0;
  int ret;

  if (S_ISLNK (st->st_mode))
    {
      g_autofree char *target = read_link (node, src_name, st, &errsv);
      if (target == NULL)
        return set_error_at_node (error, errsv, _ ("Could not read the link “%s”"), node, src_name,
                                  TRUE);
      ret = symlinkat (target, node->dst_fd, name);
    }
  else
    ret = mknodat (node->dst_fd, name, (st->st_mode & S_IFMT) | 0600, st->st_rdev);

  if (ret == 0)
    return TRUE;
  errsv = errno;
  if (errsv == EPERM && (S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode) || S_ISSOCK (st->st_mode)))
    return set_ferry_error_at_node (
        error, FERRY_ERROR_SKIPPED,
        S_ISSOCK (st->st_mode)
            ? _ ("“%s” is a socket, which cannot be made here; skipped")
            : _ ("“%s” is a device node; only the administrator can create one, so it was skipped"),
        node, src_name, TRUE);
  errno = errsv;
  return FALSE;
}

/* Without replacing, the node is made under its final name directly
 * (there is no data to be half-written, and making it fails if the name
 * is taken); a replacement is made aside and renamed over the old one. */
static gboolean
copy_special (FerryTreeCopy *self,
              FerryDirNode *node,
              const char *src_name,
              const struct stat *st,
              Placement *place,
              gboolean *fatal,
              GError **error)
{
  g_autofree char *temp_name = NULL;
  const char *name;
  int errsv;

  for (guint attempt = 0;; attempt++)
    {
      GError *local_error = NULL;

      if (place->replace)
        temp_name = ferry_temp_name_new ();
      name = place->replace ? temp_name : place->name;
      if (make_special (self, node, src_name, st, name, &local_error))
        break;
      if (local_error != NULL)
        {
          g_propagate_error (error, local_error);
          return FALSE;
        }
      errsv = errno;
      g_clear_pointer (&temp_name, g_free);
      if (errsv != EEXIST || attempt >= 8)
        {
          *fatal = ferry_errno_is_device_failure (errsv);
          return set_error_at_node (error, errsv, _ ("Could not create “%s”"), node, place->name,
                                    FALSE);
        }
      if (!settle_late_conflict (self, node, src_name, st, place, error))
        return FALSE;
      if (place->skip)
        return TRUE;
    }

  FerryMetaTarget src = { -1, node->src_fd, src_name, FALSE, 0 };
  FerryMetaTarget dst = { -1, node->dst_fd, name, FALSE, 0 };
  if (!ferry_metadata_apply (self->ctx, src, dst, st, &errsv)
      || (place->replace && renameat (node->dst_fd, name, node->dst_fd, place->name) != 0
          && (errsv = errno)))
    {
      unlinkat (node->dst_fd, name, 0);
      *fatal = ferry_errno_is_device_failure (errsv);
      return set_error_at_node (error, errsv, _ ("Could not create “%s”"), node, place->name,
                                FALSE);
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Hard links                                                          */

/* Makes @place->name another name of a file this job already copied.
 * FALSE without an error means "copy it instead" (the filesystem has no
 * hard links, or the first copy is gone). */
static gboolean
link_to_copy (FerryTreeCopy *self,
              FerryDirNode *node,
              const char *relpath,
              Placement *place,
              GError **error)
{
  FerryDirNode *root = ferry_dir_node_get_root (node);

  if (place->replace)
    {
      g_autofree char *temp_name = ferry_temp_name_new ();
      if (linkat (root->dst_fd, relpath, node->dst_fd, temp_name, 0) == 0)
        {
          if (renameat (node->dst_fd, temp_name, node->dst_fd, place->name) == 0)
            return TRUE;
          unlinkat (node->dst_fd, temp_name, 0);
        }
    }
  else if (linkat (root->dst_fd, relpath, node->dst_fd, place->name, 0) == 0)
    return TRUE;

  if (errno == EPERM || errno == EMLINK || errno == ENOENT || errno == EXDEV
      || errno == ENAMETOOLONG)
    return FALSE;
  return set_error_at_node (error, errno, _ ("Could not create the hard link “%s”"), node,
                            place->name, FALSE);
}

/* ------------------------------------------------------------------ */
/* Entries                                                             */

/* @opened_fd is the source, when copy_entry() opened it (taken over). */
static void
copy_nondir (FerryTreeCopy *self,
             FerryDirNode *node,
             const char *src_name,
             const char *dst_name,
             const struct stat *st,
             int opened_fd)
{
  ferry_autofd src_fd = opened_fd;
  FerryCopyContext *ctx = self->ctx;
  g_autoptr (GError) error = NULL;
  g_autofree char *link_relpath = NULL;
  Placement place = { g_strdup (dst_name), FALSE, FALSE };
  gboolean hardlinked = st->st_nlink > 1;
  gboolean fatal = FALSE;
  gboolean ok;

  if (!settle_placement (self, node, src_name, st, &place, &error))
    goto failed;
  if (place.skip)
    goto skipped;

  if (hardlinked && (link_relpath = ferry_hardlinks_claim (ctx->hardlinks, st)) != NULL)
    {
      if (link_to_copy (self, node, link_relpath, &place, &error))
        goto done;
      if (error != NULL)
        goto failed;
      hardlinked = FALSE;
    }

  if (S_ISREG (st->st_mode))
    ok = copy_regular (self, node, src_name, &src_fd, st, &place, &fatal, &error);
  else
    ok = copy_special (self, node, src_name, st, &place, &fatal, &error);

  if (hardlinked)
    {
      if (ok && !place.skip)
        {
          g_autofree char *relpath = ferry_dir_node_dst_relpath (node, place.name);
          ferry_hardlinks_copied (ctx->hardlinks, st, relpath);
        }
      else
        ferry_hardlinks_release (ctx->hardlinks, st);
    }
  if (!ok)
    goto failed;
  if (place.skip)
    goto skipped;

done:
  ferry_copy_context_file_done (ctx);
  g_free (place.name);
  return;

skipped:
  ferry_copy_context_file_skipped (ctx, 1,
                                   S_ISREG (st->st_mode) && !link_relpath ? st->st_size : 0);
  g_free (place.name);
  return;

failed:
  fail_entry (self, node, src_name, place.name, S_ISREG (st->st_mode) ? st->st_size : 0, error,
              fatal);
  g_free (place.name);
}

/* Makes the destination folder for @src_name, settling a conflict with
 * what is there; returns the child node to fill, or NULL when the folder
 * is skipped (no error) or cannot be made. */
static FerryDirNode *
make_dir (FerryTreeCopy *self,
          FerryDirNode *node,
          const char *src_name,
          const char *dst_name,
          gboolean *fatal,
          GError **error)
{
  Placement place = { g_strdup (dst_name), FALSE, FALSE };
  FerryDirNode *child = NULL;
  gboolean created = FALSE;
  gboolean merge = FALSE;

  for (guint attempt = 0; attempt < 8 && !created && !merge; attempt++)
    {
      struct stat src_st, dst_st;

      if (mkdirat (node->dst_fd, place.name, 0700) == 0)
        {
          created = TRUE;
          break;
        }
      if (errno != EEXIST)
        {
          *fatal = ferry_errno_is_device_failure (errno);
          set_error_at_node (error, errno, _ ("Could not create the folder “%s”"), node, place.name,
                             FALSE);
          goto out;
        }
      if (fstatat (node->dst_fd, place.name, &dst_st, AT_SYMLINK_NOFOLLOW) != 0)
        continue; /* gone again: try once more */
      if (fstatat (node->src_fd, src_name, &src_st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          set_error_at_node (error, errno, _ ("Could not read “%s”"), node, src_name, TRUE);
          goto out;
        }
      if (!settle_conflict (self, node, src_name, &src_st, &dst_st, &place, error))
        goto out;
      if (place.skip)
        {
          account_abandoned_tree (self, node, src_name, TRUE);
          goto out;
        }
      if (place.replace && S_ISDIR (dst_st.st_mode))
        merge = TRUE;
      else if (place.replace && unlinkat (node->dst_fd, place.name, 0) != 0)
        {
          set_error_at_node (error, errno, _ ("Could not replace “%s”"), node, place.name, FALSE);
          goto out;
        }
      place.replace = FALSE;
    }

  if (!created && !merge)
    {
      set_error_at_node (error, EEXIST, _ ("Could not create the folder “%s”"), node, place.name,
                         FALSE);
      goto out;
    }
  child = ferry_dir_node_new_child (node, src_name, place.name);
  child->created = created;
  child->fresh = created;

out:
  g_free (place.name);
  return child;
}

static void
copy_dir_entry (FerryTreeCopy *self, FerryDirNode *node, const char *src_name, const char *dst_name)
{
  g_autoptr (GError) error = NULL;
  gboolean fatal = FALSE;
  FerryDirNode *child = make_dir (self, node, src_name, dst_name, &fatal, &error);

  if (child == NULL)
    {
      if (error != NULL)
        {
          fail_entry (self, node, src_name, dst_name, 0, error, fatal);
          account_abandoned_tree (self, node, src_name, FALSE);
        }
      return;
    }

  g_atomic_int_inc (&node->pending);
  push_task (self, child, NULL, NULL, DT_UNKNOWN);
}

/* Opens an entry listed as a regular file; -1 (and the caller stats it
 * by name) when that fails or it is something else by now. O_NONBLOCK
 * keeps a FIFO that took its name from blocking the open. */
static int
open_listed_file (FerryDirNode *node, const char *name, struct stat *st)
{
  ferry_autofd fd = ferry_open_source_at (
      node->src_fd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0 || fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    return -1;
  return ferry_fd_steal (&fd);
}

static void
copy_entry (FerryTreeCopy *self,
            FerryDirNode *node,
            const char *src_name,
            const char *dst_name,
            unsigned char d_type)
{
  g_autoptr (GError) error = NULL;
  ferry_autofd src_fd = -1;
  struct stat st;

  if (!ferry_copy_context_check (self->ctx, NULL))
    return;
  ferry_copy_context_set_current (self->ctx, node, src_name);

  if (d_type == DT_DIR)
    {
      copy_dir_entry (self, node, src_name, dst_name);
      return;
    }

  /* A regular file is opened at once and its stat taken from the open
   * file: one call fewer than a stat by name, for most entries. */
  if (d_type == DT_REG)
    src_fd = open_listed_file (node, src_name, &st);

  if (src_fd < 0 && fstatat (node->src_fd, src_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        set_ferry_error_at_node (&error, FERRY_ERROR_VANISHED,
                                 _ ("“%s” disappeared before it could be copied"), node, src_name,
                                 TRUE);
      else
        set_error_at_node (&error, errno, _ ("Could not read “%s”"), node, src_name, TRUE);
      fail_entry (self, node, src_name, dst_name, 0, error, FALSE);
      return;
    }

  if (S_ISDIR (st.st_mode))
    copy_dir_entry (self, node, src_name, dst_name);
  else
    copy_nondir (self, node, src_name, dst_name, &st, ferry_fd_steal (&src_fd));
}

/* ------------------------------------------------------------------ */
/* Folders                                                             */

static gboolean
open_dir_node (FerryTreeCopy *self, FerryDirNode *node, GError **error)
{
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

  node->src_fd = ferry_open_source_at (node->parent->src_fd, node->src_name, flags);
  if (node->src_fd < 0)
    {
      if (errno == ENOENT)
        return set_ferry_error_at_node (error, FERRY_ERROR_VANISHED,
                                        _ ("“%s” disappeared before it could be copied"),
                                        node->parent, node->src_name, TRUE);
      return set_error_at_node (error, errno, _ ("Could not open the folder “%s”"), node->parent,
                                node->src_name, TRUE);
    }
  if (fstat (node->src_fd, &node->src_st) != 0)
    return set_error_at_node (error, errno, _ ("Could not read “%s”"), node->parent, node->src_name,
                              TRUE);

  node->dst_fd = openat (node->parent->dst_fd, node->dst_name, flags);
  if (node->dst_fd < 0)
    return set_error_at_node (error, errno, _ ("Could not open the folder “%s”"), node->parent,
                              node->dst_name, FALSE);

  /* A folder Ferry made got these from its parent (mkdir passes on both
   * setgid and a default ACL); one that was there is asked. */
  node->dst_shapes_new = node->created ? node->parent->dst_shapes_new
                                       : ferry_folder_shapes_new_entries (node->dst_fd);
  return TRUE;
}

/* On a slow device every worker waits until its file is on the device
 * before naming it, so the files of one folder (a camera card's thousands
 * of photos) are handed out to all workers rather than copied in turn by
 * the one listing them. The stack of tasks stays short. */
static gboolean
hand_out_file (FerryTreeCopy *self, FerryDirNode *node, const char *name, unsigned char d_type)
{
  gboolean room;

  if (ferry_copy_context_get_throttle (self->ctx) == NULL)
    return FALSE;
  g_mutex_lock (&self->lock);
  room = self->tasks->len < HANDED_OUT_MAX;
  g_mutex_unlock (&self->lock);
  if (!room)
    return FALSE;
  g_atomic_int_inc (&node->pending);
  push_task (self, node, name, name, d_type);
  return TRUE;
}

static void
list_dir (FerryTreeCopy *self, FerryDirNode *node)
{
  g_autoptr (GError) error = NULL;
  FerryDirReader reader;
  const char *name;
  unsigned char d_type;
  int errsv;

  if (!ferry_copy_context_check (self->ctx, NULL))
    return;
  if (!open_dir_node (self, node, &error))
    {
      fail_entry (self, node->parent, node->src_name, node->dst_name, 0, error, FALSE);
      if (node->created)
        unlinkat (node->parent->dst_fd, node->dst_name, AT_REMOVEDIR);
      node->created = FALSE;
      node->failed = TRUE;
      return;
    }

  ferry_dir_reader_init (&reader, node->src_fd, LISTING_BUFFER_SIZE);
  while (ferry_dir_reader_next (&reader, &name, &d_type, &errsv))
    {
      if (ferry_copy_context_is_ending (self->ctx))
        break;
      if (d_type != DT_DIR && hand_out_file (self, node, name, d_type))
        continue;
      copy_entry (self, node, name, name, d_type);
    }
  ferry_dir_reader_clear (&reader);

  if (errsv != 0)
    {
      set_error_at_node (&error, errsv, _ ("Could not list the folder “%s”"), node->parent,
                         node->src_name, TRUE);
      fail_entry (self, node->parent, node->src_name, node->dst_name, 0, error, FALSE);
      node->failed = TRUE;
    }
}

/* Everything inside is copied: now the folder's own times and mode,
 * which copying its children would have disturbed. */
static void
finish_dir (FerryTreeCopy *self, FerryDirNode *node)
{
  FerryMetaTarget src = { node->src_fd, -1, NULL, FALSE, 0 };
  FerryMetaTarget dst = { node->dst_fd, -1, NULL, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  int errsv;

  /* A stopped job leaves no empty folder it made without filling it. */
  if (node->created && node->parent->dst_fd >= 0 && ferry_copy_context_is_ending (self->ctx)
      && unlinkat (node->parent->dst_fd, node->dst_name, AT_REMOVEDIR) == 0)
    return;

  /* A folder reported as failed was counted as handled then. */
  if (!node->created || node->src_fd < 0 || node->dst_fd < 0
      || ferry_metadata_apply (self->ctx, src, dst, &node->src_st, &errsv))
    {
      if (!node->failed)
        ferry_copy_context_file_done (self->ctx);
      return;
    }
  set_error_at_node (&error, errsv, _ ("Could not set the attributes of “%s”"), node->parent,
                     node->dst_name, FALSE);
  fail_entry (self, node->parent, node->src_name, node->dst_name, 0, error,
              ferry_errno_is_device_failure (errsv));
}

static void
release_node (FerryTreeCopy *self, FerryDirNode *node)
{
  while (node != NULL && g_atomic_int_dec_and_test (&node->pending))
    {
      FerryDirNode *parent = node->parent;

      if (parent != NULL)
        finish_dir (self, node);
      ferry_dir_node_free (node);
      node = parent;
    }
}

static void
run_task (FerryTreeCopy *self, Task *task)
{
  if (task->src_name != NULL)
    {
      if (ferry_copy_context_check (self->ctx, NULL))
        copy_entry (self, task->node, task->src_name, task->dst_name, task->d_type);
    }
  else
    list_dir (self, task->node);
  release_node (self, task->node);
  task_free (task);
}

static gpointer
worker_main (gpointer data)
{
  FerryTreeCopy *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      Task *task;

      while (self->tasks->len == 0 && self->n_busy > 0)
        g_cond_wait (&self->cond, &self->lock);
      if (self->tasks->len == 0)
        break;

      task = g_ptr_array_steal_index_fast (self->tasks, self->tasks->len - 1);
      self->n_busy++;
      g_mutex_unlock (&self->lock);

      run_task (self, task);

      g_mutex_lock (&self->lock);
      self->n_busy--;
      if (self->tasks->len == 0 && self->n_busy == 0)
        g_cond_broadcast (&self->cond);
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* Called with the lock. */
static void
add_workers (FerryTreeCopy *self, guint n_workers)
{
  while (self->threads->len + 1 < n_workers)
    g_ptr_array_add (self->threads, g_thread_new ("ferry-copy", worker_main, self));
}

/**
 * ferry_tree_copy_grow:
 * Brings the workers up to @n_workers while the copy runs: a device
 * measured slow in the middle of a job wants more of them. Does nothing
 * once the copy is over.
 */
void
ferry_tree_copy_grow (FerryTreeCopy *self, guint n_workers)
{
  g_mutex_lock (&self->lock);
  if (self->running)
    add_workers (self, n_workers);
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_tree_copy_run:
 * Copies every root added, on @n_workers threads (the calling thread is
 * one of them), and returns when all are done or the job stopped.
 */
void
ferry_tree_copy_run (FerryTreeCopy *self, guint n_workers)
{
  g_mutex_lock (&self->lock);
  self->running = TRUE;
  add_workers (self, MAX (n_workers, 1));
  g_mutex_unlock (&self->lock);

  worker_main (self);

  /* No worker is started after this: the tasks are all done. */
  g_mutex_lock (&self->lock);
  self->running = FALSE;
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < self->threads->len; i++)
    g_thread_join (g_ptr_array_index (self->threads, i));
  g_ptr_array_set_size (self->threads, 0);
}
