/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-cli-options.h"
#include "ferry-cli-report.h"

G_BEGIN_DECLS

FerryCliExit ferry_cli_resume (const FerryCliOptions *options);
FerryCliExit ferry_cli_discard (const FerryCliOptions *options);

G_END_DECLS
