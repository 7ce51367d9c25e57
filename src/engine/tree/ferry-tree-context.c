/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry-error.h"
#include "ferry-fs.h"
#include "ferry-tree-context.h"
#include "ferry-tree-size.h"

/* A source as the person named it, and the filesystem it was on. */
typedef struct
{
  char *path;
  dev_t dev;
} FerrySourceAt;

static void
clear_source_at (gpointer data)
{
  g_free (((FerrySourceAt *) data)->path);
}

/* The caller sets how metadata is kept, the error policy and verifying. */
void
ferry_tree_context_init (FerryTreeContext *ctx,
                         FerryCopyTarget *target,
                         FerryConflictPolicy conflict_policy,
                         const FerryTreeListener *listener)
{
  *ctx = (FerryTreeContext){
    .control = target->control,
    .counters = target->counters,
    .target = target,
    .conflicts = ferry_conflicts_new (conflict_policy, target->control),
    .hardlinks = ferry_hardlinks_new (),
    .listener = *listener,
    .waiting_folders = g_ptr_array_new (),
    .sources = g_array_new (FALSE, FALSE, sizeof (FerrySourceAt)),
  };
  g_array_set_clear_func (ctx->sources, clear_source_at);
  g_mutex_init (&ctx->waiting_lock);
}

void
ferry_tree_context_clear (FerryTreeContext *ctx)
{
  g_clear_pointer (&ctx->conflicts, ferry_conflicts_free);
  g_clear_pointer (&ctx->hardlinks, ferry_hardlinks_free);
  /* ferry_folder_name_waiting (ctx, TRUE) left none waiting. */
  g_warn_if_fail (ctx->waiting_folders->len == 0);
  g_clear_pointer (&ctx->waiting_folders, g_ptr_array_unref);
  g_clear_pointer (&ctx->sources, g_array_unref);
  g_mutex_clear (&ctx->waiting_lock);
}

/* Before the workers start: the source @name in the open folder
 * @parent_fd, at @parent_path, and the filesystem it is on now. */
void
ferry_tree_context_add_source (FerryTreeContext *ctx,
                               int parent_fd,
                               const char *parent_path,
                               const char *name)
{
  struct stat st;
  FerrySourceAt at;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return; /* the copy reports it */
  at.path = g_build_filename (parent_path, name, NULL);
  at.dev = st.st_dev;
  g_array_append_val (ctx->sources, at);
}

/* Whether a source on the filesystem @dev (0: any) has gone with its
 * drive: its filesystem no longer mounted (pulled out, and the desktop
 * unmounted it), or its path failing as a device that went away fails
 * (a FUSE daemon that died with its drive: ENOTCONN). Open folders keep
 * an unmounted filesystem readable in name, but each read of a
 * pulled-out drive fails, and the files would fail one by one (a card
 * of 1,000 photos pulled out at the 430th: 570 lines "Input/output
 * error"). A source folder deleted or moved is no drive gone: its files
 * fail one by one as before. */
static const char *
find_gone_source (FerryTreeContext *ctx, dev_t dev)
{
  dev_t checked = 0;

  for (guint i = 0; i < ctx->sources->len; i++)
    {
      const FerrySourceAt *at = &g_array_index (ctx->sources, FerrySourceAt, i);
      struct stat now;

      /* one look a filesystem: sources in one folder come together, and
       * a drive gone takes all of them with it */
      if ((dev != 0 && at->dev != dev) || (checked != 0 && at->dev == checked))
        continue;
      checked = at->dev;
      if (ferry_fs_is_unmounted (at->dev)
          || (lstat (at->path, &now) != 0 && ferry_errno_is_device_failure (errno)))
        return at->path;
    }
  return NULL;
}

/* How a read fails once the drive is gone: EIO (G_IO_ERROR_FAILED),
 * ENOTCONN, or the file not found. Others (no permission, a conflict)
 * are no sign of it, and are not worth a look at the mount table. */
static gboolean
may_be_gone (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED)
         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
         || g_error_matches (error, FERRY_ERROR, FERRY_ERROR_VANISHED);
}

/* The failure of @entry with @error, when it is its source's drive
 * gone: "“/media/CARD/DCIM” is no longer there: its drive was
 * unplugged". NULL otherwise. */
static GError *
new_error_if_source_gone (FerryTreeContext *ctx, const FerryEntry *entry, const GError *error)
{
  const char *gone_source;
  g_autofree char *display = NULL;

  if (!may_be_gone (error) || (gone_source = find_gone_source (ctx, entry->st.st_dev)) == NULL)
    return NULL;
  display = ferry_path_display (gone_source);
  return g_error_new (FERRY_ERROR, FERRY_ERROR_SOURCE_GONE,
                      /* TRANSLATORS: a source folder or file whose drive went away
                       * while it was copied */
                      _ ("“%s” is no longer there: its drive was unplugged"), display);
}

/* Whether the open destination folder @fd was deleted: a folder
 * removed while it is open keeps its descriptor, and has no links. */
static gboolean
folder_deleted (int fd)
{
  struct stat st;

  if (fstat (fd, &st) != 0)
    return errno == ENOENT || errno == ESTALE;
  return st.st_nlink == 0;
}

/**
 * ferry_tree_context_new_error_if_deleted:
 * The failure of an entry in @node with @error, when someone deleted a
 * destination folder it is in (the copy's folder, in a file manager):
 * "“/media/STICK/Photos” was deleted during the copy", naming the
 * outermost. NULL otherwise. Creating anything inside it fails, and
 * every file left would fail on its own line (an exFAT stick: 189
 * lines "No such file or directory"). */
GError *
ferry_tree_context_new_error_if_deleted (const FerryDirNode *node, const GError *error)
{
  const FerryDirNode *deleted = NULL;
  g_autofree char *path = NULL;

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return NULL;
  for (; node != NULL; node = node->parent)
    if (g_atomic_int_get (&node->removed_by_copy))
      return NULL;
    else if (node->dst_fd >= 0 && folder_deleted (node->dst_fd))
      deleted = node;
  if (deleted == NULL)
    return NULL;
  path = ferry_dir_node_dst_path (deleted, NULL);
  return ferry_tree_context_new_deleted_error (path);
}

/* The destination folder @path was deleted while the copy wrote into
 * it. Such a failure ends the job. */
GError *
ferry_tree_context_new_deleted_error (const char *path)
{
  g_autofree char *display = ferry_path_display (path);

  return g_error_new (FERRY_ERROR, FERRY_ERROR_DESTINATION_DELETED,
                      /* TRANSLATORS: a folder the copy was writing into */
                      _ ("“%s” was deleted during the copy"), display);
}

/* Between entries: waits out a pause, says whether to go on. */
gboolean
ferry_tree_context_check (FerryTreeContext *ctx)
{
  return ferry_control_check (ctx->control, NULL);
}

void
ferry_tree_context_show_current (FerryTreeContext *ctx, const FerryEntry *entry)
{
  g_autofree char *path = NULL;

  if (!ferry_counters_current_is_due (ctx->counters, FALSE))
    return;
  path = ferry_entry_path (entry, TRUE);
  ferry_counters_take_current (ctx->counters, ferry_path_display (path));
}

void
ferry_tree_context_file_done (FerryTreeContext *ctx)
{
  ferry_counters_add (ctx->counters, &ctx->counters->files_done, 1);
}

/* An entry inside @folder was copied: counted, and counted with the
 * hidden folder @folder is in, whose loss takes it back
 * (ferry_hidden_folder_lose()). */
void
ferry_tree_context_done_in (FerryTreeContext *ctx, FerryDirNode *folder)
{
  if (folder->hidden_top != NULL)
    g_atomic_int_inc (&folder->hidden_top->hidden_done);
  ferry_tree_context_file_done (ctx);
}

/* Skipped files are handled, not copied: they leave the byte total so the
 * progress still ends at 100 %. */
void
ferry_tree_context_file_skipped (FerryTreeContext *ctx, guint64 files, guint64 bytes)
{
  ferry_counters_add (ctx->counters, &ctx->counters->files_skipped, files);
  ferry_counters_add (ctx->counters, &ctx->counters->files_done, files);
  ferry_counters_add_total (ctx->counters, -(gint64) bytes);
}

/* Whether @error follows from a folder deleted under the copy, which
 * stopped the job and was said once: a file that fails for want of its
 * folder, or of its temporary file deleted with it. */
static gboolean
follows_deletion (FerryTreeContext *ctx, const GError *error)
{
  g_autoptr (GError) stopped = NULL;

  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return FALSE;
  stopped = ferry_control_dup_stop_error (ctx->control);
  return g_error_matches (stopped, FERRY_ERROR, FERRY_ERROR_DESTINATION_DELETED);
}

/* Records a file that could not be copied and tells the listener, who
 * takes @failure. A @fatal failure (the destination itself failed), any
 * failure under FERRY_ERROR_POLICY_STOP, and, with no policy to settle
 * conflicts, the first conflict end the job. */
void
ferry_tree_context_report_failure (FerryTreeContext *ctx, FerryFailure *failure, gboolean fatal)
{
  if (g_error_matches (failure->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      ferry_failure_free (failure);
      return;
    }

  if (g_error_matches (failure->error, FERRY_ERROR, FERRY_ERROR_EXISTS)
      && ferry_conflicts_get_policy (ctx->conflicts) == FERRY_CONFLICT_POLICY_FAIL)
    fatal = TRUE;
  /* What fails for the same reason once a failing drive stopped the job
   * (a file another worker had in flight, the attributes of the folders
   * it leaves) follows from that failure, which says it once. What the
   * stop itself leaves out (a folder not put in place) is still said. */
  if (((fatal || ctx->error_policy == FERRY_ERROR_POLICY_STOP)
       && !ferry_control_stop (ctx->control, failure->error) && fatal)
      || (!fatal && follows_deletion (ctx, failure->error)))
    {
      ferry_failure_free (failure);
      return;
    }
  ferry_counters_add (ctx->counters, &ctx->counters->files_failed, 1);
  ctx->listener.file_failed (ctx->listener.user_data, failure);
}

/* An entry that could not be copied: its @bytes stay in the total, as
 * failed. A total that fell as files failed had read "29.1 MB of 0
 * bytes", and a failed file counted done "97 of 98 items" for a copy
 * that wrote nothing. */
void
ferry_tree_context_file_failed (FerryTreeContext *ctx,
                                const FerryEntry *entry,
                                guint64 bytes,
                                const GError *error,
                                gboolean fatal)
{
  g_autofree char *src_path = NULL;
  g_autofree char *dst_path = NULL;
  g_autoptr (GFile) source = NULL;
  g_autoptr (GFile) destination = NULL;
  g_autoptr (GError) gone = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  /* A failure where the source has gone, or the folder it goes to, ends
   * the job, as a failing destination does: every later file would fail
   * the same way. */
  if (g_error_matches (error, FERRY_ERROR, FERRY_ERROR_DESTINATION_DELETED))
    fatal = TRUE;
  else if (!fatal
      && ((gone = new_error_if_source_gone (ctx, entry, error)) != NULL
          || (gone = ferry_tree_context_new_error_if_deleted (entry->node, error)) != NULL))
    {
      error = gone;
      fatal = TRUE;
    }
  ferry_counters_add (ctx->counters, &ctx->counters->bytes_failed, bytes);
  src_path = ferry_entry_path (entry, TRUE);
  dst_path = ferry_entry_path (entry, FALSE);
  source = g_file_new_for_path (src_path);
  destination = g_file_new_for_path (dst_path);
  ferry_tree_context_report_failure (ctx, ferry_failure_new (source, destination, error), fatal);
}

/* How an entry that is not a folder ended: copied, skipped (its bytes
 * leave the total only where the plan counted them: the first name of a
 * file with several), or failed with @error. */
void
ferry_tree_context_count_outcome (FerryTreeContext *ctx,
                                  const FerryEntry *entry,
                                  gboolean copied,
                                  gboolean first_name,
                                  const GError *error)
{
  guint64 size = S_ISREG (entry->st.st_mode) ? entry->st.st_size : 0;

  if (!copied)
    ferry_tree_context_file_failed (ctx, entry, size, error, entry->destination_failed);
  else if (entry->skip)
    ferry_tree_context_file_skipped (ctx, 1, first_name ? size : 0);
  else
    ferry_tree_context_done_in (ctx, entry->node);
}

/* A subtree that will not be copied still counted in the plan: skipped,
 * it leaves the totals so the progress ends where the work ends; under
 * a folder that failed, its bytes stay in the total as failed, and its
 * entries are neither done nor failed (the folder is). */
void
ferry_tree_context_subtree_dropped (FerryTreeContext *ctx,
                                    const FerryEntry *entry,
                                    gboolean skipped)
{
  FerryTreeTotals totals = { 0 };

  ferry_tree_measure_at (entry->node->src_fd, entry->src_name, &totals,
                         ferry_control_get_cancellable (ctx->control));
  if (skipped)
    ferry_tree_context_file_skipped (ctx, totals.files, totals.bytes);
  else
    ferry_counters_add (ctx->counters, &ctx->counters->bytes_failed, totals.bytes);
}
