/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define FERRY_TYPE_FAILURE (ferry_failure_get_type ())

/**
 * FerryFailure:
 * One file a job could not copy: which one, where it was going, and why.
 * The error message names the path already; @source and @destination let
 * a caller retry exactly that file.
 */
typedef struct
{
  GFile *source;
  GFile *destination;
  GError *error;
} FerryFailure;

GType ferry_failure_get_type (void) G_GNUC_CONST;
FerryFailure *ferry_failure_new (GFile *source, GFile *destination, const GError *error);
FerryFailure *ferry_failure_copy (const FerryFailure *failure);
void ferry_failure_free (FerryFailure *failure);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryFailure, ferry_failure_free)

G_END_DECLS
