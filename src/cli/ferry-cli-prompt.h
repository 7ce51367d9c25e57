/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-engine.h"

G_BEGIN_DECLS

typedef struct _FerryCliPrompt FerryCliPrompt;

FerryCliPrompt *ferry_cli_prompt_new (void);
void ferry_cli_prompt_free (FerryCliPrompt *self);
void ferry_cli_prompt_ask (FerryCliPrompt *self, FerryConflictRequest *request);
void ferry_cli_prompt_ask_unsupported (FerryCliPrompt *self, FerryUnsupportedReport *report);
gboolean ferry_cli_prompt_is_asking (FerryCliPrompt *self);
gboolean ferry_cli_prompt_parse (const char *line,
                                 gboolean source_is_dir,
                                 FerryConflictAction *action,
                                 gboolean *apply_to_all);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryCliPrompt, ferry_cli_prompt_free)

G_END_DECLS
