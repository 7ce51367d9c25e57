/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Forward declarations, so headers need not include each other. */
typedef struct _FerryJob FerryJob;
typedef struct _FerryConflictRequest FerryConflictRequest;

G_END_DECLS
