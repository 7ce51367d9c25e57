/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <stdatomic.h>

G_BEGIN_DECLS

/* The numbers behind a job's progress, updated by any worker without a
 * lock and read together into a FerryProgress snapshot. */
typedef struct
{
  atomic_uint_fast64_t files_total;
  atomic_uint_fast64_t files_done;
  atomic_uint_fast64_t files_failed;
  atomic_uint_fast64_t files_skipped;
  atomic_int_fast64_t bytes_total; /* signed: skips may be counted before the planner adds them */
  atomic_uint_fast64_t bytes_written;
  atomic_uint_fast64_t bytes_durable;
  atomic_bool planning_done;
  atomic_bool durable_live;
} FerryCounters;

static inline void
ferry_counters_add (atomic_uint_fast64_t *counter, guint64 n)
{
  atomic_fetch_add_explicit (counter, n, memory_order_relaxed);
}

static inline guint64
ferry_counters_get (atomic_uint_fast64_t *counter)
{
  return atomic_load_explicit (counter, memory_order_relaxed);
}

G_END_DECLS
