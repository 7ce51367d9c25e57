/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-copy-target.h"
#include "ferry-flusher.h"

G_BEGIN_DECLS

FerryStrategy *ferry_strategy_fast_new (FerryCopyTarget *target,
                                        const char *probe_block,
                                        FerryFlusherSlowFunc on_slow,
                                        gpointer user_data);

G_END_DECLS
