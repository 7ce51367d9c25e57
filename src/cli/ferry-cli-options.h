/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-engine.h"

G_BEGIN_DECLS

/**
 * FerryCliProgressStyle:
 * How ferry-copy shows progress (--progress): the nicks of this GEnum are
 * the words the option takes.
 */
typedef enum
{
  FERRY_CLI_PROGRESS_STYLE_NONE,
  FERRY_CLI_PROGRESS_STYLE_BAR,  /* one line on standard error, redrawn */
  FERRY_CLI_PROGRESS_STYLE_JSON, /* one object per line on standard output */
} FerryCliProgressStyle;

/**
 * FerryCliOptions:
 * The command line of ferry-copy, checked and with every default filled in.
 */
typedef struct
{
  GStrv sources; /* as typed: the engine resolves them as the kernel does */
  char *destination;
  FerryConflictPolicy conflict_policy;
  FerryErrorPolicy error_policy;
  FerryDeviceMode device_mode;
  FerrySlowMethod slow_method;
  FerryUnsupportedPolicy unsupported_policy;
  FerryCliProgressStyle progress_style;
  guint n_workers;
  gboolean preserve;
  gboolean verify;
  FerryChoices chosen; /* the options given that a transfer keeps for --resume */
  gboolean dry_run;
  gboolean show_version; /* --version: nothing else was checked */
  gboolean restart;      /* --restart: a run cut short is not continued */
  gboolean resume;       /* --resume: @sources are ids of unfinished transfers, or "all" */
  gboolean discard;      /* --discard: @sources are ids of unfinished transfers, or "all" */
} FerryCliOptions;

gboolean ferry_cli_options_parse (FerryCliOptions *self, int argc, char **argv);
void ferry_cli_options_clear (FerryCliOptions *self);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryCliOptions, ferry_cli_options_clear)

G_END_DECLS
