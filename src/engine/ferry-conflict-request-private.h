/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "ferry-conflict-request.h"

G_BEGIN_DECLS

/* Where a worker waits for the answer to one request. The request holds
 * it too and answers FERRY_CONFLICT_ACTION_NONE when it is finalized
 * unanswered, so a request the UI dropped never leaves a worker waiting. */
typedef struct _FerryConflictAnswer FerryConflictAnswer;

FerryConflictRequest *_ferry_conflict_request_new (GFile *source,
                                                   GFile *destination,
                                                   const struct stat *source_st,
                                                   const struct stat *destination_st,
                                                   FerryConflictAnswer **answer);

FerryConflictAction _ferry_conflict_answer_wait (FerryConflictAnswer *answer,
                                                 GCancellable *cancellable,
                                                 gboolean *apply_to_all);
void _ferry_conflict_answer_unref (FerryConflictAnswer *answer);

G_END_DECLS
