/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>

#include "ferry-continue.h"
#include "ferry-folder.h"
#include "ferry-fs.h"
#include "ferry-place.h"
#include "ferry-regular-file.h"
#include "ferry-verify.h"

/* A regular file, from its open source to its final name: its data goes
 * into a temporary file by the job's strategy, is checked, gets its
 * metadata, and only then its name: at once, or (a slow device) once the
 * strategy has its data on the device, and then it counts as copied once
 * the name is on the device too. */

/* A file on its way: on the copying worker's stack, or, while its name
 * waits for the strategy, on the heap. */
typedef struct
{
  FerryFileCopy fc; /* first: the strategy hands back this pointer */
  FerryTreeContext *ctx;
  FerryEntry entry; /* its own, once it waits */
  char *src_name;   /* the entry's, which lived in a folder listing */
  char *src_path;   /* once named, when its folder may be done: for messages */
  char *dst_path;
  char *journal_path; /* below the destination folder, when the job keeps a journal */
} RegularFile;

static char *
path_of_file (const FerryFileCopy *fc, gboolean source)
{
  return ferry_entry_path (fc->entry, source);
}

static char *
path_of_named (const FerryFileCopy *fc, gboolean source)
{
  const RegularFile *file = (const RegularFile *) fc;

  return g_strdup (source ? file->src_path : file->dst_path);
}

static void
regular_file_free (RegularFile *file)
{
  ferry_entry_clear (&file->entry);
  g_free (file->src_name);
  g_free (file->src_path);
  g_free (file->dst_path);
  g_free (file->journal_path);
  g_free (file);
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

/* In a folder being built whole under a hidden name, the file is made
 * under its final name at once: nothing can conflict there, and the
 * folder gets its name only once the file is durable. */
static gboolean
open_in_place (FerryFileCopy *fc, const FerryEntry *entry, mode_t mode)
{
  int errsv;

  return entry->node->hidden_top != NULL && entry->node->fresh && !entry->replace
         && ferry_temp_file_open_in_place (&fc->tmp, fc->dst_dir_fd, entry->dst_name, mode, &errsv);
}

/* The path the journal knows a file by, built only for a file it may
 * record: one large enough to be continued (ferry_continue_open_temp())
 * or one named later, whose name it records as complete. Built for every
 * file, it took a fifth of Ferry's user-space CPU time on the src tree. */
static void
set_journal_path (FerryTreeContext *ctx, RegularFile *file, const FerryEntry *entry)
{
  if (ctx->target->journal == NULL || file->journal_path != NULL)
    return;
  file->journal_path = ferry_dir_node_dst_relpath (entry->node, entry->dst_name);
  file->fc.journal_path = file->journal_path;
}

static gboolean
open_temp (FerryTreeContext *ctx, FerryFileCopy *fc, const FerryEntry *entry, GError **error)
{
  mode_t mode = fc->st.st_mode & 0777 & ~ctx->meta.umask;
  int errsv;

  /* Read from the open source, as ferry_continue_open_temp() reads it. */
  if (fc->st.st_size >= FERRY_JOURNAL_RESUMABLE_MIN)
    set_journal_path (ctx, (RegularFile *) fc, entry);
  if (ferry_continue_open_temp (ctx, fc) || open_in_place (fc, entry, mode))
    return TRUE;
  if (ferry_temp_file_open (&fc->tmp, fc->dst_dir_fd, mode, &ctx->tmpfile_unsupported, &errsv))
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

/* Where a rename stamps the file with its own time, the source's times
 * are set again on the file, now under its name (they were set once
 * already: a failure now leaves the time of the rename, not the file). */
static void
keep_times_after_rename (FerryTreeContext *ctx, FerryFileCopy *fc)
{
  FerryMetaTarget dst = { fc->tmp.fd, -1, NULL, FALSE, 0 };
  int errsv;

  if (!ctx->target->renames_faithfully)
    (void) ferry_metadata_apply_times (&ctx->meta, dst, &fc->st, &errsv);
}

/* The temporary file gets the entry's name; a name taken meanwhile is
 * settled as a conflict and tried again. */
static gboolean
give_name (FerryTreeContext *ctx, FerryFileCopy *fc, FerryEntry *entry, GError **error)
{
  for (guint attempt = 0; attempt < 8; attempt++)
    {
      int errsv;

      if (ferry_temp_file_commit (&fc->tmp, entry->dst_name, entry->replace,
                                  &ctx->links_refused, &errsv))
        {
          keep_times_after_rename (ctx, fc);
          return TRUE;
        }
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

static gboolean
copy_data (FerryTreeContext *ctx, FerryFileCopy *fc, FerryEntry *entry, GError **error)
{
  gboolean ok = ferry_strategy_copy_data (strategy (ctx), fc, error);

  /* A pseudo file's size is what was read, and the job's total counts
   * that now: a failure later takes back as much. */
  entry->st.st_size = fc->st.st_size;
  return ok;
}

/* Verification reads the copy back, which moves its access time: it
 * comes before the metadata, so the times set are the ones kept. */
static gboolean
copy_steps (FerryTreeContext *ctx, FerryFileCopy *fc, FerryEntry *entry, GError **error)
{
  return open_source (fc, entry, error) && open_temp (ctx, fc, entry, error)
         && copy_data (ctx, fc, entry, error)
         && ferry_file_copy_check_source_unchanged (fc, error)
         && (!ctx->verify || ferry_verify_copy (ctx->control, fc, ctx->target->device_fd, error))
         && apply_metadata (ctx, fc, entry, error);
}

/* A copy that failed or was skipped leaves nothing behind and takes its
 * bytes back from the progress; but one its stopping job cut short may
 * keep its temporary file for the run that continues the transfer, and
 * then its bytes too, which are on the device. */
static void
end_file (RegularFile *file, const FerryEntry *entry, gboolean copied)
{
  FerryFileCopy *fc = &file->fc;
  gboolean kept = !copied && ferry_continue_keep_in_flight (file->ctx, fc);

  if ((!copied || entry->skip) && !kept)
    {
      ferry_counters_sub (file->ctx->counters, &file->ctx->counters->bytes_written, fc->written);
      ferry_continue_note_dropped (file->ctx, fc);
    }
  ferry_fd_closep (&fc->src_fd);
  ferry_temp_file_discard (&fc->tmp); /* nothing left to discard once it has its name */
}

/* A named file whose data or name may not be on the device: it ends the
 * job, whose failure list has it. */
static void
report_lost (FerryTreeContext *ctx, const char *src_path, const char *dst_path, const GError *error)
{
  g_autoptr (GFile) source = g_file_new_for_path (src_path);
  g_autoptr (GFile) destination = g_file_new_for_path (dst_path);

  ferry_tree_context_report_failure (ctx, ferry_failure_new (source, destination, error), TRUE);
}

/* Its name is on the device too (or, with @errsv, may not be: the file
 * fails, although its data got there). A cancel names it, whole in the
 * page cache: the journal lists it complete, as a file named at once,
 * for the run that continues the transfer to carry, not to meet as a
 * file that exists. */
static void
on_name_durable (FerryFileCopy *fc, int errsv)
{
  RegularFile *file = (RegularFile *) fc;
  g_autoptr (GError) error = NULL;

  if (errsv == 0 || errsv == ECANCELED)
    ferry_continue_note_complete (file->ctx, fc->journal_path, &fc->st);
  if (errsv == 0 || errsv == ECANCELED)
    ferry_tree_context_file_done (file->ctx);
  else
    {
      ferry_file_copy_fail_durable (fc, errsv, &error);
      report_lost (file->ctx, file->src_path, file->dst_path, error);
    }
  regular_file_free (file);
}

/* A file named at once, before a sync vouched for its data: the
 * strategy keeps it until one does. */
typedef struct
{
  FerryNamedFile named; /* first: the strategy hands back this pointer */
  FerryTreeContext *ctx;
  char *src_path;
  struct stat src_st;
} NamedCopy;

static void
named_copy_free (FerryNamedFile *named)
{
  NamedCopy *copy = (NamedCopy *) named;

  g_free (copy->src_path);
  g_free (copy);
}

/* The device failed and the copy lost its name: counted copied when it
 * got it, it fails now. */
static void
on_named_lost (FerryNamedFile *named, int errsv)
{
  NamedCopy *copy = (NamedCopy *) named;
  FerryTreeContext *ctx = copy->ctx;
  g_autofree char *dst_path = g_build_filename (ctx->target->path, named->relpath, NULL);
  g_autoptr (GError) error = NULL;

  ferry_file_copy_set_not_on_device (dst_path, errsv, &error);
  ferry_counters_sub (ctx->counters, &ctx->counters->files_done, 1);
  report_lost (ctx, copy->src_path, dst_path, error);
}

/* A sync vouched for the copy and its name: the journal may say so. */
static void
on_named_kept (FerryNamedFile *named)
{
  NamedCopy *copy = (NamedCopy *) named;

  ferry_continue_note_complete (copy->ctx, named->relpath, &copy->src_st);
}

/* Hands the strategy the file just named, with its copy still open. */
static void
note_named (FerryTreeContext *ctx, FerryFileCopy *fc, const FerryEntry *entry)
{
  NamedCopy *copy;

  /* In a hidden folder: the folder's name waits for the sync instead. */
  if (!ferry_copy_target_notes_names (ctx->target) || entry->node->hidden_top != NULL)
    return;
  copy = g_new0 (NamedCopy, 1);
  copy->named.relpath = ferry_dir_node_dst_relpath (entry->node, entry->dst_name);
  copy->named.fd = ferry_fd_steal (&fc->tmp.fd);
  copy->named.lost = on_named_lost;
  copy->named.kept = on_named_kept;
  copy->src_st = fc->st;
  copy->named.free = named_copy_free;
  copy->ctx = ctx;
  copy->src_path = ferry_entry_path (entry, TRUE);
  ferry_copy_target_note_named (ctx->target, &copy->named);
}

/* A file just named: one in a hidden folder is in place with the
 * folder's name (ferry_hidden_folder_take_name()); elsewhere at once,
 * for a device's sync to vouch for. */
static void
note_placed (FerryTreeContext *ctx, FerryFileCopy *fc, const FerryEntry *entry)
{
  if (entry->node->hidden_top != NULL)
    {
      atomic_fetch_add (&entry->node->hidden_top->hidden_bytes, fc->st.st_size);
      ferry_continue_note_in_hidden (ctx, entry, &fc->st);
      return;
    }
  ferry_counters_add (ctx->counters, &ctx->counters->bytes_placed, fc->st.st_size);
  note_named (ctx, fc, entry);
}

/* The strategy has the file's data on the device (or could not): it gets
 * its name now, and the folder holding it may finish. TRUE: named, the
 * file waits for its name to reach the device, keeping its paths. */
static gboolean
on_durable (FerryFileCopy *fc, int errsv)
{
  RegularFile *file = (RegularFile *) fc;
  FerryTreeContext *ctx = file->ctx;
  FerryDirNode *node = file->entry.node;
  g_autoptr (GError) error = NULL;
  gboolean copied, named;

  if (errsv == ECANCELED)
    copied = ferry_control_check (ctx->control, &error);
  else if (errsv != 0)
    copied = ferry_file_copy_fail_durable (fc, errsv, &error);
  else
    copied = give_name (ctx, fc, &file->entry, &error);
  named = copied && errsv == 0 && !file->entry.skip;
  file->entry.destination_failed = fc->destination_failed;
  end_file (file, &file->entry, copied);
  if (named)
    {
      file->src_path = ferry_entry_path (&file->entry, TRUE);
      file->dst_path = ferry_entry_path (&file->entry, FALSE);
      fc->path_of = path_of_named;
      fc->entry = NULL;
    }
  else
    ferry_tree_context_count_outcome (ctx, &file->entry, copied, TRUE, error);
  ferry_entry_clear (&file->entry);
  if (!named)
    regular_file_free (file);
  ferry_folder_release (ctx, node);
  return named;
}

/* The strategy takes the file (and its folder waits for it): a copy of
 * its own, on the heap, owning what it needs when its name is given; its
 * source is not needed any more. */
static RegularFile *
wait_for_name (const RegularFile *file, const FerryEntry *entry)
{
  RegularFile *later = g_memdup2 (file, sizeof *file);

  later->entry = *entry;
  later->src_name = g_strdup (entry->src_name);
  later->entry.src_name = later->src_name;
  later->entry.dst_name = g_strdup (entry->dst_name);
  later->fc.entry = &later->entry;
  later->fc.durable = on_durable;
  later->fc.name_durable = on_name_durable;
  ferry_fd_closep (&later->fc.src_fd);
  g_atomic_int_inc (&entry->node->pending);
  return later;
}

/* Where the strategy names files later, it gets the file with all it
 * needs then (and answers FERRY_COMMIT_LATER: the caller's own record
 * no longer owns anything); a file with several names is named at once,
 * since the others link to it, as is one made under its name in a
 * hidden folder. */
static FerryCommit
commit (FerryTreeContext *ctx, RegularFile *file, FerryEntry *entry, GError **error)
{
  FerryStrategy *now = strategy (ctx);

  if (now->klass->names_later && entry->st.st_nlink == 1 && !file->fc.tmp.in_place)
    {
      set_journal_path (ctx, file, entry);
      return ferry_strategy_commit_file (now, &wait_for_name (file, entry)->fc, error);
    }
  return ferry_strategy_commit_file (now, &file->fc, error);
}

/**
 * ferry_regular_file_copy:
 * Copies the regular file @entry; @src_fd is its source when the walk
 * opened it already (taken over), or -1. FERRY_FILE_LATER: the strategy
 * names it later, and counts it then.
 */
FerryFileOutcome
ferry_regular_file_copy (FerryTreeContext *ctx, FerryEntry *entry, int *src_fd, GError **error)
{
  RegularFile file = {
    .fc = {
      .entry = entry,
      .path_of = path_of_file,
      .src_fd = ferry_fd_steal (src_fd),
      .dst_dir_fd = entry->node->dst_fd,
      .tmp = FERRY_TEMP_FILE_INIT,
    },
    .ctx = ctx,
  };
  FerryFileCopy *fc = &file.fc;
  gboolean copied = FALSE;

  if (copy_steps (ctx, fc, entry, error))
    switch (commit (ctx, &file, entry, error))
      {
        case FERRY_COMMIT_LATER:
          return FERRY_FILE_LATER;
        case FERRY_COMMIT_NOW:
          copied = give_name (ctx, fc, entry, error);
          if (copied && !entry->skip)
            note_placed (ctx, fc, entry);
          break;
        case FERRY_COMMIT_FAILED:
        default:
          break;
      }
  entry->destination_failed = fc->destination_failed;
  end_file (&file, entry, copied);
  g_free (file.journal_path);
  return copied ? FERRY_FILE_COPIED : FERRY_FILE_FAILED;
}
