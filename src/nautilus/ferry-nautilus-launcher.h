/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

void ferry_nautilus_launch_copy_to (const char *destination_uri, const char *const *source_uris);
void ferry_nautilus_launch_open (const char *const *source_uris);

G_END_DECLS
