/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-enums.h"

G_BEGIN_DECLS

#define FERRY_TYPE_UNSUPPORTED_ITEM (ferry_unsupported_item_get_type ())

/**
 * FerryUnsupportedItem:
 * One entry the destination's filesystem cannot store as it is.
 * @source: the entry
 * @path: where it would go, relative to the destination folder, for
 *   people to read as Ferry's messages name files (ferry_format_path():
 *   valid UTF-8, a byte that is not, or a control character, escaped)
 * @adapted: the name its copy gets when the job adapts (UTF-8), or NULL
 *   when it can only be skipped (a file too large, a FIFO)
 * @size: its size in bytes (for a file too large)
 */
typedef struct
{
  FerryUnsupportedKind kind;
  GFile *source;
  char *path;
  char *adapted;
  guint64 size;
} FerryUnsupportedItem;

GType ferry_unsupported_item_get_type (void) G_GNUC_CONST;
FerryUnsupportedItem *ferry_unsupported_item_copy (const FerryUnsupportedItem *item);
void ferry_unsupported_item_free (FerryUnsupportedItem *item);
const char *ferry_unsupported_item_get_name (const FerryUnsupportedItem *item);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryUnsupportedItem, ferry_unsupported_item_free)

#define FERRY_TYPE_UNSUPPORTED_REPORT (ferry_unsupported_report_get_type ())

G_DECLARE_FINAL_TYPE (FerryUnsupportedReport,
                      ferry_unsupported_report,
                      FERRY,
                      UNSUPPORTED_REPORT,
                      GObject)

const char *ferry_unsupported_report_get_filesystem (FerryUnsupportedReport *self);
GFile *ferry_unsupported_report_get_destination (FerryUnsupportedReport *self);
GPtrArray *ferry_unsupported_report_get_items (FerryUnsupportedReport *self);
guint ferry_unsupported_report_count (FerryUnsupportedReport *self, FerryUnsupportedKind kind);
guint ferry_unsupported_report_count_adaptable (FerryUnsupportedReport *self);
FerryUnsupportedAction ferry_unsupported_report_get_action (FerryUnsupportedReport *self);
void ferry_unsupported_report_answer (FerryUnsupportedReport *self, FerryUnsupportedAction action);

G_END_DECLS
