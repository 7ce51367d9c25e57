/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean ferry_temp_folder_hold (int fd);
gboolean ferry_temp_folder_remove (int parent_fd, const char *name);
int ferry_temp_folder_claim_stale (int parent_fd, const char *name);
gboolean ferry_temp_folder_remove_stale (int parent_fd, const char *name);
gboolean ferry_temp_remove_stale_below (int root_fd, const char *relpath);
guint ferry_temp_sweep (int dir_fd);
guint ferry_temp_sweep_discarded (int dir_fd, const char *journal_id);

G_END_DECLS
