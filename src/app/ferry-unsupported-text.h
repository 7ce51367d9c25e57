/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-engine.h"

G_BEGIN_DECLS

/* How the window words entries a drive cannot store as they are: the
 * question before a copy (FerryUnsupportedDialog) and the outcome after
 * it (FerryTransferRow) say the same things the same way. */

char *ferry_unsupported_text_group (FerryUnsupportedReport *report,
                                    FerryUnsupportedKind kind,
                                    guint n);
char *ferry_unsupported_text_item (const FerryUnsupportedItem *item, gboolean adapted);
char *ferry_unsupported_text_outcome (const FerryUnsupportedItem *item, gboolean adapted);
gboolean ferry_unsupported_text_was_adapted (FerryUnsupportedReport *report,
                                             const FerryUnsupportedItem *item);
char *ferry_unsupported_text_summary (FerryUnsupportedReport *report);

G_END_DECLS
