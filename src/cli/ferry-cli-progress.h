/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-cli-options.h"
#include "ferry-cli-prompt.h"
#include "ferry-engine.h"

G_BEGIN_DECLS

typedef struct _FerryCliProgress FerryCliProgress;

FerryCliProgress *ferry_cli_progress_new (FerryJob *job,
                                          FerryCliProgressStyle style,
                                          FerryCliPrompt *prompt);
void ferry_cli_progress_free (FerryCliProgress *self);
void ferry_cli_progress_start (FerryCliProgress *self);
void ferry_cli_progress_stop (FerryCliProgress *self);
void ferry_cli_progress_clear_bar (FerryCliProgress *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryCliProgress, ferry_cli_progress_free)

G_END_DECLS
