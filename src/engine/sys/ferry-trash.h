/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint64 ferry_trash_space_on (int dir_fd);

G_END_DECLS
