/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *ferry_format_count (guint64 count);
char *ferry_format_count_grouped (guint64 count, const char *separator, const char *grouping);
char *ferry_format_path (const char *path);

G_END_DECLS
