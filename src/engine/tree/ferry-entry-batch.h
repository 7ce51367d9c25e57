/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Entries of one folder, listed before any is copied, which workers
 * claim one at a time: the worker that listed them, and any other that
 * joins it while some are left. Entries are added before the batch is
 * shared, and claimed after. */
typedef struct _FerryEntryBatch FerryEntryBatch;

FerryEntryBatch *ferry_entry_batch_new (void);
FerryEntryBatch *ferry_entry_batch_ref (FerryEntryBatch *self);
void ferry_entry_batch_unref (FerryEntryBatch *self);
guint ferry_entry_batch_add (FerryEntryBatch *self, const char *name, unsigned char d_type);
gboolean ferry_entry_batch_claim (FerryEntryBatch *self, const char **name, unsigned char *d_type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryEntryBatch, ferry_entry_batch_unref)

G_END_DECLS
