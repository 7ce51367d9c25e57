/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-copy-target.h"
#include "ferry-counters.h"
#include "ferry-named-file.h"

G_BEGIN_DECLS

typedef struct _FerryFlusher FerryFlusher;
typedef void (*FerryFlusherSlowFunc) (gpointer user_data);

typedef enum
{
  FERRY_WINDOW_FAST,
  FERRY_WINDOW_SLOW,
  FERRY_WINDOW_UNTOLD, /* slow to read, but it kept up with all it was given */
} FerryWindowVerdict;

FerryFlusher *ferry_flusher_new (FerryCopyTarget *target,
                                 const char *probe_block,
                                 FerryFlusherSlowFunc on_slow,
                                 gpointer user_data);
gboolean ferry_flusher_wants_writeback (FerryFlusher *self);
void ferry_flusher_note_unstarted (FerryFlusher *self, guint64 bytes);
void ferry_flusher_wait_for_room (FerryFlusher *self, GCancellable *cancellable);
int ferry_flusher_stop (FerryFlusher *self);
gboolean ferry_flusher_vouch (FerryFlusher *self);
guint64 ferry_flusher_hold (FerryFlusher *self);
gboolean ferry_flusher_passed (FerryFlusher *self, guint64 ticket);
gboolean ferry_flusher_is_fast_by_class (FerryFlusher *self);
void ferry_flusher_note_named (FerryFlusher *self, FerryNamedFile *named);
gboolean ferry_flusher_take_file (FerryFlusher *self, FerryFileCopy *fc, int *errsv);
int ferry_flusher_name_taken (FerryFlusher *self);
void ferry_flusher_note_name_given (FerryFlusher *self, FerryFileCopy *fc);
int ferry_flusher_get_errno (FerryFlusher *self);
void ferry_flusher_settle_names (FerryFlusher *self, int errsv);
void ferry_flusher_free (FerryFlusher *self);
FerryWindowVerdict ferry_flusher_judge_window (double rate, gboolean held_up);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryFlusher, ferry_flusher_free)

G_END_DECLS
