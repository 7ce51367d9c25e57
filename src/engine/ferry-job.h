/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-device.h"
#include "ferry-enums.h"
#include "ferry-failure.h"
#include "ferry-progress.h"
#include "ferry-types.h"
#include "ferry-unsupported.h"

G_BEGIN_DECLS

#define FERRY_TYPE_JOB (ferry_job_get_type ())

/**
 * FerryJob:
 * One transfer: sources, a destination folder, options, and its state
 * and progress, which any thread may read.
 *
 * Its notifications come on the main context that was thread-default
 * where ferry_job_run_async() was called, never from a worker:
 * - "phase", "strategy" and "device" as they change;
 * - "paused" from ferry_job_pause() and ferry_job_resume() (call them
 *   on that main context);
 * - "progress", the fraction done (0 to 1; the whole snapshot is
 *   ferry_job_get_progress()), whenever something a person sees of the
 *   progress changed: bytes written or durable, files done or failed,
 *   the totals, the current file, the phase, paused; and, while it
 *   copies, twice a second when nothing changed, for the rate and time
 *   left change with time alone. While the job runs these changes are
 *   coalesced and notified at most ten times a second;
 *   a pause or resume is notified at once. When the job has ended (done,
 *   failed or cancelled) one last notification carries the final
 *   snapshot, and none comes after it.
 */

G_DECLARE_FINAL_TYPE (FerryJob, ferry_job, FERRY, JOB, GObject)

FerryJob *ferry_job_new (GFile *const *sources, guint n_sources, GFile *destination);
FerryJob *ferry_job_new_for_paths (const char *const *sources,
                                   guint n_sources,
                                   const char *destination);

GPtrArray *ferry_job_get_sources (FerryJob *self);
GFile *ferry_job_get_destination (FerryJob *self);

FerryConflictPolicy ferry_job_get_conflict_policy (FerryJob *self);
void ferry_job_set_conflict_policy (FerryJob *self, FerryConflictPolicy policy);
FerryErrorPolicy ferry_job_get_error_policy (FerryJob *self);
void ferry_job_set_error_policy (FerryJob *self, FerryErrorPolicy policy);
gboolean ferry_job_get_preserve (FerryJob *self);
void ferry_job_set_preserve (FerryJob *self, gboolean preserve);
gboolean ferry_job_get_verify (FerryJob *self);
gboolean ferry_job_get_verify_reads_cache (FerryJob *self);
GError *ferry_job_dup_journal_error (FerryJob *self);
void ferry_job_set_verify (FerryJob *self, gboolean verify);
gboolean ferry_job_get_dry_run (FerryJob *self);
void ferry_job_set_dry_run (FerryJob *self, gboolean dry_run);
guint ferry_job_get_n_workers (FerryJob *self);
void ferry_job_set_n_workers (FerryJob *self, guint n_workers);
FerryDeviceMode ferry_job_get_device_mode (FerryJob *self);
void ferry_job_set_device_mode (FerryJob *self, FerryDeviceMode mode);
FerrySlowMethod ferry_job_get_slow_method (FerryJob *self);
void ferry_job_set_slow_method (FerryJob *self, FerrySlowMethod method);
FerryUnsupportedPolicy ferry_job_get_unsupported_policy (FerryJob *self);
void ferry_job_set_unsupported_policy (FerryJob *self, FerryUnsupportedPolicy policy);
FerryUnsupportedReport *ferry_job_dup_unsupported_report (FerryJob *self);
void ferry_job_set_keeps_journal (FerryJob *self, gboolean keeps_journal);
gboolean ferry_job_get_keeps_journal (FerryJob *self);
void ferry_job_set_kept_choices (FerryJob *self, GHashTable *choices);
void ferry_job_set_restart (FerryJob *self, gboolean restart);
void ferry_job_set_retry_of (FerryJob *self, FerryJob *earlier);

void ferry_job_run_async (FerryJob *self,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer user_data);
gboolean ferry_job_run_finish (FerryJob *self, GAsyncResult *result, GError **error);

void ferry_job_cancel (FerryJob *self);
void ferry_job_pause (FerryJob *self);
void ferry_job_resume (FerryJob *self);
gboolean ferry_job_get_paused (FerryJob *self);

FerryPhase ferry_job_get_phase (FerryJob *self);
FerryDevice *ferry_job_dup_device (FerryJob *self);
const char *ferry_job_get_strategy (FerryJob *self);
FerryCopyMethod ferry_job_get_copy_method (FerryJob *self);
void ferry_job_get_progress (FerryJob *self, FerryProgress *progress);
GPtrArray *ferry_job_dup_failures (FerryJob *self);
guint64 ferry_job_get_n_failures (FerryJob *self);

G_END_DECLS
