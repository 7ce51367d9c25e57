/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-conflict-request.h"
#include "ferry-control.h"
#include "ferry-counters.h"
#include "ferry-device.h"
#include "ferry-enums.h"
#include "ferry-failure.h"
#include "ferry-fs-id.h"
#include "ferry-unsupported.h"

G_BEGIN_DECLS

/* What a job asks of its run, fixed before it starts. */
typedef struct
{
  FerryConflictPolicy conflict_policy;
  FerryErrorPolicy error_policy;
  gboolean preserve;
  gboolean verify;
  gboolean dry_run;
  guint n_workers;
  FerryDeviceMode device_mode;
  FerrySlowMethod slow_method;
  FerryUnsupportedPolicy unsupported_policy;
  gboolean keeps_journal; /* for the transfer to be continued if it is cut short */
  gboolean restart;       /* an earlier run's journal is not continued */
  GHashTable *choices;    /* option → word its journal keeps for a run continuing it; or NULL */
} FerryRunOptions;

/* What a run tells its job, from the run's own threads; each call takes
 * what it is given. */
typedef struct
{
  void (*phase_changed) (gpointer user_data, FerryPhase phase);
  void (*device_found) (gpointer user_data, FerryDevice *device);
  void (*method_changed) (gpointer user_data);
  void (*file_failed) (gpointer user_data, FerryFailure *failure);
  void (*conflict) (gpointer user_data, FerryConflictRequest *request);
  /* Entries the destination cannot store as they are; @ask: the person
   * answers the report, and the run waits for that. */
  void (*unsupported) (gpointer user_data, FerryUnsupportedReport *report, gboolean ask);
  gpointer user_data;
} FerryRunListener;

typedef struct _FerryRun FerryRun;

FerryRun *ferry_run_new (const FerryRunOptions *options,
                         FerryCounters *counters,
                         FerryControl *control,
                         const FerryRunListener *listener);
void ferry_run_free (FerryRun *self);
void ferry_run_bind (FerryRun *self, const FerryFsId *filesystem);
void ferry_run_copy_filesystem (FerryRun *self, FerryFsId *filesystem);
gboolean ferry_run_execute (FerryRun *self,
                            const char *const *sources,
                            const char *destination,
                            GError **error);
FerryCopyMethod ferry_run_get_method (FerryRun *self);
gboolean ferry_run_verifies_from_cache (FerryRun *self);
GError *ferry_run_dup_journal_error (FerryRun *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryRun, ferry_run_free)

G_END_DECLS
