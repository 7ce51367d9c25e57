/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

#include "ferry-copy-file.h"
#include "ferry-entry-batch.h"
#include "ferry-folder.h"
#include "ferry-fs.h"
#include "ferry-hidden-folder.h"
#include "ferry-tree-copy.h"

#define LISTING_BUFFER_SIZE (64 * 1024)
/* Entries of a folder listed before the first of them is copied and
 * offered to the other workers: few enough that the lister soon copies,
 * enough that the offer costs nothing next to copying them. */
#define BATCH_ENTRIES 32

/**
 * FerryTreeCopy:
 * Copies trees with a pool of workers sharing a stack of folders to list
 * (a folder per task, newest first, so the walk stays depth-first and the
 * number of open folders stays near depth times workers). Files are copied
 * by the worker that lists their folder; subfolders become new tasks. On
 * a fast disk with more than one worker, a folder is listed a batch at a
 * time, and each batch is offered while the lister copies it: a worker
 * with no folder left to list joins and claims its entries one at a
 * time. A folder of many files (a camera card's) is then copied by all
 * workers, and a folder of two large files a file a worker, however late
 * the second worker comes to wait.
 */
struct _FerryTreeCopy
{
  FerryTreeContext *ctx;
  GMutex lock;
  GCond cond;
  GPtrArray *tasks; /* Task*, used as a stack */
  /* Task* holding a batch: taken only when no folder waits, so workers
   * keep to folders of their own while there are folders to list. */
  GPtrArray *offers;
  guint n_busy;
  GPtrArray *threads; /* besides the one that called run() */
  gboolean running;
  /* The root node of the last root added, and the descriptors its root
   * came with: the next root in the same folders goes in it too. */
  FerryDirNode *last_root;
  int last_src_parent_fd;
  int last_dst_dir_fd;
};

typedef struct
{
  FerryDirNode *node;
  char *src_name; /* set for an entry to copy; NULL to list the folder */
  char *dst_name;
  unsigned char d_type;
  FerryEntryBatch *batch; /* or entries of the folder, offered */
} Task;

static void
task_free (Task *task)
{
  g_free (task->src_name);
  g_free (task->dst_name);
  if (task->batch != NULL)
    ferry_entry_batch_unref (task->batch);
  g_free (task);
}

FerryTreeCopy *
ferry_tree_copy_new (FerryTreeContext *ctx)
{
  FerryTreeCopy *self = g_new0 (FerryTreeCopy, 1);

  self->ctx = ctx;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->tasks = g_ptr_array_new ();
  self->offers = g_ptr_array_new ();
  self->threads = g_ptr_array_new ();
  return self;
}

void
ferry_tree_copy_free (FerryTreeCopy *self)
{
  g_assert (self->tasks->len == 0 && self->offers->len == 0);
  g_ptr_array_unref (self->tasks);
  g_ptr_array_unref (self->offers);
  g_ptr_array_unref (self->threads);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

static void
add_to (FerryTreeCopy *self, GPtrArray *list, Task *task)
{
  g_mutex_lock (&self->lock);
  g_ptr_array_add (list, task);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* A folder to list, or (with @src_name) one entry of it to copy: a
 * root's top entry. */
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
  add_to (self, self->tasks, task);
}

/* The root node borrows both descriptors, which the caller keeps open
 * until the copy has ended (the plan's). Roots that come in the same
 * folders, as the plan gives them (sources of one folder share its
 * descriptor), share one node: one of each for every source ran out of
 * descriptors with a few hundred, and so did copies of them for sources
 * from as many folders (600 where 1,024 may be open). Added before
 * run(), so no node is done while roots still come. */
void
ferry_tree_copy_add_root (FerryTreeCopy *self, const FerryTreeRoot *root)
{
  FerryDirNode *node = self->last_root;

  g_return_if_fail (!self->running);
  if (node != NULL && root->src_parent_fd == self->last_src_parent_fd
      && root->dst_dir_fd == self->last_dst_dir_fd)
    g_atomic_int_inc (&node->pending);
  else
    {
      node = ferry_dir_node_new_root (root->src_parent_fd, root->src_parent_path,
                                      root->dst_dir_fd, root->dst_dir_path);
      node->dst_shapes_new = ferry_folder_shapes_new_entries (node->dst_fd);
      self->last_root = node;
      self->last_src_parent_fd = root->src_parent_fd;
      self->last_dst_dir_fd = root->dst_dir_fd;
    }
  ferry_tree_context_add_source (self->ctx, root->src_parent_fd, root->src_parent_path,
                                 root->src_name);
  push_task (self, node, root->src_name, root->dst_name, DT_UNKNOWN);
}

/* ------------------------------------------------------------------ */
/* Entries                                                             */

static void
copy_dir_entry (FerryTreeCopy *self, FerryEntry *entry)
{
  g_autoptr (GError) error = NULL;
  FerryDirNode *child = ferry_folder_make (self->ctx, entry, &error);

  if (child == NULL)
    {
      if (error != NULL)
        {
          ferry_tree_context_file_failed (self->ctx, entry, 0, error, entry->destination_failed);
          ferry_tree_context_subtree_dropped (self->ctx, entry, FALSE);
        }
      return;
    }

  g_atomic_int_inc (&entry->node->pending);
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

/* A regular file is opened at once and its stat taken from the open
 * file: one call fewer than a stat by name, for most entries. */
static int
look_at (FerryTreeCopy *self, FerryEntry *entry, unsigned char d_type, GError **error)
{
  int src_fd = d_type == DT_REG ? open_listed_file (entry->node, entry->src_name, &entry->st) : -1;

  if (src_fd >= 0
      || fstatat (entry->node->src_fd, entry->src_name, &entry->st, AT_SYMLINK_NOFOLLOW) == 0)
    return src_fd;
  if (errno == ENOENT)
    ferry_entry_fail_vanished (entry, error);
  else
    ferry_entry_fail_errno (entry, TRUE, errno, _ ("Could not read “%s”"), error);
  return -1;
}

/* An entry the destination cannot store as it is goes as decided before
 * the copy began (FerryPreflight): under another name, as the file a
 * link points to, or not at all. */
static const FerryAdaptation *
find_adaptation (FerryTreeCopy *self, FerryDirNode *node, const char *src_name)
{
  g_autofree char *src_path = NULL;

  if (self->ctx->adaptations == NULL)
    return NULL;
  src_path = ferry_dir_node_src_path (node, src_name);
  return ferry_adaptations_lookup (self->ctx->adaptations, src_path);
}

/* A symlink adapted as the file it points to. Its copy is a file of its
 * own, not one more name of that file: were it counted among the file's
 * names (st_nlink), it would take the place of a real one, which would
 * then be copied apart, and the link's copy would share the others'
 * content on a drive that keeps several names (NTFS). */
static int
look_through (FerryEntry *entry, GError **error)
{
  ferry_autofd fd = ferry_open_source_at (entry->node->src_fd, entry->src_name,
                                          O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

  if (fd >= 0 && fstat (fd, &entry->st) == 0 && S_ISREG (entry->st.st_mode))
    {
      entry->st.st_nlink = 1;
      return ferry_fd_steal (&fd);
    }
  ferry_entry_fail_errno (entry, TRUE, fd < 0 ? errno : EINVAL, _ ("Could not read “%s”"), error);
  return -1;
}

static void
copy_entry (FerryTreeCopy *self,
            FerryDirNode *node,
            const char *src_name,
            const char *dst_name,
            unsigned char d_type)
{
  const FerryAdaptation *adaptation = find_adaptation (self, node, src_name);
  g_auto (FerryEntry) entry = { 0 }; /* cleared on every way out, the first too */
  g_autoptr (GError) error = NULL;
  int src_fd;

  if (!ferry_tree_context_check (self->ctx))
    return;
  ferry_folder_name_waiting (self->ctx, FALSE);
  ferry_entry_init (&entry, node, src_name, adaptation != NULL ? adaptation->dst_name : dst_name);
  if (adaptation != NULL && adaptation->kind == FERRY_ADAPT_SKIP)
    {
      ferry_tree_context_subtree_dropped (self->ctx, &entry, TRUE);
      return;
    }
  ferry_tree_context_show_current (self->ctx, &entry);

  if (d_type == DT_DIR)
    {
      copy_dir_entry (self, &entry);
      return;
    }
  if (adaptation != NULL && adaptation->kind == FERRY_ADAPT_FOLLOW)
    src_fd = look_through (&entry, &error);
  else
    src_fd = look_at (self, &entry, d_type, &error);
  if (error == NULL && ferry_hidden_folder_wants_name (self->ctx, node, &entry.st))
    ferry_folder_name_now (self->ctx, node, FALSE);
  if (error != NULL)
    ferry_tree_context_file_failed (self->ctx, &entry, 0, error, FALSE);
  else if (S_ISDIR (entry.st.st_mode))
    copy_dir_entry (self, &entry);
  else
    ferry_copy_file (self->ctx, &entry, src_fd);
}

/* ------------------------------------------------------------------ */
/* Folders                                                             */

/* Copies the entries of @batch that no other worker claimed first. */
static void
copy_claimed (FerryTreeCopy *self, FerryDirNode *node, FerryEntryBatch *batch)
{
  const char *name;
  unsigned char d_type;

  while (!ferry_control_is_ending (self->ctx->control)
         && ferry_entry_batch_claim (batch, &name, &d_type))
    copy_entry (self, node, name, name, d_type);
}

/* Offers @batch to the other workers as a task (the folder waits for it
 * as for a subfolder), copies what none of them claimed, and takes the
 * offer back if no worker took it. Offered only once listed: a worker
 * that comes to wait while the lister copies the first of two large
 * files still gets the second. */
static void
share_batch (FerryTreeCopy *self, FerryDirNode *node, FerryEntryBatch *batch)
{
  Task *offer = g_new0 (Task, 1);
  gboolean untaken;

  offer->node = node;
  offer->batch = ferry_entry_batch_ref (batch);
  g_atomic_int_inc (&node->pending);
  add_to (self, self->offers, offer);
  copy_claimed (self, node, batch);

  g_mutex_lock (&self->lock);
  untaken = g_ptr_array_remove (self->offers, offer);
  g_mutex_unlock (&self->lock);
  if (!untaken)
    return;
  ferry_folder_release (self->ctx, node);
  task_free (offer);
}

static void
fail_listing (FerryTreeCopy *self, FerryDirNode *node, int errsv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = ferry_dir_node_src_path (node->parent, node->src_name);

  ferry_set_error_from_errno (&error, errsv, _ ("Could not list the folder “%s”"), path);
  ferry_folder_fail (self->ctx, node, error, FALSE);
}

/* Copies the entries of @node as they are listed; on a fast disk with
 * other workers, a batch at a time, each offered to them (share_batch()). */
static int
list_and_copy (FerryTreeCopy *self, FerryDirNode *node, FerryDirReader *reader)
{
  gboolean shares = self->threads->len > 0 && ferry_copy_target_places_folders (self->ctx->target);
  g_autoptr (FerryEntryBatch) batch = NULL;
  guint n = 0;
  const char *name;
  unsigned char d_type;
  int errsv;

  while (ferry_dir_reader_next (reader, &name, &d_type, &errsv))
    {
      if (ferry_control_is_ending (self->ctx->control))
        break;
      if (!shares)
        {
          copy_entry (self, node, name, name, d_type);
          continue;
        }
      if (batch == NULL)
        batch = ferry_entry_batch_new ();
      n = ferry_entry_batch_add (batch, name, d_type);
      if (n == BATCH_ENTRIES)
        {
          share_batch (self, node, batch);
          g_clear_pointer (&batch, ferry_entry_batch_unref);
        }
    }
  /* A last entry alone is not worth an offer. */
  if (batch != NULL && n > 1)
    share_batch (self, node, batch);
  else if (batch != NULL)
    copy_claimed (self, node, batch);
  return errsv;
}

/* A folder built in parts is listed whole before its first entry is
 * copied: one that holds a folder (or an entry that may be one) gets its
 * name at once, while it is empty, and no longer waits for a sync. */
static int
list_then_copy (FerryTreeCopy *self, FerryDirNode *node, FerryDirReader *reader)
{
  g_autoptr (FerryEntryBatch) listed = ferry_entry_batch_new ();
  gboolean files_only = TRUE;
  const char *name;
  unsigned char d_type;
  int errsv;

  while (ferry_dir_reader_next (reader, &name, &d_type, &errsv))
    {
      ferry_entry_batch_add (listed, name, d_type);
      files_only = files_only && d_type != DT_DIR && d_type != DT_UNKNOWN;
    }
  if (errsv == 0 && (files_only || ferry_folder_name_now (self->ctx, node, TRUE)))
    copy_claimed (self, node, listed);
  return errsv;
}

static void
list_dir (FerryTreeCopy *self, FerryDirNode *node)
{
  g_autoptr (GError) error = NULL;
  FerryDirReader reader;
  int errsv;

  if (!ferry_tree_context_check (self->ctx))
    return;
  if (!ferry_folder_open (node, &error))
    {
      ferry_folder_fail (self->ctx, node, error, FALSE);
      if (node->created)
        unlinkat (node->parent->dst_fd, ferry_dir_node_dst_name_now (node), AT_REMOVEDIR);
      node->created = FALSE;
      return;
    }

  ferry_dir_reader_init (&reader, node->src_fd, LISTING_BUFFER_SIZE);
  if (ferry_hidden_folder_in_parts (node))
    errsv = list_then_copy (self, node, &reader);
  else
    errsv = list_and_copy (self, node, &reader);
  ferry_dir_reader_clear (&reader);
  if (errsv != 0)
    fail_listing (self, node, errsv);
}

static void
run_task (FerryTreeCopy *self, Task *task)
{
  if (task->batch != NULL)
    copy_claimed (self, task->node, task->batch);
  else if (task->src_name != NULL)
    {
      if (ferry_tree_context_check (self->ctx))
        copy_entry (self, task->node, task->src_name, task->dst_name, task->d_type);
    }
  else
    list_dir (self, task->node);
  ferry_folder_release (self->ctx, task->node);
  task_free (task);
}

static gpointer
worker_main (gpointer data)
{
  FerryTreeCopy *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      GPtrArray *from;
      Task *task;

      while (self->tasks->len == 0 && self->offers->len == 0 && self->n_busy > 0)
        g_cond_wait (&self->cond, &self->lock);
      from = self->tasks->len > 0 ? self->tasks : self->offers;
      if (from->len == 0)
        break;

      task = g_ptr_array_steal_index_fast (from, from->len - 1);
      self->n_busy++;
      g_mutex_unlock (&self->lock);

      run_task (self, task);

      g_mutex_lock (&self->lock);
      self->n_busy--;
      if (self->tasks->len == 0 && self->offers->len == 0 && self->n_busy == 0)
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
 * ferry_tree_copy_run:
 * Copies every root added, on @n_workers threads (the calling thread is
 * one of them), and returns when all are done or the job stopped.
 */
void
ferry_tree_copy_run (FerryTreeCopy *self, guint n_workers)
{
  g_mutex_lock (&self->lock);
  self->running = TRUE;
  self->last_root = NULL; /* done and freed with its tasks */
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
  /* Folders built in parts that still wait for a sync get one now. */
  ferry_folder_name_waiting (self->ctx, TRUE);
}
