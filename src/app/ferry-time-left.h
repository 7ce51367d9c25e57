/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How long a transfer has left, in the words of its row: "12 seconds
 * left", "3 minutes left", "1 hour 47 minutes left", "about 6 hours left". */
char *ferry_time_left_text (double seconds);

G_END_DECLS
