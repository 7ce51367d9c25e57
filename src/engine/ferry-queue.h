/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-job.h"

G_BEGIN_DECLS

#define FERRY_TYPE_QUEUE (ferry_queue_get_type ())

G_DECLARE_FINAL_TYPE (FerryQueue, ferry_queue, FERRY, QUEUE, GObject)

FerryQueue *ferry_queue_new (void);
void ferry_queue_add (FerryQueue *self, FerryJob *job);
void ferry_queue_remove (FerryQueue *self, FerryJob *job);
gboolean ferry_queue_get_busy (FerryQueue *self);
gboolean ferry_queue_get_outcome (FerryQueue *self, FerryJob *job, const GError **error);
gboolean ferry_queue_has_work_on (FerryQueue *self, GFile *file);
void ferry_queue_cancel_all (FerryQueue *self);

G_END_DECLS
