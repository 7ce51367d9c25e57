/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-tree-context.h"

G_BEGIN_DECLS

typedef enum
{
  FERRY_FILE_FAILED,
  FERRY_FILE_COPIED, /* or skipped: the entry says */
  FERRY_FILE_LATER,  /* its name comes once its data is durable; it is counted then */
} FerryFileOutcome;

FerryFileOutcome ferry_regular_file_copy (FerryTreeContext *ctx,
                                          FerryEntry *entry,
                                          int *src_fd,
                                          GError **error);

G_END_DECLS
