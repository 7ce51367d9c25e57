/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _FerryControl FerryControl;

FerryControl *ferry_control_new (void);
void ferry_control_free (FerryControl *self);

GCancellable *ferry_control_get_cancellable (FerryControl *self);
void ferry_control_cancel (FerryControl *self);
gboolean ferry_control_is_cancelled (FerryControl *self);
gboolean ferry_control_set_paused (FerryControl *self, gboolean paused);
gboolean ferry_control_get_paused (FerryControl *self);

gboolean ferry_control_check (FerryControl *self, GError **error);
gboolean ferry_control_is_ending (FerryControl *self);
gboolean ferry_control_stop (FerryControl *self, const GError *error);
GError *ferry_control_dup_stop_error (FerryControl *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryControl, ferry_control_free)

G_END_DECLS
