/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stdio.h>

#include "ferry-engine.h"

G_BEGIN_DECLS

void ferry_cli_list_unsupported (FerryUnsupportedReport *report, FILE *out);
void ferry_cli_list_adapted (FerryUnsupportedReport *report, FILE *out);
char *ferry_cli_format_unsupported_json (FerryUnsupportedReport *report);

G_END_DECLS
