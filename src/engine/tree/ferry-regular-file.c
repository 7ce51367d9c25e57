/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>

#include "ferry-fs.h"
#include "ferry-place.h"
#include "ferry-regular-file.h"
#include "ferry-verify.h"

/* A regular file, from its open source to its final name: its data goes
 * into a temporary file by the job's strategy, is checked, gets its
 * metadata, and only then its name. */

static char *
path_of_file (const FerryFileCopy *fc, gboolean source)
{
  return ferry_entry_path (fc->entry, source);
}

static gboolean
open_source (FerryFileCopy *fc, const FerryEntry *entry, GError **error)
{
  /* Opened already by the walk, which took its stat from it. */
  if (fc->src_fd >= 0)
    {
      fc->st = entry->st;
      return TRUE;
    }
  fc->src_fd = ferry_open_source_at (entry->node->src_fd, entry->src_name,
                                     O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fc->src_fd < 0)
    {
      if (errno == ENOENT)
        return ferry_entry_fail_vanished (entry, error);
      return ferry_file_copy_fail_errno (fc, errno, FALSE, error);
    }
  if (fstat (fc->src_fd, &fc->st) != 0)
    return ferry_file_copy_fail_errno (fc, errno, FALSE, error);
  if (!ferry_stat_same_file (&fc->st, &entry->st) || !S_ISREG (fc->st.st_mode))
    return ferry_entry_fail (entry, TRUE, FERRY_ERROR_CHANGED,
                             _ ("“%s” was replaced while it was being copied"), error);
  return TRUE;
}

static gboolean
open_temp (FerryTreeContext *ctx, FerryFileCopy *fc, GError **error)
{
  int errsv;

  if (ferry_temp_file_open (&fc->tmp, fc->dst_dir_fd, fc->st.st_mode & 0777 & ~ctx->meta.umask,
                            &ctx->tmpfile_unsupported, &errsv))
    return TRUE;
  return ferry_file_copy_fail_errno (fc, errsv, TRUE, error);
}

static gboolean
apply_metadata (FerryTreeContext *ctx, FerryFileCopy *fc, const FerryEntry *entry, GError **error)
{
  FerryMetaTarget src = { fc->src_fd, -1, NULL, FALSE, 0 };
  FerryMetaTarget dst = { fc->tmp.fd, -1, NULL, !entry->node->dst_shapes_new, fc->tmp.mode };
  int errsv;

  if (ferry_metadata_apply (&ctx->meta, src, dst, &fc->st, &errsv))
    return TRUE;
  return ferry_file_copy_fail_errno (fc, errsv, TRUE, error);
}

/* The temporary file gets the entry's name; a name taken meanwhile is
 * settled as a conflict and tried again. */
static gboolean
give_name (FerryTreeContext *ctx, FerryFileCopy *fc, FerryEntry *entry, GError **error)
{
  for (guint attempt = 0; attempt < 8; attempt++)
    {
      int errsv;

      if (ferry_temp_file_commit (&fc->tmp, entry->dst_name, entry->replace, &errsv))
        return TRUE;
      if (errsv != EEXIST || entry->replace)
        return ferry_file_copy_fail_errno (fc, errsv, TRUE, error);
      if (!ferry_place_settle_late (ctx, entry, error))
        return FALSE;
      if (entry->skip)
        return TRUE;
    }
  return ferry_file_copy_fail_errno (fc, EEXIST, TRUE, error);
}

static FerryStrategy *
strategy (FerryTreeContext *ctx)
{
  return ferry_copy_target_get_strategy (ctx->target);
}

/* Verification reads the copy back, which moves its access time: it
 * comes before the metadata, so the times set are the ones kept. */
static gboolean
copy_steps (FerryTreeContext *ctx, FerryFileCopy *fc, FerryEntry *entry, GError **error)
{
  return open_source (fc, entry, error) && open_temp (ctx, fc, error)
         && ferry_strategy_copy_data (strategy (ctx), fc, error)
         && ferry_file_copy_check_source_unchanged (fc, error)
         && (!ctx->verify || ferry_verify_copy (ctx->control, fc, error))
         && apply_metadata (ctx, fc, entry, error)
         && ferry_strategy_commit_file (strategy (ctx), fc, error)
         && give_name (ctx, fc, entry, error);
}

/**
 * ferry_regular_file_copy:
 * Copies the regular file @entry; @src_fd is its source when the walk
 * opened it already (taken over), or -1. A copy that fails or is skipped
 * leaves nothing behind and takes its bytes back from the progress.
 */
gboolean
ferry_regular_file_copy (FerryTreeContext *ctx, FerryEntry *entry, int *src_fd, GError **error)
{
  FerryFileCopy fc = {
    .entry = entry,
    .path_of = path_of_file,
    .src_fd = ferry_fd_steal (src_fd),
    .dst_dir_fd = entry->node->dst_fd,
    .tmp = FERRY_TEMP_FILE_INIT,
  };
  gboolean ok = copy_steps (ctx, &fc, entry, error);

  if (ok && !entry->skip)
    ferry_strategy_file_named (strategy (ctx), &fc);
  else
    {
      ferry_strategy_abandon_file (strategy (ctx), &fc);
      ferry_counters_sub (ctx->counters, &ctx->counters->bytes_written, fc.written);
      ferry_temp_file_discard (&fc.tmp);
    }
  entry->destination_failed = fc.destination_failed;
  ferry_fd_closep (&fc.src_fd);
  return ok;
}
