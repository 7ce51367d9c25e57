/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-target.h"

G_BEGIN_DECLS

FerryStrategy *ferry_strategy_chunk_sync_new (FerryCopyTarget *target);

G_END_DECLS
