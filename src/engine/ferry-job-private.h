/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-job.h"

G_BEGIN_DECLS

/* The paths a job made by ferry_job_new_for_paths() plans from, as
 * typed (made absolute): its journal is named by them. NULL for a job
 * made of files until it runs. */
const char *const *_ferry_job_get_typed_sources (FerryJob *self);
const char *_ferry_job_get_typed_destination (FerryJob *self);

G_END_DECLS
