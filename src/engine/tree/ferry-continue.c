/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ferry-continue.h"
#include "ferry-fs.h"

/* How much of a file continued is read back and compared with its
 * source before anything is appended: the last window a point covered. */
#define CHECK_WINDOW (4 * 1024 * 1024)
#define CHECK_BUFFER (256 * 1024)

/* A run that continues a transfer cut short (a kill, an unplug): what
 * its journal says is on the device is checked, never trusted. A file
 * listed complete is kept when its source is as it was (size and time)
 * and its copy is there with that size and time; the file in flight
 * goes on from its durable offset when its temporary file is there, at
 * least that long, its source as it was, and the last durable window
 * equals the source's bytes. Anything else is copied again. */

static FerryJournalStamp
stamp_of (const struct stat *st)
{
  return (FerryJournalStamp){ st->st_size, st->st_mtim.tv_sec, st->st_mtim.tv_nsec };
}

static gboolean
stamp_equal (const FerryJournalStamp *a, const FerryJournalStamp *b)
{
  return a->size == b->size && a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* Whether @copy, found under the name a source @source goes to, is that
 * source's copy as an earlier run left it: a regular file of its size
 * and time, the time as finely as the destination's @rules keep it (NTFS
 * 100 ns, exFAT 10 ms or 1 s through exfat-fuse, FAT 2 s). The name is
 * only ever given to a whole copy. */
gboolean
ferry_continue_copy_matches (const FerryFsRules *rules,
                             const struct stat *copy,
                             const struct stat *source)
{
  return S_ISREG (copy->st_mode) && copy->st_size == source->st_size
         && ferry_fs_rules_same_time (rules, &copy->st_mtim, &source->st_mtim);
}

static FerryJournal *
journal_of (FerryTreeContext *ctx)
{
  return ctx->target->journal;
}

/* An earlier run's copy of @entry, complete on the device: counted, and
 * not written again. Otherwise FALSE, @entry replacing what that run
 * left under its name when the source or the copy changed since. */
gboolean
ferry_continue_carry (FerryTreeContext *ctx, FerryEntry *entry)
{
  g_autofree char *relpath = NULL;
  FerryJournalStamp source = stamp_of (&entry->st), recorded;
  gboolean known;
  struct stat copy;

  if (!ctx->resuming || !S_ISREG (entry->st.st_mode))
    return FALSE;
  relpath = ferry_dir_node_dst_relpath (entry->node, entry->dst_name);
  known = ferry_journal_find_complete (journal_of (ctx), relpath, &recorded);
  if (fstatat (entry->node->dst_fd, entry->dst_name, &copy, AT_SYMLINK_NOFOLLOW) != 0)
    return FALSE;
  entry->replace = known && S_ISREG (copy.st_mode);
  if ((known && !stamp_equal (&recorded, &source))
      || !ferry_continue_copy_matches (&ctx->rules, &copy, &entry->st))
    return FALSE;
  ferry_journal_complete (journal_of (ctx), relpath, &source);
  ferry_counters_add_carried (ctx->counters, entry->st.st_size);
  ferry_tree_context_file_done (ctx);
  return TRUE;
}

static gboolean
read_all (int fd, char *buf, size_t n, off_t off)
{
  for (size_t done = 0; done < n;)
    {
      ssize_t r = pread (fd, buf + done, n - done, off + done);

      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return FALSE;
      done += r;
    }
  return TRUE;
}

/* The last window before @offset is the same in the copy as in the
 * source. */
static gboolean
window_matches (int src_fd, int copy_fd, guint64 offset)
{
  g_autofree char *a = g_malloc (CHECK_BUFFER);
  g_autofree char *b = g_malloc (CHECK_BUFFER);
  guint64 off = offset - MIN (offset, CHECK_WINDOW);

  while (off < offset)
    {
      size_t n = MIN (CHECK_BUFFER, offset - off);

      if (!read_all (src_fd, a, n, off) || !read_all (copy_fd, b, n, off) || memcmp (a, b, n) != 0)
        return FALSE;
      off += n;
    }
  return TRUE;
}

/* The temporary file the journal records for @fc, opened to go on from
 * its durable offset; one that cannot be continued is removed. */
static gboolean
reopen_in_flight (FerryTreeContext *ctx, FerryFileCopy *fc)
{
  g_auto (FerryJournalInFlight) record = { 0 };
  FerryJournalStamp source = stamp_of (&fc->st);
  struct stat st;
  int errsv;

  if (!ferry_journal_find_in_flight (journal_of (ctx), fc->journal_path, &record))
    return FALSE;
  ferry_journal_drop_file (journal_of (ctx), fc->journal_path);
  if (!ferry_temp_file_reopen (&fc->tmp, fc->dst_dir_fd, record.temp_name, &errsv))
    return FALSE;
  if (!stamp_equal (&record.stamp, &source) || record.durable == 0 || fstat (fc->tmp.fd, &st) != 0
      || (guint64) st.st_size < record.durable
      || !window_matches (fc->src_fd, fc->tmp.fd, record.durable))
    {
      ferry_temp_file_discard (&fc->tmp);
      return FALSE;
    }
  fc->tmp.mode = fc->st.st_mode & 0777 & ~ctx->meta.umask;
  fc->resume_from = record.durable;
  fc->written = record.durable;
  fc->journaled = TRUE;
  ferry_counters_add_carried (ctx->counters, record.durable);
  ferry_journal_begin_file (journal_of (ctx), fc->journal_path, record.temp_name, &source,
                            record.durable);
  return TRUE;
}

/* Files large enough to matter, and not sparse. */
static gboolean
is_resumable (FerryTreeContext *ctx, const FerryFileCopy *fc)
{
  return journal_of (ctx) != NULL && fc->journal_path != NULL
         && fc->st.st_size >= FERRY_JOURNAL_RESUMABLE_MIN
         && (guint64) fc->st.st_blocks * 512 >= (guint64) fc->st.st_size;
}

/**
 * ferry_continue_open_temp:
 * For a large file whose job keeps a journal: the earlier run's
 * temporary file, continued, or, on a slow device, a new one the journal
 * records. FALSE: the caller opens the usual temporary file, which gets
 * such a name once the slow strategy writes it (a job that finds its
 * device slow hands over in the middle of a file), and never on a fast
 * device, where a killed run leaves no temporary file at all.
 */
gboolean
ferry_continue_open_temp (FerryTreeContext *ctx, FerryFileCopy *fc)
{
  FerryJournalStamp source = stamp_of (&fc->st);
  int errsv;

  fc->resumable = is_resumable (ctx, fc);
  if (!fc->resumable)
    return FALSE;
  if (ctx->resuming && reopen_in_flight (ctx, fc))
    return TRUE;
  if (ferry_copy_target_get_method (ctx->target) != FERRY_COPY_METHOD_WINDOW
      || !ferry_temp_file_open_resumable (&fc->tmp, fc->dst_dir_fd,
                                          fc->st.st_mode & 0777 & ~ctx->meta.umask,
                                          ferry_journal_get_id (journal_of (ctx)), &errsv))
    return FALSE;
  ferry_journal_begin_file (journal_of (ctx), fc->journal_path, fc->tmp.name, &source, 0);
  fc->journaled = TRUE;
  return TRUE;
}

/* The copy at @relpath, of the source @src_st, has its name, and the
 * name is on the device. */
void
ferry_continue_note_complete (FerryTreeContext *ctx,
                              const char *relpath,
                              const struct stat *src_st)
{
  FerryJournalStamp source = stamp_of (src_st);

  if (journal_of (ctx) != NULL && relpath != NULL)
    ferry_journal_complete (journal_of (ctx), relpath, &source);
}

/**
 * ferry_continue_keep_in_flight:
 * @fc was cut short by its job stopping (a cancel, or its drive full or
 * gone), whose journal is kept for a run that continues the transfer:
 * its temporary file stays on the device when a point vouched for some
 * of it, for that run to go on from there, as after a kill. TRUE: kept
 * (closed, letting go of its lock), the journal still recording it.
 * FALSE: nothing of it is worth keeping; the caller discards it.
 */
gboolean
ferry_continue_keep_in_flight (FerryTreeContext *ctx, FerryFileCopy *fc)
{
  g_auto (FerryJournalInFlight) record = { 0 };
  g_autoptr (GError) unsaved = NULL;

  if (!fc->journaled || !ferry_control_is_ending (ctx->control)
      || !ferry_journal_find_in_flight (journal_of (ctx), fc->journal_path, &record)
      || record.durable == 0)
    return FALSE;
  /* A journal that could not be saved would leave the file to no one. */
  unsaved = ferry_journal_dup_save_error (journal_of (ctx));
  if (unsaved != NULL)
    return FALSE;
  ferry_temp_file_leave (&fc->tmp);
  return TRUE;
}

/* @fc failed or was skipped: its temporary file is gone. */
void
ferry_continue_note_dropped (FerryTreeContext *ctx, const FerryFileCopy *fc)
{
  if (journal_of (ctx) != NULL && fc->journal_path != NULL)
    ferry_journal_drop_file (journal_of (ctx), fc->journal_path);
}

/* @entry's copy is complete under its name in a folder still hidden
 * (the hidden folder @entry->node->hidden_top). Once the folder has its
 * name the journal lists the copy complete: a run that continues the
 * transfer knows it for its own, keeps it while it and its source are as
 * they were, and copies it again when either changed, where a copy the
 * journal does not know is met as a file that exists. */
void
ferry_continue_note_in_hidden (FerryTreeContext *ctx,
                               const FerryEntry *entry,
                               const struct stat *src_st)
{
  g_autofree char *relpath = NULL;
  FerryJournalStamp source = stamp_of (src_st);

  if (journal_of (ctx) == NULL)
    return;
  relpath = ferry_dir_node_dst_final_relpath (entry->node, entry->dst_name);
  ferry_journal_hold_complete (journal_of (ctx), entry->node->hidden_top, relpath, &source);
}

/* The hidden folder @node got its name (@named: after a sync had all it
 * holds), or never will. */
void
ferry_continue_note_folder_named (FerryTreeContext *ctx, const FerryDirNode *node, gboolean named)
{
  if (journal_of (ctx) != NULL)
    ferry_journal_release_held (journal_of (ctx), node, named);
}
