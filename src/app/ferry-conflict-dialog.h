/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-engine.h"

G_BEGIN_DECLS

typedef struct _FerryConflictQueue FerryConflictQueue;

FerryConflictQueue *ferry_conflict_queue_new (GtkWindow *parent);
void ferry_conflict_queue_ask (FerryConflictQueue *self, FerryConflictRequest *request);
void ferry_conflict_queue_free (FerryConflictQueue *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryConflictQueue, ferry_conflict_queue_free)

G_END_DECLS
