/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean ferry_mount_is_removable_drive (GMount *mount);
int ferry_mount_compare_for_listing (gconstpointer a, gconstpointer b);

G_END_DECLS
