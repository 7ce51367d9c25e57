/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-answer-private.h"
#include "ferry-unsupported.h"

G_BEGIN_DECLS

FerryUnsupportedItem *_ferry_unsupported_item_new (FerryUnsupportedKind kind,
                                                   GFile *source,
                                                   const char *path,
                                                   const char *adapted,
                                                   guint64 size);
FerryUnsupportedReport *_ferry_unsupported_report_new (const char *filesystem,
                                                       GFile *destination,
                                                       GPtrArray *items);
FerryAnswer *_ferry_unsupported_report_get_answer (FerryUnsupportedReport *self);
void _ferry_unsupported_report_set_action (FerryUnsupportedReport *self,
                                           FerryUnsupportedAction action);

G_END_DECLS
