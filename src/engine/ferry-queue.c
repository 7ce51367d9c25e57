/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-queue.h"

/**
 * FerryQueue:
 * The transfers of a session, as a GListModel of FerryJob, newest first
 * (the order a window lists them in: what was just dropped is on top).
 * Jobs start in the order they were asked for. One job per destination
 * device runs at a time (two jobs to one pendrive only fight over it, and
 * the first would finish later); jobs to different devices run side by
 * side. Which device a destination is on is looked up without blocking
 * the caller's main loop.
 */
struct _FerryQueue
{
  GObject parent_instance;

  GListStore *jobs;     /* every job added and not removed, newest first */
  GHashTable *devices;  /* FerryJob -> dev_t of its destination, once known */
  GHashTable *running;  /* FerryJob set */
  GHashTable *finished; /* FerryJob → the GError it ended with, or NULL */
  GCancellable *cancellable;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FerryQueue,
                               ferry_queue,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum
{
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

enum
{
  SIGNAL_JOB_FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void start_what_can_run (FerryQueue *self);

/* ------------------------------------------------------------------ */
/* GListModel: the store's items, its changes forwarded                */

static GType
get_item_type (GListModel *model)
{
  return FERRY_TYPE_JOB;
}

static guint
get_n_items (GListModel *model)
{
  return g_list_model_get_n_items (G_LIST_MODEL (FERRY_QUEUE (model)->jobs));
}

static gpointer
get_item (GListModel *model, guint position)
{
  return g_list_model_get_item (G_LIST_MODEL (FERRY_QUEUE (model)->jobs), position);
}

static void
on_jobs_changed (GListModel *jobs, guint position, guint removed, guint added, FerryQueue *self)
{
  g_list_model_items_changed (G_LIST_MODEL (self), position, removed, added);
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* ------------------------------------------------------------------ */
/* Running                                                             */

static gboolean
device_of (FerryQueue *self, FerryJob *job, guint64 *dev)
{
  gpointer value;

  if (!g_hash_table_lookup_extended (self->devices, job, NULL, &value))
    return FALSE;
  *dev = *(guint64 *) value;
  return TRUE;
}

static gboolean
device_taken (FerryQueue *self, guint64 dev)
{
  GHashTableIter iter;
  gpointer job;

  g_hash_table_iter_init (&iter, self->running);
  while (g_hash_table_iter_next (&iter, &job, NULL))
    {
      guint64 other;
      if (device_of (self, job, &other) && other == dev)
        return TRUE;
    }
  return FALSE;
}

static void
free_outcome (gpointer error)
{
  if (error != NULL)
    g_error_free (error);
}

static void
on_job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (FerryQueue) self = user_data;
  FerryJob *job = FERRY_JOB (source);
  g_autoptr (GError) error = NULL;

  ferry_job_run_finish (job, result, &error);
  g_hash_table_remove (self->running, job);
  /* A job removed while it ran is no longer counted. */
  if (g_list_store_find (self->jobs, job, NULL))
    g_hash_table_insert (self->finished, g_object_ref (job), error ? g_error_copy (error) : NULL);
  g_signal_emit (self, signals[SIGNAL_JOB_FINISHED], 0, job, error);
  start_what_can_run (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* In order of arrival (the store lists the newest first), every waiting
 * job whose device is free starts. */
static void
start_what_can_run (FerryQueue *self)
{
  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (self->jobs)); i-- > 0;)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs), i);
      guint64 dev;

      if (g_hash_table_contains (self->running, job) || g_hash_table_contains (self->finished, job)
          || !device_of (self, job, &dev) || device_taken (self, dev))
        continue;
      g_hash_table_add (self->running, g_object_ref (job));
      ferry_job_run_async (job, NULL, on_job_done, g_object_ref (self));
    }
}

typedef struct
{
  FerryQueue *queue;
  FerryJob *job;
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_object_unref (lookup->queue);
  g_object_unref (lookup->job);
  g_free (lookup);
}

/* Records the device of @lookup's job from @info (NULL when it could not
 * be looked at: the job gets a device of its own, and will itself say
 * what is wrong with its destination). */
static void
record_device (Lookup *lookup, GFileInfo *info)
{
  FerryQueue *self = lookup->queue;
  guint64 *dev = g_new0 (guint64, 1);

  *dev = info ? g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_DEVICE)
              : G_MAXUINT64 - g_direct_hash (lookup->job);
  /* The job may have been removed while its device was looked up. */
  if (!g_cancellable_is_cancelled (self->cancellable)
      && g_list_store_find (self->jobs, lookup->job, NULL))
    {
      g_hash_table_insert (self->devices, lookup->job, dev);
      start_what_can_run (self);
    }
  else
    g_free (dev);
  lookup_free (lookup);
}

static void
on_parent_info (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GFileInfo) info = g_file_query_info_finish (G_FILE (source), result, NULL);

  record_device (user_data, info);
}

/* The destination may not exist yet (a copy under a new name): its
 * folder's device is the one. */
static void
on_destination_info (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Lookup *lookup = user_data;
  g_autoptr (GFileInfo) info = g_file_query_info_finish (G_FILE (source), result, NULL);
  g_autoptr (GFile) parent = NULL;

  if (info != NULL || (parent = g_file_get_parent (G_FILE (source))) == NULL)
    {
      record_device (lookup, info);
      return;
    }
  g_file_query_info_async (parent, G_FILE_ATTRIBUTE_UNIX_DEVICE, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_DEFAULT, lookup->queue->cancellable, on_parent_info, lookup);
}

static void
look_up_device (FerryQueue *self, FerryJob *job, GFile *file)
{
  Lookup *lookup = g_new0 (Lookup, 1);

  lookup->queue = g_object_ref (self);
  lookup->job = g_object_ref (job);
  g_file_query_info_async (file, G_FILE_ATTRIBUTE_UNIX_DEVICE, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_DEFAULT, self->cancellable, on_destination_info, lookup);
}

FerryQueue *
ferry_queue_new (void)
{
  return g_object_new (FERRY_TYPE_QUEUE, NULL);
}

/**
 * ferry_queue_add:
 * Queues @job, at the top of the model (position 0): it starts as soon as
 * no other job of the queue is writing to its destination's device.
 */
void
ferry_queue_add (FerryQueue *self, FerryJob *job)
{
  g_return_if_fail (FERRY_IS_QUEUE (self));
  g_return_if_fail (FERRY_IS_JOB (job));

  g_list_store_insert (self->jobs, 0, job);
  look_up_device (self, job, ferry_job_get_destination (job));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Forgets a job that has ended; one still running is cancelled first.
 * The model changes last, so that what its handlers ask of the queue
 * (busy, work on a drive) already leaves the job out. */
void
ferry_queue_remove (FerryQueue *self, FerryJob *job)
{
  guint position;

  g_return_if_fail (FERRY_IS_QUEUE (self));
  if (!g_list_store_find (self->jobs, job, &position))
    return;
  if (!g_hash_table_contains (self->finished, job))
    ferry_job_cancel (job);
  g_hash_table_remove (self->devices, job);
  g_hash_table_remove (self->finished, job);
  g_list_store_remove (self->jobs, position);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/**
 * ferry_queue_get_outcome:
 * @error: (out) (transfer none): what @job ended with, NULL when it ended
 *   well
 *
 * Whether @job has ended, and how: the job-finished signal says so once,
 * and a window made later (the last one closed while copies ran) shows
 * the jobs that ended before it with their outcome, not as running.
 */
gboolean
ferry_queue_get_outcome (FerryQueue *self, FerryJob *job, const GError **error)
{
  gpointer outcome;

  g_return_val_if_fail (FERRY_IS_QUEUE (self), FALSE);
  if (!g_hash_table_lookup_extended (self->finished, job, NULL, &outcome))
    return FALSE;
  *error = outcome;
  return TRUE;
}

/* Whether any job is waiting or running. */
gboolean
ferry_queue_get_busy (FerryQueue *self)
{
  g_return_val_if_fail (FERRY_IS_QUEUE (self), FALSE);
  return g_list_model_get_n_items (G_LIST_MODEL (self->jobs)) > g_hash_table_size (self->finished);
}

/**
 * ferry_queue_has_work_on:
 * Whether a job waiting or running writes below @file (a drive's root,
 * say): while one does, the drive must not be ejected.
 */
gboolean
ferry_queue_has_work_on (FerryQueue *self, GFile *file)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs));

  g_return_val_if_fail (FERRY_IS_QUEUE (self), FALSE);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs), i);
      GFile *dest = ferry_job_get_destination (job);

      if (!g_hash_table_contains (self->finished, job)
          && (g_file_equal (dest, file) || g_file_has_prefix (dest, file)))
        return TRUE;
    }
  return FALSE;
}

void
ferry_queue_cancel_all (FerryQueue *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->jobs));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (FerryJob) job = g_list_model_get_item (G_LIST_MODEL (self->jobs), i);
      ferry_job_cancel (job);
    }
}

static void
ferry_queue_dispose (GObject *object)
{
  FerryQueue *self = FERRY_QUEUE (object);

  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (ferry_queue_parent_class)->dispose (object);
}

static void
ferry_queue_finalize (GObject *object)
{
  FerryQueue *self = FERRY_QUEUE (object);

  g_clear_object (&self->jobs);
  g_clear_pointer (&self->devices, g_hash_table_unref);
  g_clear_pointer (&self->running, g_hash_table_unref);
  g_clear_pointer (&self->finished, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (ferry_queue_parent_class)->finalize (object);
}

static void
ferry_queue_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FerryQueue *self = FERRY_QUEUE (object);

  switch (prop_id)
    {
      case PROP_BUSY:
        g_value_set_boolean (value, ferry_queue_get_busy (self));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ferry_queue_class_init (FerryQueueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ferry_queue_dispose;
  object_class->finalize = ferry_queue_finalize;
  object_class->get_property = ferry_queue_get_property;

  properties[PROP_BUSY]
      = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * FerryQueue::job-finished:
   * @job: the job that ended
   * @error: (nullable): why it did not copy everything, or NULL
   */
  signals[SIGNAL_JOB_FINISHED]
      = g_signal_new ("job-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 2, FERRY_TYPE_JOB, G_TYPE_ERROR);
}

static void
ferry_queue_init (FerryQueue *self)
{
  self->jobs = g_list_store_new (FERRY_TYPE_JOB);
  g_signal_connect_object (self->jobs, "items-changed", G_CALLBACK (on_jobs_changed), self, 0);
  self->devices = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  self->running = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  self->finished
      = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, free_outcome);
  self->cancellable = g_cancellable_new ();
}
