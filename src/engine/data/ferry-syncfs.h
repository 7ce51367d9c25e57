/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _FerrySyncfs FerrySyncfs;

FerrySyncfs *ferry_syncfs_new (int fd);
guint64 ferry_syncfs_start (FerrySyncfs *self);
int ferry_syncfs_wait (FerrySyncfs *self, guint64 ticket, GCancellable *cancellable);
int ferry_syncfs_run (FerrySyncfs *self, GCancellable *cancellable);
void ferry_syncfs_free (FerrySyncfs *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerrySyncfs, ferry_syncfs_free)

G_END_DECLS
