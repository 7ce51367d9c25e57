/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "ferry-adaptations.h"

/**
 * FerryAdaptations:
 * What the walk does differently with entries the destination cannot
 * store as they are, decided before the copy began: keyed by the
 * entry's source path (as FerryDirNode builds it). Read-only once the
 * copy runs, so workers share it without a lock.
 */
struct _FerryAdaptations
{
  GHashTable *by_path; /* char* → FerryAdaptation* */
};

static void
adaptation_free (gpointer data)
{
  FerryAdaptation *adaptation = data;

  g_free (adaptation->dst_name);
  g_free (adaptation);
}

FerryAdaptations *
ferry_adaptations_new (void)
{
  FerryAdaptations *self = g_new0 (FerryAdaptations, 1);

  self->by_path = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, adaptation_free);
  return self;
}

void
ferry_adaptations_free (FerryAdaptations *self)
{
  g_hash_table_unref (self->by_path);
  g_free (self);
}

void
ferry_adaptations_add (FerryAdaptations *self,
                       const char *src_path,
                       FerryAdaptKind kind,
                       const char *dst_name)
{
  FerryAdaptation *adaptation = g_new0 (FerryAdaptation, 1);

  adaptation->kind = kind;
  adaptation->dst_name = g_strdup (dst_name);
  g_hash_table_replace (self->by_path, g_strdup (src_path), adaptation);
}

const FerryAdaptation *
ferry_adaptations_lookup (FerryAdaptations *self, const char *src_path)
{
  return g_hash_table_lookup (self->by_path, src_path);
}

guint
ferry_adaptations_size (FerryAdaptations *self)
{
  return g_hash_table_size (self->by_path);
}
