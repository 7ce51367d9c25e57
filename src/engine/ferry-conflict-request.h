/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-enums.h"

G_BEGIN_DECLS

#define FERRY_TYPE_CONFLICT_REQUEST (ferry_conflict_request_get_type ())

G_DECLARE_FINAL_TYPE (FerryConflictRequest,
                      ferry_conflict_request,
                      FERRY,
                      CONFLICT_REQUEST,
                      GObject)

GFile *ferry_conflict_request_get_source (FerryConflictRequest *self);
GFile *ferry_conflict_request_get_destination (FerryConflictRequest *self);
gboolean ferry_conflict_request_get_source_is_dir (FerryConflictRequest *self);
gboolean ferry_conflict_request_get_destination_is_dir (FerryConflictRequest *self);
guint64 ferry_conflict_request_get_source_size (FerryConflictRequest *self);
guint64 ferry_conflict_request_get_destination_size (FerryConflictRequest *self);
GDateTime *ferry_conflict_request_get_source_modified (FerryConflictRequest *self);
GDateTime *ferry_conflict_request_get_destination_modified (FerryConflictRequest *self);
const char *ferry_conflict_request_get_suggested_name (FerryConflictRequest *self);
gboolean ferry_conflict_request_get_answered (FerryConflictRequest *self);

void ferry_conflict_request_answer (FerryConflictRequest *self,
                                    FerryConflictAction action,
                                    gboolean apply_to_all);
void ferry_conflict_request_answer_rename (FerryConflictRequest *self, const char *name);

G_END_DECLS
