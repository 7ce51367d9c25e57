/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-counters.h"

/* How often the "current file" shown to a person may change. */
#define CURRENT_INTERVAL_USEC (G_USEC_PER_SEC / 20)

void
ferry_counters_init (FerryCounters *self)
{
  *self = (FerryCounters){ 0 };
  g_mutex_init (&self->current_lock);
}

void
ferry_counters_clear (FerryCounters *self)
{
  g_clear_pointer (&self->current, g_free);
  g_mutex_clear (&self->current_lock);
}

/* Set before the counters are shared with any worker. */
void
ferry_counters_set_changed_func (FerryCounters *self,
                                 FerryCountersChangedFunc func,
                                 gpointer user_data)
{
  self->changed = func;
  self->changed_data = user_data;
}

/* One atomic exchange a call, and a hook call only on the first change
 * since the listener last took one: cheap enough for every chunk. */
void
ferry_counters_touch (FerryCounters *self)
{
  if (self->changed != NULL && !atomic_exchange (&self->change_pending, TRUE))
    self->changed (self->changed_data);
}

/* The listener is about to read the counters: later changes call the
 * hook again. */
void
ferry_counters_take_change (FerryCounters *self)
{
  atomic_store (&self->change_pending, FALSE);
}

void
ferry_counters_add (FerryCounters *self, atomic_uint_fast64_t *counter, guint64 n)
{
  atomic_fetch_add_explicit (counter, n, memory_order_relaxed);
  ferry_counters_touch (self);
}

/* A file abandoned takes back what it had written. */
void
ferry_counters_sub (FerryCounters *self, atomic_uint_fast64_t *counter, guint64 n)
{
  atomic_fetch_sub_explicit (counter, n, memory_order_relaxed);
  ferry_counters_touch (self);
}

/* Negative for what leaves the plan: skipped files. */
void
ferry_counters_add_total (FerryCounters *self, gint64 bytes)
{
  atomic_fetch_add (&self->bytes_total, bytes);
  ferry_counters_touch (self);
}

/* What the transfer is, for its journal: the files that failed too
 * (they stay in the total), which a run continuing it will copy again. */
guint64
ferry_counters_get_transfer_total (FerryCounters *self)
{
  return (guint64) MAX (atomic_load (&self->bytes_total), 0);
}

/* Durable can never be ahead of written (read once: MIN() would read it
 * twice, and a writer may add between the two). */
void
ferry_counters_set_durable (FerryCounters *self, guint64 bytes)
{
  guint64 written = ferry_counters_get (&self->bytes_written);

  atomic_store (&self->bytes_durable, MIN (bytes, written));
  ferry_counters_touch (self);
}

/* Bytes an earlier run of the transfer put on the device count as
 * written and durable at once. */
void
ferry_counters_add_carried (FerryCounters *self, guint64 bytes)
{
  atomic_fetch_add (&self->bytes_carried, bytes);
  atomic_fetch_add (&self->bytes_written, bytes);
  atomic_fetch_add (&self->bytes_durable, bytes);
  atomic_fetch_add (&self->bytes_placed, bytes);
  ferry_counters_touch (self);
}

/* Whether the display path may change now: at most twenty times a
 * second, or at once when @force (a large file's first chunk: a name
 * skipped now would never be shown, leaving the file before it on
 * display for as long as the large one takes). Claims the slot. */
gboolean
ferry_counters_current_is_due (FerryCounters *self, gboolean force)
{
  gint64 now = g_get_monotonic_time ();
  gint64 last = atomic_load_explicit (&self->current_updated_at, memory_order_relaxed);

  if (force)
    {
      atomic_store (&self->current_updated_at, now);
      return TRUE;
    }
  return now - last >= CURRENT_INTERVAL_USEC
         && atomic_compare_exchange_strong (&self->current_updated_at, &last, now);
}

void
ferry_counters_take_current (FerryCounters *self, char *display_path)
{
  g_mutex_lock (&self->current_lock);
  g_free (self->current);
  self->current = display_path;
  g_mutex_unlock (&self->current_lock);
  ferry_counters_touch (self);
}

char *
ferry_counters_dup_current (FerryCounters *self)
{
  char *current;

  g_mutex_lock (&self->current_lock);
  current = g_strdup (self->current);
  g_mutex_unlock (&self->current_lock);
  return current;
}
