/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * FerryAnswer:
 * Where a job's thread waits for a person's answer to one question (a
 * conflict, the entries a drive cannot store). The question object the
 * UI holds keeps a reference and answers with its "nobody answered"
 * value when it is finalized unanswered, so a question the UI dropped
 * never leaves the job waiting.
 */
typedef struct _FerryAnswer FerryAnswer;

FerryAnswer *_ferry_answer_new (void);
FerryAnswer *_ferry_answer_ref (FerryAnswer *answer);
void _ferry_answer_unref (FerryAnswer *answer);
gboolean _ferry_answer_give (FerryAnswer *answer, int action, gboolean apply_to_all);
gboolean _ferry_answer_give_name (FerryAnswer *answer, int action, const char *name);
char *_ferry_answer_dup_name (FerryAnswer *answer);
gboolean _ferry_answer_is_given (FerryAnswer *answer);
int _ferry_answer_wait (FerryAnswer *answer,
                        GCancellable *cancellable,
                        int on_cancel,
                        gboolean *apply_to_all);

G_END_DECLS
