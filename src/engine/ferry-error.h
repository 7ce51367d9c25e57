/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FERRY_ERROR (ferry_error_quark ())

/**
 * FerryError:
 * Failures that are Ferry's own; errors that come straight from the
 * kernel use G_IO_ERROR with the errno mapped by g_io_error_from_errno().
 */
typedef enum
{
  FERRY_ERROR_FAILED,
  FERRY_ERROR_INVALID_ARGUMENT, /* bad usage: no sources, several sources into a non-folder */
  FERRY_ERROR_INTO_ITSELF,      /* a folder into itself or its own subtree */
  FERRY_ERROR_SAME_FILE,        /* a file onto itself */
  FERRY_ERROR_SOURCE_MISSING,   /* a source, or the destination folder, does not exist */
  FERRY_ERROR_NOT_ENOUGH_SPACE, /* the plan does not fit on the destination */
  FERRY_ERROR_EXISTS,           /* a conflict nobody resolved */
  FERRY_ERROR_CHANGED,          /* the source changed while it was copied */
  FERRY_ERROR_VANISHED,         /* the source disappeared while it was copied */
  FERRY_ERROR_VERIFY_FAILED,    /* the copy read back differs from the source */
  FERRY_ERROR_SKIPPED,          /* a file that cannot be made here (device node without root) */
  FERRY_ERROR_PARTIAL,          /* the job ended with some files not copied */
  FERRY_ERROR_UNSUPPORTED,      /* entries the destination cannot store, and no decision to adapt or skip */
  FERRY_ERROR_NOT_PLUGGED_IN,   /* the destination is no longer on the filesystem the job was planned on (a drive pulled out) */
  FERRY_ERROR_SOURCE_GONE,      /* a source's drive went away while it was copied (pulled out) */
  FERRY_ERROR_DESTINATION_DELETED, /* a destination folder was deleted while files were copied into it */
} FerryError;

GQuark ferry_error_quark (void);

G_END_DECLS
