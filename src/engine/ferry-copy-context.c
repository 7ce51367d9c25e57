/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "ferry-copy-context.h"
#include "ferry-copy-throttled.h"
#include "ferry-tree-copy.h"
#include "ferry-error.h"
#include "ferry-fs.h"
#include "ferry-hardlinks.h"
#include "ferry-job-private.h"

/* How often the "current file" shown to a person may change. */
#define CURRENT_INTERVAL_USEC (G_USEC_PER_SEC / 20)

FerryCopyContext *
ferry_copy_context_new (FerryJob *job, FerryCounters *counters, GCancellable *cancellable)
{
  FerryCopyContext *ctx = g_new0 (FerryCopyContext, 1);

  ctx->job = job;
  ctx->counters = counters;
  ctx->cancellable = g_object_ref (cancellable);
  ctx->euid = geteuid ();
  ctx->egid = getegid ();
  ctx->is_root = ctx->euid == 0;
  ctx->umask = ferry_get_umask ();
  ctx->dst_dir_fd = -1;
  ctx->hardlinks = ferry_hardlinks_new ();
  g_mutex_init (&ctx->conflict_lock);
  g_mutex_init (&ctx->stop_lock);
  g_mutex_init (&ctx->tree_lock);
  return ctx;
}

void
ferry_copy_context_free (FerryCopyContext *ctx)
{
  /* A strategy's helpers (a flusher thread) never outlive the copy. */
  if (ctx->strategy != NULL && ctx->strategy->stop != NULL)
    ctx->strategy->stop (ctx);
  g_clear_pointer ((FerryThrottle **) &ctx->throttle, ferry_throttle_free);
  g_clear_object (&ctx->device);
  g_free (ctx->dst_path);
  g_clear_object (&ctx->cancellable);
  g_clear_pointer (&ctx->hardlinks, ferry_hardlinks_free);
  g_mutex_clear (&ctx->conflict_lock);
  g_mutex_clear (&ctx->stop_lock);
  g_mutex_clear (&ctx->tree_lock);
  g_clear_error (&ctx->stop_error);
  g_free (ctx);
}

/* Called between files and between chunks: waits while the job is
 * paused and says whether to go on. A job that stops (cancelled, or a
 * failure that ends it) answers G_IO_ERROR_CANCELLED here; the reason is
 * kept once in the context, not reported by every worker. */
gboolean
ferry_copy_context_check (FerryCopyContext *ctx, GError **error)
{
  _ferry_job_wait_while_paused (ctx->job, ctx->cancellable);
  if (ferry_copy_context_is_ending (ctx))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The copy was stopped"));
      return FALSE;
    }
  return TRUE;
}

/* Stopping or cancelled, without waiting out a pause. */
gboolean
ferry_copy_context_is_ending (FerryCopyContext *ctx)
{
  return atomic_load (&ctx->stopping) || g_cancellable_is_cancelled (ctx->cancellable);
}

void
ferry_copy_context_stop (FerryCopyContext *ctx, const GError *error)
{
  g_mutex_lock (&ctx->stop_lock);
  if (ctx->stop_error == NULL && error != NULL)
    ctx->stop_error = g_error_copy (error);
  g_mutex_unlock (&ctx->stop_lock);
  atomic_store (&ctx->stopping, TRUE);
}

GError *
ferry_copy_context_dup_stop_error (FerryCopyContext *ctx)
{
  GError *error = NULL;

  g_mutex_lock (&ctx->stop_lock);
  if (ctx->stop_error != NULL)
    error = g_error_copy (ctx->stop_error);
  g_mutex_unlock (&ctx->stop_lock);
  return error;
}

static void
show_current (FerryCopyContext *ctx, FerryDirNode *node, const char *name)
{
  g_autofree char *path = ferry_dir_node_src_path (node, name);

  _ferry_job_set_current (ctx->job, ferry_path_display (path));
}

FerryThrottle *
ferry_copy_context_get_throttle (FerryCopyContext *ctx)
{
  return atomic_load (&ctx->throttle);
}

/* From now on data goes to the device in throttled windows: from the
 * start when the device's class is slow, or once the flusher measured it
 * slow (then from any thread, once). */
void
ferry_copy_context_go_slow (FerryCopyContext *ctx)
{
  FerryThrottle *expected = NULL;
  FerryThrottle *throttle = ferry_throttle_new (ctx, ctx->slow_method);

  if (!atomic_compare_exchange_strong (&ctx->throttle, &expected, throttle))
    {
      ferry_throttle_free (throttle);
      return;
    }
  g_mutex_lock (&ctx->tree_lock);
  if (ctx->tree != NULL)
    ferry_tree_copy_grow (ctx->tree, ctx->slow_workers);
  g_mutex_unlock (&ctx->tree_lock);
  _ferry_job_strategy_changed (ctx->job);
}

void
ferry_copy_context_set_tree (FerryCopyContext *ctx, FerryTreeCopy *tree)
{
  g_mutex_lock (&ctx->tree_lock);
  ctx->tree = tree;
  g_mutex_unlock (&ctx->tree_lock);
}

/* The method data travels by now, as the progress reports it. */
const char *
ferry_copy_context_get_strategy_name (FerryCopyContext *ctx)
{
  if (atomic_load (&ctx->throttle) != NULL)
    return ctx->slow_method == FERRY_SLOW_METHOD_CHUNK_SYNC ? "chunk-sync" : "window";
  if (atomic_load (&ctx->reflinked))
    return "reflink";
  return atomic_load (&ctx->range_unsupported) ? "sendfile" : "copy-range";
}

void
ferry_copy_context_set_current (FerryCopyContext *ctx, FerryDirNode *node, const char *name)
{
  gint64 now = g_get_monotonic_time ();
  gint64 last = atomic_load_explicit (&ctx->current_updated_at, memory_order_relaxed);

  if (now - last < CURRENT_INTERVAL_USEC
      || !atomic_compare_exchange_strong (&ctx->current_updated_at, &last, now))
    return;

  show_current (ctx, node, name);
}

void
ferry_copy_context_add_written (FerryCopyContext *ctx, FerryFileCopy *fc, guint64 bytes)
{
  /* A file that takes more than one chunk is named at its first chunk,
   * whatever the interval: a name skipped by the throttle above is never
   * shown later, which left its folder, or the small file before it, on
   * display for as long as the large file took. */
  if (fc->written == 0 && bytes < (guint64) fc->st.st_size)
    {
      atomic_store (&ctx->current_updated_at, g_get_monotonic_time ());
      show_current (ctx, fc->node, fc->src_name);
    }
  fc->written += bytes;
  ferry_counters_add (&ctx->counters->bytes_written, bytes);
}

void
ferry_copy_context_file_done (FerryCopyContext *ctx)
{
  ferry_counters_add (&ctx->counters->files_done, 1);
}

/* Skipped files are handled, not copied: they leave the byte total so the
 * progress still ends at 100 %. */
void
ferry_copy_context_file_skipped (FerryCopyContext *ctx, guint64 files, guint64 bytes)
{
  ferry_counters_add (&ctx->counters->files_skipped, files);
  ferry_counters_add (&ctx->counters->files_done, files);
  atomic_fetch_sub (&ctx->counters->bytes_total, (gint64) bytes);
}

static GFile *
file_for (FerryDirNode *node, const char *name, gboolean source)
{
  g_autofree char *path = ferry_dir_node_path (node, name, source);
  return g_file_new_for_path (path);
}

/* Records a file that could not be copied and tells the job's listeners.
 * A @fatal failure (the destination itself failed), or any failure under
 * FERRY_ERROR_POLICY_STOP, ends the job. */
void
ferry_copy_context_file_failed (FerryCopyContext *ctx,
                                FerryDirNode *node,
                                const char *src_name,
                                const char *dst_name,
                                guint64 bytes,
                                const GError *error,
                                gboolean fatal)
{
  g_autoptr (GFile) source = NULL;
  g_autoptr (GFile) destination = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  ferry_counters_add (&ctx->counters->files_failed, 1);
  ferry_counters_add (&ctx->counters->files_done, 1);
  atomic_fetch_sub (&ctx->counters->bytes_total, (gint64) bytes);

  source = file_for (node, src_name, TRUE);
  destination = file_for (node, dst_name != NULL ? dst_name : src_name, FALSE);
  _ferry_job_report_failure (ctx->job, ferry_failure_new (source, destination, error));

  if (fatal || ctx->error_policy == FERRY_ERROR_POLICY_STOP)
    ferry_copy_context_stop (ctx, error);
}
