/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-drive-list.h"
#include "ferry-engine.h"

G_BEGIN_DECLS

#define FERRY_TYPE_WINDOW (ferry_window_get_type ())

G_DECLARE_FINAL_TYPE (FerryWindow, ferry_window, FERRY, WINDOW, AdwApplicationWindow)

FerryWindow *ferry_window_new (GtkApplication *application,
                               FerryQueue *queue,
                               FerryDriveList *drives);
gboolean ferry_window_copy (FerryWindow *self, GList *sources, GFile *destination, GError **error);
void ferry_window_stage (FerryWindow *self, GList *files);
FerryQueue *ferry_window_get_queue (FerryWindow *self);
gboolean ferry_window_get_closing (FerryWindow *self);
void ferry_window_eject_drive (FerryWindow *self, GFile *root);

G_END_DECLS
