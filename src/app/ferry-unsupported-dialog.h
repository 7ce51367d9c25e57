/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-engine.h"

G_BEGIN_DECLS

#define FERRY_TYPE_UNSUPPORTED_DIALOG (ferry_unsupported_dialog_get_type ())

G_DECLARE_FINAL_TYPE (FerryUnsupportedDialog,
                      ferry_unsupported_dialog,
                      FERRY,
                      UNSUPPORTED_DIALOG,
                      AdwMessageDialog)

FerryUnsupportedDialog *ferry_unsupported_dialog_new (GtkWindow *parent,
                                                      FerryUnsupportedReport *report,
                                                      const char *where);
FerryUnsupportedReport *ferry_unsupported_dialog_get_report (FerryUnsupportedDialog *self);

G_END_DECLS
