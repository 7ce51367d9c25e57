/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>

#include "ferry-conflict-request-private.h"
#include "ferry-conflicts.h"

/**
 * FerryConflicts:
 * Settles what happens when a name a job copies to is taken: by the
 * job's policy, or by asking whoever runs the job, one question at a
 * time, remembering an answer meant for all the conflicts that follow
 * (one for files, one for folders).
 */
struct _FerryConflicts
{
  FerryConflictPolicy policy;
  FerryControl *control; /* not owned */
  GMutex lock;           /* one question at a time */
  FerryConflictAction file_answer_for_all;
  FerryConflictAction dir_answer_for_all;
  FerryFsRules rules; /* of the destination: how finely it keeps times */
};

FerryConflicts *
ferry_conflicts_new (FerryConflictPolicy policy, FerryControl *control)
{
  FerryConflicts *self = g_new0 (FerryConflicts, 1);

  self->policy = policy;
  self->control = control;
  ferry_fs_rules_for_kind (FERRY_FS_KIND_OTHER, 0, &self->rules);
  g_mutex_init (&self->lock);
  return self;
}

/* "newer" compares times as finely as the destination keeps them: a
 * copy on FAT32 holds its time to 2 s, and is not older for that. */
void
ferry_conflicts_set_rules (FerryConflicts *self, const FerryFsRules *rules)
{
  self->rules = *rules;
}

void
ferry_conflicts_free (FerryConflicts *self)
{
  g_mutex_clear (&self->lock);
  g_free (self);
}

FerryConflictPolicy
ferry_conflicts_get_policy (FerryConflicts *self)
{
  return self->policy;
}

static gboolean
is_newer_on (const FerryFsRules *rules, const struct stat *a, const struct stat *b)
{
  if (ferry_fs_rules_same_time (rules, &a->st_mtim, &b->st_mtim))
    return FALSE;
  if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
    return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
  return a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
}

/**
 * ferry_conflicts_policy_skips:
 * Whether @policy alone settles a file @src_st meeting a file @dst_st
 * under its name by skipping it: always under "skip", under "newer" when
 * the source is not newer (times compared as @rules keep them).
 */
gboolean
ferry_conflicts_policy_skips (const FerryFsRules *rules,
                              FerryConflictPolicy policy,
                              const struct stat *src_st,
                              const struct stat *dst_st)
{
  return policy == FERRY_CONFLICT_POLICY_SKIP
         || (policy == FERRY_CONFLICT_POLICY_NEWER && !is_newer_on (rules, src_st, dst_st));
}

static FerryConflictAction
action_from_policy (FerryConflicts *self,
                    FerryConflictPolicy policy,
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
        return is_newer_on (&self->rules, src_st, dst_st) ? FERRY_CONFLICT_ACTION_REPLACE
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

/* Called with the lock. */
static FerryConflictAction
ask (FerryConflicts *self, const FerryConflictQuestion *question)
{
  g_autoptr (GFile) source = g_file_new_for_path (question->src_path);
  g_autoptr (GFile) destination = g_file_new_for_path (question->dst_path);
  const struct stat *src_st = question->src_st;
  const struct stat *dst_st = question->dst_st;
  FerryAnswer *answer = NULL;
  FerryConflictRequest *request;
  FerryConflictAction action;
  gboolean apply_to_all = FALSE;

  request = _ferry_conflict_request_new (source, destination, src_st, dst_st, &answer);
  _ferry_conflict_request_set_suggested_name (request, question->suggested_name);
  /* The asker takes the only reference: if nobody keeps the request, it
   * answers "none" as it goes away. */
  question->post (question->post_data, request);
  action = _ferry_answer_wait (answer, ferry_control_get_cancellable (self->control),
                               FERRY_CONFLICT_ACTION_CANCEL, &apply_to_all);
  if (action == FERRY_CONFLICT_ACTION_RENAME)
    *question->new_name = _ferry_answer_dup_name (answer);
  _ferry_answer_unref (answer);

  if (!answer_fits (action, src_st, dst_st))
    action = action == FERRY_CONFLICT_ACTION_CANCEL ? action : FERRY_CONFLICT_ACTION_NONE;
  /* A name given is for one file: it is never given to all. */
  else if (apply_to_all && action != FERRY_CONFLICT_ACTION_RENAME)
    {
      if (S_ISDIR (src_st->st_mode))
        self->dir_answer_for_all = action;
      else
        self->file_answer_for_all = action;
    }
  return action;
}

/**
 * ferry_conflicts_resolve:
 * Decides what happens to a source now that its copy's name is taken, by
 * the policy or by asking (one question at a time).
 * FERRY_CONFLICT_ACTION_NONE means the entry fails; an answer of
 * FERRY_CONFLICT_ACTION_CANCEL cancels the job.
 */
FerryConflictAction
ferry_conflicts_resolve (FerryConflicts *self, const FerryConflictQuestion *question)
{
  const struct stat *src_st = question->src_st;
  FerryConflictAction action;
  FerryConflictAction remembered;

  if (self->policy != FERRY_CONFLICT_POLICY_ASK)
    return action_from_policy (self, self->policy, src_st, question->dst_st);

  g_mutex_lock (&self->lock);
  remembered = S_ISDIR (src_st->st_mode) ? self->dir_answer_for_all : self->file_answer_for_all;
  if (answer_fits (remembered, src_st, question->dst_st))
    action = remembered;
  else if (ferry_control_is_cancelled (self->control))
    action = FERRY_CONFLICT_ACTION_CANCEL;
  else
    action = ask (self, question);
  g_mutex_unlock (&self->lock);

  if (action == FERRY_CONFLICT_ACTION_CANCEL)
    ferry_control_cancel (self->control);
  return action;
}

