/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-cli-options.h"
#include "ferry-cli-report.h"
#include "ferry-engine.h"

G_BEGIN_DECLS

FerryJob *ferry_cli_job_new (const FerryCliOptions *options);
void ferry_cli_job_apply_options (FerryJob *job, const FerryCliOptions *options);
void ferry_cli_run (FerryJob *job, FerryCliProgressStyle style, FerryCliOutcome *outcome);

G_END_DECLS
