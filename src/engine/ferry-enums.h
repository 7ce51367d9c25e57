/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * FerryPhase:
 * Where a job is in its life. A paused job keeps its phase and reports
 * paused separately, so resuming returns to the same place.
 */
typedef enum
{
  FERRY_PHASE_QUEUED,
  FERRY_PHASE_PLANNING,
  FERRY_PHASE_COPYING,
  FERRY_PHASE_SYNCING,
  FERRY_PHASE_DONE,
  FERRY_PHASE_FAILED,
  FERRY_PHASE_CANCELLED,
} FerryPhase;

/**
 * FerryConflictPolicy:
 * What to do when a file being copied already exists at the destination.
 * Folders are always merged, except under %FERRY_CONFLICT_POLICY_ASK where
 * the caller decides.
 */
typedef enum
{
  FERRY_CONFLICT_POLICY_FAIL, /* report the file as failed and stop the job */
  FERRY_CONFLICT_POLICY_ASK,  /* emit FerryJob::conflict and wait for the answer */
  FERRY_CONFLICT_POLICY_SKIP,
  FERRY_CONFLICT_POLICY_OVERWRITE,
  FERRY_CONFLICT_POLICY_NEWER,     /* overwrite when the source is newer, else skip */
  FERRY_CONFLICT_POLICY_KEEP_BOTH, /* copy under "name (2).ext" */
} FerryConflictPolicy;

/**
 * FerryConflictAction:
 * An answer to one FerryConflictRequest.
 */
typedef enum
{
  FERRY_CONFLICT_ACTION_NONE, /* nobody answered: the file fails */
  FERRY_CONFLICT_ACTION_SKIP,
  FERRY_CONFLICT_ACTION_REPLACE,
  FERRY_CONFLICT_ACTION_KEEP_BOTH,
  FERRY_CONFLICT_ACTION_MERGE,  /* folders only */
  FERRY_CONFLICT_ACTION_CANCEL, /* cancel the whole job */
  FERRY_CONFLICT_ACTION_RENAME, /* copy under the name given: answer_rename() */
} FerryConflictAction;

/**
 * FerryErrorPolicy:
 * What a job does after a file fails. Failures of the destination itself
 * (no space left, I/O error, read-only) always stop the job, since every
 * following file would fail the same way.
 */
typedef enum
{
  FERRY_ERROR_POLICY_SKIP,
  FERRY_ERROR_POLICY_STOP,
} FerryErrorPolicy;

/**
 * FerryDeviceMode:
 * How a job decides the destination device's speed: from its class and
 * by measuring (auto), or as the caller says.
 */
typedef enum
{
  FERRY_DEVICE_MODE_AUTO,
  FERRY_DEVICE_MODE_FAST,
  FERRY_DEVICE_MODE_SLOW,
} FerryDeviceMode;

/**
 * FerrySlowMethod:
 * How data is written to a slow device: in windows that span files, each
 * window written out while the next fills (the default), or in chunks
 * with an fdatasync after each, for comparison.
 */
typedef enum
{
  FERRY_SLOW_METHOD_WINDOW,
  FERRY_SLOW_METHOD_CHUNK_SYNC,
} FerrySlowMethod;

/**
 * FerryCopyMethod:
 * How a job's data travels, as its progress reports it: on fast disks
 * by sharing extents, by copy_file_range or, where that is refused, by
 * sendfile; on slow devices in windows with durability points, or in
 * synced chunks.
 */
typedef enum
{
  FERRY_COPY_METHOD_NONE, /* the copy has not started */
  FERRY_COPY_METHOD_REFLINK,
  FERRY_COPY_METHOD_COPY_RANGE,
  FERRY_COPY_METHOD_SENDFILE,
  FERRY_COPY_METHOD_WINDOW,
  FERRY_COPY_METHOD_CHUNK_SYNC,
} FerryCopyMethod;

/**
 * FerryUnsupportedKind:
 * Why an entry cannot be stored as it is on the destination's
 * filesystem (FAT32, exFAT, NTFS), as found before anything is written.
 */
typedef enum
{
  FERRY_UNSUPPORTED_NAME_CHARACTERS, /* " * : < > ? \ | or control characters */
  FERRY_UNSUPPORTED_NAME_ENDING,     /* a trailing dot or space */
  FERRY_UNSUPPORTED_NAME_RESERVED,   /* CON, PRN, AUX, NUL, COM1, LPT1, ... */
  FERRY_UNSUPPORTED_NAME_TOO_LONG,   /* more than 255 UTF-16 code units */
  FERRY_UNSUPPORTED_NAME_ENCODING,   /* not valid UTF-8 */
  FERRY_UNSUPPORTED_CASE_COLLISION,  /* another name the drive sees as the same */
  FERRY_UNSUPPORTED_TOO_LARGE,       /* larger than the filesystem's largest file */
  FERRY_UNSUPPORTED_SYMLINK,
  FERRY_UNSUPPORTED_HARDLINK,        /* another name of a file copied already */
  FERRY_UNSUPPORTED_SPECIAL_FILE,    /* FIFO, socket or device node */
} FerryUnsupportedKind;

/**
 * FerryUnsupportedPolicy:
 * What a job does with entries its destination cannot store as they
 * are, decided once for all of them before the first byte.
 */
typedef enum
{
  FERRY_UNSUPPORTED_POLICY_STOP,  /* fail before writing anything, naming each */
  FERRY_UNSUPPORTED_POLICY_ASK,   /* emit FerryJob::unsupported and wait for the answer */
  FERRY_UNSUPPORTED_POLICY_ADAPT, /* rename, follow links, copy links apart; skip the rest */
  FERRY_UNSUPPORTED_POLICY_SKIP,  /* copy everything else */
} FerryUnsupportedPolicy;

/**
 * FerryUnsupportedAction:
 * The answer to a FerryUnsupportedReport.
 */
typedef enum
{
  FERRY_UNSUPPORTED_ACTION_NONE, /* nobody answered: the job stops before writing */
  FERRY_UNSUPPORTED_ACTION_ADAPT,
  FERRY_UNSUPPORTED_ACTION_SKIP,
  FERRY_UNSUPPORTED_ACTION_CANCEL,
} FerryUnsupportedAction;

const char *ferry_phase_to_string (FerryPhase phase);
gboolean ferry_copy_method_is_slow (FerryCopyMethod method);

G_END_DECLS
