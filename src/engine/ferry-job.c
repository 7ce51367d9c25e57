/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>

#include "ferry-enum-types.h"
#include "ferry-error.h"
#include "ferry-fs.h"
#include "ferry-job-private.h"
#include "ferry-rate-meter.h"
#include "ferry-run.h"

/* A job keeps this many failures for ferry_job_dup_failures(); every
 * failure is still counted and signalled. */
#define MAX_KEPT_FAILURES 1000

struct _FerryJob
{
  GObject parent_instance;

  GPtrArray *sources;
  GFile *destination;
  GStrv source_paths;     /* what the plan resolves: as typed, or the files' paths */
  char *destination_path; /* the same for the destination */
  FerryRunOptions options; /* fixed once the job runs */
  FerryFsId retry_filesystem; /* a retry's: where its earlier job was planned */

  GMainContext *main_context; /* where signals are emitted */
  gboolean started;
  FerryCounters counters;
  FerryControl *control; /* pause, cancel */
  FerryRun *run;         /* from the start */

  GMutex state_lock; /* guards everything below */
  FerryPhase phase;
  gint64 started_at;
  gint64 ended_at;
  FerryDevice *device;
  FerryRateMeter rate_meter;
  guint questions; /* conflicts asked and not answered yet */
  GPtrArray *failures;
  guint64 n_failures;
  FerryUnsupportedReport *unsupported; /* what the destination could not store as it was */

  atomic_int_fast64_t progress_notified_at;
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
  PROP_UNSUPPORTED_POLICY,
  PROP_UNSUPPORTED_REPORT,
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
  SIGNAL_UNSUPPORTED,
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

/* Always through an idle source, never g_main_context_invoke(): when no
 * thread owns the job's context (a test, or a front end between iterations),
 * invoke runs the handler at once on the calling worker thread, and the
 * window would then update its widgets from a worker. */
static void
dispatch (FerryJob *self, GSourceFunc func, gpointer item, GDestroyNotify free_item)
{
  g_autoptr (GSource) source = g_idle_source_new ();
  Dispatch *d = g_new0 (Dispatch, 1);

  d->job = g_object_ref (self);
  d->item = item;
  d->free_item = free_item;
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[ferry] job signal");
  g_source_set_callback (source, func, d, dispatch_free);
  g_source_attach (source, self->main_context);
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

/* Nobody to ask: the job stops before writing anything. */
static gboolean
emit_unsupported (gpointer data)
{
  Dispatch *d = data;
  gboolean handled = FALSE;

  g_signal_emit (d->job, signals[SIGNAL_UNSUPPORTED], 0, d->item, &handled);
  if (!handled)
    ferry_unsupported_report_answer (d->item, FERRY_UNSUPPORTED_ACTION_NONE);
  return G_SOURCE_REMOVE;
}

/* ------------------------------------------------------------------ */
/* Progress notifications                                              */

/* At most ten a second: as often as a person can read a figure. */
#define PROGRESS_INTERVAL_USEC (G_USEC_PER_SEC / 10)

static gboolean
emit_progress (gpointer data)
{
  FerryJob *self = data;

  atomic_store (&self->progress_notified_at, g_get_monotonic_time ());
  /* Changes from now on queue the next notification. */
  ferry_counters_take_change (&self->counters);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  return G_SOURCE_REMOVE;
}

/* From any thread, on the first change to the counters since the last
 * notification (as nautilus-progress-info.c queues an idle): one source
 * on the job's main context, due no sooner than a tenth of a second after
 * the last notification. The source holds the job until it has run. */
static void
on_counters_changed (gpointer user_data)
{
  FerryJob *self = user_data;
  gint64 due = atomic_load (&self->progress_notified_at) + PROGRESS_INTERVAL_USEC;
  gint64 wait = due - g_get_monotonic_time ();
  GSource *source = wait > 0 ? g_timeout_source_new (wait / 1000 + 1) : g_idle_source_new ();

  g_source_set_static_name (source, "[ferry] job progress");
  g_source_set_callback (source, emit_progress, g_object_ref (self), g_object_unref);
  g_source_attach (source, self->main_context);
  g_source_unref (source);
}

/* How often a copy's progress is notified when nothing moves. */
#define STILL_INTERVAL_MS 500

/* While the job copies, its rate and time left change with time alone:
 * a drive that takes nothing changes no counter, and a window showing
 * only what was notified had frozen at "11.4 MB/s · 4 seconds left"
 * for as long as the drive stalled. The source holds the job until it
 * has ended. */
static gboolean
notify_still (gpointer data)
{
  FerryJob *self = data;
  FerryPhase phase = ferry_job_get_phase (self);

  if (phase >= FERRY_PHASE_DONE)
    return G_SOURCE_REMOVE;
  if (phase >= FERRY_PHASE_COPYING)
    ferry_counters_touch (&self->counters);
  return G_SOURCE_CONTINUE;
}

static void
start_notifying_still (FerryJob *self)
{
  g_autoptr (GSource) source = g_timeout_source_new (STILL_INTERVAL_MS);

  g_source_set_static_name (source, "[ferry] job progress while still");
  g_source_set_callback (source, notify_still, g_object_ref (self), g_object_unref);
  g_source_attach (source, self->main_context);
}

/* ------------------------------------------------------------------ */
/* What the run tells the job, from its threads                        */

static void
on_phase_changed (gpointer user_data, FerryPhase phase)
{
  FerryJob *self = user_data;

  g_mutex_lock (&self->state_lock);
  self->phase = phase;
  if (phase >= FERRY_PHASE_DONE)
    self->ended_at = g_get_monotonic_time ();
  g_mutex_unlock (&self->state_lock);
  if (phase >= FERRY_PHASE_DONE)
    ferry_counters_take_current (&self->counters, NULL);
  ferry_counters_touch (&self->counters);
  dispatch (self, emit_notify, properties[PROP_PHASE], NULL);
}

static void
on_device_found (gpointer user_data, FerryDevice *device)
{
  FerryJob *self = user_data;

  g_mutex_lock (&self->state_lock);
  g_clear_object (&self->device);
  self->device = device;
  g_mutex_unlock (&self->state_lock);
  dispatch (self, emit_notify, properties[PROP_DEVICE], NULL);
}

static void
on_method_changed (gpointer user_data)
{
  FerryJob *self = user_data;

  dispatch (self, emit_notify, properties[PROP_STRATEGY], NULL);
}

static void
on_file_failed (gpointer user_data, FerryFailure *failure)
{
  FerryJob *self = user_data;

  g_mutex_lock (&self->state_lock);
  self->n_failures++;
  if (self->failures->len < MAX_KEPT_FAILURES)
    g_ptr_array_add (self->failures, ferry_failure_copy (failure));
  g_mutex_unlock (&self->state_lock);
  dispatch (self, emit_failure, failure, (GDestroyNotify) ferry_failure_free);
}

/* Held and going on again, the job measures its rate anew. */
static void
forget_rate (FerryJob *self)
{
  g_mutex_lock (&self->state_lock);
  ferry_rate_meter_reset (&self->rate_meter);
  g_mutex_unlock (&self->state_lock);
}

/* Maybe on another thread: a request may be answered from any. */
static void
on_answered (FerryConflictRequest *request, GParamSpec *pspec, FerryJob *self)
{
  g_mutex_lock (&self->state_lock);
  self->questions -= MIN (self->questions, 1);
  g_mutex_unlock (&self->state_lock);
  forget_rate (self);
}

/* While a question waits for its answer, as while paused, the job is
 * held: no rate is measured (ferry_job_get_progress()). */
static void
on_conflict (gpointer user_data, FerryConflictRequest *request)
{
  FerryJob *self = user_data;

  g_mutex_lock (&self->state_lock);
  self->questions++;
  g_mutex_unlock (&self->state_lock);
  g_signal_connect_object (request, "notify::answered", G_CALLBACK (on_answered), self, 0);
  dispatch (self, emit_conflict, request, g_object_unref);
}

static void
on_unsupported (gpointer user_data, FerryUnsupportedReport *report, gboolean ask)
{
  FerryJob *self = user_data;

  g_mutex_lock (&self->state_lock);
  g_set_object (&self->unsupported, report);
  g_mutex_unlock (&self->state_lock);
  dispatch (self, emit_notify, properties[PROP_UNSUPPORTED_REPORT], NULL);
  if (ask)
    dispatch (self, emit_unsupported, report, g_object_unref);
  else
    g_object_unref (report);
}

/* ------------------------------------------------------------------ */
/* Running                                                             */

static FerryRun *
new_run (FerryJob *self)
{
  const FerryRunListener listener = {
    on_phase_changed, on_device_found, on_method_changed, on_file_failed,
    on_conflict,      on_unsupported,  self,
  };

  FerryRun *run = ferry_run_new (&self->options, &self->counters, self->control, &listener);

  if (ferry_fs_id_is_known (&self->retry_filesystem))
    ferry_run_bind (run, &self->retry_filesystem);
  return run;
}

static const char *
local_path (GFile *file, GError **error)
{
  const char *path = g_file_peek_path (file);

  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _ ("“%s” is not a local file; Ferry copies local files only"), uri);
    }
  return path;
}

/* A job made of files (ferry_job_new()) hands the plan their paths. */
static gboolean
take_paths_of_files (FerryJob *self, GError **error)
{
  g_autoptr (GStrvBuilder) builder = NULL;
  const char *path;

  if (self->source_paths != NULL)
    return TRUE;
  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->sources->len; i++)
    {
      if ((path = local_path (g_ptr_array_index (self->sources, i), error)) == NULL)
        return FALSE;
      g_strv_builder_add (builder, path);
    }
  if ((path = local_path (self->destination, error)) == NULL)
    return FALSE;
  self->destination_path = g_strdup (path);
  self->source_paths = g_strv_builder_end (builder);
  return TRUE;
}

static void
run_in_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  FerryJob *self = source_object;
  GError *error = NULL;

  if (take_paths_of_files (self, &error)
      && ferry_run_execute (self->run, (const char *const *) self->source_paths,
                            self->destination_path, &error))
    {
      on_phase_changed (self, FERRY_PHASE_DONE);
      g_task_return_boolean (task, TRUE);
      return;
    }
  on_phase_changed (self, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                              ? FERRY_PHASE_CANCELLED
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
  self->run = new_run (self);
  ferry_counters_set_changed_func (&self->counters, on_counters_changed, self);
  start_notifying_still (self);
  g_mutex_lock (&self->state_lock);
  self->started_at = g_get_monotonic_time ();
  g_mutex_unlock (&self->state_lock);

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

  ferry_control_cancel (self->control);
}

/* A pause shows at once, not at the next notification. */
static void
set_paused (FerryJob *self, gboolean paused)
{
  if (!ferry_control_set_paused (self->control, paused))
    return;
  forget_rate (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAUSED]);
  if (ferry_job_get_phase (self) < FERRY_PHASE_DONE)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
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
  g_return_val_if_fail (FERRY_IS_JOB (self), FALSE);
  return ferry_control_get_paused (self->control);
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
 * How data travels, as the nick of its FerryCopyMethod: "reflink",
 * "copy-range" or "sendfile" (fast disks), "window" or "chunk-sync" (slow
 * devices); NULL before the copy starts.
 */
const char *
ferry_job_get_strategy (FerryJob *self)
{
  FerryCopyMethod method = ferry_job_get_copy_method (self);
  g_autoptr (GEnumClass) methods = NULL;

  if (method == FERRY_COPY_METHOD_NONE)
    return NULL;
  methods = g_type_class_ref (FERRY_TYPE_COPY_METHOD);
  return g_enum_get_value (methods, method)->value_nick;
}

FerryCopyMethod
ferry_job_get_copy_method (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), FERRY_COPY_METHOD_NONE);
  return self->run != NULL ? ferry_run_get_method (self->run) : FERRY_COPY_METHOD_NONE;
}

/**
 * ferry_job_get_verify_reads_cache:
 * Whether the job (one that verifies) reads its copies back through a
 * FUSE driver of the drive (exfat-fuse, ntfs-3g) that reads the drive
 * through the kernel's cache of it, which Ferry could not drop: opening
 * the drive takes root or the "disk" group. The driver may then give
 * back from memory what it has just written. FALSE until the job copies.
 */
gboolean
ferry_job_get_verify_reads_cache (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), FALSE);
  return self->run != NULL && ferry_run_verifies_from_cache (self->run);
}

/**
 * ferry_job_dup_journal_error:
 * Why a job that stopped before its end (cancelled, its drive full or
 * gone) could not save the journal a later run would go on from: the
 * folder for journals could not be made or written, say. It then kept
 * nothing for such a run. NULL otherwise.
 */
GError *
ferry_job_dup_journal_error (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  return self->run != NULL ? ferry_run_dup_journal_error (self->run) : NULL;
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
  p->files_existing = ferry_counters_get (&c->files_existing);
  p->bytes_written = ferry_counters_get (&c->bytes_written);
  p->bytes_durable = ferry_counters_get (&c->bytes_durable);
  p->bytes_carried = ferry_counters_get (&c->bytes_carried);
  p->bytes_failed = ferry_counters_get (&c->bytes_failed);
  p->bytes_total = MAX (bytes_total, 0);
  p->planning_done = atomic_load (&c->planning_done);
  p->durable_live = atomic_load (&c->durable_live);

  /* The copy may find what the planner has not reached yet. */
  p->files_total = MAX (p->files_total, p->files_done + p->files_failed);
  /* A file dropped takes back what it wrote, some of which a sync had
   * vouched for: a line had said 5.7 MB written and 8.7 MB durable. */
  p->bytes_durable = MIN (p->bytes_durable, p->bytes_written);
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

  progress->paused = ferry_control_get_paused (self->control);
  progress->current = ferry_counters_dup_current (&self->counters);
  g_mutex_lock (&self->state_lock);
  progress->phase = self->phase;
  if (self->started_at != 0)
    progress->elapsed
        = (double) ((self->ended_at ? self->ended_at : now) - self->started_at) / G_USEC_PER_SEC;
  /* Held (paused, or a question waiting), the job measures no rate, and
   * measures it anew once it goes on: the time held in the window had
   * shown a 5 MB/s stick at 300 kB/s and "2 minutes left" for seconds.
   * What an earlier run put on the device arrives at once: no rate. */
  if (progress->paused || self->questions > 0)
    ferry_rate_meter_reset (&self->rate_meter);
  else if (self->phase == FERRY_PHASE_COPYING || self->phase == FERRY_PHASE_SYNCING)
    ferry_rate_meter_sample (&self->rate_meter, now, done - MIN (done, progress->bytes_carried));
  progress->rate = ferry_rate_meter_get_rate (&self->rate_meter);
  /* The written bytes of the final sync stand still by design. */
  progress->stalled = (progress->durable_live || progress->phase == FERRY_PHASE_COPYING)
                      && ferry_rate_meter_is_stalled (&self->rate_meter);
  g_mutex_unlock (&self->state_lock);

  progress->eta = -1;
  if (progress->stalled)
    progress->rate = 0;
  else if (progress->planning_done && progress->rate > 0
           && progress->bytes_total >= done + progress->bytes_failed)
    progress->eta = (double) (progress->bytes_total - progress->bytes_failed - done) / progress->rate;
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

/* A path as typed, made absolute without being collapsed: the kernel
 * resolves it when the job runs, from wherever the front end was. */
static char *
absolute_path (const char *path)
{
  g_autofree char *cwd = NULL;

  if (path[0] == '\0' || g_path_is_absolute (path))
    return g_strdup (path);
  cwd = g_get_current_dir ();
  return g_strconcat (cwd, G_DIR_SEPARATOR_S, path, NULL);
}

/**
 * ferry_job_new_for_paths:
 * @sources: (array length=n_sources): paths as a person typed them
 * @destination: the same
 *
 * A job for paths given as text (a command line): they are resolved as
 * the kernel resolves them, "lnk/../f" being the "f" beside the folder
 * lnk leads to, and named as cp names them: "dir/" and "lnk/" are the
 * folder (through the link), "dir/.", "." and ".." copy the folder's
 * entries into the destination folder itself. ferry_job_get_sources()
 * and ferry_job_get_destination() give what the paths resolve to.
 */
FerryJob *
ferry_job_new_for_paths (const char *const *sources, guint n_sources, const char *destination)
{
  g_autofree char *dest_path = NULL;
  g_autofree char *dest_real = NULL;
  g_autoptr (GFile) dest_file = NULL;
  g_autoptr (GStrvBuilder) builder = NULL;
  FerryJob *self;

  g_return_val_if_fail (destination != NULL, NULL);

  dest_path = absolute_path (destination);
  /* An existing destination is followed, a link to a folder included. */
  if ((dest_real = realpath (dest_path, NULL)) == NULL)
    dest_real = ferry_path_resolve (dest_path);
  dest_file = g_file_new_for_path (dest_real);
  self = g_object_new (FERRY_TYPE_JOB, "destination", dest_file, NULL);
  self->destination_path = g_steal_pointer (&dest_path);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < n_sources; i++)
    {
      g_autofree char *path = absolute_path (sources[i]);
      g_autofree char *real = ferry_path_resolve (path);

      g_ptr_array_add (self->sources, g_file_new_for_path (real));
      g_strv_builder_add (builder, path);
    }
  self->source_paths = g_strv_builder_end (builder);
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

const char *const *
_ferry_job_get_typed_sources (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  return (const char *const *) self->source_paths;
}

const char *
_ferry_job_get_typed_destination (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  return self->destination_path;
}

#define DEFINE_OPTION(type, name, field, prop)                                                     \
  type ferry_job_get_##name (FerryJob *self)                                                       \
  {                                                                                                \
    g_return_val_if_fail (FERRY_IS_JOB (self), (type) 0);                                          \
    return self->options.field;                                                                            \
  }                                                                                                \
  void ferry_job_set_##name (FerryJob *self, type value)                                           \
  {                                                                                                \
    g_return_if_fail (FERRY_IS_JOB (self));                                                        \
    g_return_if_fail (!self->started);                                                             \
    if (self->options.field == value)                                                                      \
      return;                                                                                      \
    self->options.field = value;                                                                           \
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
DEFINE_OPTION (FerryUnsupportedPolicy,
               unsupported_policy,
               unsupported_policy,
               PROP_UNSUPPORTED_POLICY)

/**
 * ferry_job_set_keeps_journal:
 * Before the job runs: it keeps a journal of what is on the device, for
 * a run cut short to be continued (see FerryUnfinished), and continues
 * the one an earlier run of the same sources and destination left, on
 * the same filesystem.
 */
void
ferry_job_set_keeps_journal (FerryJob *self, gboolean keeps_journal)
{
  g_return_if_fail (FERRY_IS_JOB (self));
  g_return_if_fail (!self->started);
  self->options.keeps_journal = keeps_journal;
}

gboolean
ferry_job_get_keeps_journal (FerryJob *self)
{
  g_return_val_if_fail (FERRY_IS_JOB (self), FALSE);
  return self->options.keeps_journal;
}

/**
 * ferry_job_set_kept_choices:
 * @choices: (element-type utf8 utf8) (nullable): option (a property of
 *   the job, "unsupported-policy" say) → word
 *
 * Before the job runs: what the person chose for the transfer, kept in
 * its journal (one it keeps) for a run that continues it to choose the
 * same (ferry_unfinished_continue_choices()).
 */
void
ferry_job_set_kept_choices (FerryJob *self, GHashTable *choices)
{
  g_return_if_fail (FERRY_IS_JOB (self));
  g_return_if_fail (!self->started);
  g_clear_pointer (&self->options.choices, g_hash_table_unref);
  self->options.choices = choices != NULL ? g_hash_table_ref (choices) : NULL;
}

/**
 * ferry_job_set_restart:
 * Before the job runs: an earlier run's journal is discarded, and
 * everything copied as if it were the first run.
 */
void
ferry_job_set_restart (FerryJob *self, gboolean restart)
{
  g_return_if_fail (FERRY_IS_JOB (self));
  g_return_if_fail (!self->started);
  self->options.restart = restart;
}

/**
 * ferry_job_set_retry_of:
 * @earlier: a job that ran, whose files this one copies again
 *
 * Before the job runs: it writes only to the filesystem @earlier was
 * planned on. When its destination leads elsewhere now (the drive was
 * pulled out, and its mount folder is left, empty, on the disk below),
 * it fails with FERRY_ERROR_NOT_PLUGGED_IN and writes nothing.
 */
void
ferry_job_set_retry_of (FerryJob *self, FerryJob *earlier)
{
  g_return_if_fail (FERRY_IS_JOB (self));
  g_return_if_fail (FERRY_IS_JOB (earlier));
  g_return_if_fail (!self->started);

  ferry_fs_id_clear (&self->retry_filesystem);
  if (earlier->run != NULL)
    ferry_run_copy_filesystem (earlier->run, &self->retry_filesystem);
}

/**
 * ferry_job_dup_unsupported_report:
 * Returns: (transfer full) (nullable): the entries the destination could
 *   not store as they were, and what the job did with them; NULL when
 *   there were none (or the job has not looked yet)
 */
FerryUnsupportedReport *
ferry_job_dup_unsupported_report (FerryJob *self)
{
  FerryUnsupportedReport *report;

  g_return_val_if_fail (FERRY_IS_JOB (self), NULL);
  g_mutex_lock (&self->state_lock);
  report = self->unsupported != NULL ? g_object_ref (self->unsupported) : NULL;
  g_mutex_unlock (&self->state_lock);
  return report;
}

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
  ferry_fs_id_clear (&self->retry_filesystem);
  g_clear_pointer (&self->source_paths, g_strfreev);
  g_clear_pointer (&self->destination_path, g_free);
  g_clear_pointer (&self->run, ferry_run_free);
  g_clear_pointer (&self->options.choices, g_hash_table_unref);
  g_clear_pointer (&self->control, ferry_control_free);
  ferry_counters_clear (&self->counters);
  g_clear_pointer (&self->failures, g_ptr_array_unref);
  g_clear_object (&self->device);
  g_clear_object (&self->unsupported);
  g_mutex_clear (&self->state_lock);

  G_OBJECT_CLASS (ferry_job_parent_class)->finalize (object);
}

/* The options that are enums, by property. */
static int
get_enum_option (FerryJob *self, guint prop_id)
{
  switch (prop_id)
    {
      case PROP_CONFLICT_POLICY:
        return self->options.conflict_policy;
      case PROP_ERROR_POLICY:
        return self->options.error_policy;
      case PROP_DEVICE_MODE:
        return self->options.device_mode;
      case PROP_SLOW_METHOD:
        return self->options.slow_method;
      default:
        return self->options.unsupported_policy;
    }
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
      case PROP_ERROR_POLICY:
      case PROP_DEVICE_MODE:
      case PROP_SLOW_METHOD:
      case PROP_UNSUPPORTED_POLICY:
        g_value_set_enum (value, get_enum_option (self, prop_id));
        break;
      case PROP_PRESERVE:
        g_value_set_boolean (value, self->options.preserve);
        break;
      case PROP_VERIFY:
        g_value_set_boolean (value, self->options.verify);
        break;
      case PROP_DRY_RUN:
        g_value_set_boolean (value, self->options.dry_run);
        break;
      case PROP_N_WORKERS:
        g_value_set_uint (value, self->options.n_workers);
        break;
      case PROP_UNSUPPORTED_REPORT:
        g_value_take_object (value, ferry_job_dup_unsupported_report (self));
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
      case PROP_UNSUPPORTED_POLICY:
        ferry_job_set_unsupported_policy (self, g_value_get_enum (value));
        break;
      case PROP_PAUSED:
        set_paused (self, g_value_get_boolean (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
install_signals (FerryJobClass *klass)
{
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
   * FerryJob::unsupported:
   * @report: every entry the destination's filesystem cannot store as
   *   it is, found before anything was written
   *
   * Emitted under FERRY_UNSUPPORTED_POLICY_ASK. A handler that returns
   * TRUE answers @report, now or later; the job waits for that answer
   * on its own thread. Without a handler the job stops before writing.
   */
  signals[SIGNAL_UNSUPPORTED]
      = g_signal_new ("unsupported", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                      g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 1,
                      FERRY_TYPE_UNSUPPORTED_REPORT);

  /**
   * FerryJob::file-failed:
   * @failure: the file, where it was going, and the error
   */
  signals[SIGNAL_FILE_FAILED]
      = g_signal_new ("file-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 1, FERRY_TYPE_FAILURE | G_SIGNAL_TYPE_STATIC_SCOPE);
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
  properties[PROP_UNSUPPORTED_POLICY]
      = g_param_spec_enum ("unsupported-policy", NULL, NULL, FERRY_TYPE_UNSUPPORTED_POLICY,
                           FERRY_UNSUPPORTED_POLICY_STOP, rw);
  properties[PROP_UNSUPPORTED_REPORT] = g_param_spec_object (
      "unsupported-report", NULL, NULL, FERRY_TYPE_UNSUPPORTED_REPORT, ro);
  properties[PROP_DEVICE] = g_param_spec_object ("device", NULL, NULL, FERRY_TYPE_DEVICE, ro);
  properties[PROP_STRATEGY] = g_param_spec_string ("strategy", NULL, NULL, NULL, ro);
  properties[PROP_PHASE]
      = g_param_spec_enum ("phase", NULL, NULL, FERRY_TYPE_PHASE, FERRY_PHASE_QUEUED, ro);
  properties[PROP_PAUSED] = g_param_spec_boolean ("paused", NULL, NULL, FALSE, rw);
  /* The fraction done; see ferry-job.h for when it is notified. */
  properties[PROP_PROGRESS] = g_param_spec_double ("progress", NULL, NULL, 0.0, 1.0, 0.0, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
  install_signals (klass);
}

static void
ferry_job_init (FerryJob *self)
{
  self->sources = g_ptr_array_new_with_free_func (g_object_unref);
  self->options.conflict_policy = FERRY_CONFLICT_POLICY_FAIL;
  self->options.error_policy = FERRY_ERROR_POLICY_SKIP;
  self->options.preserve = TRUE;
  self->options.n_workers = 1;
  self->control = ferry_control_new ();
  ferry_counters_init (&self->counters);
  self->failures = g_ptr_array_new_with_free_func ((GDestroyNotify) ferry_failure_free);
  g_mutex_init (&self->state_lock);
}
