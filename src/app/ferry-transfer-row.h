/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-destination.h"
#include "ferry-engine.h"

G_BEGIN_DECLS

/* What the row says about ejecting its drive once the copy is done. */
typedef enum
{
  FERRY_EJECT_NONE,    /* not a drive, or not done */
  FERRY_EJECT_READY,   /* all data is on the drive: offer to eject */
  FERRY_EJECT_WAITING, /* another transfer to the drive still runs */
  FERRY_EJECT_EJECTING,
  FERRY_EJECT_DONE, /* safe to unplug */
  FERRY_EJECT_GONE,      /* the drive was unplugged */
  FERRY_EJECT_READ_ONLY, /* the drive is mounted read-only now */
  FERRY_EJECT_WRITE_PROTECTED, /* the drive refuses writes itself (its lock switch) */
} FerryEjectState;

#define FERRY_TYPE_TRANSFER_ROW (ferry_transfer_row_get_type ())

G_DECLARE_FINAL_TYPE (FerryTransferRow, ferry_transfer_row, FERRY, TRANSFER_ROW, GtkListBoxRow)

FerryTransferRow *ferry_transfer_row_new (FerryJob *job, FerryDestination *destination);
FerryJob *ferry_transfer_row_get_job (FerryTransferRow *self);
FerryDestination *ferry_transfer_row_get_destination (FerryTransferRow *self);
void ferry_transfer_row_finished (FerryTransferRow *self, const GError *error);
const GError *ferry_transfer_row_get_outcome (FerryTransferRow *self);
void ferry_transfer_row_set_eject_state (FerryTransferRow *self, FerryEjectState state);
FerryEjectState ferry_transfer_row_get_eject_state (FerryTransferRow *self);
const char *ferry_transfer_row_get_status (FerryTransferRow *self);
const char *ferry_transfer_row_get_count (FerryTransferRow *self);
void ferry_transfer_row_question_asked (FerryTransferRow *self);
void ferry_transfer_row_question_answered (FerryTransferRow *self);
gboolean ferry_transfer_row_get_eject_when_done (FerryTransferRow *self);
void ferry_transfer_row_set_eject_when_done (FerryTransferRow *self, gboolean eject);

G_END_DECLS
