/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "ferry-control.h"

G_BEGIN_DECLS

typedef struct _FerryWriteBehind FerryWriteBehind;

FerryWriteBehind *ferry_write_behind_new (void);
int ferry_write_behind_add (FerryWriteBehind *self, gconstpointer owner, int fd, off_t offset,
                            size_t len);
void ferry_write_behind_start (FerryWriteBehind *self);
int ferry_write_behind_wait_for_room (FerryWriteBehind *self, FerryControl *control);
int ferry_write_behind_get_error (FerryWriteBehind *self, int fd);
void ferry_write_behind_free (FerryWriteBehind *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryWriteBehind, ferry_write_behind_free)

G_END_DECLS
