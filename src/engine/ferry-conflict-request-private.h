/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "ferry-answer-private.h"
#include "ferry-conflict-request.h"

G_BEGIN_DECLS

FerryConflictRequest *_ferry_conflict_request_new (GFile *source,
                                                   GFile *destination,
                                                   const struct stat *source_st,
                                                   const struct stat *destination_st,
                                                   FerryAnswer **answer);
void _ferry_conflict_request_set_suggested_name (FerryConflictRequest *self, const char *name);

G_END_DECLS
