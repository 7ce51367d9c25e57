/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <unistd.h>

#include "ferry-folder.h"
#include "ferry-fs.h"
#include "ferry-hidden-folder.h"
#include "ferry-place.h"
#include "ferry-temp-file.h"
#include "ferry-temp-folder.h"

/* Folders of the copy: made (or merged into) before their entries are
 * copied, given their own metadata as soon as everything inside is
 * copied, since copying the entries changes the folder's times. */

typedef enum
{
  MADE_CREATED,
  MADE_MERGE,  /* an existing folder takes the entries */
  MADE_RETRY,  /* the name changed under us, or was freed: try again */
  MADE_NOTHING, /* skipped, or failed with an error */
} Made;

/* The hidden name a folder was made under, if any. */
typedef struct
{
  char *name;
  gboolean in_parts; /* named once a bounded part is in (ferry-hidden-folder.c) */
} Hidden;

static Made
fail_made (FerryEntry *entry, gboolean source, int errsv, const char *format, GError **error)
{
  ferry_entry_fail_errno (entry, source, errsv, format, error);
  return MADE_NOTHING;
}

/* Root makes the folder its owner's at once (only the folder it just
 * made: someone who can write to the parent may have put another in its
 * place), then opens it as wide as the finished folder will be. */
static void
hand_over (FerryTreeContext *ctx, const FerryEntry *entry, const char *name)
{
  ferry_autofd fd = openat (entry->node->dst_fd, name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  FerryMetaTarget dst = { fd, -1, NULL, FALSE, 0 };
  mode_t mode = ferry_metadata_first_folder_mode (&ctx->meta, &entry->st, TRUE);
  struct stat st;
  int errsv;

  if (fd < 0 || fstat (fd, &st) != 0 || st.st_uid != ctx->meta.euid)
    return;
  /* What fails here is tried again, and reported, once the folder is
   * full. */
  if (ferry_metadata_apply_owner (&ctx->meta, dst, &entry->st, &errsv) && mode != S_IRWXU)
    (void) fchmod (fd, mode);
}

/* The mode a folder is made with when it stays the maker's own; 0 when
 * root makes it for another owner (hand_over()). */
static mode_t
own_first_mode (FerryTreeContext *ctx, const FerryEntry *entry)
{
  const FerryMetaPolicy *meta = &ctx->meta;
  gboolean group_final;

  if (ferry_metadata_owner_differs (meta, &entry->st))
    return 0;
  group_final = !meta->preserve || (!entry->node->dst_shapes_new && entry->st.st_gid == meta->egid);
  return ferry_metadata_first_folder_mode (meta, &entry->st, group_final);
}

/* Makes the folder, as @name, so that, whenever the copy is cut short,
 * its owner can open it and nobody can do more there than in the
 * finished copy (ferry_metadata_first_folder_mode()). Its group is the
 * final one where it is Ferry's own and the source's, or nothing
 * changes it. */
static int
make_folder (FerryTreeContext *ctx, const FerryEntry *entry, const char *name)
{
  FerryDirNode *node = entry->node;
  mode_t mode = own_first_mode (ctx, entry);

  if (mode == 0)
    {
      if (mkdirat (node->dst_fd, name, S_IRWXU) != 0)
        return -1;
      hand_over (ctx, entry, name);
      return 0;
    }
  return mkdirat (node->dst_fd, name, mode);
}

/* The folder under a fresh hidden name of Ferry's, once its own name is
 * known to be free (it is taken only when all inside is durable). */
static int
make_hidden (FerryTreeContext *ctx, const FerryEntry *entry, Hidden *hidden)
{
  struct stat st;

  if (fstatat (entry->node->dst_fd, entry->dst_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    {
      errno = EEXIST;
      return -1;
    }
  if (errno != ENOENT)
    return -1;
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *name = ferry_temp_name_new_folder ();

      if (make_folder (ctx, entry, name) == 0)
        {
          hidden->name = g_steal_pointer (&name);
          return 0;
        }
      if (errno != EEXIST)
        break;
    }
  return -1;
}

/* A folder new to the destination is built whole under a hidden name
 * where the job places folders so (ferry_copy_target_places_folders());
 * the folders inside it need no name of their own. On a device Ferry
 * measures it is built so in parts, while it holds only files. */
static int
make_new (FerryTreeContext *ctx, const FerryEntry *entry, Hidden *hidden)
{
  if (entry->node->hidden_top != NULL || ctx->resuming)
    return make_folder (ctx, entry, entry->dst_name);
  if (ferry_copy_target_places_folders (ctx->target))
    return make_hidden (ctx, entry, hidden);
  hidden->in_parts = ferry_copy_target_places_file_folders (ctx->target);
  if (hidden->in_parts)
    return make_hidden (ctx, entry, hidden);
  return make_folder (ctx, entry, entry->dst_name);
}

/* One try at making the folder, settling a conflict with what has its
 * name. */
static Made
try_make (FerryTreeContext *ctx, FerryEntry *entry, Hidden *hidden, GError **error)
{
  FerryDirNode *node = entry->node;
  struct stat dst_st;

  if (fstatat (node->src_fd, entry->src_name, &entry->st, AT_SYMLINK_NOFOLLOW) != 0)
    return fail_made (entry, TRUE, errno, _ ("Could not read “%s”"), error);
  /* A copy named "." is the destination folder itself, which takes the
   * entries of a source given as "dir/." (as cp does): merged, no
   * conflict with the folder the person chose. */
  if (strcmp (entry->dst_name, ".") == 0)
    return MADE_MERGE;
  if (make_new (ctx, entry, hidden) == 0)
    return MADE_CREATED;
  if (errno != EEXIST)
    {
      entry->destination_failed = ferry_errno_is_device_failure (errno);
      return fail_made (entry, FALSE, errno, _ ("Could not create the folder “%s”"), error);
    }
  if (fstatat (node->dst_fd, entry->dst_name, &dst_st, AT_SYMLINK_NOFOLLOW) != 0)
    return MADE_RETRY; /* gone again */
  if (!ferry_place_settle_taken (ctx, entry, &dst_st, error))
    return MADE_NOTHING;
  if (entry->skip)
    {
      ferry_tree_context_subtree_dropped (ctx, entry, TRUE);
      return MADE_NOTHING;
    }
  if (entry->replace && S_ISDIR (dst_st.st_mode))
    return MADE_MERGE;
  if (entry->replace && unlinkat (node->dst_fd, entry->dst_name, 0) != 0)
    return fail_made (entry, FALSE, errno, _ ("Could not replace “%s”"), error);
  entry->replace = FALSE;
  return MADE_RETRY;
}

/**
 * ferry_folder_make:
 * Makes the destination folder for @entry; returns the node to fill, or
 * NULL when the folder is skipped (no error) or cannot be made.
 */
FerryDirNode *
ferry_folder_make (FerryTreeContext *ctx, FerryEntry *entry, GError **error)
{
  Hidden hidden = { NULL, FALSE };
  Made made = MADE_RETRY;
  FerryDirNode *child;

  for (guint attempt = 0; attempt < 8 && made == MADE_RETRY; attempt++)
    made = try_make (ctx, entry, &hidden, error);
  if (made == MADE_RETRY)
    fail_made (entry, FALSE, EEXIST, _ ("Could not create the folder “%s”"), error);
  if (made != MADE_CREATED && made != MADE_MERGE)
    {
      g_free (hidden.name);
      return NULL;
    }

  child = ferry_dir_node_new_child (entry->node, entry->src_name, entry->dst_name);
  child->created = made == MADE_CREATED;
  /* What mkdir gave it, where nothing shaped it since: its finish asks
   * no owner or mode that it has already. */
  if (child->created && !entry->node->dst_shapes_new)
    child->made_mode = own_first_mode (ctx, entry) & ~ctx->meta.umask;
  child->fresh = child->created;
  child->takes_metadata = child->created;
  child->hidden_name = g_steal_pointer (&hidden.name);
  child->hidden_in_parts = child->hidden_name != NULL && hidden.in_parts;
  child->hidden_top = child->hidden_name != NULL ? child : entry->node->hidden_top;
  return child;
}

static gboolean
fail_open (FerryDirNode *node, gboolean source, int errsv, const char *format, GError **error)
{
  g_autofree char *path
      = ferry_dir_node_path (node->parent, source ? node->src_name : node->dst_name, source);

  if (source && errsv == ENOENT)
    return ferry_set_ferry_error (error, FERRY_ERROR_VANISHED,
                                  _ ("“%s” disappeared before it could be copied"), path);
  /* made or merged into a moment ago: someone deleted it since */
  if (errsv == ENOENT)
    {
      g_propagate_error (error, ferry_tree_context_new_deleted_error (path));
      return FALSE;
    }
  return ferry_set_error_from_errno (error, errsv, format, path);
}

/* A folder that was there takes the source folder's metadata once the
 * copy into it is done, as a folder Ferry made does, when it is one the
 * job may change: a later run so repairs what a run cut short left. The
 * destination folder itself (a source given as "dir/.") is the person's,
 * not a copy: it keeps its own owner and mode, so a shared folder
 * (sticky, open to all) stays shared, and its times say it was written.
 * What a killed run left inside goes now. */
static void
merge_into (FerryDirNode *node)
{
  struct stat st;

  node->takes_metadata = strcmp (node->dst_name, ".") != 0 && fstat (node->dst_fd, &st) == 0
                         && (geteuid () == 0 || st.st_uid == geteuid ());
  ferry_temp_sweep (node->dst_fd);
}

/* Opens both sides of a folder found by the walk. */
gboolean
ferry_folder_open (FerryDirNode *node, GError **error)
{
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

  node->src_fd = ferry_open_source_at (node->parent->src_fd, node->src_name, flags);
  if (node->src_fd < 0)
    return fail_open (node, TRUE, errno, _ ("Could not open the folder “%s”"), error);
  if (fstat (node->src_fd, &node->src_st) != 0)
    return fail_open (node, TRUE, errno, _ ("Could not read “%s”"), error);

  node->dst_fd = openat (node->parent->dst_fd, ferry_dir_node_dst_name_now (node), flags);
  if (node->dst_fd < 0)
    return fail_open (node, FALSE, errno, _ ("Could not open the folder “%s”"), error);
  /* Another run's sweep spares a hidden folder while it is held. */
  if (node->hidden_name != NULL)
    ferry_temp_folder_hold (node->dst_fd);

  /* A folder Ferry made got these from its parent (mkdir passes on both
   * setgid and a default ACL); one that was there is asked. */
  node->dst_shapes_new = node->created ? node->parent->dst_shapes_new
                                       : ferry_folder_shapes_new_entries (node->dst_fd);
  if (!node->created)
    merge_into (node);
  return TRUE;
}

/* A folder reported as failed counts as handled. One that failed for
 * someone deleting it (its hidden name gone when it was to get its own)
 * stops the job, as the folders it is in would. */
void
ferry_folder_fail (FerryTreeContext *ctx, FerryDirNode *node, const GError *error, gboolean fatal)
{
  g_autoptr (GError) deleted = fatal ? NULL : ferry_tree_context_new_error_if_deleted (node, error);
  g_auto (FerryEntry) entry = { 0 };

  ferry_entry_init (&entry, node->parent, node->src_name, node->dst_name);
  ferry_tree_context_file_failed (ctx, &entry, 0, deleted != NULL ? deleted : error,
                                  fatal || deleted != NULL);
  node->failed = TRUE;
}

/* The hidden folder @node did not get its name, for @errsv. It fails
 * with @error, which ends the job when the device failed; one built in
 * parts, where a person may have seen its files counted, also when the
 * job stopped (not when cancelled), and what it held is taken back from
 * what was copied. */
static void
fail_hidden (FerryTreeContext *ctx, FerryDirNode *node, int errsv, const GError *error)
{
  g_autoptr (GError) stopped = NULL;
  g_autofree char *path = NULL;

  if (node->hidden_in_parts)
    ferry_hidden_folder_lose (ctx, node);
  if (node->failed
      || (error == NULL && (!node->hidden_in_parts || ferry_control_is_cancelled (ctx->control))))
    return;
  if (error == NULL)
    {
      path = ferry_dir_node_dst_path (node->parent, node->dst_name);
      g_set_error (&stopped, FERRY_ERROR, FERRY_ERROR_FAILED,
                   _ ("The folder “%s” was not put in place: the copy stopped before the "
                      "device had what it holds"),
                   path);
    }
  ferry_folder_fail (ctx, node, error != NULL ? error : stopped,
                     ferry_errno_is_device_failure (errsv));
}

/* A stopped job leaves no empty folder it made without filling it, and
 * no hidden folder at all (the folders inside go with it), but for one
 * built in parts on a cancel: that one gets its name with the files it
 * holds, whole in the page cache, as files named one by one do (see the
 * flusher's name_taken()). TRUE: the folder is gone, or goes with the
 * hidden folder it is in (one built in parts then fails: fail_hidden()). */
static gboolean
remove_unfinished (FerryTreeContext *ctx, FerryDirNode *node)
{
  int parent_fd = node->parent->dst_fd;

  if (node->hidden_in_parts && ferry_control_is_cancelled (ctx->control))
    return unlinkat (parent_fd, ferry_dir_node_dst_name_now (node), AT_REMOVEDIR) == 0;
  if (node->hidden_name != NULL)
    {
      ferry_temp_folder_remove (parent_fd, node->hidden_name);
      if (node->hidden_in_parts)
        fail_hidden (ctx, node, ECANCELED, NULL);
    }
  if (node->hidden_top != NULL)
    return TRUE;
  return unlinkat (parent_fd, node->dst_name, AT_REMOVEDIR) == 0;
}

/* The folder is copied: counted, and taken back with the hidden folder
 * its parent is in if that one is lost (a hidden folder's own parent is
 * in none: one is never made inside another). */
static void
folder_done (FerryTreeContext *ctx, FerryDirNode *node)
{
  if (!node->failed)
    ferry_tree_context_done_in (ctx, node->parent);
}

/* What the sync a hidden folder's name waits for returned: a cancel
 * leaves a folder built in parts its name without one
 * (remove_unfinished()). */
static int
sync_for_name (FerryTreeContext *ctx, FerryDirNode *node)
{
  if (ferry_control_is_ending (ctx->control))
    return node->hidden_in_parts && ferry_control_is_cancelled (ctx->control) ? 0 : ECANCELED;
  return ferry_copy_target_make_durable (ctx->target);
}

/* A folder built whole gets its name once all it holds is durable:
 * one rename, which never replaces what took the name meanwhile. It is
 * removed if it cannot have it. FALSE: it did not get it, and failed. */
static gboolean
place_whole (FerryTreeContext *ctx, FerryDirNode *node)
{
  g_autoptr (GError) error = NULL;
  int errsv;

  if (node->hidden_name == NULL || !node->created)
    return TRUE;
  errsv = sync_for_name (ctx, node);
  if (ferry_hidden_folder_take_name (ctx, node, &errsv, &error))
    return TRUE;
  fail_hidden (ctx, node, errsv, error);
  return FALSE;
}

/**
 * ferry_folder_name_now:
 * The folder @node, built in parts, gets its name before the next entry
 * goes in: at once when it is @empty, else once a sync has all it
 * holds. FALSE: it did not get it, and failed (reported; a device
 * failure ends the job, and an entry still copied into it fails on its
 * own).
 */
gboolean
ferry_folder_name_now (FerryTreeContext *ctx, FerryDirNode *node, gboolean empty)
{
  g_autoptr (GError) error = NULL;
  int errsv = empty ? 0 : sync_for_name (ctx, node);

  if (ferry_hidden_folder_take_name (ctx, node, &errsv, &error))
    {
      node->hidden_top = NULL;
      return TRUE;
    }
  fail_hidden (ctx, node, errsv, error);
  return FALSE;
}

/* The top folder of a FAT or exFAT drive has no entry of its own, so no
 * times or attributes to set; fusefat dies when asked to (ferry-copy
 * dir/. onto a FAT32 stick left its mount "Transport endpoint is not
 * connected" after the files). */
static gboolean
is_top_without_metadata (FerryTreeContext *ctx, FerryDirNode *node)
{
  return (ctx->rules.kind == FERRY_FS_KIND_FAT || ctx->rules.kind == FERRY_FS_KIND_EXFAT)
         && ferry_fs_is_mount_root (node->dst_fd);
}

/**
 * ferry_folder_finish:
 * Everything inside is copied: now the folder's own times and mode,
 * which copying its children would have disturbed; a folder merged into
 * gets them too. FALSE: @node, built in parts, waits for a sync before
 * its name (ferry_folder_name_waiting()), and its parent with it.
 */
gboolean
ferry_folder_finish (FerryTreeContext *ctx, FerryDirNode *node)
{
  FerryMetaTarget src = { node->src_fd, -1, NULL, FALSE, 0 };
  FerryMetaTarget dst = { node->dst_fd, -1, NULL, node->made_mode != 0, node->made_mode };
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  int errsv;

  if (node->created && node->parent->dst_fd >= 0 && ferry_control_is_ending (ctx->control)
      && remove_unfinished (ctx, node))
    return TRUE;

  /* A folder merged into takes the source's metadata only once the copy
   * into it is done: a job that stopped leaves it as it found it. */
  if (!node->created
      && (ferry_control_is_ending (ctx->control) || is_top_without_metadata (ctx, node)))
    node->takes_metadata = FALSE;
  if (node->takes_metadata && node->src_fd >= 0 && node->dst_fd >= 0
      && !ferry_metadata_apply (&ctx->meta, src, dst, &node->src_st, &errsv))
    {
      path = ferry_dir_node_dst_path (node->parent, node->dst_name);
      ferry_set_error_from_errno (&error, errsv, _ ("Could not set the attributes of “%s”"),
                                  path);
      ferry_folder_fail (ctx, node, error, ferry_errno_is_device_failure (errsv));
    }
  /* Its contents are whole even when its own attributes are not. */
  if (ferry_hidden_folder_in_parts (node) && !ferry_control_is_ending (ctx->control))
    {
      ferry_hidden_folder_hold (ctx, node);
      return FALSE;
    }
  if (place_whole (ctx, node))
    folder_done (ctx, node);
  return TRUE;
}

/* Frees @node, done, and lets its parent go on (ferry_folder_release()). */
static void
release_parent (FerryTreeContext *ctx, FerryDirNode *node)
{
  FerryDirNode *parent = node->parent;

  ferry_dir_node_free (node);
  ferry_folder_release (ctx, parent);
}

/**
 * ferry_folder_name_waiting:
 * The folders built in parts whose sync returned get their names, and
 * their parents go on; with @all (the tree is copied), every one still
 * waiting, after a sync of its own.
 */
void
ferry_folder_name_waiting (FerryTreeContext *ctx, gboolean all)
{
  g_autoptr (GPtrArray) due = ferry_hidden_folder_steal_due (ctx, all);
  int errsv = 0;

  if (due == NULL)
    return;
  if (all)
    errsv = sync_for_name (ctx, g_ptr_array_index (due, 0));
  for (guint i = 0; i < due->len; i++)
    {
      FerryDirNode *node = g_ptr_array_index (due, i);
      g_autoptr (GError) error = NULL;
      int why = errsv;

      if (ferry_hidden_folder_take_name (ctx, node, &why, &error))
        folder_done (ctx, node);
      else
        fail_hidden (ctx, node, why, error);
      release_parent (ctx, node);
    }
}

/**
 * ferry_folder_release:
 * One thing holding @node is done: its listing, a subfolder, or a file
 * whose name was given later. The last one finishes the folder, and so
 * on up the tree.
 */
void
ferry_folder_release (FerryTreeContext *ctx, FerryDirNode *node)
{
  while (node != NULL && g_atomic_int_dec_and_test (&node->pending))
    {
      FerryDirNode *parent = node->parent;

      if (parent != NULL && !ferry_folder_finish (ctx, node))
        return;
      ferry_dir_node_free (node);
      node = parent;
    }
}
