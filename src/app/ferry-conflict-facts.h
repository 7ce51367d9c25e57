/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ferry-engine.h"

G_BEGIN_DECLS

/* Files up to this size are compared byte for byte to find out whether
 * the two are the same; larger ones would keep the question waiting. */
#define FERRY_CONFLICT_COMPARE_LIMIT (64 * 1024 * 1024)

/**
 * FerryConflictFacts:
 * What the conflict dialog shows besides the request's own facts, found
 * off the main thread: a picture of each file (its thumbnail, else the
 * icon of its type) and whether the two have the same content.
 */
typedef struct
{
  GIcon *existing_icon;
  GIcon *incoming_icon;
  gboolean same_content;
} FerryConflictFacts;

void ferry_conflict_facts_free (FerryConflictFacts *facts);

void ferry_conflict_facts_gather_async (FerryConflictRequest *request,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
FerryConflictFacts *ferry_conflict_facts_gather_finish (FerryConflictRequest *request,
                                                        GAsyncResult *result,
                                                        GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FerryConflictFacts, ferry_conflict_facts_free)

G_END_DECLS
