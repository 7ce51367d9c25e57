/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ferry-engine.h"

G_BEGIN_DECLS

void ferry_conflict_dialog_ask (GtkWindow *parent, FerryConflictRequest *request);

G_END_DECLS
