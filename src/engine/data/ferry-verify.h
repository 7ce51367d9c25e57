/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-control.h"
#include "ferry-file-copy.h"

G_BEGIN_DECLS

gboolean ferry_verify_copy (FerryControl *control, FerryFileCopy *fc, int device_fd, GError **error);

G_END_DECLS
