/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "ferry-conflict-request-private.h"
#include "ferry-copy-context.h"
#include "ferry-job-private.h"

static gboolean
is_newer (const struct stat *a, const struct stat *b)
{
  if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
    return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
  return a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

static FerryConflictAction
action_from_policy (FerryConflictPolicy policy,
                    const struct stat *src_st,
                    const struct stat *dst_st)
{
  if (S_ISDIR (src_st->st_mode) && S_ISDIR (dst_st->st_mode))
    return FERRY_CONFLICT_ACTION_MERGE;

  switch (policy)
    {
      case FERRY_CONFLICT_POLICY_SKIP:
        return FERRY_CONFLICT_ACTION_SKIP;
      case FERRY_CONFLICT_POLICY_OVERWRITE:
        return FERRY_CONFLICT_ACTION_REPLACE;
      case FERRY_CONFLICT_POLICY_NEWER:
        return is_newer (src_st, dst_st) ? FERRY_CONFLICT_ACTION_REPLACE
                                         : FERRY_CONFLICT_ACTION_SKIP;
      case FERRY_CONFLICT_POLICY_KEEP_BOTH:
        return FERRY_CONFLICT_ACTION_KEEP_BOTH;
      case FERRY_CONFLICT_POLICY_FAIL:
      case FERRY_CONFLICT_POLICY_ASK:
      default:
        return FERRY_CONFLICT_ACTION_NONE;
    }
}

/* An answer remembered with "apply to all" only fits conflicts it can
 * mean something for: merging needs two folders. */
static gboolean
answer_fits (FerryConflictAction action, const struct stat *src_st, const struct stat *dst_st)
{
  if (action == FERRY_CONFLICT_ACTION_NONE)
    return FALSE;
  if (action == FERRY_CONFLICT_ACTION_MERGE)
    return S_ISDIR (src_st->st_mode) && S_ISDIR (dst_st->st_mode);
  return TRUE;
}

static FerryConflictAction
ask (FerryCopyContext *ctx,
     FerryDirNode *node,
     const char *src_name,
     const char *dst_name,
     const struct stat *src_st,
     const struct stat *dst_st)
{
  g_autofree char *src_path = ferry_dir_node_src_path (node, src_name);
  g_autofree char *dst_path = ferry_dir_node_dst_path (node, dst_name);
  g_autoptr (GFile) source = g_file_new_for_path (src_path);
  g_autoptr (GFile) destination = g_file_new_for_path (dst_path);
  FerryConflictAnswer *answer = NULL;
  FerryConflictRequest *request;
  FerryConflictAction action;
  gboolean apply_to_all = FALSE;

  request = _ferry_conflict_request_new (source, destination, src_st, dst_st, &answer);
  /* The job takes the only reference: if nobody keeps the request, it
   * answers "none" as it goes away. */
  _ferry_job_post_conflict (ctx->job, request);
  action = _ferry_conflict_answer_wait (answer, ctx->cancellable, &apply_to_all);
  _ferry_conflict_answer_unref (answer);

  if (!answer_fits (action, src_st, dst_st))
    action = action == FERRY_CONFLICT_ACTION_CANCEL ? action : FERRY_CONFLICT_ACTION_NONE;
  else if (apply_to_all)
    {
      if (S_ISDIR (src_st->st_mode))
        ctx->dir_answer_for_all = action;
      else
        ctx->file_answer_for_all = action;
    }
  return action;
}

/**
 * ferry_copy_context_resolve_conflict:
 * Decides what happens to @src_name now that @dst_name exists in the
 * destination folder, by the job's policy or by asking its caller (one
 * question at a time). FERRY_CONFLICT_ACTION_NONE means the file fails.
 */
FerryConflictAction
ferry_copy_context_resolve_conflict (FerryCopyContext *ctx,
                                     FerryDirNode *node,
                                     const char *src_name,
                                     const char *dst_name,
                                     const struct stat *src_st,
                                     const struct stat *dst_st)
{
  FerryConflictAction action;
  FerryConflictAction remembered;

  if (ctx->conflict_policy != FERRY_CONFLICT_POLICY_ASK)
    return action_from_policy (ctx->conflict_policy, src_st, dst_st);

  g_mutex_lock (&ctx->conflict_lock);
  remembered = S_ISDIR (src_st->st_mode) ? ctx->dir_answer_for_all : ctx->file_answer_for_all;
  if (answer_fits (remembered, src_st, dst_st))
    action = remembered;
  else if (g_cancellable_is_cancelled (ctx->cancellable))
    action = FERRY_CONFLICT_ACTION_CANCEL;
  else
    action = ask (ctx, node, src_name, dst_name, src_st, dst_st);
  g_mutex_unlock (&ctx->conflict_lock);

  if (action == FERRY_CONFLICT_ACTION_CANCEL)
    g_cancellable_cancel (ctx->cancellable);
  return action;
}

/* "report.tar.gz" splits as "report" + ".tar.gz"; "notes" has no
 * extension, and neither has ".bashrc". */
static const char *
find_extension (const char *name)
{
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name)
    return name + strlen (name);
  if (dot - name > 4 && strncmp (dot - 4, ".tar", 4) == 0 && dot - 4 != name)
    return dot - 4;
  return dot;
}

/* "photo (2)" continues as "photo (3)", not "photo (2) (2)". */
static guint
strip_counter (const char *stem, gsize *stem_len)
{
  gsize len = *stem_len;
  gsize digits_end;
  guint64 n;

  if (len < 4 || stem[len - 1] != ')')
    return 1;
  digits_end = len - 1;
  while (len > 2 && g_ascii_isdigit (stem[len - 2]))
    len--;
  if (len - 1 == digits_end || len < 3 || stem[len - 2] != '(' || stem[len - 3] != ' ')
    return 1;
  n = g_ascii_strtoull (stem + len - 1, NULL, 10);
  if (n < 2 || n > G_MAXUINT / 2)
    return 1;
  *stem_len = len - 3;
  return (guint) n;
}

static char *
numbered_name (const char *stem, gsize stem_len, const char *extension, guint n)
{
  g_autofree char *suffix = g_strdup_printf (" (%u)%s", n, extension);
  gsize suffix_len = strlen (suffix);

  /* Shorten the stem, not the number, when the name would be too long;
   * back up to a character boundary when the name is UTF-8. */
  if (stem_len + suffix_len > NAME_MAX)
    {
      stem_len = NAME_MAX > suffix_len ? NAME_MAX - suffix_len : 0;
      while (stem_len > 0 && ((guchar) stem[stem_len] & 0xC0) == 0x80)
        stem_len--;
    }
  return g_strdup_printf ("%.*s%s", (int) stem_len, stem, suffix);
}

char *
ferry_conflict_free_name (int dir_fd, const char *name, gboolean is_dir)
{
  const char *extension = is_dir ? name + strlen (name) : find_extension (name);
  gsize stem_len;
  guint n;

  /* An extension too long to keep whole after a number ("a.<254 bytes>")
   * counts as part of the stem, which can be shortened; kept, it would
   * make every candidate longer than NAME_MAX. */
  if (strlen (extension) + strlen (" (4294967295)") > NAME_MAX)
    extension = name + strlen (name);
  stem_len = extension - name;
  n = strip_counter (name, &stem_len) + 1;

  for (;; n++)
    {
      g_autofree char *candidate = numbered_name (name, stem_len, extension, n);
      struct stat st;

      /* Only a name that exists is worth a next number; any other error
       * would repeat for every number, so creating the name reports it. */
      if (fstatat (dir_fd, candidate, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return g_steal_pointer (&candidate);
    }
}
