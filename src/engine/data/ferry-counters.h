/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <stdatomic.h>

G_BEGIN_DECLS

typedef void (*FerryCountersChangedFunc) (gpointer user_data);

/**
 * FerryCounters:
 * The numbers behind a job's progress, updated by any worker without a
 * lock and read together into a FerryProgress snapshot, plus the file a
 * person sees in flight. Whoever shows them may ask to hear of a change:
 * the hook is called once after the counters change, and again only
 * after ferry_counters_take_change() (so a display refreshed at its own
 * pace is told at most once per refresh, whatever the workers do).
 */
typedef struct
{
  atomic_uint_fast64_t files_total;
  atomic_uint_fast64_t files_done; /* copied or skipped */
  atomic_uint_fast64_t files_failed;
  atomic_uint_fast64_t files_skipped;
  atomic_uint_fast64_t files_existing; /* a dry run's: see FerryProgress */
  atomic_int_fast64_t bytes_total; /* signed: skips may be counted before the scan adds them */
  atomic_uint_fast64_t bytes_written;
  atomic_uint_fast64_t bytes_durable;
  atomic_uint_fast64_t bytes_carried; /* on the device before this run: in written and durable too */
  /* in files under their final names in folders that have theirs (not
   * hidden ones), named at once or carried: what a kill leaves in place */
  atomic_uint_fast64_t bytes_placed;
  /* of files that failed, or were left out with a folder that failed:
   * in bytes_total, never written (a run that continues the transfer
   * copies them) */
  atomic_uint_fast64_t bytes_failed;
  atomic_bool planning_done;
  atomic_bool durable_live;

  GMutex current_lock;
  char *current; /* display path of a file in flight */
  atomic_int_fast64_t current_updated_at;

  atomic_bool change_pending;
  FerryCountersChangedFunc changed;
  gpointer changed_data;
} FerryCounters;

void ferry_counters_init (FerryCounters *self);
void ferry_counters_clear (FerryCounters *self);
void ferry_counters_set_changed_func (FerryCounters *self,
                                      FerryCountersChangedFunc func,
                                      gpointer user_data);
void ferry_counters_touch (FerryCounters *self);
void ferry_counters_take_change (FerryCounters *self);

void ferry_counters_add (FerryCounters *self, atomic_uint_fast64_t *counter, guint64 n);
void ferry_counters_sub (FerryCounters *self, atomic_uint_fast64_t *counter, guint64 n);
void ferry_counters_add_total (FerryCounters *self, gint64 bytes);
void ferry_counters_set_durable (FerryCounters *self, guint64 bytes);
void ferry_counters_add_carried (FerryCounters *self, guint64 bytes);
guint64 ferry_counters_get_transfer_total (FerryCounters *self);

gboolean ferry_counters_current_is_due (FerryCounters *self, gboolean force);
void ferry_counters_take_current (FerryCounters *self, char *display_path);
char *ferry_counters_dup_current (FerryCounters *self);

static inline guint64
ferry_counters_get (atomic_uint_fast64_t *counter)
{
  return atomic_load_explicit (counter, memory_order_relaxed);
}

G_END_DECLS
