/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-control.h"
#include "ferry-enums.h"
#include "ferry-file-copy.h"
#include "ferry-named-file.h"

G_BEGIN_DECLS

typedef struct _FerryStrategy FerryStrategy;
typedef struct _FerryCopyTarget FerryCopyTarget;

/* What became of a file handed to the strategy complete: */
typedef enum
{
  FERRY_COMMIT_FAILED, /* its data could not be made durable */
  FERRY_COMMIT_NOW,    /* the caller gives it its final name now */
  FERRY_COMMIT_LATER,  /* the strategy took it, and calls its durable() once its data is on
                          the device, for the name to be given then */
} FerryCommit;

/**
 * FerryStrategyClass:
 * How file data reaches the destination; one implementation per
 * strategy (ferry-strategy-fast.c, ferry-strategy-slow.c,
 * ferry-strategy-chunk-sync.c). A strategy copies one file's data, is
 * told of every chunk handed to the kernel, decides when a complete file
 * may get its final name, and makes everything durable at the end.
 *
 * @settle: every file it holds gets its name, or fails; returns the first
 *   errno met
 * @finish: its helpers stop; returns the first errno met
 * @note_named: a file it answered FERRY_COMMIT_NOW for got its name
 *   before its data was durable: the strategy takes @named, to keep the
 *   name only once it is (NULL: it never names a file before that)
 * @adopt_named: (optional) files the strategy before it named before
 *   their data was durable (FerryNamedFile); it takes them, and its next
 *   point vouches for them
 * @settle_names: the destination's final sync, after @finish, returned
 *   @errsv (0: it reached the device): the files it named since its last
 *   point learn whether their names are on the device
 * @vouch: waits for a sync that began after the call to return fine;
 *   FALSE when it has none to offer (NULL: never)
 * @hold: something waits for a sync that begins after the call, and
 *   does not block meanwhile: one comes soon; returns the ticket to ask
 *   @passed with (NULL: no such syncs)
 * @passed: whether a sync that began after @hold gave the ticket
 *   returned fine
 * @failure: the first failure of the device it met, or 0 (NULL: it
 *   keeps none)
 * @knows_fast: whether the device is known fast by its class (never
 *   measured); NULL: never
 * @sends_at_position: chunks go with sendfile, which writes at the
 *   copy's file position (so the pieces of one file cannot share it)
 * @names_later: given a file with durable() set, commit_file() takes it
 *   and answers FERRY_COMMIT_LATER
 */
typedef struct
{
  FerryCopyMethod (*get_method) (FerryStrategy *self);
  gboolean (*copy_data) (FerryStrategy *self, FerryFileCopy *fc, GError **error);
  gboolean (*chunk_written) (FerryStrategy *self,
                             FerryFileCopy *fc,
                             off_t offset,
                             size_t len,
                             GError **error);
  FerryCommit (*commit_file) (FerryStrategy *self, FerryFileCopy *fc, GError **error);
  int (*settle) (FerryStrategy *self);
  int (*finish) (FerryStrategy *self);
  void (*note_named) (FerryStrategy *self, FerryNamedFile *named);
  void (*adopt_named) (FerryStrategy *self, GPtrArray *named);
  void (*settle_names) (FerryStrategy *self, int errsv);
  gboolean (*vouch) (FerryStrategy *self);
  guint64 (*hold) (FerryStrategy *self);
  gboolean (*passed) (FerryStrategy *self, guint64 ticket);
  int (*failure) (FerryStrategy *self);
  gboolean (*knows_fast) (FerryStrategy *self);
  void (*free) (FerryStrategy *self);
  gboolean sends_at_position;
  gboolean names_later;
} FerryStrategyClass;

struct _FerryStrategy
{
  const FerryStrategyClass *klass;
  FerryCopyTarget *target; /* not owned: the target owns its strategies */
};

FerryCopyMethod ferry_strategy_get_method (FerryStrategy *self);
gboolean ferry_strategy_copy_data (FerryStrategy *self, FerryFileCopy *fc, GError **error);
gboolean ferry_strategy_chunk_written (FerryStrategy *self,
                                       FerryFileCopy *fc,
                                       off_t offset,
                                       size_t len,
                                       GError **error);
FerryCommit ferry_strategy_commit_file (FerryStrategy *self, FerryFileCopy *fc, GError **error);
FerryCommit ferry_strategy_name_after_point (FerryControl *control,
                                             FerryFileCopy *fc,
                                             int errsv,
                                             GError **error);
int ferry_strategy_settle (FerryStrategy *self);
int ferry_strategy_finish (FerryStrategy *self);
gboolean ferry_strategy_vouch (FerryStrategy *self);
gboolean ferry_strategy_holds (FerryStrategy *self);
guint64 ferry_strategy_hold (FerryStrategy *self);
gboolean ferry_strategy_passed (FerryStrategy *self, guint64 ticket);
int ferry_strategy_failure (FerryStrategy *self);
gboolean ferry_strategy_knows_fast (FerryStrategy *self);
void ferry_strategy_settle_names (FerryStrategy *self, int errsv);
gboolean ferry_strategy_notes_names (FerryStrategy *self);
void ferry_strategy_note_named (FerryStrategy *self, FerryNamedFile *named);
gboolean ferry_strategy_adopt_named (FerryStrategy *self, GPtrArray *named);
void ferry_strategy_free (FerryStrategy *self);

/* How much a slow strategy lets be on its way to the device at once:
 * about 0.4 s of the device's measured rate, 4 to 16 MB, starting at 8. */
#define FERRY_DEVICE_WINDOW_START (8 * 1024 * 1024)
guint64 ferry_device_window_follow (guint64 window, guint64 bytes, gint64 started_at);
guint64 ferry_device_window_follow_from (guint64 window,
                                         guint64 bytes,
                                         gint64 started_at,
                                         guint64 floor);

G_END_DECLS
