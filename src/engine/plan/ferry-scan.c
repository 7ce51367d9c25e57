/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-scan.h"

/**
 * FerryScan:
 * Walks the sources on its own thread while the copy already runs, and
 * streams what it finds into the job's totals; the progress is never
 * held up waiting for a full scan.
 */
struct _FerryScan
{
  FerryCounters *counters;
  GCancellable *cancellable;
  GArray *parent_fds; /* one for each source, borrowed from the plan */
  GPtrArray *names;
  GThread *thread;
  FerryTreeTotals totals;
};

FerryScan *
ferry_scan_new (FerryCounters *counters, GCancellable *cancellable)
{
  FerryScan *self = g_new0 (FerryScan, 1);

  self->counters = counters;
  self->cancellable = g_object_ref (cancellable);
  self->parent_fds = g_array_new (FALSE, FALSE, sizeof (int));
  self->names = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
ferry_scan_free (FerryScan *self)
{
  if (self->thread != NULL)
    ferry_scan_wait (self, NULL);
  g_array_unref (self->parent_fds);
  g_ptr_array_unref (self->names);
  g_object_unref (self->cancellable);
  g_free (self);
}

/* A source @name in the folder @parent_fd, which must stay open until
 * the scan is freed (the plan that holds it outlives the scan). Borrowed,
 * not duplicated: a copy of each doubled what sources from many folders
 * hold, and with 1,024 descriptors 600 of them from 600 folders failed
 * ("Bad file descriptor": a duplicate that could not be made was used). */
void
ferry_scan_add (FerryScan *self, int parent_fd, const char *name)
{
  g_array_append_val (self->parent_fds, parent_fd);
  g_ptr_array_add (self->names, g_strdup (name));
}

static void
stream_totals (const FerryTreeTotals *more, gpointer user_data)
{
  FerryCounters *counters = user_data;

  ferry_counters_add (counters, &counters->files_total, more->files);
  ferry_counters_add_total (counters, (gint64) more->bytes);
}

static gpointer
scan_main (gpointer data)
{
  FerryScan *self = data;
  FerryTreeSize *walk = ferry_tree_size_new (stream_totals, self->counters);

  for (guint i = 0; i < self->names->len; i++)
    ferry_tree_size_add (walk, g_array_index (self->parent_fds, int, i),
                         g_ptr_array_index (self->names, i), self->cancellable);
  ferry_tree_size_free (walk, &self->totals);
  atomic_store (&self->counters->planning_done, TRUE);
  ferry_counters_touch (self->counters);
  return NULL;
}

void
ferry_scan_start (FerryScan *self)
{
  g_return_if_fail (self->thread == NULL);
  self->thread = g_thread_new ("ferry-scan", scan_main, self);
}

void
ferry_scan_wait (FerryScan *self, FerryTreeTotals *totals)
{
  if (self->thread != NULL)
    g_thread_join (g_steal_pointer (&self->thread));
  if (totals != NULL)
    *totals = self->totals;
}
