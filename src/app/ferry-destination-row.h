/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-destination.h"

G_BEGIN_DECLS

#define FERRY_TYPE_DESTINATION_ROW (ferry_destination_row_get_type ())

G_DECLARE_FINAL_TYPE (FerryDestinationRow,
                      ferry_destination_row,
                      FERRY,
                      DESTINATION_ROW,
                      AdwActionRow)

GtkWidget *ferry_destination_row_new (FerryDestination *destination);
FerryDestination *ferry_destination_row_get_destination (FerryDestinationRow *self);
gboolean ferry_destination_row_drop_files (FerryDestinationRow *self, GSList *files);
void ferry_destination_row_set_busy (FerryDestinationRow *self, gboolean busy);
void ferry_destination_row_set_selected (FerryDestinationRow *self, gboolean selected);

G_END_DECLS
