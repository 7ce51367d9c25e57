/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <unistd.h>

#include "ferry-copy-data.h"
#include "ferry-copy-throttled.h"
#include "ferry-flusher.h"
#include "ferry-fs.h"

/* What a device's class or the caller says: slow from the start. */
static gboolean
starts_slow (FerryCopyContext *ctx)
{
  if (ctx->device_mode != FERRY_DEVICE_MODE_AUTO)
    return ctx->device_mode == FERRY_DEVICE_MODE_SLOW;
  return ctx->device != NULL && ferry_device_get_speed (ctx->device) == FERRY_DEVICE_SPEED_SLOW;
}

static void
turn_slow (gpointer user_data)
{
  ferry_copy_context_go_slow (user_data);
}

/* Local filesystems. Fast disks: share extents where possible, else copy
 * inside the kernel while a flusher makes the data durable behind the
 * copy (and measures the device, in case its class lied). Slow devices:
 * sendfile in throttled windows (ferry-copy-throttled.c). */
static void
local_start (FerryCopyContext *ctx)
{
  if (starts_slow (ctx))
    ferry_copy_context_go_slow (ctx);
  else
    ctx->flusher = ferry_flusher_new (ctx->dst_dir_fd, ctx->counters,
                                      ctx->device_mode == FERRY_DEVICE_MODE_AUTO, turn_slow, ctx);
}

static gboolean
local_copy_data (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error)
{
  gboolean cloned = FALSE;

  if (ferry_copy_context_get_throttle (ctx) == NULL
      && !ferry_copy_reflink (ctx, fc, &cloned, error))
    return FALSE;
  return cloned || ferry_copy_range (ctx, fc, error);
}

/* On a slow device a file gets its final name only once its data is on
 * the device. */
static gboolean
local_commit_file (FerryCopyContext *ctx, FerryFileCopy *fc, GError **error)
{
  FerryThrottle *throttle = ferry_copy_context_get_throttle (ctx);
  int errsv;

  if (throttle == NULL || ferry_throttle_make_durable (throttle, fc, &errsv))
    return TRUE;
  return ferry_copy_fail_errno (fc, errsv, TRUE, error);
}

static void
local_abandon_file (FerryCopyContext *ctx, FerryFileCopy *fc)
{
  FerryThrottle *throttle = ferry_copy_context_get_throttle (ctx);

  if (throttle != NULL)
    ferry_throttle_forget (throttle, fc);
}

static void
local_file_named (FerryCopyContext *ctx, FerryFileCopy *fc)
{
  FerryThrottle *throttle = ferry_copy_context_get_throttle (ctx);

  if (throttle != NULL)
    ferry_throttle_named (throttle, fc->node->dst_fd);
}

static gboolean
local_finish (FerryCopyContext *ctx, const char *dst_path, GError **error)
{
  FerryThrottle *throttle = ferry_copy_context_get_throttle (ctx);
  int errsv = ctx->flusher ? ferry_flusher_stop (ctx->flusher) : 0;

  if (errsv == 0 && throttle != NULL)
    ferry_throttle_drain (throttle, &errsv);
  if (errsv == 0 && syncfs (ctx->dst_dir_fd) != 0)
    errsv = errno;
  if (errsv != 0)
    return ferry_set_error_from_errno (error, errsv,
                                       _ ("Could not make the copies in “%s” durable"), dst_path);
  atomic_store (&ctx->counters->bytes_durable, ferry_counters_get (&ctx->counters->bytes_written));
  return TRUE;
}

static void
local_stop (FerryCopyContext *ctx)
{
  g_clear_pointer (&ctx->flusher, ferry_flusher_free);
}

const FerryStrategy ferry_strategy_local = {
  .name = "local",
  .start = local_start,
  .copy_data = local_copy_data,
  .commit_file = local_commit_file,
  .abandon_file = local_abandon_file,
  .file_named = local_file_named,
  .finish = local_finish,
  .stop = local_stop,
};
