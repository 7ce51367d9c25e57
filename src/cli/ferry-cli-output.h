/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-engine.h"

G_BEGIN_DECLS

void ferry_cli_print_error (const char *message);
void ferry_cli_append_json_string (GString *out, const char *s);
char *ferry_cli_format_json (const FerryProgress *progress,
                             FerryDevice *device,
                             FerryCopyMethod method,
                             const char *strategy);
char *ferry_cli_format_bar (const FerryProgress *progress, guint width);
char *ferry_cli_format_duration (double seconds);
char *ferry_cli_format_summary (const FerryProgress *progress, gboolean dry_run);
char *ferry_cli_format_existing (const FerryProgress *progress, FerryConflictPolicy policy);

G_END_DECLS
