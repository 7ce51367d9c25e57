/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>

#include "ferry-continue.h"
#include "ferry-file-copy.h"
#include "ferry-fs.h"
#include "ferry-hidden-folder.h"
#include "ferry-temp-file.h"
#include "ferry-temp-folder.h"

/* A folder built under a hidden name gets its name once all it holds
 * is durable (see "How a copy stays safe" in README.md). On a device
 * fast by its class that is the whole folder, once. On a device Ferry
 * measures, where a run cut short is continued and must not copy much
 * again, only a folder that holds nothing but files is built so, and
 * it gets its name as soon as it holds a bounded part: what a kill
 * leaves hidden, for the next run to copy again, is no more than what
 * the writer may be ahead of the device's syncs there anyway. Its name
 * waits for a sync the flusher makes in any case, without holding the
 * worker (ferry_hidden_folder_hold()). */

/* What a folder built in parts may hold before it gets its name. */
#define PART_MAX (64 * 1024 * 1024)
/* An entry costs at least a block: a folder of many empty files is
 * bounded too. */
#define ENTRY_COST 4096

/* Whether @node is built in parts and has no name of its own yet. */
gboolean
ferry_hidden_folder_in_parts (const FerryDirNode *node)
{
  return node->hidden_in_parts && node->hidden_name != NULL;
}

/**
 * ferry_hidden_folder_take_name:
 * The hidden folder @node gets its own name, after a sync that
 * returned *@errsv (0: all it holds is durable): one rename, which
 * never replaces what took the name meanwhile. Otherwise it is removed
 * with all it holds, and *@errsv says why. Its hidden name is forgotten
 * either way. FALSE with no error: the job stopped.
 */
gboolean
ferry_hidden_folder_take_name (FerryTreeContext *ctx, FerryDirNode *node, int *errsv, GError **error)
{
  const char *format = _ ("Could not put the folder “%s” in place");
  int parent_fd = node->parent->dst_fd;
  g_autofree char *path = NULL;

  if (*errsv == 0
      && ferry_rename_noreplace (parent_fd, node->hidden_name, node->dst_name, &ctx->links_refused,
                                 errsv))
    {
      g_clear_pointer (&node->hidden_name, g_free);
      ferry_counters_add (ctx->counters, &ctx->counters->bytes_placed,
                          atomic_exchange (&node->hidden_bytes, 0));
      ferry_continue_note_folder_named (ctx, node, TRUE);
      return TRUE;
    }
  ferry_continue_note_folder_named (ctx, node, FALSE);
  /* what is still copied into it fails then for this, not for a person
   * deleting it; but where its hidden name was gone (ENOENT), someone
   * deleted it, and the copy removes nothing */
  if (*errsv != ENOENT)
    g_atomic_int_set (&node->removed_by_copy, TRUE);
  ferry_temp_folder_remove (parent_fd, node->hidden_name);
  g_clear_pointer (&node->hidden_name, g_free);
  if (*errsv == 0 || *errsv == ECANCELED)
    return FALSE;
  path = ferry_dir_node_dst_path (node->parent, node->dst_name);
  /* A device that failed took the folder: what it holds never got there. */
  if (ferry_errno_is_device_failure (*errsv))
    return ferry_file_copy_set_not_on_device (path, *errsv, error);
  if (*errsv == EEXIST)
    format = _ ("“%s” was created by someone else during the copy; it was left as it is");
  return ferry_set_error_from_errno (error, *errsv, format, path);
}

/**
 * ferry_hidden_folder_wants_name:
 * Whether the folder @node, built in parts, is to get its name before
 * the entry @st is copied into it: the entry is a folder (the folder is
 * then no longer one of files only), a file large enough to be
 * continued on its own (FERRY_JOURNAL_RESUMABLE_MIN), or one past the
 * part's bound; or the device proved slow meanwhile. Otherwise @st
 * counts toward that bound.
 */
gboolean
ferry_hidden_folder_wants_name (FerryTreeContext *ctx, FerryDirNode *node, const struct stat *st)
{
  if (!ferry_hidden_folder_in_parts (node))
    return FALSE;
  if (S_ISDIR (st->st_mode) || !ferry_copy_target_places_file_folders (ctx->target))
    return TRUE;
  if (S_ISREG (st->st_mode) && st->st_size >= FERRY_JOURNAL_RESUMABLE_MIN)
    return TRUE;
  node->hidden_charge += S_ISREG (st->st_mode) ? MAX (st->st_size, ENTRY_COST) : ENTRY_COST;
  return node->hidden_charge > PART_MAX;
}

/* The entries inside @node, counted copied, never got their name: they
 * are taken back, as entries the job never reached when it stopped (the
 * caller reports the folder). */
void
ferry_hidden_folder_lose (FerryTreeContext *ctx, FerryDirNode *node)
{
  ferry_counters_sub (ctx->counters, &ctx->counters->files_done,
                      (guint64) g_atomic_int_get (&node->hidden_done));
}

/**
 * ferry_hidden_folder_hold:
 * Everything inside the folder @node, built in parts, is written: it
 * waits for a sync that begins now, and its descriptors are let go
 * meanwhile. ferry_hidden_folder_steal_due() hands it back.
 */
void
ferry_hidden_folder_hold (FerryTreeContext *ctx, FerryDirNode *node)
{
  ferry_fd_closep (&node->src_fd);
  ferry_fd_closep (&node->dst_fd);
  node->hidden_ticket = ferry_copy_target_hold (ctx->target);
  g_mutex_lock (&ctx->waiting_lock);
  g_ptr_array_add (ctx->waiting_folders, node);
  atomic_fetch_add (&ctx->n_waiting_folders, 1);
  g_mutex_unlock (&ctx->waiting_lock);
}

static gboolean
is_due (FerryTreeContext *ctx, const FerryDirNode *node)
{
  return ferry_copy_target_passed (ctx->target, node->hidden_ticket);
}

/**
 * ferry_hidden_folder_steal_due:
 * The folders held whose sync returned fine (@all: every one held),
 * each for the caller to name; NULL when there are none. They are held
 * in about the order of their tickets, so the due ones lead: the look
 * stops at the first that is not, and costs little per entry copied
 * however many wait.
 */
GPtrArray *
ferry_hidden_folder_steal_due (FerryTreeContext *ctx, gboolean all)
{
  GPtrArray *due = NULL;
  guint n = 0;

  if (atomic_load (&ctx->n_waiting_folders) == 0)
    return NULL;
  g_mutex_lock (&ctx->waiting_lock);
  while (n < ctx->waiting_folders->len
         && (all || is_due (ctx, g_ptr_array_index (ctx->waiting_folders, n))))
    n++;
  if (n > 0)
    {
      due = g_ptr_array_new_full (n, NULL);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (due, g_ptr_array_index (ctx->waiting_folders, i));
      g_ptr_array_remove_range (ctx->waiting_folders, 0, n);
      atomic_fetch_sub (&ctx->n_waiting_folders, n);
    }
  g_mutex_unlock (&ctx->waiting_lock);
  return due;
}
