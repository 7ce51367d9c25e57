/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>

#include "ferry-free-name.h"
#include "ferry-fs.h"
#include "ferry-place.h"

/* Where an entry's copy goes once the name it wants is taken: skipped,
 * replacing what is there, merged into a folder, or under a free name.
 * Every step acts on names inside the destination folder's descriptor. */

static FerryConflictAction
ask_about (FerryTreeContext *ctx, const FerryEntry *entry, const struct stat *dst_st)
{
  g_autofree char *src_path = ferry_entry_path (entry, TRUE);
  g_autofree char *dst_path = ferry_entry_path (entry, FALSE);
  FerryConflictQuestion question = {
    .src_path = src_path,
    .dst_path = dst_path,
    .src_st = &entry->st,
    .dst_st = dst_st,
    .post = ctx->listener.conflict,
    .post_data = ctx->listener.user_data,
  };

  return ferry_conflicts_resolve (ctx->conflicts, &question);
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
  if (ferry_stat_same_file (&entry->st, dst_st))
    return ferry_entry_fail (entry, FALSE, FERRY_ERROR_SAME_FILE,
                             _ ("“%s” is what is being copied; it cannot be copied onto itself"),
                             error);

  switch (ask_about (ctx, entry, dst_st))
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
