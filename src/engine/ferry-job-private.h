/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-conflict-request.h"
#include "ferry-failure.h"
#include "ferry-job.h"

G_BEGIN_DECLS

/* What the copy machinery, running in worker threads, asks of its job. */
void _ferry_job_wait_while_paused (FerryJob *self, GCancellable *cancellable);
void _ferry_job_report_failure (FerryJob *self, FerryFailure *failure);
void _ferry_job_post_conflict (FerryJob *self, FerryConflictRequest *request);
void _ferry_job_set_current (FerryJob *self, char *display_path);
void _ferry_job_strategy_changed (FerryJob *self);

G_END_DECLS
