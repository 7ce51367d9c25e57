/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef gboolean (*FerryNameTakenFunc) (const char *name, gpointer user_data);

char *ferry_free_name_find (int dir_fd, const char *name, gboolean is_dir);
char *ferry_free_name_find_with (const char *name,
                                 gboolean is_dir,
                                 FerryNameTakenFunc taken,
                                 gpointer user_data);

G_END_DECLS
