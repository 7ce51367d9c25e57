/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Everything a front end needs from the copy engine. */
#include "ferry-conflict-request.h"
#include "ferry-device.h"
#include "ferry-enums.h"
#include "ferry-enum-types.h"
#include "ferry-error.h"
#include "ferry-failure.h"
#include "ferry-job.h"
#include "ferry-progress.h"
#include "ferry-queue.h"
#include "ferry-types.h"
#include "ferry-unfinished.h"
#include "ferry-unsupported.h"

void ferry_engine_init (void);
const char *ferry_engine_get_locale_dir (void);
