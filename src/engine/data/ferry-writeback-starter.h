/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct _FerryWritebackStarter FerryWritebackStarter;

FerryWritebackStarter *ferry_writeback_starter_new (void);
void ferry_writeback_starter_add (FerryWritebackStarter *self, int fd, off_t offset, off_t len);
void ferry_writeback_starter_free (FerryWritebackStarter *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryWritebackStarter, ferry_writeback_starter_free)

G_END_DECLS
