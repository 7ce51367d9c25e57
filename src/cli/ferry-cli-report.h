/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ferry-cli-options.h"
#include "ferry-engine.h"

G_BEGIN_DECLS

/* The exit statuses of ferry-copy, which scripts rely on. */
typedef enum
{
  FERRY_CLI_EXIT_OK = 0,
  FERRY_CLI_EXIT_FAILED = 1,
  FERRY_CLI_EXIT_USAGE = 2,
  FERRY_CLI_EXIT_INTERRUPTED = 130, /* as a shell reports a command killed by SIGINT */
} FerryCliExit;

/**
 * FerryCliOutcome:
 * How a run of ferry-copy's job ended.
 */
typedef struct
{
  GError *error;         /* why the job did not finish, or NULL */
  gboolean interrupted;  /* by SIGINT, SIGTERM or SIGHUP */
  GHashTable *listed;    /* the messages of the failed files listed, or NULL */
} FerryCliOutcome;

void ferry_cli_outcome_clear (FerryCliOutcome *self);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FerryCliOutcome, ferry_cli_outcome_clear)

void ferry_cli_report_failure (FerryCliOutcome *outcome, const GError *error);
FerryCliExit ferry_cli_report (FerryJob *job,
                               const FerryCliOptions *options,
                               const FerryCliOutcome *outcome);

G_END_DECLS
