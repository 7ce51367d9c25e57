/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What a transfer copies and where, as its row is titled: "“Holidays”
 * to SanDisk Cruzer" for one source (@first), "3 items to SanDisk
 * Cruzer" for more. A transfer running and one cut short are named
 * alike. */
char *ferry_transfer_title (guint n_sources, GFile *first, const char *where);

G_END_DECLS
