/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *ferry_free_name_find (int dir_fd, const char *name, gboolean is_dir);

G_END_DECLS
