/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "ferry-error.h"

G_DEFINE_QUARK (ferry - error - quark, ferry_error)
