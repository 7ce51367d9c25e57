/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <sys/stat.h>

#include "ferry-copy-target.h"
#include "ferry-error.h"
#include "ferry-format.h"
#include "ferry-fs-id.h"
#include "ferry-fs-rules.h"
#include "ferry-fs.h"
#include "ferry-plan.h"
#include "ferry-preflight.h"
#include "ferry-run.h"
#include "ferry-scan.h"
#include "ferry-strategy-chunk-sync.h"
#include "ferry-strategy-fast.h"
#include "ferry-strategy-slow.h"
#include "ferry-temp-file.h"
#include "ferry-temp-folder.h"
#include "ferry-tree-copy.h"
#include "ferry-unsupported-private.h"

/**
 * FerryRun:
 * Runs one job, on the thread that calls ferry_run_execute(): resolves
 * and checks the sources and the destination, scans them while the copy
 * already runs, finds the device and picks the strategy (fast or slow,
 * once; fast hands over to slow once if the device is measured slow),
 * copies the tree, and makes everything durable before it returns.
 *
 * A run is bound to the destination's filesystem when it is planned (a
 * retry, to the one its earlier run was planned on), and writes nothing
 * unless the destination folder is still on it just before the first
 * write: a stick pulled out leaves its mount folder, empty, on the disk
 * below, and the run then fails as "not plugged in".
 */
struct _FerryRun
{
  FerryRunOptions options;
  FerryCounters *counters; /* not owned */
  FerryControl *control;   /* not owned */
  FerryRunListener listener;
  FerryDevice *device;
  FerryFsRules rules; /* of the destination's filesystem */
  guint64 needed;     /* by the preflight, on a filesystem with rules */
  FerryAdaptations *adaptations;
  GPtrArray *stale_temps; /* found by the preflight, below the destination */
  FerryJournal *journal;  /* when the job keeps one */
  gboolean resuming;      /* it is an earlier run's, continued */
  FerryJournal *earlier;  /* found before the plan: the transfer the run may continue */
  FerryDestinationMeaning meaning; /* what the destination stood for in that transfer */

  GMutex lock; /* guards what other threads reach: */
  FerryCopyTarget *target;
  FerryCopyMethod last_method;
  gboolean verifies_from_cache; /* see ferry_run_verifies_from_cache() */
  GError *journal_error;        /* see ferry_run_dup_journal_error() */
  FerryFsId filesystem; /* the destination's: bound before the run (a retry) or at planning */
};

FerryRun *
ferry_run_new (const FerryRunOptions *options,
               FerryCounters *counters,
               FerryControl *control,
               const FerryRunListener *listener)
{
  FerryRun *self = g_new0 (FerryRun, 1);

  self->options = *options;
  self->counters = counters;
  self->control = control;
  self->listener = *listener;
  g_mutex_init (&self->lock);
  return self;
}

void
ferry_run_free (FerryRun *self)
{
  g_assert (self->target == NULL);
  g_clear_object (&self->device);
  g_clear_pointer (&self->adaptations, ferry_adaptations_free);
  ferry_fs_id_clear (&self->filesystem);
  g_clear_pointer (&self->stale_temps, g_ptr_array_unref);
  g_clear_object (&self->journal);
  g_clear_object (&self->earlier);
  g_clear_error (&self->journal_error);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/**
 * ferry_run_bind:
 * Before the run executes: a retry writes only to @filesystem, the one
 * its earlier run was planned on.
 */
void
ferry_run_bind (FerryRun *self, const FerryFsId *filesystem)
{
  g_mutex_lock (&self->lock);
  ferry_fs_id_copy (&self->filesystem, filesystem);
  g_mutex_unlock (&self->lock);
}

/**
 * ferry_run_copy_filesystem:
 * From any thread: the filesystem the run is bound to, in @filesystem;
 * unknown until it was planned (or bound).
 */
void
ferry_run_copy_filesystem (FerryRun *self, FerryFsId *filesystem)
{
  g_mutex_lock (&self->lock);
  ferry_fs_id_copy (filesystem, &self->filesystem);
  g_mutex_unlock (&self->lock);
}

/* Whether copies are read back (verify) through a FUSE daemon whose
 * cache of the device could not be dropped (see FerryCopyTarget). */
gboolean
ferry_run_verifies_from_cache (FerryRun *self)
{
  gboolean from_cache;

  g_mutex_lock (&self->lock);
  from_cache = self->verifies_from_cache;
  g_mutex_unlock (&self->lock);
  return from_cache;
}

/* Why a copy that stopped could not save its journal, or NULL. */
GError *
ferry_run_dup_journal_error (FerryRun *self)
{
  GError *error;

  g_mutex_lock (&self->lock);
  error = self->journal_error != NULL ? g_error_copy (self->journal_error) : NULL;
  g_mutex_unlock (&self->lock);
  return error;
}

/* How data travels now, or travelled once the copy is over. */
FerryCopyMethod
ferry_run_get_method (FerryRun *self)
{
  FerryCopyMethod method;

  g_mutex_lock (&self->lock);
  method = self->target != NULL ? ferry_copy_target_get_method (self->target) : self->last_method;
  g_mutex_unlock (&self->lock);
  return method;
}

static void
set_phase (FerryRun *self, FerryPhase phase)
{
  self->listener.phase_changed (self->listener.user_data, phase);
}

/* What the device's class or the person says: slow from the start. */
static gboolean
starts_slow (FerryRun *self)
{
  if (self->options.device_mode != FERRY_DEVICE_MODE_AUTO)
    return self->options.device_mode == FERRY_DEVICE_MODE_SLOW;
  return ferry_device_get_speed (self->device) == FERRY_DEVICE_SPEED_SLOW;
}

/* A fast start is measured only where the device's class does not tell
 * its speed (a loop device, a network block device) and the person left
 * it to Ferry; NULL where nothing is to be measured. */
static const char *
block_to_measure (FerryRun *self)
{
  if (self->options.device_mode != FERRY_DEVICE_MODE_AUTO
      || !ferry_device_get_speed_measured (self->device))
    return NULL;
  return ferry_device_get_block_name (self->device);
}

static FerryStrategy *
new_slow_strategy (FerryRun *self, FerryCopyTarget *target)
{
  if (self->options.slow_method == FERRY_SLOW_METHOD_CHUNK_SYNC)
    return ferry_strategy_chunk_sync_new (target);
  return ferry_strategy_slow_new (target);
}

/* The flusher measured the device slow (on its own thread, once): data
 * goes the slow way from now on. */
static void
hand_over_to_slow (gpointer user_data)
{
  FerryRun *self = user_data;
  gboolean handed_over = FALSE;

  g_mutex_lock (&self->lock);
  if (self->target != NULL)
    handed_over
        = ferry_copy_target_hand_over (self->target, new_slow_strategy (self, self->target));
  g_mutex_unlock (&self->lock);
  if (handed_over)
    self->listener.method_changed (self->listener.user_data);
}

static FerryCopyTarget *
start_target (FerryRun *self, FerryPlan *plan)
{
  FerryCopyTarget *target = ferry_copy_target_new (plan->dst_fd, plan->dst_path, self->counters,
                                                   self->control);
  FerryStrategy *strategy;

  /* A file copied in pieces is written at several offsets at once: only
   * where the filesystem leaves the gaps as holes. */
  target->n_pieces = ferry_fs_leaves_holes (plan->dst_fd) ? self->options.n_workers : 1;
  /* fusefat loses a renamed folder's contents (checked after a remount:
   * the files' clusters free), and stamps a renamed file with the time of
   * the rename; exfat-fuse, ntfs-3g and kernel vfat do neither. */
  target->renames_faithfully = !(self->rules.kind == FERRY_FS_KIND_FAT && target->through_fuse);
  if (starts_slow (self))
    strategy = new_slow_strategy (self, target);
  else
    strategy = ferry_strategy_fast_new (target, block_to_measure (self), hand_over_to_slow, self);
  if (self->journal != NULL)
    target->journal = g_object_ref (self->journal);
  ferry_copy_target_start (target, strategy);
  return target;
}

/* The target's helpers (a flusher thread) never outlive the copy; how
 * data travelled stays known. */
static void
end_target (FerryRun *self)
{
  FerryCopyTarget *target;

  g_mutex_lock (&self->lock);
  target = g_steal_pointer (&self->target);
  if (target != NULL)
    self->last_method = ferry_copy_target_get_method (target);
  g_mutex_unlock (&self->lock);
  g_clear_pointer (&target, ferry_copy_target_free);
}

static void
tree_file_failed (gpointer user_data, FerryFailure *failure)
{
  FerryRun *self = user_data;

  self->listener.file_failed (self->listener.user_data, failure);
}

static void
tree_conflict (gpointer user_data, FerryConflictRequest *request)
{
  FerryRun *self = user_data;

  self->listener.conflict (self->listener.user_data, request);
}

static FerryTreeRoot
tree_root (FerryPlan *plan, guint i)
{
  FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);

  return (FerryTreeRoot){ root->parent_fd, root->parent_path, root->name,
                          plan->dst_fd,    plan->dst_path,    root->dst_name };
}

/* What killed runs left goes before anything is written: the temporary
 * files and hidden folders the preflight counted as free space, and any
 * in the destination folder itself (the folders the copy merges into are
 * swept as it reaches them). */
static void
remove_stale_temps (FerryRun *self, FerryPlan *plan)
{
  for (guint i = 0; self->stale_temps != NULL && i < self->stale_temps->len; i++)
    ferry_temp_remove_stale_below (plan->dst_fd, g_ptr_array_index (self->stale_temps, i));
  ferry_temp_sweep (plan->dst_fd);
}

/* @ctx, set up here, outlives the copy of the tree: files whose names
 * reach the device with the final sync are counted then. */
static void
copy_tree (FerryRun *self, FerryPlan *plan, FerryTreeContext *ctx)
{
  const FerryTreeListener listener = { tree_file_failed, tree_conflict, self };
  g_autoptr (FerryTreeCopy) tree = NULL;

  ferry_tree_context_init (ctx, self->target, self->options.conflict_policy, &listener);
  ctx->rules = self->rules;
  ferry_meta_policy_init (&ctx->meta, self->options.preserve, &ctx->rules);
  ctx->error_policy = self->options.error_policy;
  ctx->verify = self->options.verify;
  ctx->adaptations = self->adaptations;
  ctx->resuming = self->resuming;
  ferry_conflicts_set_rules (ctx->conflicts, &self->rules);
  tree = ferry_tree_copy_new (ctx);
  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerryTreeRoot root = tree_root (plan, i);
      ferry_tree_copy_add_root (tree, &root);
    }
  ferry_tree_copy_run (tree, self->options.n_workers);
  /* Files whose names wait for the device get them while the tree that
   * holds their folders is still here. */
  ferry_copy_target_settle (self->target);
}

static gboolean
check_cancelled (FerryRun *self, GError **error)
{
  if (!ferry_control_is_cancelled (self->control))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was cancelled"));
  return FALSE;
}

/* Ended with some files not copied: each was reported already. */
static gboolean
check_partial (FerryRun *self, GError **error)
{
  guint64 n = ferry_counters_get (&self->counters->files_failed);
  g_autofree char *count = NULL;

  if (n == 0)
    return TRUE;
  /* Numbers go in as text, grouped as the locale writes them ("1,200");
   * xgettext cannot see through G_GUINT64_FORMAT either. */
  count = ferry_format_count (n);
  g_set_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL,
               /* Translators: %s is a number of files and folders */
               g_dngettext (GETTEXT_PACKAGE, "%s item could not be copied",
                            "%s items could not be copied", n),
               count);
  return FALSE;
}

/* Even when a failure stopped the job, what was copied is made durable
 * before the job says it has ended. The failure that stopped it (a
 * device failing names the first file it lost) says more than the
 * final sync's failure that follows from it. */
static gboolean
finish (FerryRun *self, GError **error)
{
  g_autoptr (GError) sync_error = NULL;
  GError *stop_error;
  gboolean durable;

  set_phase (self, FERRY_PHASE_SYNCING);
  durable = ferry_copy_target_finish (self->target, &sync_error);
  if ((stop_error = ferry_control_dup_stop_error (self->control)) != NULL)
    {
      g_propagate_error (error, stop_error);
      return FALSE;
    }
  if (!durable)
    {
      g_propagate_error (error, g_steal_pointer (&sync_error));
      return FALSE;
    }
  return check_partial (self, error);
}

/* A job that stops leaves its journal saved before it says so, or says
 * why it could not. Cancelled, what the stop did is saved too (files
 * named whole); stopped by its drive failing, only what points
 * vouched for: a temporary file removed as the drive went may still be
 * on it, where the next run must find it known. */
static void
keep_journal (FerryRun *self)
{
  GError *unsaved;

  if (ferry_control_is_cancelled (self->control))
    ferry_journal_save_at_stop (self->journal, ferry_counters_get_transfer_total (self->counters));
  else
    ferry_journal_wait_saved (self->journal);
  unsaved = ferry_journal_dup_save_error (self->journal);
  g_mutex_lock (&self->lock);
  g_clear_error (&self->journal_error);
  self->journal_error = unsaved;
  g_mutex_unlock (&self->lock);
}

static gboolean
copy (FerryRun *self, FerryPlan *plan, FerryScan *scan, GError **error)
{
  FerryTreeContext ctx;
  gboolean ok;

  self->device = ferry_device_new_for_fd (plan->dst_fd);
  self->listener.device_found (self->listener.user_data, g_object_ref (self->device));
  g_mutex_lock (&self->lock);
  self->target = start_target (self, plan);
  self->verifies_from_cache = self->options.verify && self->target->device_cache_kept;
  g_mutex_unlock (&self->lock);
  set_phase (self, FERRY_PHASE_COPYING);
  self->listener.method_changed (self->listener.user_data);

  remove_stale_temps (self, plan);
  copy_tree (self, plan, &ctx);
  ferry_scan_wait (scan, NULL);
  ok = check_cancelled (self, error) && finish (self, error);
  end_target (self);
  if (ok && self->journal != NULL)
    ferry_journal_remove (self->journal);
  else if (self->journal != NULL)
    keep_journal (self);
  ferry_tree_context_clear (&ctx);
  return ok;
}

/* One answer for every entry the drive cannot store as it is. */
static FerryUnsupportedAction
decide (FerryRun *self, FerryUnsupportedReport *report)
{
  FerryUnsupportedPolicy policy = self->options.unsupported_policy;
  FerryUnsupportedAction action = FERRY_UNSUPPORTED_ACTION_NONE;

  if (policy == FERRY_UNSUPPORTED_POLICY_ASK)
    {
      FerryAnswer *answer = _ferry_unsupported_report_get_answer (report);
      self->listener.unsupported (self->listener.user_data, g_object_ref (report), TRUE);
      action = _ferry_answer_wait (answer, ferry_control_get_cancellable (self->control),
                                   FERRY_UNSUPPORTED_ACTION_CANCEL, NULL);
      _ferry_answer_unref (answer);
    }
  else if (policy == FERRY_UNSUPPORTED_POLICY_ADAPT)
    action = FERRY_UNSUPPORTED_ACTION_ADAPT;
  else if (policy == FERRY_UNSUPPORTED_POLICY_SKIP)
    action = FERRY_UNSUPPORTED_ACTION_SKIP;
  _ferry_unsupported_report_set_action (report, action);
  if (policy != FERRY_UNSUPPORTED_POLICY_ASK)
    self->listener.unsupported (self->listener.user_data, g_object_ref (report), FALSE);
  return action;
}

static gboolean
refuse_unsupported (FerryRun *self, FerryUnsupportedReport *report, GError **error)
{
  guint n = ferry_unsupported_report_get_items (report)->len;
  g_autofree char *count = ferry_format_count (n);

  if (ferry_unsupported_report_get_action (report) == FERRY_UNSUPPORTED_ACTION_CANCEL
      || ferry_control_is_cancelled (self->control))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was cancelled"));
      return FALSE;
    }
  g_set_error (error, FERRY_ERROR, FERRY_ERROR_UNSUPPORTED,
               /* Translators: %s is a number; the second %s is FAT32, exFAT or NTFS */
               g_dngettext (GETTEXT_PACKAGE, "%s item cannot be stored on this %s drive as it is",
                            "%s items cannot be stored on this %s drive as they are", n),
               count, ferry_unsupported_report_get_filesystem (report));
  return FALSE;
}

/* Walks the sources and the destination folders they go to before
 * anything is written; the temporary files killed runs left there are
 * kept for the copy to remove first, and their space counts as free. */
/* The temporary files a resumed run's earlier run left, which it goes on
 * with (or removes), are counted in what the copy needs, but take no
 * more room. (The copies it completed are found by the preflight, where
 * they are: a journal on a disk fast by its class lists none.) */
static guint64
journal_reclaimable (FerryRun *self, FerryPlan *plan)
{
  g_auto (GStrv) temps = NULL;
  guint64 bytes = 0;

  if (!self->resuming)
    return 0;
  temps = ferry_journal_dup_temp_paths (self->journal);
  for (guint i = 0; temps[i] != NULL; i++)
    {
      struct stat st;

      if (fstatat (plan->dst_fd, temps[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG (st.st_mode))
        bytes += (guint64) st.st_blocks * 512;
    }
  return bytes;
}

static FerryPreflight *
walk_preflight (FerryRun *self, FerryPlan *plan)
{
  FerryPreflight *preflight
      = ferry_preflight_new (&self->rules, ferry_control_get_cancellable (self->control));

  ferry_preflight_set_resuming (preflight, self->resuming);
  ferry_preflight_set_conflict_policy (preflight, self->options.conflict_policy);
  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerryTreeRoot root = tree_root (plan, i);
      ferry_preflight_add_root (preflight, &root, TRUE);
    }
  ferry_preflight_walk (preflight);
  g_clear_pointer (&self->stale_temps, g_ptr_array_unref);
  self->stale_temps = g_ptr_array_ref (ferry_preflight_get_stale_temps (preflight));
  plan->reclaimable = ferry_preflight_get_reclaimable (preflight);
  plan->reclaimable += journal_reclaimable (self, plan);
  return preflight;
}

/* A dry run tells what the copy would meet already there: the files the
 * conflict policy skips leave its totals, and a job that stops at the
 * first conflict is refused where the copy would stop. */
static gboolean
count_existing (FerryRun *self, FerryPlan *plan, GError **error)
{
  g_autoptr (FerryPreflight) preflight = walk_preflight (self, plan);
  const FerryPreflightExisting *existing = ferry_preflight_get_existing (preflight);
  g_autofree char *path = NULL;

  ferry_counters_add (self->counters, &self->counters->files_existing, existing->files);
  ferry_counters_add (self->counters, &self->counters->files_skipped, existing->skipped);
  ferry_counters_add_total (self->counters, -(gint64) existing->skipped_bytes);
  if (existing->first == NULL || self->options.conflict_policy != FERRY_CONFLICT_POLICY_FAIL)
    return TRUE;
  path = g_build_filename (plan->dst_path, existing->first, NULL);
  return ferry_set_ferry_error (error, FERRY_ERROR_EXISTS, _ ("“%s” already exists"),
                                path);
}

/* What the walk found the drive cannot store as it is, settled with one
 * decision: adapted, skipped, or the copy refused. */
static gboolean
settle_unsupported (FerryRun *self, FerryPlan *plan, FerryPreflight *preflight, GError **error)
{
  g_autoptr (FerryUnsupportedReport) report = NULL;
  g_autoptr (GFile) destination = NULL;
  FerryUnsupportedAction action;

  if (ferry_preflight_get_items (preflight)->len == 0)
    return TRUE;
  destination = g_file_new_for_path (plan->dst_path);
  report = _ferry_unsupported_report_new (self->rules.label, destination,
                                          ferry_preflight_get_items (preflight));
  action = decide (self, report);
  if (action != FERRY_UNSUPPORTED_ACTION_ADAPT && action != FERRY_UNSUPPORTED_ACTION_SKIP)
    return refuse_unsupported (self, report, error);
  self->adaptations = ferry_preflight_adapt (preflight, action);
  return TRUE;
}

/* Whether the source @root is on a filesystem whose names may be longer
 * than the destination takes: 200 "é" and ".txt" are 404 bytes, which
 * an exFAT stick holds and ext4 does not. Each filesystem is asked once
 * (@asked: dev_t → answer): a FUSE one reads the mount table. */
static gboolean
holds_longer_names (FerryRun *self, FerryPlan *plan, const FerrySourceRoot *root, GHashTable *asked)
{
  gpointer known;
  ferry_autofd fd = -1;
  gboolean longer;

  if (root->st.st_dev == plan->dst_st.st_dev)
    return FALSE;
  if (g_hash_table_lookup_extended (asked, &root->st.st_dev, NULL, &known))
    return GPOINTER_TO_INT (known);
  fd = openat (root->parent_fd, root->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  longer = fd >= 0 && ferry_fs_rules_longest_name_at (fd) > self->rules.max_name_bytes;
  g_hash_table_insert (asked, g_memdup2 (&root->st.st_dev, sizeof (dev_t)), GINT_TO_POINTER (longer));
  return longer;
}

/* Elsewhere than on FAT32, exFAT and NTFS, only a name can fail: one
 * longer than the drive takes (ext4, XFS, Btrfs, tmpfs: 255 bytes).
 * Only sources on a filesystem that takes longer names can hold one,
 * and only those are walked, for their names alone; a copy of ordinary
 * folders costs a look at each source's filesystem. Before, such names
 * failed one by one as the copy met them ("File name too long"), and a
 * dry run counted them as copied. */
static gboolean
check_name_lengths (FerryRun *self, FerryPlan *plan, GError **error)
{
  g_autoptr (GHashTable) asked = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GArray) walked = g_array_new (FALSE, FALSE, sizeof (gboolean));
  g_autoptr (FerryPreflight) preflight = NULL;
  gboolean any = FALSE;

  G_STATIC_ASSERT (sizeof (dev_t) == sizeof (gint64));
  if (self->rules.max_name_bytes == 0)
    return TRUE;
  for (guint i = 0; i < plan->roots->len; i++)
    {
      gboolean longer = holds_longer_names (self, plan, g_ptr_array_index (plan->roots, i), asked);
      g_array_append_val (walked, longer);
      any |= longer;
    }
  if (!any)
    return TRUE;
  preflight = ferry_preflight_new (&self->rules, ferry_control_get_cancellable (self->control));
  ferry_preflight_set_names_only (preflight, TRUE);
  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerryTreeRoot root = tree_root (plan, i);
      ferry_preflight_add_root (preflight, &root, g_array_index (walked, gboolean, i));
    }
  ferry_preflight_walk (preflight);
  return check_cancelled (self, error) && settle_unsupported (self, plan, preflight, error);
}

/* On FAT32, exFAT and NTFS: every entry the drive cannot store as it is
 * is found before anything is written, and settled with one decision. */
static gboolean
check_filesystem_rules (FerryRun *self, FerryPlan *plan, GError **error)
{
  g_autoptr (FerryPreflight) preflight = NULL;

  ferry_fs_rules_for_fd (plan->dst_fd, &self->rules);
  if (self->rules.kind == FERRY_FS_KIND_OTHER)
    return check_name_lengths (self, plan, error);
  preflight = walk_preflight (self, plan);
  self->needed = ferry_preflight_get_needed (preflight);
  if (!check_cancelled (self, error)
      || !ferry_preflight_check_folders (preflight, plan->dst_path, error))
    return FALSE;
  return settle_unsupported (self, plan, preflight, error);
}

/* Data starts moving before the totals are known only when the
 * destination could not run out of space whatever they turn out to be. */
static gboolean
wait_for_totals (FerryRun *self, FerryPlan *plan, FerryScan *scan, GError **error)
{
  FerryTreeTotals totals;

  if (self->rules.kind != FERRY_FS_KIND_OTHER)
    {
      /* Counted the drive's way, in whole clusters, by the preflight. */
      totals = (FerryTreeTotals){ .needed = self->needed };
      return ferry_plan_check_space (plan, &totals, error);
    }
  if (!self->options.dry_run && ferry_plan_surely_fits (plan))
    return TRUE;
  ferry_scan_wait (scan, &totals);
  /* Elsewhere nothing has looked at the destination folders yet: only a
   * plan that does not fit is walked for what killed runs left there. */
  if (!ferry_plan_check_space (plan, &totals, NULL))
    ferry_preflight_free (walk_preflight (self, plan));
  return check_cancelled (self, error) && ferry_plan_check_space (plan, &totals, error);
}

static gboolean
refuse_unplugged (FerryRun *self, GError **error)
{
  g_autofree char *label = NULL;

  if (self->filesystem.label == NULL)
    {
      g_set_error_literal (error, FERRY_ERROR, FERRY_ERROR_NOT_PLUGGED_IN,
                           _ ("The destination drive is not plugged in"));
      return FALSE;
    }
  label = ferry_path_display (self->filesystem.label);
  /* Translators: the label of a drive (a USB stick), or else the name of
   * the folder it was mounted on */
  g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_PLUGGED_IN, _ ("“%s” is not plugged in"), label);
  return FALSE;
}

/* A retry's destination that leads to another filesystem now is refused
 * as such before it is planned, not as a folder that is missing there.
 * What cannot be looked at is left for the plan to report. */
static gboolean
check_bound_before_plan (FerryRun *self, const char *destination, GError **error)
{
  g_auto (FerryFsId) now = { 0 };

  if (!ferry_fs_id_is_known (&self->filesystem) || !ferry_fs_id_read_path (&now, destination))
    return TRUE;
  return ferry_fs_id_same (&self->filesystem, &now) || refuse_unplugged (self, error);
}

/* The destination folder just opened is on the filesystem of the run's
 * retry, or becomes the one the run is bound to. */
static gboolean
bind_filesystem (FerryRun *self, FerryPlan *plan, GError **error)
{
  g_auto (FerryFsId) planned = { 0 };

  ferry_fs_id_read_fd (&planned, plan->dst_fd);
  if (ferry_fs_id_is_known (&self->filesystem))
    return ferry_fs_id_same (&self->filesystem, &planned) || refuse_unplugged (self, error);
  ferry_run_bind (self, &planned);
  return TRUE;
}

/* Just before the first write, after what may have taken long (a person
 * asked, totals awaited): the destination folder still leads to the
 * filesystem the run is bound to. */
static gboolean
check_bound_before_copy (FerryRun *self, FerryPlan *plan, GError **error)
{
  g_auto (FerryFsId) now = { 0 };

  if (!ferry_fs_id_is_known (&self->filesystem))
    return TRUE;
  if (ferry_fs_id_read_path (&now, plan->dst_path) && ferry_fs_id_same (&self->filesystem, &now))
    return TRUE;
  return refuse_unplugged (self, error);
}

/* A path as typed, from anywhere: "dir/." and a trailing "/" stay. */
static char *
absolute_path (const char *path)
{
  g_autofree char *cwd = NULL;

  if (g_path_is_absolute (path))
    return g_strdup (path);
  cwd = g_get_current_dir ();
  return g_strconcat (cwd, G_DIR_SEPARATOR_S, path, NULL);
}

/* @paths made absolute, NULL-terminated, as journals name them. */
static GPtrArray *
absolute_paths (const char *const *paths)
{
  GPtrArray *absolute = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; paths[i] != NULL; i++)
    g_ptr_array_add (absolute, absolute_path (paths[i]));
  g_ptr_array_add (absolute, NULL);
  return absolute;
}

/* A transfer as its journal names it: the paths as typed, made
 * absolute, and the id they give. */
typedef struct
{
  GPtrArray *sources; /* NULL-terminated */
  char *destination;
  char *id;
} TransferKey;

static void
transfer_key_init (TransferKey *key, const char *const *sources, const char *destination)
{
  key->sources = absolute_paths (sources);
  key->destination = absolute_path (destination);
  key->id = ferry_journal_id_for ((const char *const *) key->sources->pdata, key->destination);
}

static void
transfer_key_clear (TransferKey *key)
{
  g_clear_pointer (&key->sources, g_ptr_array_unref);
  g_clear_pointer (&key->destination, g_free);
  g_clear_pointer (&key->id, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TransferKey, transfer_key_clear)

/* The filesystem of the folder @destination is, or, not there yet, of
 * the folder that would hold it: the one the plan's folder is on. */
static gboolean
read_destination_filesystem (FerryFsId *filesystem, const char *destination)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *parent = NULL;

  if (ferry_fs_id_read_path (filesystem, destination))
    return TRUE;
  trimmed = ferry_path_trim_slashes (destination);
  parent = g_path_get_dirname (trimmed);
  return ferry_fs_id_read_path (filesystem, parent);
}

/* The journal of a transfer of @sources into the folder @destination
 * is, its drive plugged in again elsewhere since (/media/ana/STICK1
 * where it was /media/ana/STICK): the command typed with the folder's
 * new path goes on from it. NULL when there is none. */
static FerryJournal *
find_moved_journal (const FerryFsId *filesystem, const char *const *sources, const char *destination)
{
  g_auto (GStrv) ids = ferry_journal_list_ids ();
  g_autofree char *mount_point = NULL;

  if (!ferry_fs_find_mount_point (filesystem->dev, NULL, NULL, &mount_point))
    return NULL;
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr (FerryJournal) journal = ferry_journal_load (ids[i], NULL);

      if (journal != NULL && ferry_journal_get_sources (journal) != NULL
          && g_strv_equal (ferry_journal_get_sources (journal), sources)
          && ferry_journal_is_of_place (journal, destination, filesystem, mount_point))
        return g_steal_pointer (&journal);
    }
  return NULL;
}

/* The same command typed again while the drive of the copy it cut short
 * is away found, where the drive was mounted, its folder left empty on
 * the system disk, and copied there: ending well, it dropped the journal
 * of the copy on the drive. It is refused as --resume ID is, naming
 * where the drive is when it is mounted elsewhere; --restart copies
 * anew wherever the folder leads. */
static gboolean
check_earlier_drive (FerryRun *self, const FerryFsId *there, GError **error)
{
  g_autofree char *moved = NULL;
  g_autofree char *display = NULL;
  const FerryFsId *went_to;

  if (self->earlier == NULL || self->options.restart || ferry_fs_id_is_known (&self->filesystem))
    return TRUE;
  went_to = ferry_journal_get_filesystem (self->earlier);
  if (ferry_fs_id_same (went_to, there))
    return TRUE;
  ferry_run_bind (self, went_to);
  if ((moved = ferry_journal_find_destination (self->earlier)) == NULL)
    return refuse_unplugged (self, error);
  display = ferry_path_display (moved);
  g_set_error (error, FERRY_ERROR, FERRY_ERROR_NOT_PLUGGED_IN,
               _ ("The drive this copy goes to is mounted elsewhere now: copy into “%s” to go "
                  "on there"),
               display);
  return FALSE;
}

/* Before the plan: the journal of the transfer the same sources and
 * destination began and a kill or an unplug cut short, which this run
 * continues on the same filesystem (not merely one with the same label)
 * unless the job restarts it. Its destination keeps the meaning it had
 * then: "Backup", a new name the first run gave the copy of its one
 * source, is a folder now, and the same command does not copy into it;
 * a folder that took the copies, deleted since, is not made the copy's
 * name. A command with other sources that copies into that folder keeps
 * a journal of its own, and copies into it. FALSE: the journal found
 * is of a drive that is not where the destination leads now
 * (check_earlier_drive()). */
static gboolean
find_earlier_journal (FerryRun *self, const TransferKey *key, GError **error)
{
  g_auto (FerryFsId) there = { 0 };

  g_clear_object (&self->earlier);
  self->meaning = FERRY_DESTINATION_AS_FOUND;
  if (!self->options.keeps_journal || self->options.dry_run
      || !read_destination_filesystem (&there, key->destination))
    return TRUE;
  self->earlier = ferry_journal_load (key->id, NULL);
  if (self->earlier == NULL)
    self->earlier = find_moved_journal (&there, (const char *const *) key->sources->pdata,
                                        key->destination);
  if (self->earlier != NULL && !self->options.restart
      && ferry_fs_id_same (ferry_journal_get_filesystem (self->earlier), &there))
    self->meaning = ferry_journal_get_names_copy (self->earlier) ? FERRY_DESTINATION_NAMES_COPY
                                                                 : FERRY_DESTINATION_INTO_FOLDER;
  return check_earlier_drive (self, &there, error);
}

/* What the person chose for the transfer goes in its journal, for
 * --resume to choose the same. */
static void
keep_choices (FerryRun *self)
{
  if (self->options.choices != NULL)
    ferry_journal_set_choices (self->journal, self->options.choices);
}

/* The earlier journal found, continued where the plan is on its
 * filesystem (else removed), or a new one, which says what the plan
 * made of the destination. */
static void
open_journal (FerryRun *self, FerryPlan *plan, const TransferKey *key)
{
  const char *const *sources = (const char *const *) key->sources->pdata;
  g_autoptr (FerryJournal) earlier = g_steal_pointer (&self->earlier);

  if (!self->options.keeps_journal || self->options.dry_run)
    return;
  if (earlier != NULL && !self->options.restart
      && ferry_fs_id_same (ferry_journal_get_filesystem (earlier), &self->filesystem))
    {
      /* where the folder is now, for the list of unfinished transfers */
      ferry_journal_set_transfer (earlier, sources, key->destination, &self->filesystem);
      self->journal = g_steal_pointer (&earlier);
      self->resuming = TRUE;
      keep_choices (self);
      return;
    }
  if (earlier != NULL)
    ferry_journal_remove (earlier);
  self->journal = ferry_journal_new (key->id);
  ferry_journal_set_transfer (self->journal, sources, key->destination, &self->filesystem);
  ferry_journal_set_names_copy (self->journal, plan->meaning == FERRY_DESTINATION_NAMES_COPY);
  keep_choices (self);
}

static gboolean
run_transfer (FerryRun *self,
              const char *const *sources,
              const char *destination,
              const TransferKey *key,
              GError **error)
{
  g_autoptr (FerryPlan) plan = NULL;
  g_autoptr (FerryScan) scan = NULL;

  set_phase (self, FERRY_PHASE_PLANNING);
  if (!check_bound_before_plan (self, destination, error)
      || !find_earlier_journal (self, key, error))
    return FALSE;
  if ((plan = ferry_plan_resolve (sources, destination, self->meaning, error)) == NULL
      || !bind_filesystem (self, plan, error))
    return FALSE;
  open_journal (self, plan, key);

  scan = ferry_scan_new (self->counters, ferry_control_get_cancellable (self->control));
  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);
      ferry_scan_add (scan, root->parent_fd, root->name);
    }
  ferry_scan_start (scan);

  if (!check_filesystem_rules (self, plan, error))
    return FALSE;
  if (!wait_for_totals (self, plan, scan, error))
    return FALSE;
  if (self->options.dry_run)
    return count_existing (self, plan, error);
  return check_bound_before_copy (self, plan, error) && copy (self, plan, scan, error);
}

/**
 * ferry_run_execute:
 * @sources: (array zero-terminated=1): paths, resolved by the kernel
 *
 * Runs the job to its end. Returns TRUE when everything was copied and
 * is durable (or, for a dry run, would fit). A transfer that keeps a
 * journal runs once at a time: the same files copied into the same
 * folder by two runs at once shared one journal and took each other's
 * temporary files for their own.
 */
gboolean
ferry_run_execute (FerryRun *self,
                   const char *const *sources,
                   const char *destination,
                   GError **error)
{
  g_auto (TransferKey) key = { NULL, NULL, NULL };
  int held = -1;
  gboolean ok;

  transfer_key_init (&key, sources, destination);
  if (!self->options.keeps_journal || self->options.dry_run)
    return run_transfer (self, sources, destination, &key, error);
  if (!ferry_journal_hold_transfer (key.id, destination, &held, error))
    return FALSE;
  ok = run_transfer (self, sources, destination, &key, error);
  ferry_journal_let_go_transfer (key.id, held);
  return ok;
}
