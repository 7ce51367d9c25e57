/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ferry-free-name.h"
#include "ferry-fs.h"
#include "ferry-place.h"

/* Where an entry's copy goes once the name it wants is taken: skipped,
 * replacing what is there, merged into a folder, or under a free name.
 * Every step acts on names inside the destination folder's descriptor. */

/* A person asked is offered the name Keep Both would give as a new name. */
static FerryConflictAction
ask_about (FerryTreeContext *ctx,
           const FerryEntry *entry,
           const struct stat *dst_st,
           char **new_name)
{
  g_autofree char *src_path = ferry_entry_path (entry, TRUE);
  g_autofree char *dst_path = ferry_entry_path (entry, FALSE);
  g_autofree char *suggested = NULL;
  FerryConflictQuestion question = {
    .src_path = src_path,
    .dst_path = dst_path,
    .src_st = &entry->st,
    .dst_st = dst_st,
    .post = ctx->listener.conflict,
    .post_data = ctx->listener.user_data,
    .new_name = new_name,
  };

  if (ferry_conflicts_get_policy (ctx->conflicts) == FERRY_CONFLICT_POLICY_ASK)
    suggested = ferry_free_name_find (entry->node->dst_fd, entry->dst_name,
                                      S_ISDIR (entry->st.st_mode));
  question.suggested_name = suggested;
  return ferry_conflicts_resolve (ctx->conflicts, &question);
}

/* The copy goes under the name a person gave, in the same folder: one
 * name, not a path. A name taken too gets a number, as Keep Both's does:
 * what is there is never replaced unasked. */
static gboolean
rename_to (FerryEntry *entry, const char *name, GError **error)
{
  struct stat st;

  if (name == NULL || *name == '\0' || strcmp (name, ".") == 0 || strcmp (name, "..") == 0
      || strchr (name, '/') != NULL)
    {
      g_autofree char *path = ferry_entry_path (entry, FALSE);
      g_autofree char *display_path = ferry_path_display (path);
      g_autofree char *display_name = ferry_path_display (name ? name : "");

      g_set_error (error, FERRY_ERROR, FERRY_ERROR_INVALID_ARGUMENT,
                   /* Translators: the copy's path, then the name asked for it */
                   _ ("“%s” cannot be copied as “%s”: a name cannot be empty, “.” or “..”, "
                      "or contain “/”"),
                   display_path, display_name);
      return FALSE;
    }
  g_free (entry->dst_name);
  if (fstatat (entry->node->dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    entry->dst_name = ferry_free_name_find (entry->node->dst_fd, name, S_ISDIR (entry->st.st_mode));
  else
    entry->dst_name = g_strdup (name);
  return TRUE;
}

/**
 * ferry_place_settle_taken:
 * Settles what happens now that @entry's copy's name is taken by what
 * @dst_st describes. Returns FALSE with @error when the entry cannot be
 * copied; otherwise @entry says skip, replace, or has a free name.
 */
gboolean
ferry_place_settle_taken (FerryTreeContext *ctx,
                          FerryEntry *entry,
                          const struct stat *dst_st,
                          GError **error)
{
  g_autofree char *new_name = NULL;

  /* A resumed run goes on in the folders its earlier run made. */
  if (ctx->resuming && S_ISDIR (entry->st.st_mode) && S_ISDIR (dst_st->st_mode))
    {
      entry->replace = TRUE;
      return TRUE;
    }
  if (ferry_stat_same_file (&entry->st, dst_st))
    return ferry_entry_fail (entry, FALSE, FERRY_ERROR_SAME_FILE,
                             _ ("“%s” is what is being copied; it cannot be copied onto itself"),
                             error);

  switch (ask_about (ctx, entry, dst_st, &new_name))
    {
      case FERRY_CONFLICT_ACTION_SKIP:
        entry->skip = TRUE;
        return TRUE;

      case FERRY_CONFLICT_ACTION_REPLACE:
      case FERRY_CONFLICT_ACTION_MERGE:
        if (S_ISDIR (dst_st->st_mode) && !S_ISDIR (entry->st.st_mode))
          return ferry_entry_fail (entry, FALSE, FERRY_ERROR_EXISTS,
                                   _ ("“%s” is a folder; a file cannot replace it"), error);
        entry->replace = TRUE;
        return TRUE;

      case FERRY_CONFLICT_ACTION_KEEP_BOTH:
        {
          char *free_name = ferry_free_name_find (entry->node->dst_fd, entry->dst_name,
                                                  S_ISDIR (entry->st.st_mode));
          g_free (entry->dst_name);
          entry->dst_name = free_name;
          return TRUE;
        }

      case FERRY_CONFLICT_ACTION_RENAME:
        return rename_to (entry, new_name, error);

      case FERRY_CONFLICT_ACTION_CANCEL:
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was cancelled"));
        return FALSE;

      case FERRY_CONFLICT_ACTION_NONE:
      default:
        return ferry_entry_fail (entry, FALSE, FERRY_ERROR_EXISTS, _ ("“%s” already exists"),
                                 error);
    }
}

/* Looks for something already at the copy's name, unless the destination
 * folder was empty when Ferry made it. */
gboolean
ferry_place_settle (FerryTreeContext *ctx, FerryEntry *entry, GError **error)
{
  struct stat dst_st;

  if (entry->node->fresh)
    return TRUE;
  if (fstatat (entry->node->dst_fd, entry->dst_name, &dst_st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      return ferry_entry_fail_errno (entry, FALSE, errno, _ ("Could not read “%s”"), error);
    }
  return ferry_place_settle_taken (ctx, entry, &dst_st, error);
}

/* The name appeared after it was checked (another program wrote it while
 * Ferry copied): settle it now, as if it had been there all along. */
gboolean
ferry_place_settle_late (FerryTreeContext *ctx, FerryEntry *entry, GError **error)
{
  gboolean fresh = entry->node->fresh;
  gboolean ok;

  entry->node->fresh = FALSE;
  ok = ferry_place_settle (ctx, entry, error);
  entry->node->fresh = fresh;
  return ok;
}
