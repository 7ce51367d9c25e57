/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "ferry-copy-context.h"
#include "ferry-copy-data.h"
#include "ferry-enum-types.h"
#include "ferry-error.h"
#include "ferry-job-private.h"
#include "ferry-plan.h"
#include "ferry-planner.h"
#include "ferry-rate-meter.h"
#include "ferry-tree-copy.h"

/* A job keeps this many failures for ferry_job_dup_failures(); every
 * failure is still counted and signalled. */
#define MAX_KEPT_FAILURES 1000

typedef struct ProgressWatch ProgressWatch; /* see "Progress notifications" */

struct _FerryJob
{
  GObject parent_instance;

  GPtrArray *sources;
  GFile *destination;
  FerryConflictPolicy conflict_policy;
  FerryErrorPolicy error_policy;
  gboolean preserve;
  gboolean verify;
  gboolean dry_run;
  guint n_workers;
  FerryDeviceMode device_mode;
  FerrySlowMethod slow_method;

  GMainContext *main_context; /* where signals are emitted */
  GCancellable *cancellable;
  gboolean started;
  FerryCounters counters;

  GMutex state_lock; /* guards everything below */
  GCond pause_cond;
  FerryPhase phase;
  gboolean paused;
  gint64 started_at;
  gint64 ended_at;
  char *current;
  FerryDevice *device;
  FerryCopyContext *ctx; /* while copying */
  const char *strategy;  /* a static string */
  FerryRateMeter rate_meter;
  GPtrArray *failures;
  guint64 n_failures;

  ProgressWatch *progress_watch; /* while running; touched on the main context only */
};

G_DEFINE_FINAL_TYPE (FerryJob, ferry_job, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DESTINATION,
  PROP_CONFLICT_POLICY,
  PROP_ERROR_POLICY,
  PROP_PRESERVE,
  PROP_VERIFY,
  PROP_DRY_RUN,
  PROP_N_WORKERS,
  PROP_DEVICE_MODE,
  PROP_SLOW_METHOD,
  PROP_DEVICE,
  PROP_STRATEGY,
  PROP_PHASE,
  PROP_PAUSED,
  PROP_PROGRESS,
  N_PROPS
};

enum
{
  SIGNAL_CONFLICT,
  SIGNAL_FILE_FAILED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The source tag of run tasks (a function pointer cannot be one in ISO C). */
static char run_source_tag[] = "ferry_job_run_async";

/* ------------------------------------------------------------------ */
/* Calls from worker threads to the job's main context                 */

typedef struct
{
  FerryJob *job;
  gpointer item;
  GDestroyNotify free_item;
} Dispatch;

static void
dispatch_free (gpointer data)
{
  Dispatch *dispatch = data;

  if (dispatch->free_item != NULL && dispatch->item != NULL)
    dispatch->free_item (dispatch->item);
  g_object_unref (dispatch->job);
  g_free (dispatch);
}

static void
dispatch (FerryJob *self, GSourceFunc func, gpointer item, GDestroyNotify free_item)
{
  Dispatch *d = g_new0 (Dispatch, 1);

  d->job = g_object_ref (self);
  d->item = item;
  d->free_item = free_item;
  g_main_context_invoke_full (self->main_context, G_PRIORITY_DEFAULT, func, d, dispatch_free);
}

static gboolean
emit_notify (gpointer data)
{
  Dispatch *d = data;

  g_object_notify_by_pspec (G_OBJECT (d->job), d->item);
  return G_SOURCE_REMOVE;
}

static gboolean
emit_failure (gpointer data)
{
  Dispatch *d = data;

  g_signal_emit (d->job, signals[SIGNAL_FILE_FAILED], 0, d->item);
  return G_SOURCE_REMOVE;
}

static gboolean
emit_conflict (gpointer data)
{
  Dispatch *d = data;
  gboolean handled = FALSE;

  g_signal_emit (d->job, signals[SIGNAL_CONFLICT], 0, d->item, &handled);
  return G_SOURCE_REMOVE;
}

static void
set_phase (FerryJob *self, FerryPhase phase)
{
  g_mutex_lock (&self->state_lock);
  self->phase = phase;
  if (phase >= FERRY_PHASE_DONE)
    {
      self->ended_at = g_get_monotonic_time ();
      g_clear_pointer (&self->current, g_free);
    }
  g_mutex_unlock (&self->state_lock);
  dispatch (self, emit_notify, properties[PROP_PHASE], NULL);
}

void
_ferry_job_report_failure (FerryJob *self, FerryFailure *failure)
{
  g_mutex_lock (&self->state_lock);
  self->n_failures++;
  if (self->failures->len < MAX_KEPT_FAILURES)
    g_ptr_array_add (self->failures, ferry_failure_copy (failure));
  g_mutex_unlock (&self->state_lock);
  dispatch (self, emit_failure, failure, (GDestroyNotify) ferry_failure_free);
}

void
_ferry_job_post_conflict (FerryJob *self, FerryConflictRequest *request)
{
  dispatch (self, emit_conflict, request, g_object_unref);
}

void
_ferry_job_set_current (FerryJob *self, char *display_path)
{
  g_mutex_lock (&self->state_lock);
  g_free (self->current);
  self->current = display_path;
  g_mutex_unlock (&self->state_lock);
}

void
_ferry_job_strategy_changed (FerryJob *self)
{
  dispatch (self, emit_notify, properties[PROP_STRATEGY], NULL);
}

void
_ferry_job_wait_while_paused (FerryJob *self, GCancellable *cancellable)
{
  g_mutex_lock (&self->state_lock);
  while (self->paused && !g_cancellable_is_cancelled (cancellable))
    g_cond_wait_until (&self->pause_cond, &self->state_lock,
                       g_get_monotonic_time () + G_USEC_PER_SEC / 10);
  g_mutex_unlock (&self->state_lock);
}

/* ------------------------------------------------------------------ */
/* Progress notifications                                              */

/* Workers bump the counters without telling anyone, so while the job
 * runs a timeout on its main context looks at them ten times a second and
 * notifies "progress" only when something a person sees has changed: a
 * display then redraws when there is news, never faster than it can be
 * read, and never from a worker thread. (A push-based idle may replace
 * this polling; the contract in ferry-job.h stays.) */

#define PROGRESS_INTERVAL_MS 100

struct ProgressWatch
{
  GSource *source;
  FerryProgress shown; /* as it was when "progress" was last notified */
};

static void read_counters (FerryJob *self, FerryProgress *p);

/* What a person sees of the progress; rate, time left and elapsed time
 * follow from it, and reading them here would disturb the rate meter. */
static void
read_shown (FerryJob *self, FerryProgress *p)
{
  *p = (FerryProgress){ 0 };
  read_counters (self, p);
  g_mutex_lock (&self->state_lock);
  p->phase = self->phase;
  p->paused = self->paused;
  p->current = g_strdup (self->current);
  g_mutex_unlock (&self->state_lock);
}

static gboolean
shown_equal (const FerryProgress *a, const FerryProgress *b)
{
  return a->phase == b->phase && a->paused == b->paused && a->planning_done == b->planning_done
         && a->files_total == b->files_total && a->files_done == b->files_done
         && a->files_failed == b->files_failed && a->bytes_total == b->bytes_total
         && a->bytes_written == b->bytes_written && a->bytes_durable == b->bytes_durable
         && g_strcmp0 (a->current, b->current) == 0;
}

static void
progress_watch_free (ProgressWatch *watch)
{
  g_source_destroy (watch->source);
  g_source_unref (watch->source);
  ferry_progress_clear (&watch->shown);
  g_free (watch);
}

/* Notifies "progress" when what is shown changed. The phase that ends the
 * job is such a change, so the notification that sees it is the last one
 * and watching stops; returns whether it goes on. What is shown is
 * recorded before handlers run, so one that pauses the job re-enters
 * safely. */
static gboolean
notify_progress_if_changed (FerryJob *self)
{
  ProgressWatch *watch = self->progress_watch;
  FerryProgress now;
  gboolean ended;

  read_shown (self, &now);
  if (shown_equal (&watch->shown, &now))
    {
      ferry_progress_clear (&now);
      return TRUE;
    }
  ended = now.phase >= FERRY_PHASE_DONE;
  ferry_progress_clear (&watch->shown);
  watch->shown = now;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  if (ended)
    g_clear_pointer (&self->progress_watch, progress_watch_free);
  return !ended;
}

static gboolean
on_progress_tick (gpointer data)
{
  return notify_progress_if_changed (data) ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* The timeout holds a reference: the job lives until its main context
 * has seen it end. */
static void
watch_progress (FerryJob *self)
{
  ProgressWatch *watch = g_new0 (ProgressWatch, 1);

  watch->source = g_timeout_source_new (PROGRESS_INTERVAL_MS);
  g_source_set_static_name (watch->source, "[ferry] job progress");
  g_source_set_callback (watch->source, on_progress_tick, g_object_ref (self), g_object_unref);
  g_source_attach (watch->source, self->main_context);
  self->progress_watch = watch;
}

static gboolean
emit_progress_now (gpointer data)
{
  Dispatch *d = data;

  if (d->job->progress_watch != NULL)
    notify_progress_if_changed (d->job);
  return G_SOURCE_REMOVE;
}

/* A pause or resume shows at once, not at the next tick. Before the job
 * runs there is nothing to coalesce; once it has ended, nothing changes. */
static void
notify_progress_now (FerryJob *self)
{
  if (!self->started)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  else if (self->progress_watch != NULL)
    dispatch (self, emit_progress_now, NULL, NULL);
}

/* ------------------------------------------------------------------ */
/* Running                                                             */

/* On a slow device each worker waits until its file is on the device
 * before naming it; with many of them some are always writing, and the
 * device never idles. Measured on the broad tree (1,687 x 300 KB) to a
 * 40 MB/s stick: 4 workers took 14.0 s, 16 took 13.6 s, 32 took 13.5 s
 * (the device alone needs 12.7 s). The chunk-sync method is one stream,
 * as first described. */
#define SLOW_WORKERS 16

static void
find_device (FerryJob *self, FerryPlan *plan)
{
  FerryDevice *device = ferry_device_new_for_fd (plan->dst_fd);

  g_mutex_lock (&self->state_lock);
  g_clear_object (&self->device);
  self->device = device;
  g_mutex_unlock (&self->state_lock);
  dispatch (self, emit_notify, properties[PROP_DEVICE], NULL);
}

static gboolean
slow_from_start (FerryJob *self)
{
  if (self->device_mode != FERRY_DEVICE_MODE_AUTO)
    return self->device_mode == FERRY_DEVICE_MODE_SLOW;
  return ferry_device_get_speed (self->device) == FERRY_DEVICE_SPEED_SLOW;
}

static guint
count_workers (FerryJob *self)
{
  if (!slow_from_start (self))
    return self->n_workers;
  return self->slow_method == FERRY_SLOW_METHOD_CHUNK_SYNC ? 1 : SLOW_WORKERS;
}

static void
configure_context (FerryJob *self, FerryCopyContext *ctx, FerryPlan *plan)
{
  ctx->conflict_policy = self->conflict_policy;
  ctx->error_policy = self->error_policy;
  ctx->preserve = self->preserve;
  ctx->verify = self->verify;
  ctx->n_pieces = self->n_workers;
  ctx->strategy = &ferry_strategy_local;
  ctx->dst_dir_fd = plan->dst_fd;
  ctx->dst_dev = plan->dst_st.st_dev;
  ctx->device = g_object_ref (self->device);
  ctx->device_mode = self->device_mode;
  ctx->slow_method = self->slow_method;
  ctx->slow_workers = self->slow_method == FERRY_SLOW_METHOD_CHUNK_SYNC ? 1 : SLOW_WORKERS;
}

/* The job reports the strategy of the copy running, and the last one's
 * once it ended. */
static void
attach_context (FerryJob *self, FerryCopyContext *ctx)
{
  g_mutex_lock (&self->state_lock);
  if (ctx == NULL && self->ctx != NULL)
    self->strategy = ferry_copy_context_get_strategy_name (self->ctx);
  self->ctx = ctx;
  g_mutex_unlock (&self->state_lock);
}

static void
copy_tree (FerryJob *self, FerryCopyContext *ctx, FerryPlan *plan, guint n_workers)
{
  g_autoptr (FerryTreeCopy) tree = ferry_tree_copy_new (ctx);

  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);
      ferry_tree_copy_add_root (tree, root->parent_fd, root->parent_path, root->name, plan->dst_fd,
                                plan->dst_path, root->dst_name);
    }
  ferry_copy_context_set_tree (ctx, tree);
  ferry_tree_copy_run (tree, n_workers);
  ferry_copy_context_set_tree (ctx, NULL);
}

static gboolean
return_partial (FerryJob *self, GError **error)
{
  guint64 n = ferry_job_get_n_failures (self);
  g_autofree char *count = NULL;

  if (n == 0)
    return TRUE;
  /* Numbers go in as text: xgettext cannot see through G_GUINT64_FORMAT. */
  count = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  g_set_error (error, FERRY_ERROR, FERRY_ERROR_PARTIAL,
               /* Translators: %s is a number of files and folders */
               g_dngettext (GETTEXT_PACKAGE, "%s item could not be copied",
                            "%s items could not be copied", n),
               count);
  return FALSE;
}

static gboolean
check_cancelled (FerryJob *self, GError **error)
{
  if (!g_cancellable_is_cancelled (self->cancellable))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was cancelled"));
  return FALSE;
}

static void
stop_strategy (FerryCopyContext *ctx)
{
  if (ctx->strategy->stop != NULL)
    ctx->strategy->stop (ctx);
  attach_context (ctx->job, NULL);
}

/* Resolves and checks the plan, then copies while the planner counts.
 * Data starts moving before the totals are known only when the
 * destination could not run out of space whatever they turn out to be. */
static gboolean
run_steps (FerryJob *self, GError **error)
{
  g_autoptr (FerryPlan) plan = NULL;
  g_autoptr (FerryPlanner) planner = NULL;
  g_autoptr (FerryCopyContext) ctx = NULL;
  g_autoptr (GError) stop_error = NULL;
  FerryTreeTotals totals;
  gboolean ok;

  set_phase (self, FERRY_PHASE_PLANNING);
  if ((plan = ferry_plan_resolve (self->sources, self->destination, error)) == NULL)
    return FALSE;

  planner = ferry_planner_new (&self->counters, self->cancellable);
  for (guint i = 0; i < plan->roots->len; i++)
    {
      FerrySourceRoot *root = g_ptr_array_index (plan->roots, i);
      ferry_planner_add (planner, root->parent_fd, root->name);
    }
  ferry_planner_start (planner);

  if (self->dry_run || !ferry_plan_surely_fits (plan))
    {
      ferry_planner_wait (planner, &totals);
      if (!check_cancelled (self, error) || !ferry_plan_check_space (plan, &totals, error))
        return FALSE;
      if (self->dry_run)
        return TRUE;
    }

  find_device (self, plan);
  ctx = ferry_copy_context_new (self, &self->counters, self->cancellable);
  configure_context (self, ctx, plan);
  attach_context (self, ctx);
  set_phase (self, FERRY_PHASE_COPYING);
  if (ctx->strategy->start != NULL)
    ctx->strategy->start (ctx);
  _ferry_job_strategy_changed (self);
  copy_tree (self, ctx, plan, count_workers (self));
  ferry_planner_wait (planner, NULL);

  if (!check_cancelled (self, error))
    {
      stop_strategy (ctx);
      return FALSE;
    }

  /* Even when a failure stopped the job, what was copied is made durable
   * before the job says it has ended. */
  set_phase (self, FERRY_PHASE_SYNCING);
  ok = ctx->strategy->finish (ctx, plan->dst_path, error);
  stop_strategy (ctx);
  if (!ok)
    return FALSE;
  if ((stop_error = ferry_copy_context_dup_stop_error (ctx)) != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&stop_error));
      return FALSE;
    }
  return return_partial (self, error);
}

static void
run_in_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  FerryJob *self = source_object;
  GError *error = NULL;

  if (run_steps (self, &error))
    {
      set_phase (self, FERRY_PHASE_DONE);
      g_task_return_boolean (task, TRUE);
      return;
    }
  set_phase (self, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? FERRY_PHASE_CANCELLED
                                                                             : FERRY_PHASE_FAILED);
  g_task_return_error (task, error);
}

static void
forward_cancel (GCancellable *cancellable, gpointer user_data)
{
  ferry_job_cancel (FERRY_JOB (user_data));
}

/**
 * ferry_job_run_async:
 * @cancellable: (nullable): also cancels the job, like ferry_job_cancel()
 *
 * Runs the job on a worker thread. Signals are emitted, and @callback is
 * called, in the thread-default main context of the caller. A job runs
 * once.
 */
void
ferry_job_run_async (FerryJob *self,
                     GCancellable *cancellable,
                     GAsyncReadyCallback callback,
                     gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (FERRY_IS_JOB (self));
  g_return_if_fail (!self->started);

  self->started = TRUE;
  self->main_context = g_main_context_ref_thread_default ();
  g_mutex_lock (&self->state_lock);
  self->started_at = g_get_monotonic_time ();
  g_mutex_unlock (&self->state_lock);
  watch_progress (self);

  if (cancellable != NULL)
    g_cancellable_connect (cancellable, G_CALLBACK (forward_cancel), g_object_ref (self),
                           g_object_unref);

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, run_source_tag);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, run_in_thread);
}

/**
 * ferry_job_run_finish:
 *
 * Returns: TRUE when every file was copied and is durable. Otherwise the
 *   error says why the job ended: a refusal before anything was written,
 *   G_IO_ERROR_CANCELLED, the failure that stopped it (a failing
 *   destination, or any failure under FERRY_ERROR_POLICY_STOP), or
 *   FERRY_ERROR_PARTIAL when it went on past failures (each was reported
 *   by FerryJob::file-failed and is in ferry_job_dup_failures()).
 */
gboolean
ferry_job_run_finish (FerryJob *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
ferry_job_cancel (FerryJob *self)
{
  g_return_if_fail (FERRY_IS_JOB (self));

  g_cancellable_cancel (self->cancellable);
  g_mutex_lock (&self->state_lock);
  g_cond_broadcast (&self->pause_cond);
  g_mutex_unlock (&self->state_lock);
}

static void
set_paused (FerryJob *self, gboolean paused)
{
  gboolean changed;

  g_mutex_lock (&self->state_lock);
  changed = self->paused != paused;
  self->paused = paused;
  g_cond_broadcast (&self->pause_cond);
  g_mutex_unlock (&self->state_lock);
  if (!changed)
    return;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAUSED]);
  notify_progress_now (self);
}

/* Pausing holds every worker at its next check (between chunks of a
 * large file, or between files); nothing is closed or lost. */
void
ferry_job_pause (FerryJob *self)
{
  g_return_if_fail (FERRY_IS_JOB (self));
  set_paused (self, TRUE);
}

void
ferry_job_resume (FerryJob *self)
{
  g_return_if_fail (FERRY_IS_JOB (self));
  set_paused (self, FALSE);
}

gboolean
ferry_job_get_paused (FerryJob *self)
{
  gboolean paused;

  g_return_val_if_fail (FERRY_IS_JOB (self), FALSE);
  g_mutex_lock (&self->state_lock);
  paused = self->paused;
  g_mutex_unlock (&self->state_lock);
  return paused;
}

/**
 * ferry_job_dup_device:
 * Returns: (transfer full) (nullable): the destination's device, known
 *   once the job has started copying
 */
FerryDevice *
ferry_job_dup_device (FerryJob *self)
{
  FerryDevice *device;

  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  g_mutex_lock (&self->state_lock);
  device = self->device ? g_object_ref (self->device) : NULL;
  g_mutex_unlock (&self->state_lock);
  return device;
}

/**
 * ferry_job_get_strategy:
 * How data travels: "reflink", "copy-range" or "sendfile" (fast disks),
 * "window" or "chunk-sync" (slow devices); NULL before the copy starts.
 */
const char *
ferry_job_get_strategy (FerryJob *self)
{
  const char *strategy;

  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  g_mutex_lock (&self->state_lock);
  strategy = self->ctx ? ferry_copy_context_get_strategy_name (self->ctx) : self->strategy;
  g_mutex_unlock (&self->state_lock);
  return strategy;
}

FerryPhase
ferry_job_get_phase (FerryJob *self)
{
  FerryPhase phase;

  g_return_val_if_fail (FERRY_IS_JOB (self), FERRY_PHASE_QUEUED);
  g_mutex_lock (&self->state_lock);
  phase = self->phase;
  g_mutex_unlock (&self->state_lock);
  return phase;
}

static void
read_counters (FerryJob *self, FerryProgress *p)
{
  FerryCounters *c = &self->counters;
  gint64 bytes_total = atomic_load (&c->bytes_total);

  p->files_total = ferry_counters_get (&c->files_total);
  p->files_done = ferry_counters_get (&c->files_done);
  p->files_failed = ferry_counters_get (&c->files_failed);
  p->files_skipped = ferry_counters_get (&c->files_skipped);
  p->bytes_written = ferry_counters_get (&c->bytes_written);
  p->bytes_durable = ferry_counters_get (&c->bytes_durable);
  p->bytes_total = MAX (bytes_total, 0);
  p->planning_done = atomic_load (&c->planning_done);
  p->durable_live = atomic_load (&c->durable_live);

  /* The copy may find what the planner has not reached yet. */
  p->files_total = MAX (p->files_total, p->files_done);
  p->bytes_total = MAX (p->bytes_total, p->bytes_written);
}

/**
 * ferry_job_get_progress:
 * Fills @progress with a snapshot of the job; callable from any thread,
 * cheap enough for a display refreshed ten times a second.
 */
void
ferry_job_get_progress (FerryJob *self, FerryProgress *progress)
{
  gint64 now = g_get_monotonic_time ();
  guint64 done;

  g_return_if_fail (FERRY_IS_JOB (self));

  *progress = (FerryProgress){ 0 };
  read_counters (self, progress);
  done = progress->durable_live ? progress->bytes_durable : progress->bytes_written;

  g_mutex_lock (&self->state_lock);
  progress->phase = self->phase;
  progress->paused = self->paused;
  progress->current = g_strdup (self->current);
  if (self->started_at != 0)
    progress->elapsed
        = (double) ((self->ended_at ? self->ended_at : now) - self->started_at) / G_USEC_PER_SEC;
  if (self->phase == FERRY_PHASE_COPYING || self->phase == FERRY_PHASE_SYNCING)
    ferry_rate_meter_sample (&self->rate_meter, now, done);
  progress->rate = ferry_rate_meter_get_rate (&self->rate_meter);
  g_mutex_unlock (&self->state_lock);

  progress->eta = -1;
  if (progress->planning_done && progress->rate > 0 && progress->bytes_total >= done)
    progress->eta = (double) (progress->bytes_total - done) / progress->rate;
}

/**
 * ferry_job_dup_failures:
 * Returns: (transfer container): the files that failed so far (the
 *   first thousand), as FerryFailure
 */
GPtrArray *
ferry_job_dup_failures (FerryJob *self)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func ((GDestroyNotify) ferry_failure_free);

  g_return_val_if_fail (FERRY_IS_JOB (self), copy);
  g_mutex_lock (&self->state_lock);
  for (guint i = 0; i < self->failures->len; i++)
    g_ptr_array_add (copy, ferry_failure_copy (g_ptr_array_index (self->failures, i)));
  g_mutex_unlock (&self->state_lock);
  return copy;
}

guint64
ferry_job_get_n_failures (FerryJob *self)
{
  guint64 n;

  g_return_val_if_fail (FERRY_IS_JOB (self), 0);
  g_mutex_lock (&self->state_lock);
  n = self->n_failures;
  g_mutex_unlock (&self->state_lock);
  return n;
}

/* ------------------------------------------------------------------ */
/* GObject                                                             */

FerryJob *
ferry_job_new (GFile *const *sources, guint n_sources, GFile *destination)
{
  FerryJob *self;

  g_return_val_if_fail (G_IS_FILE (destination), NULL);

  self = g_object_new (FERRY_TYPE_JOB, "destination", destination, NULL);
  for (guint i = 0; i < n_sources; i++)
    g_ptr_array_add (self->sources, g_object_ref (sources[i]));
  return self;
}

GPtrArray *
ferry_job_get_sources (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  return self->sources;
}

GFile *
ferry_job_get_destination (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  return self->destination;
}

#define DEFINE_OPTION(type, name, field, prop)                                                     \
  type ferry_job_get_##name (FerryJob *self)                                                       \
  {                                                                                                \
    g_return_val_if_fail (FERRY_IS_JOB (self), (type) 0);                                          \
    return self->field;                                                                            \
  }                                                                                                \
  void ferry_job_set_##name (FerryJob *self, type value)                                           \
  {                                                                                                \
    g_return_if_fail (FERRY_IS_JOB (self));                                                        \
    g_return_if_fail (!self->started);                                                             \
    if (self->field == value)                                                                      \
      return;                                                                                      \
    self->field = value;                                                                           \
    g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);                                  \
  }

DEFINE_OPTION (FerryConflictPolicy, conflict_policy, conflict_policy, PROP_CONFLICT_POLICY)
DEFINE_OPTION (FerryErrorPolicy, error_policy, error_policy, PROP_ERROR_POLICY)
DEFINE_OPTION (gboolean, preserve, preserve, PROP_PRESERVE)
DEFINE_OPTION (gboolean, verify, verify, PROP_VERIFY)
DEFINE_OPTION (gboolean, dry_run, dry_run, PROP_DRY_RUN)
DEFINE_OPTION (guint, n_workers, n_workers, PROP_N_WORKERS)
DEFINE_OPTION (FerryDeviceMode, device_mode, device_mode, PROP_DEVICE_MODE)
DEFINE_OPTION (FerrySlowMethod, slow_method, slow_method, PROP_SLOW_METHOD)

static void
ferry_job_dispose (GObject *object)
{
  FerryJob *self = FERRY_JOB (object);

  g_clear_pointer (&self->main_context, g_main_context_unref);
  G_OBJECT_CLASS (ferry_job_parent_class)->dispose (object);
}

static void
ferry_job_finalize (GObject *object)
{
  FerryJob *self = FERRY_JOB (object);

  g_clear_pointer (&self->sources, g_ptr_array_unref);
  g_clear_object (&self->destination);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->failures, g_ptr_array_unref);
  g_clear_pointer (&self->current, g_free);
  g_clear_object (&self->device);
  g_mutex_clear (&self->state_lock);
  g_cond_clear (&self->pause_cond);

  G_OBJECT_CLASS (ferry_job_parent_class)->finalize (object);
}

static void
ferry_job_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FerryJob *self = FERRY_JOB (object);

  switch (prop_id)
    {
      case PROP_DESTINATION:
        g_value_set_object (value, self->destination);
        break;
      case PROP_CONFLICT_POLICY:
        g_value_set_enum (value, self->conflict_policy);
        break;
      case PROP_ERROR_POLICY:
        g_value_set_enum (value, self->error_policy);
        break;
      case PROP_PRESERVE:
        g_value_set_boolean (value, self->preserve);
        break;
      case PROP_VERIFY:
        g_value_set_boolean (value, self->verify);
        break;
      case PROP_DRY_RUN:
        g_value_set_boolean (value, self->dry_run);
        break;
      case PROP_N_WORKERS:
        g_value_set_uint (value, self->n_workers);
        break;
      case PROP_DEVICE_MODE:
        g_value_set_enum (value, self->device_mode);
        break;
      case PROP_SLOW_METHOD:
        g_value_set_enum (value, self->slow_method);
        break;
      case PROP_DEVICE:
        g_value_take_object (value, ferry_job_dup_device (self));
        break;
      case PROP_STRATEGY:
        g_value_set_string (value, ferry_job_get_strategy (self));
        break;
      case PROP_PHASE:
        g_value_set_enum (value, ferry_job_get_phase (self));
        break;
      case PROP_PAUSED:
        g_value_set_boolean (value, ferry_job_get_paused (self));
        break;
      case PROP_PROGRESS:
        {
          g_auto (FerryProgress) progress = { 0 };
          ferry_job_get_progress (self, &progress);
          g_value_set_double (value, ferry_progress_get_fraction (&progress));
          break;
        }
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_job_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FerryJob *self = FERRY_JOB (object);

  switch (prop_id)
    {
      case PROP_DESTINATION:
        self->destination = g_value_dup_object (value);
        break;
      case PROP_CONFLICT_POLICY:
        ferry_job_set_conflict_policy (self, g_value_get_enum (value));
        break;
      case PROP_ERROR_POLICY:
        ferry_job_set_error_policy (self, g_value_get_enum (value));
        break;
      case PROP_PRESERVE:
        ferry_job_set_preserve (self, g_value_get_boolean (value));
        break;
      case PROP_VERIFY:
        ferry_job_set_verify (self, g_value_get_boolean (value));
        break;
      case PROP_DRY_RUN:
        ferry_job_set_dry_run (self, g_value_get_boolean (value));
        break;
      case PROP_N_WORKERS:
        ferry_job_set_n_workers (self, g_value_get_uint (value));
        break;
      case PROP_DEVICE_MODE:
        ferry_job_set_device_mode (self, g_value_get_enum (value));
        break;
      case PROP_SLOW_METHOD:
        ferry_job_set_slow_method (self, g_value_get_enum (value));
        break;
      case PROP_PAUSED:
        set_paused (self, g_value_get_boolean (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_job_class_init (FerryJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = ferry_job_dispose;
  object_class->finalize = ferry_job_finalize;
  object_class->get_property = ferry_job_get_property;
  object_class->set_property = ferry_job_set_property;

  properties[PROP_DESTINATION]
      = g_param_spec_object ("destination", NULL, NULL, G_TYPE_FILE,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CONFLICT_POLICY] = g_param_spec_enum (
      "conflict-policy", NULL, NULL, FERRY_TYPE_CONFLICT_POLICY, FERRY_CONFLICT_POLICY_FAIL, rw);
  properties[PROP_ERROR_POLICY] = g_param_spec_enum (
      "error-policy", NULL, NULL, FERRY_TYPE_ERROR_POLICY, FERRY_ERROR_POLICY_SKIP, rw);
  properties[PROP_PRESERVE] = g_param_spec_boolean ("preserve", NULL, NULL, TRUE, rw);
  properties[PROP_VERIFY] = g_param_spec_boolean ("verify", NULL, NULL, FALSE, rw);
  properties[PROP_DRY_RUN] = g_param_spec_boolean ("dry-run", NULL, NULL, FALSE, rw);
  properties[PROP_N_WORKERS] = g_param_spec_uint ("n-workers", NULL, NULL, 1, 256, 1, rw);
  properties[PROP_DEVICE_MODE] = g_param_spec_enum (
      "device-mode", NULL, NULL, FERRY_TYPE_DEVICE_MODE, FERRY_DEVICE_MODE_AUTO, rw);
  properties[PROP_SLOW_METHOD] = g_param_spec_enum (
      "slow-method", NULL, NULL, FERRY_TYPE_SLOW_METHOD, FERRY_SLOW_METHOD_WINDOW, rw);
  properties[PROP_DEVICE] = g_param_spec_object ("device", NULL, NULL, FERRY_TYPE_DEVICE, ro);
  properties[PROP_STRATEGY] = g_param_spec_string ("strategy", NULL, NULL, NULL, ro);
  properties[PROP_PHASE]
      = g_param_spec_enum ("phase", NULL, NULL, FERRY_TYPE_PHASE, FERRY_PHASE_QUEUED, ro);
  properties[PROP_PAUSED] = g_param_spec_boolean ("paused", NULL, NULL, FALSE, rw);
  /* The fraction done; see ferry-job.h for when it is notified. */
  properties[PROP_PROGRESS] = g_param_spec_double ("progress", NULL, NULL, 0.0, 1.0, 0.0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * FerryJob::conflict:
   * @request: what exists, and what would replace it
   *
   * Emitted under FERRY_CONFLICT_POLICY_ASK when a file or folder already
   * exists. A handler that returns TRUE keeps a reference to @request
   * and answers it, now or later; the worker waits for that answer (never
   * the main loop). Without a handler, or when the request is dropped
   * unanswered, the file fails as existing.
   */
  signals[SIGNAL_CONFLICT] = g_signal_new ("conflict", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, g_signal_accumulator_true_handled, NULL, NULL,
                                           G_TYPE_BOOLEAN, 1, FERRY_TYPE_CONFLICT_REQUEST);

  /**
   * FerryJob::file-failed:
   * @failure: the file, where it was going, and the error
   */
  signals[SIGNAL_FILE_FAILED]
      = g_signal_new ("file-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 1, FERRY_TYPE_FAILURE | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
ferry_job_init (FerryJob *self)
{
  self->sources = g_ptr_array_new_with_free_func (g_object_unref);
  self->conflict_policy = FERRY_CONFLICT_POLICY_FAIL;
  self->error_policy = FERRY_ERROR_POLICY_SKIP;
  self->preserve = TRUE;
  self->n_workers = 1;
  self->cancellable = g_cancellable_new ();
  self->failures = g_ptr_array_new_with_free_func ((GDestroyNotify) ferry_failure_free);
  g_mutex_init (&self->state_lock);
  g_cond_init (&self->pause_cond);
}
